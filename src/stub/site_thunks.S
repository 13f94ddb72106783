/*
 * What the rewritten call sites call (syscall_sites.h): the a.out code's
 * `int $0x80` became `call` one of these, on the program's stack, with the
 * call's arguments in %ebx, %ecx, %edx.  Like the kernel, they leave every
 * register but %eax as it was, the flags too, and return the answer
 * (-errno on failure) in %eax.  The C they call wants DF clear.
 */
	.text
	.globl	stub_uselib_thunk
stub_uselib_thunk:
	pushfl
	cld
	pushl	%ecx
	pushl	%edx
	pushl	%ebx
	call	do_uselib		/* (const char *path) */
	addl	$4, %esp
	popl	%edx
	popl	%ecx
	popfl
	ret

	.globl	stub_open_thunk
stub_open_thunk:
	pushfl
	cld
	pushl	%ecx
	pushl	%edx
	pushl	%edx
	pushl	%ecx
	pushl	%ebx
	call	do_open_from_ldso	/* (path, flags, mode) */
	addl	$12, %esp
	popl	%edx
	popl	%ecx
	popfl
	ret

	.globl	stub_readdir_thunk
stub_readdir_thunk:
	pushfl
	cld
	pushl	%ecx
	pushl	%edx
	pushl	%edx
	pushl	%ecx
	pushl	%ebx
	call	do_readdir		/* (fd, dirent, count) */
	addl	$12, %esp
	popl	%edx
	popl	%ecx
	popfl
	ret

	.section .note.GNU-stack,"",@progbits
