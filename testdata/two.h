/*
 * libtwo.so.1: a second a.out shared library, at its own fixed address,
 * that calls libtiny.so.1 through libtiny's jump table (tiny.h), as
 * libXt called libc.  Its own libentries (in its data, a set without
 * crt0's dummy) name libtiny "/libtiny.so.1", where the programs of
 * olddyn.c say "/lib/libtiny.so.1" or "libtiny.so.1": the same file under
 * a second name.  No loader ever mapped what a library's libentries name
 * (crt0 maps the program's list only): they say what the library was
 * built against.  Included by libtwo_jump.S, libtwo.c and olddyn.c.
 *
 * Laid out as libtiny (tiny.h): QMAGIC, the a.out header at TWO_BASE, the
 * jump table at TWO_BASE + 32: the version word, 0, then one 8-byte slot
 * per function.
 */
#ifndef AOUT2ELF_TWO_H
#define AOUT2ELF_TWO_H

#include "tiny.h"

#define TWO_BASE 0x62000000	/* libtwo.so.1: 0x62000000-0x62002000 */
#define TWO_VERSION_1_0_0 0x10000

/* the slots (TINY_SLOT_OFFSET) */
#define TWO_SLOT_GREET 0	/* int two_greet(int fd): writes TWO_GREETING */
#define TWO_SLOT_COUNT 1	/* int two_count(void): libtiny's tiny_count, through its slot */
#define TWO_NSLOTS 2

#define TWO_GREETING "hello from libtwo\n"

#ifndef __ASSEMBLER__
int two_greet(int fd);
int two_count(void);
#endif

#endif
