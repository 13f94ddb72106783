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
	.long	3			/* STUB_ABI_VERSION */
	.long	_start - __stub_header	/* entry_off */
	.long	0			/* plan_off: written by aout2elf */
	.long	__stub_filesz
	.long	__stub_bss_size

	.text
	.globl	_start
_start:
	movl	%esp, %eax
	pushl	%eax
	call	stub_main		/* returns the a.out %esp */
	/*
	 * Below it: a_entry, kept at %esp until the ret, so that a signal
	 * delivered on the way cannot write over it; then where the stack the
	 * stub and exec wrote begins, and how many words of it to clear (see
	 * stack_dirty); the two words that said so are cleared after them,
	 * as the a.out loader's stack below the frame was zero.  eflags is
	 * set first, DF clear for stosl; what follows it changes no flag
	 * (mov, not xor).
	 */
	leal	-4(%eax), %esp
	movl	-4(%esp), %edi
	movl	-8(%esp), %ecx
	pushl	$0x200
	popfl
	movl	$0, %eax
	rep stosl
	movl	%eax, -4(%esp)
	movl	%eax, -8(%esp)
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

/* Signal return trampoline, so SIGSYS handling needs no vDSO. */
	.globl	stub_sigreturn
stub_sigreturn:
	movl	$173, %eax		/* rt_sigreturn */
	int	$0x80

/*
 * The same through the vDSO's gate, used when there is one: every trapped
 * call returns through here, and an int $0x80 can cost 30 times a
 * sysenter (7.7 us against 0.25 us on the VM this was written on).
 * rt_sigreturn takes its frame from (%esp at the system call) - 4;
 * __kernel_vsyscall pushes a return address and three registers first,
 * so %esp starts 16 bytes higher.  Those four words land on the frame's
 * sig, pinfo and puc fields and the first word of its siginfo, none of
 * which rt_sigreturn reads: it restores everything from the ucontext.
 */
	.globl	stub_sigreturn_vdso
stub_sigreturn_vdso:
	movl	$173, %eax		/* rt_sigreturn */
	addl	$16, %esp
	call	*stub_sysinfo
	hlt				/* not reached */

/*
 * void stub_resume(ucontext): back from a trap without rt_sigreturn, for
 * the traps on_sigsys answers by registers alone (see can_resume).  The
 * kernel wrote the FPU state just below the program's %esp and the
 * ucontext below that; the FPU state is restored first, with what the
 * kernel saved it with, and the 40 bytes under %esp it occupied then
 * carry the registers for popal, popfl and ret.  Whatever the stub still
 * needs always lies at or above %esp, where a signal delivered meanwhile
 * cannot write.
 */
	.globl	stub_resume
stub_resume:
	movl	4(%esp), %ecx
	addl	$20, %ecx		/* uc_mcontext: the saved registers */
	movl	76(%ecx), %esi		/* fpstate (checked not null) */
	cmpw	$0xffff, 110(%esi)	/* magic: fsave format only */
	je	2f
	addl	$112, %esi		/* the fxsave image, 64-byte aligned */
	cmpl	$0x46505853, 464(%esi)	/* FP_XSTATE_MAGIC1: xsave follows */
	jne	1f
	movl	472(%esi), %eax		/* the features it saved */
	movl	476(%esi), %edx
	xrstor	(%esi)
	jmp	3f
1:	fxrstor	(%esi)
	jmp	3f
2:	frstor	(%esi)
3:	movl	28(%ecx), %edx		/* the program's %esp */
	subl	$40, %edx
	movl	16(%ecx), %eax		/* popal's order: edi, esi, ebp, -, */
	movl	%eax, 0(%edx)
	movl	20(%ecx), %eax
	movl	%eax, 4(%edx)
	movl	24(%ecx), %eax
	movl	%eax, 8(%edx)
	movl	32(%ecx), %eax		/* ebx, edx, ecx, eax */
	movl	%eax, 16(%edx)
	movl	36(%ecx), %eax
	movl	%eax, 20(%edx)
	movl	40(%ecx), %eax
	movl	%eax, 24(%edx)
	movl	44(%ecx), %eax
	movl	%eax, 28(%edx)
	movl	64(%ecx), %eax		/* then eflags and eip */
	movl	%eax, 32(%edx)
	movl	56(%ecx), %eax
	movl	%eax, 36(%edx)
	movl	%edx, %esp
	popal
	popfl
	ret

	.section .note.GNU-stack,"",@progbits
