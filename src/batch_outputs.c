/*
 * Batch mode, step 1b: what each output names before anything is
 * written, and which entries would write one output, one over the other
 * (by name, or as another name of the same file).  An output that names
 * no file yet is created only where nothing is by then (another name of
 * the file some entry just wrote: see batch_refuse_if_output_changed).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "batch_internal.h"

/* The entries qsort's comparators look at (indices are sorted). */
static const struct batch_entry *sort_entries;

static int by_output_nocase(const void *a, const void *b)
{
	return strcasecmp(sort_entries[*(const size_t *)a].output,
			  sort_entries[*(const size_t *)b].output);
}

/*
 * Outputs that differ in case only and exist: on a file system that
 * ignores case they may be one file, and FUSE ones (exFAT) give each
 * spelling its own inode number.  The folder's listing tells: it holds
 * the name the file was created with, and no other spelling.
 */
static void note_unlisted(struct batch *bt)
{
	size_t *order = malloc((bt->n ? bt->n : 1) * sizeof *order);

	if (!order) /* then only identities tell */
		return;
	for (size_t i = 0; i < bt->n; i++)
		order[i] = i;
	sort_entries = bt->e;
	qsort(order, bt->n, sizeof *order, by_output_nocase);
	for (size_t k = 0, end; k < bt->n; k = end) {
		int spellings = 0;

		for (end = k + 1; end < bt->n && !by_output_nocase(&order[k], &order[end]);
		     end++)
			spellings |= strcmp(bt->e[order[k]].output, bt->e[order[end]].output) != 0;
		for (size_t m = k; spellings && m < end; m++) {
			struct batch_entry *e = &bt->e[order[m]];

			e->out_unlisted = e->out_existed && !output_name_listed(e->output);
		}
	}
	free(order);
}

void batch_note_outputs(struct batch *bt)
{
	for (size_t i = 0; i < bt->n; i++) {
		struct batch_entry *e = &bt->e[i];
		struct stat st;

		e->out_existed = lstat(e->output, &st) == 0;
		e->out_dev = e->out_existed ? st.st_dev : 0;
		e->out_ino = e->out_existed ? st.st_ino : 0;
	}
	note_unlisted(bt);
}

/* Two entries must never write one output, one over the other. */

static int by_output(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(sort_entries[i].output, sort_entries[j].output);

	return c ? c : (i > j) - (i < j);
}

static int by_output_id(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct batch_entry *x = &sort_entries[i], *y = &sort_entries[j];

	if (x->out_dev != y->out_dev)
		return x->out_dev < y->out_dev ? -1 : 1;
	if (x->out_ino != y->out_ino)
		return x->out_ino < y->out_ino ? -1 : 1;
	return (i > j) - (i < j);
}

static int same_name(const struct batch_entry *x, const struct batch_entry *y)
{
	return !strcmp(x->output, y->output);
}

static int same_file_then(const struct batch_entry *x, const struct batch_entry *y)
{
	return x->out_existed && y->out_existed && x->out_dev == y->out_dev &&
	       x->out_ino == y->out_ino;
}

/*
 * Sorts order[0..n) by cmp, then marks every entry the same as the first
 * of its run as sharing that first one's output; returns how many.
 */
static size_t mark_runs(struct batch_entry *e, size_t *order, size_t n,
			int (*cmp)(const void *, const void *),
			int (*same)(const struct batch_entry *, const struct batch_entry *))
{
	size_t shared = 0;

	sort_entries = e;
	qsort(order, n, sizeof *order, cmp);
	for (size_t k = 1, first = 0; k < n; k++) {
		if (!same(&e[order[k]], &e[order[first]])) {
			first = k;
			continue;
		}
		e[order[k]].output_of = order[first] + 1;
		shared++;
	}
	return shared;
}

size_t batch_find_shared_outputs(struct batch_entry *e, size_t n)
{
	size_t *order = malloc((n ? n : 1) * sizeof *order), shared = 0, m = 0;

	for (size_t i = 0; i < n; i++) {
		e[i].output_of = 0;
		if (!order) /* no memory to sort: compare every pair */
			for (size_t j = 0; j < i && !e[i].output_of; j++)
				if (same_name(&e[i], &e[j]) || same_file_then(&e[i], &e[j]))
					e[i].output_of = j + 1;
		shared += e[i].output_of != 0;
	}
	if (!order)
		return shared;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	shared = mark_runs(e, order, n, by_output, same_name);
	/* then by identity, the entries that share no name */
	for (size_t i = 0; i < n; i++)
		if (e[i].out_existed && !e[i].output_of)
			order[m++] = i;
	shared += mark_runs(e, order, m, by_output_id, same_file_then);
	free(order);
	/* a case-blind file system whose inode numbers differ by name (FUSE) */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n && e[i].out_unlisted && !e[i].output_of; j++)
			if (j != i && !e[j].out_unlisted &&
			    !strcasecmp(e[i].output, e[j].output)) {
				e[i].output_of = j + 1;
				shared++;
			}
	return shared;
}
