/* aout2elf --info: the header and the load map of the converted program. */
#ifndef AOUT2ELF_INFO_H
#define AOUT2ELF_INFO_H

#include <stdio.h>

#include "aout.h"
#include "libs.h"
#include "plan.h"

void info_print(FILE *out, const char *name, const struct aout *a,
		const struct plan *p, const struct libset *libs);

/* For a file parsed as AOUT_SHLIB: where uselib() maps it, what it needs. */
void info_print_library(FILE *out, const char *name, const struct aout *a);

#endif
