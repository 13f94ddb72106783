/* slackmissing: Slackware's crt0, libtiny.so.1 and libmissing.so.1 (nobody has it; olddyn.c) */
#include "crt0_slack.h"
#define OLDDYN_NAME "slackmissing"
#define OLDDYN_MISSING
#include "olddyn.c"
