/*
 * Batch mode, step 3: a failure whose reason names a fix gets the command
 * that makes it.  -r and -L hold for the whole batch: the command line
 * again with them (a rerun reads only the headers of what is up to date,
 * and keeps the report whole).  -f does not: rerun so, it would replace
 * every file aout2elf did not write, so the fix is the one conversion,
 * aout2elf -f INPUT OUTPUT, with the options that shape the output (its
 * .comment then says the batch's options: the next rerun keeps it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_internal.h"
#include "hint.h"

/* The reasons of batch_internal.h that name -f, each as said with the command. */
static const struct {
	const char *reason, *what;
} replaced[] = {
	{ BATCH_REASON_LINK, "exists, and is a symbolic link; to replace the link" },
	{ BATCH_REASON_FOREIGN, "exists, and is neither aout2elf's output nor a copy "
				"of the input; to replace it" },
};

/* aout2elf OPTIONS -f INPUT OUTPUT; NULL where one conversion cannot say
 * them (--shared-libs goes with -O only), or without memory. */
static char *replace_command(const struct batch *bt, const struct batch_entry *e)
{
	const char *words[CONV_OPTION_WORDS + 5];
	size_t n = 0;

	if (bt->o->shared_libs)
		return NULL;
	words[n++] = bt->b->argv[0];
	n += conv_option_words(bt->o, words + n);
	words[n++] = "-f";
	if (e->input[0] == '-' || e->output[0] == '-')
		words[n++] = "--";
	words[n++] = e->input;
	words[n++] = e->output;
	return hint_command(words, n);
}

char *batch_fix_message(const struct batch *bt, size_t i)
{
	const struct batch_entry *e = &bt->e[i];
	const struct conv_result *r = &bt->results[i];
	const char *what = r->reason, **more;
	char *command = NULL, *msg;
	size_t n;

	if (r->status != CONV_FAILED || !bt->b->argv)
		return NULL;
	if (!strcmp(r->reason, BATCH_REASON_DIRECTORY)) {
		what = "is a directory; to convert its tree";
		command = hint_rerun_command(bt->b->argv, (const char *[]){ "-r" }, 1);
	} else if (r->reason_is_output) {
		for (size_t k = 0; k < sizeof replaced / sizeof *replaced; k++)
			if (!strcmp(r->reason, replaced[k].reason)) {
				what = replaced[k].what;
				command = replace_command(bt, e);
			}
	} else if ((more = hint_libdirs(e->input, bt->o, &n)) != NULL) {
		/* the reason says "give its directory with -L DIR" already */
		command = hint_rerun_command(bt->b->argv, more, n);
		hint_libdirs_free(more, n);
	}
	if (!command || asprintf(&msg, "%s: %s", what, command) < 0)
		msg = NULL;
	free(command);
	return msg;
}
