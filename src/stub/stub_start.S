/*
 * Entry of every converted program, and the stub's only system-call gate.
 *
 * The kernel enters here with the ELF stack.  stub_main maps the a.out
 * image, sets brk and rewrites the stack into the a.out frame; what is
 * left here is to hand the CPU over in the state the a.out loader left it:
 * general registers zero, eflags 0x200, %esp on argc.
 */
	.section .stub_header,"a"
	.globl	__stub_header
__stub_header:
	.long	0x53453241		/* STUB_MAGIC */
	.long	5			/* STUB_ABI_VERSION */
	.long	_start - __stub_header	/* entry_off */
	.long	0			/* plan_off: written by aout2elf */
	.long	__stub_filesz
	.long	__stub_bss_size
	.long	stub_uselib_thunk - __stub_header
	.long	stub_open_thunk - __stub_header
	.long	stub_readdir_thunk - __stub_header

	.text
	.globl	_start
/* aout2elf --gdb stops where the call returns: it checks these three
 * instructions' bytes (src/debug.c); change them together */
_start:
	movl	%esp, %eax
	pushl	%eax
	call	stub_main		/* returns the a.out %esp */
	/*
	 * Below it: a_entry, for the ret; then where the stack the stub and
	 * exec wrote begins, and how many words of it to clear (see
	 * stack_dirty); the two words that said so are cleared after them,
	 * as the a.out loader's stack below the frame was zero.  All that is
	 * written while %esp lies below it, as no program may write under its
	 * stack pointer (a signal would overwrite it; memcheck would say so).
	 * eflags is set first, DF clear for stosl; what follows it changes no
	 * flag (mov, not xor).
	 */
	pushl	$0x200			/* into what is cleared below */
	popfl
	movl	%eax, %ebx
	movl	-8(%ebx), %edi
	movl	-12(%ebx), %ecx
	movl	%edi, %esp
	movl	$0, %eax
	rep stosl
	movl	%eax, -8(%ebx)
	movl	%eax, -12(%ebx)
	leal	-4(%ebx), %esp
	movl	%eax, %fs		/* start_thread_ia32 cleared both; */
	movl	%eax, %gs		/* qemu-user leaves %gs set */
	movl	$0, %ebx
	movl	$0, %edx
	movl	$0, %esi
	movl	$0, %edi
	movl	$0, %ebp
	ret				/* to a_entry, leaving %esp on argc */

/*
 * long stub_syscall_via(gate, long nr, long a1, ..., long a6): -errno on
 * error.  gate is the vDSO's __kernel_vsyscall, or 0 for int $0x80.
 */
	.globl	stub_syscall_via
stub_syscall_via:
	pushl	%ebp
	pushl	%edi
	pushl	%esi
	pushl	%ebx
	movl	24(%esp), %eax
	movl	28(%esp), %ebx
	movl	32(%esp), %ecx
	movl	36(%esp), %edx
	movl	40(%esp), %esi
	movl	44(%esp), %edi
	movl	48(%esp), %ebp
	cmpl	$0, 20(%esp)
	je	1f
	call	*20(%esp)
	jmp	2f
1:	int	$0x80
2:	popl	%ebx
	popl	%esi
	popl	%edi
	popl	%ebp
	ret

	.section .note.GNU-stack,"",@progbits
