/* dynclash: dyn needing libtiny.so.1 and libclash.so.1, which overlap (see dyn.c) */
#define DYN_VARIANT 1
#include "dyn.c"
