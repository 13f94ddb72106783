/*
 * src/inroot.c: RESOLVE_IN_ROOT in user space, in a small temporary tree
 * with real symbolic links; where this kernel has openat2, each answer is
 * also checked against the kernel's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#endif

#include <CUnit/CUnit.h>

#include "helpers/files.h"
#include "inroot.h"
#include "unit.h"

static char *dir;   /* the temporary folder, the root */
static int root_fd; /* it, open */

static int make_tree(void)
{
	static const char *const dirs[] = { "lib", "usr", "usr/lib", "etc" };
	static const char *const links[][2] = {
		{ "lib/libc.so.4", "libc.so.4.4.1" },  /* relative */
		{ "lib/libm.so.4", "/usr/lib/libm.so.4.4.1" }, /* absolute */
		{ "lib/up", "../../../../etc" },    /* ".." past the root */
		{ "usr/lib/lib", "/lib" },          /* a folder, absolute */
		{ "lib/loop", "loop" },             /* itself */
		{ "lib/dangling", "nothing" },
		{ "lib/host", "/" },                /* the root, not the host's */
	};
	char path[PATH_MAX];

	dir = unit_tmpdir();
	if (!dir)
		return -1;
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, dirs[i]);
		if (mkdir(path, 0755))
			return -1;
	}
	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, links[i][0]);
		if (symlink(links[i][1], path))
			return -1;
	}
	snprintf(path, sizeof path, "%s/lib/libc.so.4.4.1", dir);
	if (unit_write_file(path, "c", 1, 0644))
		return -1;
	snprintf(path, sizeof path, "%s/usr/lib/libm.so.4.4.1", dir);
	if (unit_write_file(path, "m", 1, 0644))
		return -1;
	root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return root_fd < 0 ? -1 : 0;
}

static int remove_tree(void)
{
	if (root_fd >= 0)
		close(root_fd);
	unit_rmtree(dir);
	return 0;
}

/*
 * The kernel's answer for path (openat2), as a path from the root, in
 * *out (NULL: it refused); 0 where this kernel has no openat2 to ask.
 */
static int kernel_resolve(const char *path, char **out)
{
	*out = NULL;
#if defined(SYS_openat2) && defined(RESOLVE_IN_ROOT)
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT };
	char link[64], real[PATH_MAX], top[PATH_MAX];
	int fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof how);
	ssize_t len;

	if (fd < 0)
		return errno != ENOSYS;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	len = readlink(link, real, sizeof real - 1);
	close(fd);
	if (len <= 0 || !realpath(dir, top))
		return 0;
	real[len] = 0;
	*out = strdup(real[strlen(top)] ? real + strlen(top) : "/");
	return 1;
#else
	(void)path;
	return 0;
#endif
}

/* path resolves to want (NULL: fails with errno err), as the kernel says */
static void expect(const char *path, const char *want, int err, unsigned line)
{
	char *got, *kernel;
	char what[PATH_MAX + 64];

	errno = 0;
	got = inroot_resolve(root_fd, path);
	snprintf(what, sizeof what, "inroot_resolve(\"%s\")", path);
	if (want)
		unit_check_str(got, want, what, line, __FILE__, "expect");
	else
		unit_check_u64((uint64_t)(got ? 0 : errno), (uint64_t)err, what,
			       line, __FILE__, "expect");
	/* the same as openat2, where there is one to ask */
	if (kernel_resolve(path, &kernel)) {
		snprintf(what, sizeof what, "inroot_resolve(\"%s\") = \"%s\", openat2 \"%s\"",
			 path, got ? got : "(fails)", kernel ? kernel : "(fails)");
		unit_check_u64(got ? kernel && !strcmp(got, kernel) : !kernel, 1,
			       what, line, __FILE__, "expect");
	}
	free(got);
	free(kernel);
}
#define EXPECT(path, want) expect((path), (want), 0, __LINE__)
#define EXPECT_FAILS(path, err) expect((path), NULL, (err), __LINE__)

static void test_plain(void)
{
	EXPECT("/", "/");
	EXPECT_FAILS("", ENOENT);
	EXPECT("lib", "/lib");
	EXPECT("/lib/libc.so.4.4.1", "/lib/libc.so.4.4.1");
	EXPECT("//lib/./libc.so.4.4.1", "/lib/libc.so.4.4.1");
	EXPECT("/usr/../lib/", "/lib");
	EXPECT_FAILS("/lib/libz.so.1", ENOENT);
	EXPECT_FAILS("/lib/libc.so.4.4.1/x", ENOTDIR);
}

static void test_links(void)
{
	EXPECT("/lib/libc.so.4", "/lib/libc.so.4.4.1");
	/* absolute targets start again at the root, not the host's / */
	EXPECT("/lib/libm.so.4", "/usr/lib/libm.so.4.4.1");
	EXPECT("/usr/lib/lib/libm.so.4", "/usr/lib/libm.so.4.4.1");
	EXPECT("/lib/host", "/");
	EXPECT("/lib/host/lib/libc.so.4", "/lib/libc.so.4.4.1");
	/* ".." never climbs above it */
	EXPECT("/lib/up", "/etc");
	EXPECT("../../lib/libc.so.4", "/lib/libc.so.4.4.1");
	/* ".." after a link: from where the link led */
	EXPECT("/usr/lib/lib/../usr", "/usr");
	EXPECT_FAILS("/lib/loop", ELOOP);
	EXPECT_FAILS("/lib/dangling", ENOENT);
}

/* The kernel's limit: 40 links in one lookup, and not one more. */
static void test_link_limit(void)
{
	char path[PATH_MAX], target[32];

	for (int i = 1; i <= INROOT_MAX_LINKS + 1; i++) {
		snprintf(path, sizeof path, "%s/etc/l%d", dir, i);
		snprintf(target, sizeof target, i == 1 ? "/etc" : "l%d", i - 1);
		CU_ASSERT_EQUAL_FATAL(symlink(target, path), 0);
	}
	snprintf(path, sizeof path, "/etc/l%d", INROOT_MAX_LINKS);
	EXPECT(path, "/etc");
	snprintf(path, sizeof path, "/etc/l%d", INROOT_MAX_LINKS + 1);
	EXPECT_FAILS(path, ELOOP);
}

int unit_inroot_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_plain),
		UNIT_TEST(test_links),
		UNIT_TEST(test_link_limit),
		UNIT_END,
	};

	return unit_add_suite("paths inside a sysroot without openat2 (src/inroot.c)",
			      make_tree, remove_tree, tests);
}
