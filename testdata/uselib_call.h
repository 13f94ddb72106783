/*
 * uselib_call(path): uselib(2) made as ld.so 1.x and Slackware's crt0
 * made it, byte for byte (lib/ld.so and oldlinux/gzip of the corpus):
 *
 *	53              pushl %ebx
 *	b8 56 00 00 00  movl  $86, %eax
 *	8b 5c 24 08     movl  8(%esp), %ebx
 *	cd 80           int   $0x80
 *
 * the sequence aout2elf rewrites into a call of its stub (syscall_sites.h),
 * where the generic sys1() of fixture.h is answered only by a trap.
 */
#ifndef AOUT2ELF_USELIB_CALL_H
#define AOUT2ELF_USELIB_CALL_H

long uselib_call(const char *path);

__asm__(".text\n"
	"uselib_call:\n"
	"	pushl	%ebx\n"
	"	movl	$86, %eax\n"
	"	movl	8(%esp), %ebx\n"
	"	int	$0x80\n"
	"	popl	%ebx\n"
	"	ret\n");

#endif
