/*
 * dynbig: dyn with 64 KiB of data (see dyn.c), so that its brk lies above
 * 64 KiB and the stub sets it exactly: only uselib and what concerns
 * SIGSYS are trapped, not every handler and mask call.  Its uselib goes
 * through the generic sys1(), which no conversion rewrites: the trap is
 * what answers it.
 */
#define DYN_VARIANT 0
#define DYN_GENERIC_USELIB
#include "dyn.c"

uint32_t dynbig_data[16384] = { 1 };
