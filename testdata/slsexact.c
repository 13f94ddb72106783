/* slsexact: SLS's crt0, /lib/libtiny.so.1 exactly 1.2.3 (the CLASSIC bit; see olddyn.c) */
#include "crt0_sls.h"
#define OLDDYN_NAME "slsexact"
#define OLDDYN_EXACT
#include "olddyn.c"
