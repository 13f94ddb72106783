/* aout2elf --info: a program and the load map of its conversion, or a library. */
#ifndef AOUT2ELF_INFO_H
#define AOUT2ELF_INFO_H

#include <stdio.h>

#include "aout.h"
#include "convert.h"
#include "diag.h"
#include "libs.h"
#include "plan.h"

/*
 * --info on one file, on out: a program, planned with o (libraries not
 * found are no error), or else an a.out shared library.  -1 when it is
 * neither, with *d saying why it is no program.
 */
int info_file(FILE *out, const char *path, const struct conv_options *o,
	      struct diag *d);

void info_print(FILE *out, const char *name, const struct aout *a,
		const struct plan *p, const struct libset *libs);

/* For a file parsed as AOUT_SHLIB: where uselib() maps it, what it needs. */
void info_print_library(FILE *out, const char *name, const struct aout *a);

#endif
