/*
 * Batch mode, step 2, one entry, in a worker: from its input's kind and
 * the decisions of batch_decide.c to its result, converted into the
 * place under -O DIR or not, in the entry's slot of shared memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_internal.h"
#include "shared_libs.h"

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

/*
 * a.out by content, not by name: the magic and the machine.  1 with the
 * format in r, or 0 with r skipped as "not an a.out executable", or as
 * aout2elf's own output (an earlier output tree inside the input tree).
 */
static int looks_like_aout_or_skip(const struct input *in, const char *path,
				   struct conv_result *r)
{
	const uint8_t *h = in->buf;
	unsigned magic = in->size >= 4 ? (unsigned)(h[0] | h[1] << 8) : 0;
	unsigned machine = in->size >= 4 ? h[2] : 0xff;

	if ((magic != AOUT_OMAGIC && magic != AOUT_NMAGIC && magic != AOUT_ZMAGIC &&
	     magic != AOUT_QMAGIC) ||
	    (machine != AOUT_M_386 && machine != AOUT_M_OLD)) {
		batch_set_status(r, CONV_SKIPPED,
				 in->size >= 4 && !memcmp(h, "\x7f" "ELF", 4) &&
						 conv_is_converted(path) ?
					 "a program aout2elf converted" :
					 "not an a.out executable");
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

/* One entry; runs in a worker.  Fills *r. */
static void convert_into(const struct batch *bt, size_t i, struct conv_result *r)
{
	const struct batch_entry *e = &bt->e[i];
	struct conv_options o = *bt->o;
	struct stat in;

	memset(r, 0, sizeof *r);
	r->dynamic = -1;
	/* a link named on the command line is followed, as in one conversion */
	if ((e->named ? stat(e->input, &in) : lstat(e->input, &in)) < 0) {
		batch_set_status(r, CONV_FAILED, strerror(errno));
		return;
	}
	if (S_ISLNK(in.st_mode)) {
		batch_set_status(r, CONV_SKIPPED, "symbolic link, not followed");
		return;
	}
	if (S_ISDIR(in.st_mode)) {
		batch_set_status(r, CONV_FAILED, bt->b->recursive ?
					"cannot read this directory" :
					BATCH_REASON_DIRECTORY);
		return;
	}
	if (!S_ISREG(in.st_mode)) {
		batch_set_status(r, CONV_SKIPPED, "not a regular file");
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
	if (batch_refuse_if_output_changed(bt, i, r))
		return;
	if (batch_up_to_date(bt, i, &in)) {
		if (peek_header(e->input, &input) != 0)
			batch_set_status(r, CONV_FAILED, strerror(errno));
		else if (looks_like_aout_or_skip(&input, e->input, r) &&
			 !batch_refuse_if_output_taken(bt, i, r))
			batch_set_status(r, CONV_UP_TO_DATE, "");
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
			batch_set_status(r, CONV_FAILED, strerror(errno));
			return;
		}
		int maybe = looks_like_aout_or_skip(&input, e->input, r);

		input_free(&input);
		if (!maybe)
			return;
	}
	if (input_read(e->input, &input, &d)) {
		batch_set_status(r, CONV_FAILED, d.msg);
		return;
	}
	if (!looks_like_aout_or_skip(&input, e->input, r) ||
	    conv_is_shared_library(input.buf, input.size)) {
		if (r->status != CONV_SKIPPED)
			batch_set_status(r, CONV_SKIPPED,
					 strstr(e->input, "/" SHARED_LIBS_DIR "/") ?
						 "a library --shared-libs copied" :
						 CONV_SHARED_LIBRARY);
		input_free(&input);
		return;
	}
	if (batch_refuse_if_output_taken(bt, i, r) ||
	    batch_refuse_if_output_kept(bt, i, &in, &input, r)) {
		input_free(&input);
		return;
	}
	if (make_parents(e->output) < 0) {
		batch_set_status(r, CONV_FAILED, strerror(errno));
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
			batch_refuse_if_output_changed(bt, i, r);
	}
}

/* The shared slot is written once, whole, so a worker that dies leaves
 * the "did not finish" it was given. */
void batch_convert_entry(const struct batch *bt, size_t i)
{
	struct conv_result r;
	struct stat st;

	convert_into(bt, i, &r);
	batch_warnings_keep(&bt->warnings, i, &r);
	if (r.status == CONV_CONVERTED && lstat(bt->e[i].output, &st) == 0)
		bt->written[i] = (struct file_id){ st.st_dev, st.st_ino };
	bt->results[i] = r;
}
