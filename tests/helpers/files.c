/* Files for the unit tests: see files.h. */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"

char *unit_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

char *unit_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *t;

	if (!base || !*base)
		base = "/tmp";
	t = unit_path(base, "aout2elf-unit-XXXXXX");
	if (t && !mkdtemp(t)) {
		perror("mkdtemp");
		free(t);
		return NULL;
	}
	return t;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

void unit_rmtree(char *path)
{
	if (!path)
		return;
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "warning: could not remove %s completely\n", path);
	free(path);
}

int unit_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

int unit_write_file(const char *path, const void *buf, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, buf, n) == (ssize_t)n;
	return close(fd) == 0 && ok ? 0 : -1;
}

uint8_t *unit_slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	*size = 0;
	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*size = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}
