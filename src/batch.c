/*
 * Batch mode, in steps (batch_internal.h says which file does which):
 *
 *   1. collect: every INPUT file, and with -r every file below an INPUT
 *      folder (symbolic links are reported, never followed; -O DIR itself
 *      is not walked), paired with its place under -O DIR; an entry whose
 *      place an earlier one has (by name, or as another name of the same
 *      file) fails where it would write (never one output over another),
 *      and so does one whose place holds an input of the batch, or a file
 *      aout2elf did not write (unless -f);
 *   2. convert: worker processes take the next entry from a shared counter
 *      (so one slow file does not hold up a queue) and leave the result in
 *      shared memory, where the parent finds it done;
 *   3. report: failures as they come, progress on a terminal, the summary
 *      line and the JSON report at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_internal.h"

int batch_run(char *const *inputs, size_t ninputs, const struct batch_options *b,
	      const struct conv_options *o)
{
	struct batch bt = { .b = b, .o = o, .start = batch_now(),
			    .warnings = { .fd = -1 } };
	int rc = 0;

	bt.progress = !b->quiet && isatty(2);
	struct stat od;

	if ((mkdir(b->outdir, 0777) < 0 && errno != EEXIST) || stat(b->outdir, &od) < 0) {
		diag_print(b->outdir, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(od.st_mode)) {
		diag_print(b->outdir, strerror(ENOTDIR));
		return 1;
	}
	bt.outdir = (struct file_id){ od.st_dev, od.st_ino };
	bt.comment = conv_comment(o);
	if (!bt.comment || batch_collect(&bt, inputs, ninputs)) {
		fprintf(stderr, "aout2elf: out of memory\n");
		rc = 1;
		goto out;
	}
	batch_note_outputs(&bt);
	batch_find_shared_outputs(bt.e, bt.n);
	bt.results = mmap(NULL, (bt.n ? bt.n : 1) * sizeof *bt.results,
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	bt.written = mmap(NULL, (bt.n ? bt.n : 1) * sizeof *bt.written,
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (bt.results == MAP_FAILED || bt.written == MAP_FAILED ||
	    batch_warnings_open(&bt.warnings, bt.n)) {
		fprintf(stderr, "aout2elf: out of memory\n");
		rc = 1;
		goto unmap;
	}
	for (size_t i = 0; i < bt.n; i++) {
		bt.results[i].status = CONV_FAILED;
		bt.results[i].dynamic = -1;
		snprintf(bt.results[i].reason, sizeof bt.results[i].reason,
			 "the conversion did not finish (worker process died)");
	}
	if (batch_run_workers(&bt)) {
		fprintf(stderr, "aout2elf: a worker process failed\n");
		rc = 1;
	}
	batch_progress(&bt, 1);
	for (size_t i = 0; i < bt.n; i++)
		bt.e[i].r = bt.results[i];
	if (bt.done < bt.n)
		rc = 1;
	if (bt.counts[CONV_FAILED])
		rc = 1;
	if (b->report && batch_save_report(b->report, &bt))
		rc = 1;
	batch_summary(&bt);
unmap:
	if (bt.results != MAP_FAILED)
		munmap(bt.results, (bt.n ? bt.n : 1) * sizeof *bt.results);
	if (bt.written != MAP_FAILED)
		munmap(bt.written, (bt.n ? bt.n : 1) * sizeof *bt.written);
	batch_warnings_close(&bt.warnings);
out:
	for (size_t i = 0; i < bt.n; i++) {
		free(bt.e[i].input);
		free(bt.e[i].output);
		free(bt.e[i].message);
	}
	free(bt.e);
	free(bt.inputs);
	free(bt.comment);
	return rc;
}
