/*
 * libtiny.so.1: a small a.out shared library ("jump table" library, as
 * libc 4 built them with the DLL tools), and the contract between it and
 * the programs that use it (dyn.c).  Included by libtiny_jump.S,
 * libtiny.c and dyn.c.
 *
 * The library is linked at a fixed address (LIB_BASE) by aout-lib.ld and
 * written by "mkaout -l": QMAGIC, the
 * a.out header at LIB_BASE, the jump table right after it at
 * LIB_BASE + 32 (the ZMAGIC build keeps the jump table there too, after 32
 * bytes of zeros).  The jump table is:
 *
 *	+0	the library's version, major << 16 | minor (minor = 100x + y
 *		for "major.x.y"): what ld.so and aout2elf compare with the
 *		version in the program's libentry
 *	+4	0
 *	+8 + 8k	slot k: "jmp function", padded with nops to 8 bytes
 *
 * A program calls slot k at its fixed address, never the function behind
 * it, so a newer library may move its functions freely.
 *
 * The same sources give libclash.so.1, linked at LIB_BASE = CLASH_BASE
 * where it overlaps libtiny's bss, for the converter's overlap check, and
 * liblow.so.1, linked at LOW_BASE, far below where libraries used to lie
 * (SLS's /lib/libemu lay at 0x10000000; its entry point, the address it
 * is mapped at, is outside the text of any program).
 */
#ifndef AOUT2ELF_TINY_H
#define AOUT2ELF_TINY_H

#define TINY_BASE 0x61000000	/* libtiny.so.1: 0x61000000-0x61006000 */
#define CLASH_BASE 0x61004000	/* libclash.so.1: in libtiny's bss pages */
#define LOW_BASE 0x10000000	/* liblow.so.1: where /lib/libemu was */

#define TINY_JUMP_OFFSET 32	/* the jump table, after the a.out header */
#define TINY_SLOT_OFFSET(k) (8 + 8 * (k))

/* the slots */
#define TINY_SLOT_GREET 0	/* int tiny_greet(int fd) */
#define TINY_SLOT_COUNT 1	/* int tiny_count(void) */
#define TINY_SLOT_BSS_SUM 2	/* uint32_t tiny_bss_sum(void) */
#define TINY_SLOT_BSS_POKE 3	/* uint32_t tiny_bss_poke(uint32_t i, uint32_t v) */
#define TINY_SLOT_MESSAGE 4	/* const char *tiny_message(void) */
#define TINY_SLOT_BRK 5		/* long tiny_brk(uint32_t addr): brk from the library */
#define TINY_NSLOTS 6

/* versions: major << 16 | (100 * x + y) for major.x.y */
#define TINY_VERSION_1_0_0 0x10000	/* libclash.so.1 */
#define TINY_VERSION_1_1_0 0x10064	/* old/libtiny.so.1: too old */
#define TINY_VERSION_1_2_0 0x100c8	/* what dyn needs */
#define TINY_VERSION_1_2_3 0x100cb	/* libtiny.so.1 */
#define TINY_VERSION_2_0_0 0x20000	/* major2/libtiny.so.1: other major */
/* classic/libtiny.so.1: 1.2.3 with the DLL tools' CLASSIC bit, which a
 * program's libentry sets to want this very word (olddyn.c) */
#define TINY_VERSION_1_2_3_CLASSIC 0x100100cb

/* what the library holds, for the checks in dyn.c */
#define TINY_GREETING "hello from libtiny\n"
#define TINY_COUNTER_START 41
#define TINY_BSS_WORDS 4096	/* 16 KiB: the bss needs 4 zero pages past the data */

#ifndef __ASSEMBLER__
#include <stdint.h>

#define TINY_JUMP_TABLE(base) ((uint32_t)(base) + TINY_JUMP_OFFSET)
#define TINY_SLOT(base, k) (TINY_JUMP_TABLE(base) + TINY_SLOT_OFFSET(k))

int tiny_greet(int fd);
int tiny_count(void);
uint32_t tiny_bss_sum(void);
uint32_t tiny_bss_poke(uint32_t i, uint32_t v);
const char *tiny_message(void);
long tiny_brk(uint32_t addr);
#endif

#endif
