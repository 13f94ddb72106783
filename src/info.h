/* aout2elf --info: a program and the load map of its conversion, or a library. */
#ifndef AOUT2ELF_INFO_H
#define AOUT2ELF_INFO_H

#include <stdio.h>

#include "aout.h"
#include "convert.h"
#include "diag.h"
#include "input.h"
#include "libs.h"
#include "plan.h"
#include "record.h"

/*
 * --info on one file, on out: a program, planned with o (libraries not
 * found are no error), a program aout2elf wrote, or an a.out shared
 * library.  -1 when it is none, with *d saying why it is no program.
 * json: as one JSON object on a line (info_json.c), not as text.
 */
int info_file(FILE *out, const char *path, const struct conv_options *o,
	      int json, struct diag *d);

void info_print(FILE *out, const char *name, const struct aout *a,
		const struct plan *p, const struct libset *libs);

/* For a file parsed as AOUT_SHLIB: where uselib() maps it, what it needs. */
void info_print_library(FILE *out, const char *name, const struct aout *a);

/* A converted program: what its .comment records (r empty: unreadable). */
void info_print_converted(FILE *out, const char *name, const struct record *r);

/*
 * The same three as JSON objects, one line each, with the keys the man
 * page lists ("Info in JSON"): in is the file's bytes, for size and sha256.
 */
void info_json_program(FILE *out, const char *name, const struct input *in,
		       const struct aout *a, const struct plan *p,
		       const struct libset *libs);
void info_json_library(FILE *out, const char *name, const struct input *in,
		       const struct aout *a);
void info_json_converted(FILE *out, const char *name, const struct record *r);

#endif
