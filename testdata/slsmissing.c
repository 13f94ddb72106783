/* slsmissing: SLS's crt0, /lib/libtiny.so.1 and /lib/libmissing.so.1 (nobody has it; olddyn.c) */
#include "crt0_sls.h"
#define OLDDYN_NAME "slsmissing"
#define OLDDYN_MISSING
#include "olddyn.c"
