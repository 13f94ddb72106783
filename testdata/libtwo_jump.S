/*
 * The jump table of libtwo.so.1 (see two.h), first in its text, as
 * libtiny_jump.S has libtiny's.
 */
#include "two.h"

	.globl	LIB_BASE
	.set	LIB_BASE, TWO_BASE

	.section .text.jumptable,"ax",@progbits
	.balign	8
	.globl	two_jump_table
	.type	two_jump_table, @object
two_jump_table:
	.long	TWO_VERSION_1_0_0
	.long	0

	.macro	slot k, fn
	.org	TINY_SLOT_OFFSET(\k), 0x90
	jmp	\fn
	.endm

	slot	TWO_SLOT_GREET, two_greet
	slot	TWO_SLOT_COUNT, two_count
	.org	TINY_SLOT_OFFSET(TWO_NSLOTS), 0x90
	.size	two_jump_table, . - two_jump_table

	.section .note.GNU-stack,"",@progbits
