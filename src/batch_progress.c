/*
 * Batch mode, step 3, on the terminal: failures and warnings as they
 * come, a line per converted file with -v, progress on a terminal, and
 * the summary line at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "batch_internal.h"

double batch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void batch_progress(const struct batch *bt, int final)
{
	if (!bt->progress)
		return;
	fprintf(stderr, "\r\033[K");
	if (!final)
		fprintf(stderr, "aout2elf: %zu/%zu done, %zu failed, %.1fs",
			bt->done, bt->n, bt->failed, batch_now() - bt->start);
	fflush(stderr);
}

/* One finished entry. */
void batch_finished(struct batch *bt, size_t i)
{
	struct batch_entry *e = &bt->e[i];
	const struct conv_result *r = &bt->results[i];
	char *warning = batch_warnings_take(&bt->warnings, i);

	bt->done++;
	bt->counts[r->status]++;
	if (r->status == CONV_FAILED || warning ||
	    (bt->b->verbose && r->status == CONV_CONVERTED)) {
		batch_progress(bt, 1);
		if (r->status == CONV_FAILED) {
			bt->failed++;
			e->message = batch_fix_message(bt, i);
			diag_print(r->reason_is_output ? e->output : e->input,
				   e->message ? e->message : r->reason);
		}
		if (warning)
			fputs(warning, stderr); /* whole lines, prefixed */
		if (bt->b->verbose && r->status == CONV_CONVERTED) {
			char what[sizeof r->format + 40];

			conv_describe(what, sizeof what, r, bt->o->plan.no_embed_libs);
			diag_converted(e->input, e->output, what);
		}
	}
	free(warning);
	batch_progress(bt, 0);
}

void batch_summary(const struct batch *bt)
{
	if (!bt->b->quiet)
		fprintf(stderr, "aout2elf: %zu converted, %zu up-to-date, %zu skipped, "
				"%zu failed, in %.1fs\n", bt->counts[CONV_CONVERTED],
			bt->counts[CONV_UP_TO_DATE], bt->counts[CONV_SKIPPED],
			bt->counts[CONV_FAILED], batch_now() - bt->start);
}
