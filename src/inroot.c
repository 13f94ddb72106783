/*
 * RESOLVE_IN_ROOT in user space (inroot.h): one component at a time,
 * readlinkat telling a symbolic link (its target) from anything else
 * (EINVAL), so that the result is what the kernel's own lookup gives.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inroot.h"

/* "target/rest": a link's target with what was left after the link. */
static char *joined(const char *target, const char *rest)
{
	size_t len = strlen(target) + 1 + strlen(rest) + 1;
	char *s = malloc(len);

	if (s)
		snprintf(s, len, "%s/%s", target, rest);
	return s;
}

char *inroot_resolve(int root, const char *path)
{
	/* done: the components resolved so far, "/a/b" ("" at root) */
	char done[PATH_MAX] = "", target[PATH_MAX];
	size_t dlen = 0;
	char *todo = strdup(path), *p = todo;
	/* as the kernel: an empty path names nothing */
	int links = 0, err = !todo ? ENOMEM : *path ? 0 : ENOENT;

	while (!err && *p) {
		size_t clen;
		ssize_t tlen;
		char *next;

		p += strspn(p, "/");
		clen = strcspn(p, "/");
		if (!clen || (clen == 1 && p[0] == '.')) {
			p += clen;
			continue;
		}
		if (clen == 2 && p[0] == '.' && p[1] == '.') {
			while (dlen && done[--dlen] != '/')
				;
			done[dlen] = 0;
			p += clen;
			continue;
		}
		if (dlen + 1 + clen >= sizeof done) {
			err = ENAMETOOLONG;
			break;
		}
		done[dlen] = '/';
		memcpy(done + dlen + 1, p, clen);
		done[dlen + 1 + clen] = 0;
		p += clen;
		tlen = readlinkat(root, done + 1, target, sizeof target);
		if (tlen < 0 && errno == EINVAL) { /* there, and no link */
			dlen += 1 + clen;
			continue;
		}
		if (tlen < 0)
			err = errno;
		else if ((size_t)tlen >= sizeof target)
			err = ENAMETOOLONG;
		else if (++links > INROOT_MAX_LINKS)
			err = ELOOP;
		if (err)
			break;
		target[tlen] = 0;
		next = joined(target, p);
		free(todo);
		todo = p = next;
		if (!next) {
			err = ENOMEM;
			break;
		}
		if (target[0] == '/')
			dlen = 0;
		done[dlen] = 0;
	}
	free(todo);
	if (err) {
		errno = err;
		return NULL;
	}
	return strdup(dlen ? done : "/");
}
