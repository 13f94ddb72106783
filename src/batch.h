/*
 * Batch mode: many inputs (folders walked with -r) converted into one
 * output folder by parallel worker processes, with progress on a
 * terminal, a one-line summary and an optional JSON report.
 */
#ifndef AOUT2ELF_BATCH_H
#define AOUT2ELF_BATCH_H

#include <stddef.h>
#include <sys/types.h>

#include "convert.h"

struct batch_options {
	const char *outdir;
	int recursive;
	int jobs;           /* worker processes, >= 1 */
	const char *report; /* JSON report path, or NULL */
	int quiet;          /* no progress, no summary, no warnings */
	int verbose;        /* a line per converted file */
	char *const *argv;  /* the command line (NULL-terminated), which the
			       commands that fix a failure rerun */
};

/* Exit status: 1 if any a.out could not be converted (or the report), else 0. */
int batch_run(char *const *inputs, size_t ninputs, const struct batch_options *b,
	      const struct conv_options *o);

/*
 * 1 if path is a file that --report must not replace: an existing regular
 * file that is no report ("--report prog1 prog2" would destroy prog1).
 */
int batch_report_clobbers(const char *path);

/* The JSON report for n results; exposed for the unit tests. */
struct batch_entry {
	char *input;
	char *output;
	size_t output_of; /* 1 + index of an earlier entry with this output, or 0 */
	int named;        /* an INPUT operand itself (its link is followed), not found by -r */
	int out_existed;  /* output named a file when the batch began: */
	dev_t out_dev;    /* that file, so that two names of one file (a */
	ino_t out_ino;    /* linked folder, a case-blind file system) are one output */
	int out_unlisted; /* output exists, but its folder lists no such name: it is
			     another spelling of a name there (case-blind file system) */
	struct conv_result r;
	char *message;    /* r.reason with the command that fixes it (malloc'ed),
			     or NULL: r.reason as it is */
};

int batch_write_report(FILE *f, const struct batch_entry *e, size_t n);

/*
 * Sets output_of for every entry whose output an earlier entry already
 * has: the same name (two INPUTs of the same name into one -O DIR), or
 * another name of the same existing file; and for an unlisted output,
 * the entry whose output differs from it in case only.  Returns how many.
 */
size_t batch_find_shared_outputs(struct batch_entry *e, size_t n);

#endif
