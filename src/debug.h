/*
 * aout2elf --gdb FILE [ARG]...: gdb on a converted program, stopped at
 * its a.out entry point, where every breakpoint can be set.
 */
#ifndef AOUT2ELF_DEBUG_H
#define AOUT2ELF_DEBUG_H

#include <stddef.h>
#include <stdint.h>

#include "convert.h"
#include "diag.h"

/* Where gdb stops on the way to the a.out code. */
struct debug_stops {
	uint32_t mapped; /* in the stub's _start, once the a.out image is in place */
	uint32_t entry;  /* the a.out entry point */
};

/*
 * Pure: the stops of the converted program whose first size bytes are
 * buf (its ELF header and stub); 0, or -1 with d saying why (a file
 * aout2elf did not write, or whose stub starts otherwise).
 */
int debug_find_stops(const unsigned char *buf, size_t size,
		     struct debug_stops *s, struct diag *d);

/*
 * Runs gdb on argv[0] (converted first, into a temporary directory, if it
 * is an a.out) with argv[1...] as its arguments; returns gdb's exit
 * status, or 1 (127 where gdb cannot be run) with the reason printed.
 */
int debug_program(char **argv, const struct conv_options *o);

#endif
