/*
 * Batch mode, in steps:
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
 *      shared memory, telling the parent its index through a pipe;
 *   3. report: failures as they come, progress on a terminal, the summary
 *      line and the JSON report at the end.
 *
 * Workers are processes, not threads: libelf is not built thread-safe.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"

/* A file's identity: the inputs of a batch are never overwritten. */
struct file_id {
	dev_t dev;
	ino_t ino;
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
	char *comment;               /* what conv_comment says of this run's outputs */
	size_t done, failed, counts[4];
	double start;
	int progress;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

/* Step 1b: the identities of the inputs, to be looked up by is_input. */
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

/*
 * Step 1b, too: what each output names before anything is written.  An
 * output that names no file yet is created only where nothing is by then
 * (another name of the file some entry just wrote: see
 * refuse_if_output_changed).
 */
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

static void note_outputs(struct batch *bt)
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

static int is_input(const struct batch *bt, const struct stat *st)
{
	struct file_id id = { st->st_dev, st->st_ino };

	return bsearch(&id, bt->inputs, bt->ninputs, sizeof id, by_id) != NULL;
}

/* Step 1c: two entries must never write one output, one over the other. */

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

/* mkdir -p for the folder that will hold path; remembers the last one. */
static int make_parents(const char *path)
{
	static char *last;
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) : 0;
	char *p;
	int rc = 0;

	if (last && strlen(last) == dirlen && !strncmp(last, path, dirlen))
		return 0;
	p = strdup(path);
	if (!p)
		return -1;
	for (char *s = strchr(p + 1, '/'); s && !rc; s = strchr(s + 1, '/')) {
		*s = 0;
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	if (rc == 0) {
		free(last);
		last = strndup(path, dirlen);
	}
	free(p);
	return rc;
}

static int newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

static void set_status(struct conv_result *r, enum conv_status s,
		       const char *reason)
{
	r->status = s;
	snprintf(r->reason, sizeof r->reason, "%s", reason);
}

/*
 * a.out by content, not by name: the magic and the machine.  1 with the
 * format in r, or 0 with r skipped as "not an a.out executable".
 */
static int looks_like_aout_or_skip(const struct input *in, struct conv_result *r)
{
	const uint8_t *h = in->buf;
	unsigned magic = in->size >= 4 ? (unsigned)(h[0] | h[1] << 8) : 0;
	unsigned machine = in->size >= 4 ? h[2] : 0xff;

	if ((magic != AOUT_OMAGIC && magic != AOUT_NMAGIC && magic != AOUT_ZMAGIC &&
	     magic != AOUT_QMAGIC) ||
	    (machine != AOUT_M_386 && machine != AOUT_M_OLD)) {
		set_status(r, CONV_SKIPPED, "not an a.out executable");
		return 0;
	}
	snprintf(r->format, sizeof r->format, "%s", aout_magic_name(magic));
	return 1;
}

/* Files above this size are peeked at before being read (convert_into). */
#define PEEK_FIRST_ABOVE ((off_t)256 * 1024)

/* The first bytes of path, enough for looks_like_aout_or_skip; 0 on success. */
static int peek_header(const char *path, struct input *in)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	ssize_t got;

	memset(in, 0, sizeof *in);
	in->buf = calloc(1, AOUT_HEADER_SIZE);
	if (fd < 0 || !in->buf) {
		int e = fd < 0 ? errno : ENOMEM;

		if (fd >= 0)
			close(fd);
		input_free(in);
		errno = e;
		return -1;
	}
	got = read(fd, in->buf, AOUT_HEADER_SIZE);
	close(fd);
	in->size = got > 0 ? (size_t)got : 0;
	return 0;
}

