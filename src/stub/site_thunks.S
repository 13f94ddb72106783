/*
 * What the rewritten call sites call (syscall_sites.h): the a.out code's
 * `int $0x80` became `call` one of these, on the program's stack, with the
 * call's arguments in %ebx, %ecx, %edx.  Like the kernel, they leave every
 * register but %eax as it was, the flags too, and return the answer
 * (-errno on failure) in %eax.  The C they call wants DF clear.
 */
	.text
/*
 * site_thunk NAME, ANSWER: NAME calls ANSWER(%ebx, %ecx, %edx) in C;
 * one that takes fewer arguments ignores the rest (cdecl).
 */
	.macro	site_thunk name, answer
	.globl	\name
\name:
	pushfl
	cld
	pushl	%ecx
	pushl	%edx
	pushl	%edx
	pushl	%ecx
	pushl	%ebx
	call	\answer
	addl	$12, %esp
	popl	%edx
	popl	%ecx
	popfl
	ret
	.endm

	site_thunk stub_uselib_thunk, do_uselib		/* (path) */
	site_thunk stub_open_thunk, do_open_from_ldso	/* (path, flags, mode) */
	site_thunk stub_readdir_thunk, do_readdir	/* (fd, dirent, count) */

	.section .note.GNU-stack,"",@progbits
