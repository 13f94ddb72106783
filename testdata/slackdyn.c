/* slackdyn: Slackware's crt0, libtiny.so.1 and libtwo.so.1 by bare name (see olddyn.c) */
#include "crt0_slack.h"
#define OLDDYN_NAME "slackdyn"
#define OLDDYN_TWO
#include "olddyn.c"
