/*
 * --shared-libs (see shared_libs.h): one copy of each library in the
 * output tree, written atomically like any output, named by a hash of
 * its bytes so that two libraries of one name never meet.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "shared_libs.h"

void shared_libs_hash(const uint8_t *buf, size_t size, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++)
		h = (h ^ buf[i]) * 0x100000001b3ull;
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

int shared_libs_origin(const char *root, const char *dst, char *out, size_t cap)
{
	size_t n = strlen(root), used;

	while (n > 1 && root[n - 1] == '/')
		n--;

	const char *rest = dst + n;

	if (cap)
		out[0] = 0;
	if (strncmp(dst, root, n) != 0 || *rest != '/')
		return -1;
	used = (size_t)snprintf(out, cap, "$ORIGIN");
	/* one ".." for each folder between root and dst's own name */
	for (const char *c = rest; *c; ) {
		while (*c == '/')
			c++;
		const char *end = c + strcspn(c, "/");

		if (!*end)
			break;
		if (end - c != 1 || *c != '.') {
			if (used + 4 > cap)
				return -1;
			used += (size_t)snprintf(out + used, cap - used, "/..");
		}
		c = end;
	}
	return used < cap ? 0 : -1;
}

/* Whether path holds exactly buf's size bytes. */
static int holds(const char *path, const uint8_t *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	int same = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == size) {
		uint8_t chunk[65536];
		size_t at = 0;
		ssize_t got = 1;

		while (at < size && got > 0) {
			got = read(fd, chunk, sizeof chunk);
			if (got > 0 && memcmp(chunk, buf + at, (size_t)got) != 0)
				break;
			at += got > 0 ? (size_t)got : 0;
		}
		same = at == size;
	}
	close(fd);
	return same;
}

static int write_all(int fd, const uint8_t *buf, size_t size)
{
	while (size) {
		ssize_t n = write(fd, buf, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		size -= (size_t)n;
	}
	return 0;
}

/* path holds the library's bytes afterwards, whoever wrote them. */
static int write_library(const char *path, const struct lib *l, struct diag *d)
{
	struct output out;
	struct stat st;
	int exists = lstat(path, &st) == 0;

	if (holds(path, l->in.buf, l->in.size))
		return 0;
	if (output_open(path, &l->in.st, NULL, exists, &out, d))
		return -1;
	if (write_all(out.fd, l->in.buf, l->in.size)) {
		output_abort(&out);
		return diag_set(d, "%s: %s", path, strerror(errno));
	}
	if (output_commit(&out, 0755, d)) {
		output_abort(&out);
		/* another worker was first with the same library */
		return holds(path, l->in.buf, l->in.size) ? 0 : -1;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int make_dir(const char *path, struct diag *d)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		return diag_set(d, "cannot create %s: %s", path, strerror(errno));
	return 0;
}

/* Puts entry in front of paths, unless it is there already. */
static int prepend_path(char *paths, size_t cap, const char *entry, struct diag *d)
{
	size_t n = strlen(entry), used = strlen(paths);

	for (const char *c = paths; *c; c += strcspn(c, ":"), c += *c == ':')
		if (strncmp(c, entry, n) == 0 && (c[n] == ':' || !c[n]))
			return 0;
	if (n + 1 + used + 1 > cap)
		return diag_set(d, "the library directories are longer "
				   "than %zu bytes in all", cap - 1);
	memmove(paths + n + (used ? 1 : 0), paths, used + 1);
	for (size_t i = 0; i < n; i++) /* the rest is still there, after it */
		paths[i] = entry[i];
	if (used)
		paths[n] = ':';
	return 0;
}

int shared_libs_place(const char *root, const char *dst,
		      const struct libset *set, struct plan *p, struct diag *d)
{
	char origin[512], hash[17], dir[4096], path[4096], entry[1024];

	if (shared_libs_origin(root, dst, origin, sizeof origin))
		return diag_set(d, "%s is not under %s", dst, root);
	/* in reverse, so that the first library's folder is searched first */
	for (size_t i = set->n; i-- > 0;) {
		const struct lib *l = &set->libs[i];

		if (!l->path)
			continue;
		shared_libs_hash(l->in.buf, l->in.size, hash);
		snprintf(dir, sizeof dir, "%s/" SHARED_LIBS_DIR, root);
		if (make_dir(dir, d))
			return -1;
		snprintf(dir, sizeof dir, "%s/" SHARED_LIBS_DIR "/%s", root, hash);
		if (make_dir(dir, d))
			return -1;
		/* by each file name the program and its libraries ask it by */
		for (size_t k = 0; k <= l->naliases; k++) {
			const char *name = base_name(k ? l->aliases[k - 1] : l->name);

			if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >=
			    sizeof path)
				return diag_set(d, "%s/%s: name too long", dir, name);
			if (k && strcmp(name, base_name(l->name)) != 0 &&
			    symlink(base_name(l->name), path) && errno != EEXIST)
				return diag_set(d, "cannot create %s: %s", path,
						strerror(errno));
			if (!k && write_library(path, l, d))
				return -1;
		}
		snprintf(entry, sizeof entry, "%s/" SHARED_LIBS_DIR "/%s", origin, hash);
		if (prepend_path(p->paths, sizeof p->paths, entry, d))
			return -1;
	}
	return 0;
}

int shared_libs_present(const char *root, const char *hash, const char *name,
			uint64_t size)
{
	char *path;
	struct stat st;
	int yes;

	if (strlen(hash) != 16 || strspn(hash, "0123456789abcdef") != 16 ||
	    asprintf(&path, "%s/" SHARED_LIBS_DIR "/%s/%s", root, hash,
		     base_name(name)) < 0)
		return 0;
	yes = stat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size;
	free(path);
	return yes;
}
