/*
 * LD_PRELOAD shim for tests/cli.sh: every write to the converter's
 * temporary output file (".NAME.aout2elf-XXXXXX") fails with EIO, as a
 * dying disk would make it fail.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int is_temp_output(int fd)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof path - 1);
	if (n < 0)
		return 0;
	path[n] = 0;
	return strstr(path, ".aout2elf-") != NULL;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);

	if (is_temp_output(fd)) {
		errno = EIO;
		return -1;
	}
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
	return real(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite64(fd, buf, n, off);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (is_temp_output(fd)) {
		errno = EIO;
		return -1;
	}
	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	return real(fd, buf, n);
}
