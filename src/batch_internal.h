/*
 * What the steps of batch mode share; src/batch.c runs them in order,
 * and the data passes through them so:
 *
 *   batch_collect.c   the INPUTs, and with -r their trees, become entries,
 *                     each paired with its place under -O DIR;
 *   batch_outputs.c   what every output names before anything is written,
 *                     and which entries would write one output;
 *   batch_workers.c   worker processes take the entries one by one and
 *                     leave each result in shared memory;
 *   batch_convert.c   one entry, in a worker: batch_decide.c says whether
 *                     its output is up to date, or must be left alone;
 *   batch_warnings.c  its warnings, whole, from the worker to this process;
 *   batch_progress.c  what the terminal shows as results come in;
 *   batch_hints.c     the command that fixes a failure, where one can;
 *   batch_report.c    the JSON report of --report.
 */
#ifndef AOUT2ELF_BATCH_INTERNAL_H
#define AOUT2ELF_BATCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "batch.h"

/* A file's identity: the inputs of a batch are never overwritten. */
struct file_id {
	dev_t dev;
	ino_t ino;
};

/* Where an entry's warnings lie in the shared file (batch_warnings.c). */
struct batch_warning_span {
	uint64_t at, len;
};

struct batch_warnings {
	int fd;                          /* the shared file; -1: none */
	uint64_t *end;                   /* shared: its end, reserved so far */
	struct batch_warning_span *span; /* shared: one per entry */
	size_t n;
};

struct batch {
	struct batch_entry *e;
	size_t n, cap;
	struct file_id *inputs; /* sorted: every regular file among the inputs */
	size_t ninputs;
	struct file_id outdir;  /* -O DIR, which -r does not walk */
	const struct batch_options *b;
	const struct conv_options *o;
	struct conv_result *results; /* shared with the workers */
	struct file_id *written;     /* shared: the file each entry converted into */
	struct batch_warnings warnings;
	char *comment;               /* what conv_comment says of this run's outputs */
	size_t done, failed, counts[4];
	double start;
	int progress;
};

static inline void batch_set_status(struct conv_result *r, enum conv_status s,
				    const char *reason)
{
	r->status = s;
	snprintf(r->reason, sizeof r->reason, "%s", reason);
}

/* Reasons that name a fix, which batch_fix_message completes with the command. */
#define BATCH_REASON_DIRECTORY "is a directory (use -r to convert its tree)"
#define BATCH_REASON_LINK "exists, and is a symbolic link (-f replaces the link)"
#define BATCH_REASON_FOREIGN \
	"exists, and is neither aout2elf's output nor a copy of the input (-f replaces it)"

/* Step 1 (batch_collect.c): the entries, and the inputs' identities; -1
 * without memory. */
int batch_collect(struct batch *bt, char *const *inputs, size_t n);
/* 1 if st is one of the inputs of the batch. */
int batch_is_input(const struct batch *bt, const struct stat *st);

/* Step 1b (batch_outputs.c): what each output names before anything is
 * written (out_existed, out_dev, out_ino, out_unlisted). */
void batch_note_outputs(struct batch *bt);

/* Step 2 (batch_workers.c): every entry converted, and reported as it is
 * done; -1 if a worker process failed. */
int batch_run_workers(struct batch *bt);

/* Step 2, one entry (batch_convert.c): its result into the shared slot. */
void batch_convert_entry(const struct batch *bt, size_t i);

/*
 * Step 2 to 3 (batch_warnings.c): open, -1 without memory; keep, in the
 * worker, moves r->warning into the shared file (or prints it there and
 * then, without one); take, here, gives entry i's back (malloc'ed, NULL:
 * none).
 */
int batch_warnings_open(struct batch_warnings *w, size_t n);
void batch_warnings_keep(const struct batch_warnings *w, size_t i,
			 struct conv_result *r);
char *batch_warnings_take(const struct batch_warnings *w, size_t i);
void batch_warnings_close(struct batch_warnings *w);

/*
 * Step 2, the decisions for one entry (batch_decide.c).  The up-to-date
 * one only answers; the batch_refuse_if_ ones, when they answer 1, have
 * set r's status and reason: the entry is not converted.
 */
/* 1 if entry i's output (in: its input's stat) needs no conversion. */
int batch_up_to_date(const struct batch *bt, size_t i, const struct stat *in);
int batch_refuse_if_output_taken(const struct batch *bt, size_t i,
				 struct conv_result *r);
int batch_refuse_if_output_changed(const struct batch *bt, size_t i,
				   struct conv_result *r);
int batch_refuse_if_output_kept(const struct batch *bt, size_t i,
				const struct stat *in, const struct input *input,
				struct conv_result *r);

/* Step 3 (batch_progress.c): the terminal. */
double batch_now(void);
void batch_progress(const struct batch *bt, int final);
/* Counts entry i's result, and says what there is to say of it. */
void batch_finished(struct batch *bt, size_t i);
/* The one-line summary at the end, unless -q. */
void batch_summary(const struct batch *bt);

/*
 * Step 3 (batch_hints.c): entry i's failure, where its reason names a fix,
 * as said with the command that makes it (malloc'ed); NULL otherwise.
 */
char *batch_fix_message(const struct batch *bt, size_t i);

/* Step 3 (batch_report.c): the JSON report into path; 0, or -1 said. */
int batch_save_report(const char *path, const struct batch *bt);

#endif
