/*
 * Entry of every a.out test fixture (see fixture.h).
 *
 * _start is the first thing in the text (the linker scripts put
 * .text.entry first), so a_entry is 0x1020 for QMAGIC and 0 otherwise.
 * Its first instruction must stay "movl %eax, entry_regs" (opcode 0xa3):
 * startup.c looks for that byte at the start of the text.
 *
 * Nothing before the pushfl may change the flags: mov does not.
 */
	.section .text.entry,"ax",@progbits
	.globl	_start
	.type	_start, @function
_start:
	movl	%eax, entry_regs + 0
	movl	%ebx, entry_regs + 4
	movl	%ecx, entry_regs + 8
	movl	%edx, entry_regs + 12
	movl	%esi, entry_regs + 16
	movl	%edi, entry_regs + 20
	movl	%ebp, entry_regs + 24
	pushfl
	popl	entry_regs + 28
	movw	%cs, entry_regs + 32
	movw	$0, entry_regs + 34
	movw	%ds, entry_regs + 36
	movw	$0, entry_regs + 38
	movw	%es, entry_regs + 40
	movw	$0, entry_regs + 42
	movw	%fs, entry_regs + 44
	movw	$0, entry_regs + 46
	movw	%gs, entry_regs + 48
	movw	$0, entry_regs + 50
	movw	%ss, entry_regs + 52
	movw	$0, entry_regs + 54
	/*
	 * Programs that define fixture_stack_scan_words (startup) look below
	 * the entry %esp before anything else writes there: the address of the
	 * first word that is not zero, from 8 bytes down (pushfl wrote the word
	 * at 4), or 0.  Others skip it (a weak symbol, 0 where undefined).
	 */
	movl	$fixture_stack_scan_words, %ecx
	jecxz	3f
	leal	-8(%esp), %esi
1:	cmpl	$0, (%esi)
	jne	2f
	subl	$4, %esi
	loop	1b
	movl	$0, %esi
2:	movl	%esi, entry_stack_dirty
3:
	movl	%esp, %eax		/* the entry %esp: argc */
	andl	$-16, %esp
	subl	$12, %esp
	pushl	%eax
	call	fixture_main
	movl	%eax, %ebx
1:	movl	$1, %eax		/* exit(fixture_main(...)) */
	int	$0x80
	jmp	1b
	.size	_start, . - _start

	.text
/* void *memset(void *s, int c, size_t n) */
	.globl	memset
	.type	memset, @function
memset:
	pushl	%edi
	movl	8(%esp), %edi
	movl	12(%esp), %eax
	movl	16(%esp), %ecx
	cld
	rep stosb
	movl	8(%esp), %eax
	popl	%edi
	ret
	.size	memset, . - memset

/* void *memcpy(void *d, const void *s, size_t n) */
	.globl	memcpy
	.type	memcpy, @function
memcpy:
	pushl	%edi
	pushl	%esi
	movl	12(%esp), %edi
	movl	16(%esp), %esi
	movl	20(%esp), %ecx
	cld
	rep movsb
	movl	12(%esp), %eax
	popl	%esi
	popl	%edi
	ret
	.size	memcpy, . - memcpy

/* signal return trampolines, for sa_restorer */
	.globl	fixture_rt_sigreturn
	.type	fixture_rt_sigreturn, @function
fixture_rt_sigreturn:
	movl	$173, %eax		/* rt_sigreturn */
	int	$0x80
	.size	fixture_rt_sigreturn, . - fixture_rt_sigreturn

	.globl	fixture_sigreturn
	.type	fixture_sigreturn, @function
fixture_sigreturn:
	popl	%eax
	movl	$119, %eax		/* sigreturn */
	int	$0x80
	.size	fixture_sigreturn, . - fixture_sigreturn

	.data
	.balign	4
	.globl	entry_regs
	.type	entry_regs, @object
entry_regs:
	.rept	14
	.long	0xdeadbeef		/* overwritten by _start */
	.endr
	.size	entry_regs, . - entry_regs
	.globl	entry_stack_dirty
	.type	entry_stack_dirty, @object
entry_stack_dirty:
	.long	0
	.size	entry_stack_dirty, . - entry_stack_dirty
	.weak	fixture_stack_scan_words

/* placed after all other bss by the linker scripts (*(.lastbss)) */
	.section .lastbss,"aw",@nobits
	.balign	4
	.globl	bss_last
	.type	bss_last, @object
bss_last:
	.skip	4
	.size	bss_last, 4

	.section .note.GNU-stack,"",@progbits
