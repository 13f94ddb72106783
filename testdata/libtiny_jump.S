/*
 * The jump table of libtiny.so.1 (see tiny.h): first in the library's
 * text (aout-lib.ld puts .text.jumptable first, at LIB_BASE + 32).  The
 * .org lines keep every slot at the offset tiny.h gives it; the assembler
 * stops with an error if a slot outgrew its 8 bytes.
 *
 * The build gives TINY_VERSION (major << 16 | minor, e.g.
 * TINY_VERSION_1_2_3) and TINY_LIB_BASE (TINY_BASE, or CLASH_BASE for
 * libclash.so.1), which becomes LIB_BASE, where aout-lib.ld links it.
 */
#include "tiny.h"

#if !defined TINY_VERSION || !defined TINY_LIB_BASE
#error "build libtiny with -DTINY_VERSION=... -DTINY_LIB_BASE=..."
#endif

	.globl	LIB_BASE
	.set	LIB_BASE, TINY_LIB_BASE

	.section .text.jumptable,"ax",@progbits
	.balign	8
	.globl	tiny_jump_table
	.type	tiny_jump_table, @object
tiny_jump_table:
	.long	TINY_VERSION
	.long	0

	.macro	slot k, fn
	.org	TINY_SLOT_OFFSET(\k), 0x90
	jmp	\fn
	.endm

	slot	TINY_SLOT_GREET, tiny_greet
	slot	TINY_SLOT_COUNT, tiny_count
	slot	TINY_SLOT_BSS_SUM, tiny_bss_sum
	slot	TINY_SLOT_BSS_POKE, tiny_bss_poke
	slot	TINY_SLOT_MESSAGE, tiny_message
	slot	TINY_SLOT_BRK, tiny_brk
	.org	TINY_SLOT_OFFSET(TINY_NSLOTS), 0x90
	.size	tiny_jump_table, . - tiny_jump_table

	.section .note.GNU-stack,"",@progbits