/* One file under two names ("arch/prog", "./arch//prog", a hard link)? */
static int same_file(const char *a, const char *b)
{
	struct stat x, y;

	if (!strcmp(a, b))
		return 1;
	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

/*
 * The refuse_if_ functions below answer 1 with r's status and reason set:
 * the entry is not converted.
 *
 * An entry whose output an earlier one writes fails, where it would write.
 */
static int refuse_if_output_taken(const struct batch *bt, size_t i,
				  struct conv_result *r)
{
	const struct batch_entry *e = &bt->e[i];

	if (!e->output_of)
		return 0;
	if (same_file(e->input, bt->e[e->output_of - 1].input)) {
		set_status(r, CONV_SKIPPED, "given more than once");
		return 1;
	}
	const struct batch_entry *first = &bt->e[e->output_of - 1];

	r->status = CONV_FAILED;
	if (!strcmp(e->output, first->output))
		snprintf(r->reason, sizeof r->reason,
			 "would overwrite %s, the output of %s (convert them "
			 "apart, or their folders with -r)", e->output, first->input);
	else
		snprintf(r->reason, sizeof r->reason,
			 "would overwrite %s, which is also %s, the output of %s "
			 "(a linked folder, or a file system that ignores case)",
			 e->output, first->output, first->input);
	return 1;
}

/*
 * What the output names is not what it named when the batch began: an
 * entry of this batch wrote it under another name of the same file (a
 * folder linked into -O DIR, a file system that ignores case).  That file
 * stays as it is, and this entry fails, naming the other one's input.
 */
static int refuse_if_output_changed(const struct batch *bt, size_t i,
				    struct conv_result *r)
{
	const struct batch_entry *e = &bt->e[i];
	struct stat st;

	/* an entry sharing an earlier one's output is refused as taken: that
	 * one may have written it by now, in another worker */
	if (e->output_of || lstat(e->output, &st) != 0 ||
	    (e->out_existed && st.st_dev == e->out_dev && st.st_ino == e->out_ino))
		return 0;
	r->status = CONV_FAILED;
	r->reason_is_output = 0;
	/* another spelling of a listed name (FUSE: an inode number of its own) */
	int spelling = !output_name_listed(e->output);

	/* a worker notes what it wrote just after the rename: wait for it */
	for (int tries = 0; tries < 50; tries++) {
		for (size_t j = 0; j < bt->n; j++)
			if (j != i && bt->written[j].ino &&
			    ((bt->written[j].ino == st.st_ino &&
			      bt->written[j].dev == st.st_dev) ||
			     (spelling && !strcasecmp(bt->e[j].output, e->output)))) {
				snprintf(r->reason, sizeof r->reason,
					 "would overwrite %s, just written for %s "
					 "under another name of the same file (a "
					 "linked folder, or a file system that "
					 "ignores case)", e->output, bt->e[j].input);
				return 1;
			}
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	snprintf(r->reason, sizeof r->reason,
		 "would overwrite %s, which appeared while the batch ran", e->output);
	return 1;
}

/* The file at path holds exactly these bytes (a copy of the input). */
static int holds_copy(const char *path, const struct input *in)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	char buf[65536];
	size_t at = 0;
	int same = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		   (uint64_t)st.st_size == in->size;

	while (same && at < in->size) {
		ssize_t n = read(fd, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		same = n > 0 && (size_t)n <= in->size - at &&
		       memcmp(buf, in->buf + at, (size_t)n) == 0;
		at += n > 0 ? (size_t)n : 0;
	}
	if (fd >= 0)
		close(fd);
	return same;
}

/*
 * What is at an entry's output stays there when it is an input of this
 * batch (-O DIR among the inputs' folders), even with -f; and, unless -f,
 * when it is a file aout2elf did not write that is not a copy of this
 * input either (a copy is replaced: cp -a, then convert over the copy).
 * The entry's own input is output_open's to refuse, with its reason.
 */
static int refuse_if_output_kept(const struct batch *bt, size_t i,
				 const struct stat *in, const struct input *input,
				 struct conv_result *r)
{
	const struct batch_entry *e = &bt->e[i];
	struct stat out;
	const char *why;

	if (lstat(e->output, &out) != 0 ||
	    (out.st_dev == in->st_dev && out.st_ino == in->st_ino))
		return 0;
	if (is_input(bt, &out))
		why = "is an input of this batch; refusing to overwrite it";
	else if (!bt->o->force && S_ISLNK(out.st_mode))
		why = "exists, and is a symbolic link (-f replaces the link)";
	else if (!bt->o->force && S_ISREG(out.st_mode) &&
		 !conv_is_converted(e->output) && !holds_copy(e->output, input))
		why = "exists, and is neither aout2elf's output nor a copy of the "
		      "input (-f replaces it)";
	else
		return 0;
	set_status(r, CONV_FAILED, why);
	r->reason_is_output = 1;
	return 1;
}

/* Step 2, one entry; runs in a worker.  Fills *r. */
static void convert_into(const struct batch *bt, size_t i, struct conv_result *r)
{
	const struct batch_entry *e = &bt->e[i];
	struct conv_options o = *bt->o;
	struct stat in, out;

	memset(r, 0, sizeof *r);
	r->dynamic = -1;
	/* a link named on the command line is followed, as in one conversion */
	if ((e->named ? stat(e->input, &in) : lstat(e->input, &in)) < 0) {
		set_status(r, CONV_FAILED, strerror(errno));
		return;
	}
	if (S_ISLNK(in.st_mode)) {
		set_status(r, CONV_SKIPPED, "symbolic link, not followed");
		return;
	}
	if (S_ISDIR(in.st_mode)) {
		set_status(r, CONV_FAILED, bt->b->recursive ?
				  "cannot read this folder" :
				  "is a directory (use -r to convert its tree)");
		return;
	}
	if (!S_ISREG(in.st_mode)) {
		set_status(r, CONV_SKIPPED, "not a regular file");
		return;
	}
	struct input input;
	struct diag d;

	/*
	 * Up to date: a rerun over an archive reads only the headers.  An
	 * OUTPUT that aout2elf did not write is none, the input itself
	 * included (-O naming the input's own folder): output_open refuses
	 * that one below.
	 */
	if (refuse_if_output_changed(bt, i, r))
		return;
	if (!o.force && stat(e->output, &out) == 0 &&
	    !newer(&in.st_mtim, &out.st_mtim) &&
	    conv_converted_alike(e->output, bt->comment, bt->o)) {
		if (peek_header(e->input, &input) != 0)
			set_status(r, CONV_FAILED, strerror(errno));
		else if (looks_like_aout_or_skip(&input, r) &&
			 !refuse_if_output_taken(bt, i, r))
			set_status(r, CONV_UP_TO_DATE, "");
		input_free(&input);
		return;
	}
	/*
	 * A large file is judged by its first bytes before it is read whole:
	 * an archive may hold gigabytes that are no a.out (a disk image too
	 * large for one was even reported as a failed conversion).
	 */
	if (in.st_size > PEEK_FIRST_ABOVE) {
		if (peek_header(e->input, &input) != 0) {
			set_status(r, CONV_FAILED, strerror(errno));
			return;
		}
		int maybe = looks_like_aout_or_skip(&input, r);

		input_free(&input);
		if (!maybe)
			return;
	}
	if (input_read(e->input, &input, &d)) {
		set_status(r, CONV_FAILED, d.msg);
		return;
	}
	if (!looks_like_aout_or_skip(&input, r) ||
	    conv_is_shared_library(input.buf, input.size)) {
		if (r->status != CONV_SKIPPED)
			set_status(r, CONV_SKIPPED, CONV_SHARED_LIBRARY);
		input_free(&input);
		return;
	}
	if (refuse_if_output_taken(bt, i, r) ||
	    refuse_if_output_kept(bt, i, &in, &input, r)) {
		input_free(&input);
		return;
	}
	if (make_parents(e->output) < 0) {
		set_status(r, CONV_FAILED, strerror(errno));
		r->reason_is_output = 1;
		input_free(&input);
		return;
	}

	char format[sizeof r->format];

	memcpy(format, r->format, sizeof format);
	/*
	 * What was there is older than the input: replace it.  Where nothing
	 * was, only create: another worker may be writing the same file under
	 * another name right now, and the first one to finish keeps it.
	 */
	o.force = e->out_existed;
	if (conv_input(&input, e->output, &o, r)) {
		if (!r->format[0])
			memcpy(r->format, format, sizeof format);
		if (r->reason_is_output)
			refuse_if_output_changed(bt, i, r);
	}
}

/* The shared slot is written once, whole, so a worker that dies leaves
 * the "did not finish" it was given. */
static void convert_entry(const struct batch *bt, size_t i)
{
	struct conv_result r;
	struct stat st;

	convert_into(bt, i, &r);
	if (r.status == CONV_CONVERTED && lstat(bt->e[i].output, &st) == 0)
		bt->written[i] = (struct file_id){ st.st_dev, st.st_ino };
	bt->results[i] = r;
}

static void progress(struct batch *bt, int final)
{
	if (!bt->progress)
		return;
	fprintf(stderr, "\r\033[K");
	if (!final)
		fprintf(stderr, "aout2elf: %zu/%zu done, %zu failed, %.1fs",
			bt->done, bt->n, bt->failed, now() - bt->start);
	fflush(stderr);
}

/* Step 3, for one finished entry. */
static void finished(struct batch *bt, size_t i)
{
	const struct batch_entry *e = &bt->e[i];
	const struct conv_result *r = &bt->results[i];

	bt->done++;
	bt->counts[r->status]++;
	if (r->status == CONV_FAILED || r->warning[0] ||
	    (bt->b->verbose && r->status == CONV_CONVERTED)) {
		progress(bt, 1);
		if (r->status == CONV_FAILED) {
			bt->failed++;
			diag_print(r->reason_is_output ? e->output : e->input,
				   r->reason);
		}
		if (r->warning[0])
			fputs(r->warning, stderr); /* whole lines, prefixed */
		if (bt->b->verbose && r->status == CONV_CONVERTED) {
			char what[sizeof r->format + 40];

			conv_describe(what, sizeof what, r, bt->o->plan.no_embed_libs);
			diag_converted(e->input, e->output, what);
		}
	}
	progress(bt, 0);
}

/* Takes the next entry nobody has taken; bt->n when there is none. */
static size_t take(const struct batch *bt, size_t *next)
{
	size_t i = __atomic_fetch_add(next, 1, __ATOMIC_RELAXED);

	return i < bt->n ? i : bt->n;
}

enum { NOT_DONE, DONE, REPORTED };

/*
 * Reports what the workers finished since the last look; with all, also
 * the entries no worker finished (one died: "did not finish").  *from is
 * the first entry not yet reported.
 */
static void report_done(struct batch *bt, uint8_t *done, size_t *from, int all)
{
	for (size_t i = *from; i < bt->n; i++) {
		uint8_t d = __atomic_load_n(&done[i], __ATOMIC_ACQUIRE);

		if (d == REPORTED || (d == NOT_DONE && !all))
			continue;
		finished(bt, i);
		done[i] = REPORTED;
	}
	while (*from < bt->n && done[*from] == REPORTED)
		(*from)++;
}

/*
 * With -j N, N worker processes each take the next entry, convert it and
 * mark it done in shared memory; a converter that crashes takes only its
 * worker down.  This process looks at the marks ten times a second and
 * reports what is done, in order; the pipe, which only the workers hold
 * open, tells it when the last one has gone.  (Woken by a pipe write for
 * every file, as it was before, it took a processor from the workers on
 * a machine with N of them: -j2 on two, 36.8 ms against -j1's 31.6 for
 * 200 copies of aln.)
 */
static int run_workers(struct batch *bt)
{
	int jobs = bt->b->jobs < 1 ? 1 : bt->b->jobs, pipefd[2];

	if ((size_t)jobs > bt->n)
		jobs = (int)(bt->n ? bt->n : 1);
	if (jobs == 1) {
		for (size_t i = 0; i < bt->n; i++) {
			convert_entry(bt, i);
			finished(bt, i);
		}
		return 0;
	}
	size_t shared_size = sizeof(size_t) + bt->n;
	size_t *next = mmap(NULL, shared_size, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (next == MAP_FAILED || pipe(pipefd) < 0)
		return -1;
	uint8_t *done = (uint8_t *)(next + 1); /* zero pages: NOT_DONE */
	fflush(NULL);
	pid_t pids[jobs], parent = getpid();
	int started = 0;
	for (int w = 0; w < jobs; w++) {
		pid_t pid = fork();

		if (pid < 0) /* out of processes: with the workers there are */
			break;
		if (pid == 0) {
			close(pipefd[0]);
			/* the batch killed (kill PID, not the group): stop too */
			if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
				_exit(1);
			for (size_t i; (i = take(bt, next)) < bt->n;) {
				convert_entry(bt, i);
				__atomic_store_n(&done[i], DONE, __ATOMIC_RELEASE);
			}
			_exit(0);
		}
		pids[started++] = pid;
	}
	close(pipefd[1]);
	if (!started) { /* not even one: here, one after the other */
		close(pipefd[0]);
		for (size_t i; (i = take(bt, next)) < bt->n;) {
			convert_entry(bt, i);
			finished(bt, i);
		}
		munmap(next, shared_size);
		return 0;
	}
	jobs = started;
	for (size_t from = 0;;) {
		struct pollfd p = { pipefd[0], POLLIN, 0 };
		int r = poll(&p, 1, 100);

		if (r < 0 && errno != EINTR)
			break;
		report_done(bt, done, &from, 0);
		if (r > 0) { /* readable: the end, as the workers write nothing */
			char c;

			if (read(pipefd[0], &c, 1) <= 0)
				break;
		}
		if (r == 0)
			progress(bt, 0);
	}
	close(pipefd[0]);
	int rc = 0;
	for (int w = 0; w < jobs; w++) {
		int status;

		if (waitpid(pids[w], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			rc = -1;
	}
	size_t from = 0;

	report_done(bt, done, &from, 1);
	munmap(next, shared_size);
	return rc;
}

/*
 * Length of the valid UTF-8 sequence at s, 0 if it is none: no overlong
 * form, no surrogate (U+D800-DFFF), nothing above U+10FFFF (RFC 3629),
 * which is where the second byte's range narrows.
 */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
		   s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : 0;
	unsigned lo = s[0] == 0xe0 ? 0xa0 : s[0] == 0xf0 ? 0x90 : 0x80;
	unsigned hi = s[0] == 0xed ? 0x9f : s[0] == 0xf4 ? 0x8f : 0xbf;

	if (n && (s[1] < lo || s[1] > hi))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* File names are bytes; a byte that is not UTF-8 is written as U+00XX. */
static void json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', f);
	while (*s) {
		size_t n = *s >= 0x80 ? utf8_len(s) : 1;

		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20 || n == 0)
			fprintf(f, "\\u%04x", *s);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
	putc('"', f);
}

int batch_write_report(FILE *f, const struct batch_entry *e, size_t n)
{
	fprintf(f, "[");
	for (size_t i = 0; i < n; i++) {
		const struct conv_result *r = &e[i].r;

		fprintf(f, "%s\n  {\"input\": ", i ? "," : "");
		json_string(f, e[i].input);
		fprintf(f, ", \"output\": ");
		json_string(f, e[i].output);
		fprintf(f, ", \"status\": \"%s\", \"format\": ",
			conv_status_name(r->status));
		if (r->format[0])
			json_string(f, r->format);
		else
			fprintf(f, "null");
		fprintf(f, ", \"dynamic\": %s, \"libraries\": [",
			r->dynamic < 0 ? "null" : r->dynamic ? "true" : "false");
		char libs[sizeof r->libraries];
		memcpy(libs, r->libraries, sizeof libs);
		char *save = NULL;
		int first = 1;
		for (char *l = strtok_r(libs, " ", &save); l;
		     l = strtok_r(NULL, " ", &save), first = 0) {
			fprintf(f, "%s", first ? "" : ", ");
			json_string(f, l);
		}
		fprintf(f, "], \"reason\": ");
		if (r->reason[0])
			json_string(f, r->reason);
		else
			fprintf(f, "null");
		fprintf(f, "}");
	}
	fprintf(f, "%s]\n", n ? "\n" : "");
	return ferror(f) ? -1 : 0;
}

/* How every report begins: "[]" when it lists nothing. */
static const char report_start[] = "[\n  {\"input\": ";

int batch_report_clobbers(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	char head[sizeof report_start - 1];
	ssize_t n = 0;
	int clobbers;

	if (fd < 0)
		return 0; /* missing, or the write will say why it cannot */
	/* an empty file, a device (written into, see write_report) is fair game */
	clobbers = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
	if (clobbers)
		n = read(fd, head, sizeof head);
	close(fd);
	if (!clobbers || n < 2)
		return clobbers;
	return memcmp(head, "[]", 2) != 0 &&
	       ((size_t)n < sizeof head || memcmp(head, report_start, sizeof head) != 0);
}

/* All of buf to fd; 0, or an errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : ENOSPC;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * A report to a device, a FIFO, a terminal, or through a symbolic link
 * (/dev/null, /dev/stdout) is written into what is there: never replaced
 * by a file.  A link that leads to no file yet makes the file it names,
 * as a shell's "> link" would.  1 if path is one of those.
 */
static int write_report_into(const char *path, const char *text, size_t len,
			     struct diag *d, int *rc)
{
	struct stat st, link;
	int dangling = 0;

	if (lstat(path, &link) != 0)
		return 0;
	if (stat(path, &st) != 0) {
		if (!S_ISLNK(link.st_mode) || errno != ENOENT)
			return 0;
		dangling = 1;
		st.st_mode = S_IFREG;
	}
	if (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && !S_ISLNK(link.st_mode)))
		return 0;
	/* a FIFO: waits for its reader, as a shell's "> fifo" would */
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC |
				    (S_ISREG(st.st_mode) ? O_TRUNC : 0) |
				    (dangling ? O_CREAT : 0),
		      0666);
	int e = fd < 0 ? errno : 0;

	if (!e)
		e = write_all(fd, text, len);
	if (fd >= 0 && close(fd) < 0 && !e)
		e = errno;
	*rc = e ? diag_set(d, "%s", strerror(e)) : 0;
	return 1;
}

/*
 * Made in memory, then written as the outputs are (output.c): a report
 * that cannot be written whole (a full disk) leaves the one a previous
 * run wrote as it was, not a truncated one.
 */
static int write_report(const char *path, const struct batch *bt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	struct stat no_input = { .st_ino = 0 }; /* the report replaces no input */
	struct output out;
	struct diag d;
	int made = m != NULL, rc = -1;

	if (m) {
		made = batch_write_report(m, bt->e, bt->n) == 0;
		made &= fclose(m) == 0;
	}
	if (!made) {
		diag_set(&d, "out of memory");
	} else if (batch_report_clobbers(path)) { /* one of the outputs, say */
		diag_set(&d, "exists and is not a report; refusing to overwrite it");
	} else if (write_report_into(path, text, len, &d, &rc)) {
		/* written, or rc and d say why not */
	} else if (output_open(path, &no_input, NULL, 1, &out, &d) == 0) {
		int e = write_all(out.fd, text, len);

		if (e) {
			output_abort(&out);
			diag_set(&d, "write error: %s", strerror(e)); /* as outputs say */
		} else {
			rc = output_commit(&out, 0666 & ~bt->o->umask_bits, &d);
		}
	}
	if (rc)
		diag_print(path, d.msg);
	free(text);
	return rc;
}

int batch_run(char *const *inputs, size_t ninputs, const struct batch_options *b,
	      const struct conv_options *o)
{
	struct batch bt = { .b = b, .o = o, .start = now() };
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
	if (!bt.comment || collect(&bt, inputs, ninputs) || note_inputs(&bt)) {
		fprintf(stderr, "aout2elf: out of memory\n");
		rc = 1;
		goto out;
	}
	note_outputs(&bt);
	batch_find_shared_outputs(bt.e, bt.n);
	bt.results = mmap(NULL, (bt.n ? bt.n : 1) * sizeof *bt.results,
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	bt.written = mmap(NULL, (bt.n ? bt.n : 1) * sizeof *bt.written,
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (bt.results == MAP_FAILED || bt.written == MAP_FAILED) {
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
	if (run_workers(&bt)) {
		fprintf(stderr, "aout2elf: a worker process failed\n");
		rc = 1;
	}
	progress(&bt, 1);
	for (size_t i = 0; i < bt.n; i++)
		bt.e[i].r = bt.results[i];
	if (bt.done < bt.n)
		rc = 1;
	if (bt.counts[CONV_FAILED])
		rc = 1;
	if (b->report && write_report(b->report, &bt))
		rc = 1;
	if (!b->quiet)
		fprintf(stderr, "aout2elf: %zu converted, %zu up-to-date, %zu skipped, "
				"%zu failed, in %.1fs\n", bt.counts[CONV_CONVERTED],
			bt.counts[CONV_UP_TO_DATE], bt.counts[CONV_SKIPPED],
			bt.counts[CONV_FAILED], now() - bt.start);
unmap:
	if (bt.results != MAP_FAILED)
		munmap(bt.results, (bt.n ? bt.n : 1) * sizeof *bt.results);
	if (bt.written != MAP_FAILED)
		munmap(bt.written, (bt.n ? bt.n : 1) * sizeof *bt.written);
out:
	for (size_t i = 0; i < bt.n; i++) {
		free(bt.e[i].input);
		free(bt.e[i].output);
	}
	free(bt.e);
	free(bt.inputs);
	free(bt.comment);
	return rc;
}
