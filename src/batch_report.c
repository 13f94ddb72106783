/*
 * Batch mode, step 3: the JSON report of --report, one object per entry
 * in the order of the entries, and where it may be written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_internal.h"
#include "json.h"

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
		if (e[i].message)
			json_string(f, e[i].message);
		else if (r->reason[0])
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
	/* an empty file, a device (written into, see write_report_into) is fair game */
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
int batch_save_report(const char *path, const struct batch *bt)
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
