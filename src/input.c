/*
 * Reading the input file whole, into malloc'd memory or, for a large one,
 * into pages mapped at once; a FIFO, a folder or a file too large for an
 * a.out is refused with one sentence.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "input.h"

/* Large enough for any a.out whose image fits below IMAGE_LIMIT. */
#define INPUT_MAX ((size_t)1 << 31)

/*
 * From this size on, the input is read into pages mapped all at once
 * rather than into malloc'd memory, whose every page the read would
 * fault in one by one: on a virtual machine the faults cost more than
 * the copy (64 MiB: 16384 faults).
 */
#define INPUT_POPULATE_MIN ((size_t)1 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/*
 * Those pages, as transparent huge pages where the kernel gives them on
 * request (Debian's default): copying into 4 KiB pages, a virtual
 * machine pays a TLB miss per page, and a 64 MiB conversion took 138 ms
 * here against 35 ms in huge pages.  The length is rounded up to whole
 * huge pages, which the kernel then aligns.  Kernels before 5.14 cannot
 * populate after the advice: there the pages are mapped populated.
 */
static unsigned char *map_input_pages(size_t size, size_t *map_len)
{
	size_t len = size >= HUGE_PAGE ? (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1) : size;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (len >= HUGE_PAGE)
		(void)madvise(p, len, MADV_HUGEPAGE); /* refused: no huge pages */
	if (madvise(p, size, MADV_POPULATE_WRITE) != 0) {
		munmap(p, len);
		len = size;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
	}
	*map_len = len;
	return p;
}

int input_read(const char *path, struct input *in, struct diag *d)
{
	return input_read_checked(path, in, NULL, d);
}

int input_read_checked(const char *path, struct input *in,
		       int (*head_ok)(const uint8_t *head, size_t n, struct diag *d),
		       struct diag *d)
{
	int fd;

	memset(in, 0, sizeof *in);
	in->path = path;
	/* O_NONBLOCK: a FIFO given as input must not hang the converter. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		diag_set(d, "%s", strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &in->st) < 0) {
		diag_set(d, "%s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(in->st.st_mode)) {
		diag_set(d, "is a directory");
		goto fail;
	}
	if (!S_ISREG(in->st.st_mode)) {
		diag_set(d, "not a regular file");
		goto fail;
	}
	if ((uint64_t)in->st.st_size > INPUT_MAX) {
		diag_set(d, "too large for an a.out executable (%lld bytes)",
			 (long long)in->st.st_size);
		goto fail;
	}
	in->size = (size_t)in->st.st_size;
	if (head_ok && in->size >= INPUT_POPULATE_MIN) {
		uint8_t head[32];
		ssize_t n = pread(fd, head, sizeof head, 0);

		if (n < 0) {
			diag_set(d, "read error: %s", strerror(errno));
			goto fail;
		}
		if (head_ok(head, (size_t)n, d))
			goto fail;
	}
	if (in->size >= INPUT_POPULATE_MIN)
		in->buf = map_input_pages(in->size, &in->map_len);
	if (!in->buf)
		in->buf = malloc(in->size ? in->size : 1);
	if (!in->buf) {
		diag_set(d, "out of memory");
		goto fail;
	}
	for (size_t got = 0; got < in->size;) {
		ssize_t n = read(fd, in->buf + got, in->size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			diag_set(d, "read error: %s", strerror(errno));
			goto fail;
		}
		if (n == 0) {
			diag_set(d, "file shrank while being read (%zu of %zu "
				    "bytes)", got, in->size);
			goto fail;
		}
		got += (size_t)n;
	}
	close(fd);
	return 0;
fail:
	close(fd);
	input_free(in);
	errno = 0; /* opened: see input.h */
	return -1;
}

void input_free(struct input *in)
{
	if (in->map_len)
		munmap(in->buf, in->map_len);
	else
		free(in->buf);
	in->buf = NULL;
	in->size = 0;
	in->map_len = 0;
}
