/*
 * Batch mode, step 1: every INPUT file, and with -r every file below an
 * INPUT folder (symbolic links are reported, never followed; -O DIR itself
 * is not walked), paired with its place under -O DIR; and the identities
 * of the inputs, which no entry may overwrite.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch_internal.h"

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);

	if (!s)
		return NULL;
	memcpy(s, a, la);
	s[la] = '/';
	memcpy(s + la + 1, b, lb);
	s[la + 1 + lb] = 0;
	return s;
}

static int add_entry(struct batch *bt, char *in, char *out)
{
	if (!in || !out) {
		free(in);
		free(out);
		return -1;
	}
	if (bt->n == bt->cap) {
		size_t cap = bt->cap ? 2 * bt->cap : 64;
		struct batch_entry *e = realloc(bt->e, cap * sizeof *e);

		if (!e) {
			free(in);
			free(out);
			return -1;
		}
		bt->e = e;
		bt->cap = cap;
	}
	memset(&bt->e[bt->n], 0, sizeof bt->e[bt->n]);
	bt->e[bt->n].input = in;
	bt->e[bt->n].output = out;
	bt->n++;
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int same_id(const struct stat *st, const struct file_id *id)
{
	return st->st_dev == id->dev && st->st_ino == id->ino;
}

/* Step 1, for a folder: its tree, in name order, mirrored under out. */
static int walk(struct batch *bt, const char *in, const char *out)
{
	struct dirent **names;
	int n = scandir(in, &names, NULL, by_name), rc = 0;

	if (n < 0 && errno == ENOMEM)
		return -1;
	if (n < 0) /* unreadable folder: one failed entry that says so */
		return add_entry(bt, strdup(in), strdup(out));
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		struct stat st;
		char *child, *dst;

		if (!strcmp(name, ".") || !strcmp(name, "..") || rc) {
			free(names[i]);
			continue;
		}
		child = join(in, name);
		dst = join(out, name);
		if (child && dst && lstat(child, &st) == 0 && S_ISDIR(st.st_mode)) {
			/* -O DIR inside the tree: what it holds is output */
			if (!same_id(&st, &bt->outdir))
				rc = walk(bt, child, dst);
			free(child);
			free(dst);
		} else {
			rc = add_entry(bt, child, dst);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

static int collect(struct batch *bt, char *const *inputs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		size_t len = strlen(inputs[i]);
		const char *base;

		/* A folder's contents go straight under -O DIR, like rsync's "dir/". */
		if (bt->b->recursive && stat(inputs[i], &st) == 0 &&
		    S_ISDIR(st.st_mode)) {
			if (walk(bt, inputs[i], bt->b->outdir))
				return -1;
			continue;
		}
		while (len > 1 && inputs[i][len - 1] == '/')
			len--;
		base = len > 1 ? memrchr(inputs[i], '/', len - 1) : NULL;
		base = base ? base + 1 : inputs[i];
		char *name = strndup(base, len - (size_t)(base - inputs[i]));
		if (!name || add_entry(bt, strdup(inputs[i]),
				       join(bt->b->outdir, name))) {
			free(name);
			return -1;
		}
		bt->e[bt->n - 1].named = 1;
		free(name);
	}
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (x->ino > y->ino) - (x->ino < y->ino);
}

/* The identities of the inputs, to be looked up by batch_is_input. */
static int note_inputs(struct batch *bt)
{
	bt->inputs = malloc((bt->n ? bt->n : 1) * sizeof *bt->inputs);
	if (!bt->inputs)
		return -1;
	for (size_t i = 0; i < bt->n; i++) {
		struct stat st;

		if ((bt->e[i].named ? stat(bt->e[i].input, &st) :
				      lstat(bt->e[i].input, &st)) == 0 &&
		    S_ISREG(st.st_mode))
			bt->inputs[bt->ninputs++] = (struct file_id){ st.st_dev, st.st_ino };
	}
	qsort(bt->inputs, bt->ninputs, sizeof *bt->inputs, by_id);
	return 0;
}

int batch_collect(struct batch *bt, char *const *inputs, size_t n)
{
	return collect(bt, inputs, n) || note_inputs(bt) ? -1 : 0;
}

int batch_is_input(const struct batch *bt, const struct stat *st)
{
	struct file_id id = { st->st_dev, st->st_ino };

	return bsearch(&id, bt->inputs, bt->ninputs, sizeof id, by_id) != NULL;
}
