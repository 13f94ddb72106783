/* dynmissing: dyn needing libtiny.so.1 and libmissing.so.1, which nobody has (see dyn.c) */
#define DYN_VARIANT 2
#include "dyn.c"
