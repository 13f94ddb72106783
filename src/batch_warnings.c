/*
 * Batch mode, step 2 to 3: each entry's warnings, whole however long,
 * from the worker that converted it to this process, which prints them.
 * A result in shared memory has a fixed size; the warnings go into a
 * file shared by all (a memfd), each at a place reserved by a shared
 * counter, and the entry's slot says where.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "batch_internal.h"

static size_t shared_size(size_t n)
{
	return sizeof(uint64_t) + (n ? n : 1) * sizeof(struct batch_warning_span);
}

int batch_warnings_open(struct batch_warnings *w, size_t n)
{
	void *m = mmap(NULL, shared_size(n), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	w->n = n;
	w->fd = memfd_create("aout2elf-warnings", MFD_CLOEXEC);
	if (m == MAP_FAILED) {
		w->end = NULL;
		w->span = NULL;
		return -1;
	}
	w->end = m; /* zero pages: nothing written, no entry has any */
	w->span = (struct batch_warning_span *)(w->end + 1);
	return 0;
}

void batch_warnings_keep(const struct batch_warnings *w, size_t i,
			 struct conv_result *r)
{
	if (!r->warning)
		return;
	size_t len = strlen(r->warning);
	uint64_t at = w->fd >= 0 ? __atomic_fetch_add(w->end, len, __ATOMIC_RELAXED) : 0;

	if (w->fd >= 0 && pwrite(w->fd, r->warning, len, (off_t)at) == (ssize_t)len)
		w->span[i] = (struct batch_warning_span){ at, len };
	else /* no file to put them in: printed here, whole, if not in order */
		fputs(r->warning, stderr);
	free(r->warning);
	r->warning = NULL;
}

char *batch_warnings_take(const struct batch_warnings *w, size_t i)
{
	const struct batch_warning_span *s = &w->span[i];
	char *text = s->len ? malloc(s->len + 1) : NULL;

	if (text && pread(w->fd, text, s->len, (off_t)s->at) != (ssize_t)s->len) {
		free(text);
		return NULL;
	}
	if (text)
		text[s->len] = 0;
	return text;
}

void batch_warnings_close(struct batch_warnings *w)
{
	if (w->end)
		munmap(w->end, shared_size(w->n));
	if (w->fd >= 0)
		close(w->fd);
}
