/*
 * The record that names one a.out shared library, as the DLL tools of
 * libc 4 wrote it (their sharedlib.h): in a program's data, or a
 * library's, gathered by the linker into the set __SHARED_LIBRARIES__
 * (oldcrt0.h).  Included by oldcrt0.h and libtwo.c.
 */
#ifndef AOUT2ELF_LIBENTRY_H
#define AOUT2ELF_LIBENTRY_H

#include <stdint.h>

struct libentry {
	const char *name;  /* "/lib/libc.so.4" (SLS) or "libc.so.4" (Slackware) */
	const char *avers; /* the tools' version, "DLL Jump 4.4pl1": printed, never compared */
	uint32_t addr;     /* the library's jump table: its version word */
	uint32_t vers;     /* major << 16 | minor, the oldest that will do */
};

/* the fields of vers */
#define LIBENTRY_MAJOR_MASK 0x0fff0000u
#define LIBENTRY_MINOR_MASK 0x0000ffffu
#define LIBENTRY_CLASSIC_BIT 0x10000000u /* this very version: no other */

#endif
