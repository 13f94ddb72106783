/* statedump with brk above 64 KiB: there the stub sets brk by prctl and
 * traps nothing (see statedump.c). */
#define STATEDUMP_BSS_PAD 65536
#include "statedump.c"
