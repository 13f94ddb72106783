/*
 * LD_PRELOAD shim for tests/cli.sh: the converter's output file, named
 * (".NAME.aout2elf-XXXXXX") or without a name (O_TMPFILE), fails or
 * stalls as a dying disk would make it (pwrite and write for libelf's
 * writer, pwritev for the converter's own).  EIO_SHIM holds any of these
 * words ("eio" when it is not set):
 *
 *	eio          every write to it fails with EIO
 *	stall        the first write to it sleeps 60 s, so that the test can
 *	             kill the converter in the middle
 *	no-tmpfile   open(O_TMPFILE) fails with EOPNOTSUPP, as on a file
 *	             system without it
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int mode(const char *word)
{
	const char *m = getenv("EIO_SHIM");

	return strstr(m ? m : "eio", word) != NULL;
}

static int is_temp_output(int fd)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof path - 1);
	if (n < 0)
		return 0;
	path[n] = 0;
	/* an O_TMPFILE file reads as "DIR/#INODE (deleted)" */
	return strstr(path, ".aout2elf-") != NULL ||
	       (strstr(path, "/#") != NULL && strstr(path, " (deleted)") != NULL);
}

/* 1 if the write is to fail (errno set), 0 if it is to be made. */
static int intercept(int fd)
{
	static int stalled;

	if (!is_temp_output(fd))
		return 0;
	if (mode("eio")) {
		errno = EIO;
		return 1;
	}
	if (mode("stall") && !stalled) {
		stalled = 1;
		sleep(60);
	}
	return 0;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);

	if (intercept(fd))
		return -1;
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
	return real(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite64(fd, buf, n, off);
}

/* the converter's own writer: one pwritev for the whole file */
ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*real)(int, const struct iovec *, int, off_t);

	if (intercept(fd))
		return -1;
	if (!real)
		real = (ssize_t (*)(int, const struct iovec *, int, off_t))dlsym(RTLD_NEXT, "pwritev64");
	return real(fd, iov, n, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	return pwritev64(fd, iov, n, off);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (intercept(fd))
		return -1;
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	return real(fd, buf, n);
}

static int open_via(const char *name, const char *path, int flags, mode_t m)
{
	int (*real)(const char *, int, ...) =
		(int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);

#ifdef O_TMPFILE
	if ((flags & O_TMPFILE) == O_TMPFILE && mode("no-tmpfile")) {
		errno = EOPNOTSUPP;
		return -1;
	}
#endif
	return real(path, flags, m);
}

/* open and open64: the mode is there only with O_CREAT or O_TMPFILE */
#define OPEN_WRAPPER(name)                                          \
	int name(const char *path, int flags, ...)                  \
	{                                                           \
		va_list ap;                                         \
		mode_t m = 0;                                       \
                                                                    \
		va_start(ap, flags);                                \
		if (flags & (O_CREAT | O_TMPFILE))                  \
			m = (mode_t)va_arg(ap, int);                \
		va_end(ap);                                         \
		return open_via(#name, path, flags, m);             \
	}

OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)
