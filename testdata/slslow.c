/* slslow: SLS's crt0, /lib/libtiny.so.1 and /lib/liblow.so.1 at 0x10000000 (see olddyn.c) */
#include "crt0_sls.h"
#define OLDDYN_NAME "slslow"
#define OLDDYN_LOW
#include "olddyn.c"
