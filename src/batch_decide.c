/*
 * Batch mode, step 2: the decisions for one entry before it is converted.
 * Is its output up to date?  Must what is at its output stay there: the
 * output of an earlier entry, a file that appeared while the batch ran
 * (another name of one an entry just wrote), an input, or a file
 * aout2elf did not write?  The batch_refuse_if_ functions answer 1 with
 * the entry's status and reason set.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch_internal.h"

static int newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/*
 * Converted by aout2elf, with the options of this run (conv_converted_alike),
 * and not older than its input; never with -f.
 */
int batch_up_to_date(const struct batch *bt, size_t i, const struct stat *in)
{
	const char *output = bt->e[i].output;
	struct stat out;

	return !bt->o->force && stat(output, &out) == 0 &&
	       !newer(&in->st_mtim, &out.st_mtim) &&
	       conv_converted_alike(output, bt->comment, bt->o);
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

/* An entry whose output an earlier one writes fails, where it would write. */
int batch_refuse_if_output_taken(const struct batch *bt, size_t i,
				 struct conv_result *r)
{
	const struct batch_entry *e = &bt->e[i];

	if (!e->output_of)
		return 0;
	if (same_file(e->input, bt->e[e->output_of - 1].input)) {
		batch_set_status(r, CONV_SKIPPED, "given more than once");
		return 1;
	}
	const struct batch_entry *first = &bt->e[e->output_of - 1];

	r->status = CONV_FAILED;
	if (!strcmp(e->output, first->output))
		snprintf(r->reason, sizeof r->reason,
			 "would overwrite %s, the output of %s (convert them "
			 "apart, or their directories with -r)",
			 e->output, first->input);
	else
		snprintf(r->reason, sizeof r->reason,
			 "would overwrite %s, which is also %s, the output of %s "
			 "(a linked directory, or a file system that ignores "
			 "case)",
			 e->output, first->output, first->input);
	return 1;
}

/*
 * What the output names is not what it named when the batch began: an
 * entry of this batch wrote it under another name of the same file (a
 * folder linked into -O DIR, a file system that ignores case).  That file
 * stays as it is, and this entry fails, naming the other one's input.
 */
int batch_refuse_if_output_changed(const struct batch *bt, size_t i,
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

	/*
	 * a worker notes what it wrote just after the rename: wait for it, up
	 * to 2 s (50 ms was too short on a loaded machine over FUSE)
	 */
	for (int tries = 0; tries < 2000; tries++) {
		for (size_t j = 0; j < bt->n; j++)
			if (j != i && bt->written[j].ino &&
			    ((bt->written[j].ino == st.st_ino &&
			      bt->written[j].dev == st.st_dev) ||
			     (spelling && !strcasecmp(bt->e[j].output, e->output)))) {
				snprintf(r->reason, sizeof r->reason,
					 "would overwrite %s, just written for %s "
					 "under another name of the same file (a "
					 "linked directory, or a file system "
					 "that ignores case)", e->output,
					 bt->e[j].input);
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
int batch_refuse_if_output_kept(const struct batch *bt, size_t i,
				const struct stat *in, const struct input *input,
				struct conv_result *r)
{
	const struct batch_entry *e = &bt->e[i];
	struct stat out;
	const char *why;

	if (lstat(e->output, &out) != 0 ||
	    (out.st_dev == in->st_dev && out.st_ino == in->st_ino))
		return 0;
	if (batch_is_input(bt, &out))
		why = "is an input of this batch; refusing to overwrite it";
	else if (!bt->o->force && S_ISLNK(out.st_mode))
		why = BATCH_REASON_LINK;
	else if (!bt->o->force && S_ISREG(out.st_mode) &&
		 !conv_is_converted(e->output) && !holds_copy(e->output, input))
		why = BATCH_REASON_FOREIGN;
	else
		return 0;
	batch_set_status(r, CONV_FAILED, why);
	r->reason_is_output = 1;
	return 1;
}
