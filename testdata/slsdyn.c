/* slsdyn: SLS's crt0, /lib/libtiny.so.1 and /lib/libtwo.so.1 by full path (see olddyn.c) */
#include "crt0_sls.h"
#define OLDDYN_NAME "slsdyn"
#define OLDDYN_TWO
#include "olddyn.c"
