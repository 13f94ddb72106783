/*
 * How the stub's SIGSYS handler returns to the program: by rt_sigreturn
 * (through int $0x80 or the vDSO's gate), or, for a trap answered by
 * registers alone, by restoring them itself (stub_resume).  Needs
 * stub_sysinfo (the vDSO's __kernel_vsyscall) and nothing else of the
 * stub's, so that bench/syscost can time both ways with this same code.
 */
	.text
/* Signal return trampoline, so SIGSYS handling needs no vDSO. */
	.globl	stub_sigreturn
stub_sigreturn:
	movl	$173, %eax		/* rt_sigreturn */
	int	$0x80

/*
 * The same through the vDSO's gate, used when there is one: every trap
 * that stub_resume does not return from comes back through here, and an
 * int $0x80 can cost many times a sysenter (make bench, row "int $0x80
 * (a.out code, stub) / vDSO (glibc)").
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
