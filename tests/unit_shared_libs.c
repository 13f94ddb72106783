/*
 * --shared-libs (src/shared_libs.c): the $ORIGIN path from a program up
 * to the output folder, the names of the copies, one copy per library,
 * and the search path each program gets.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <CUnit/CUnit.h>
#include "helpers/files.h"
#include "shared_libs.h"
#include "unit.h"

static void test_origin(void)
{
	static const char *const cases[][3] = {
		{ "new", "new/prog", "$ORIGIN" },
		{ "new/", "new/prog", "$ORIGIN" },
		{ "new", "new/bin/prog", "$ORIGIN/.." },
		{ "/a/new", "/a/new/usr/X11/bin/xclock", "$ORIGIN/../../.." },
		{ "new", "new//usr/./bin/prog", "$ORIGIN/../.." },
	};
	char out[64];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		CU_ASSERT_EQUAL(shared_libs_origin(cases[i][0], cases[i][1], out,
						   sizeof out), 0);
		CHECK_STR(out, cases[i][2]);
	}
	/* not under the folder, or too long */
	CU_ASSERT_EQUAL(shared_libs_origin("new", "newer/prog", out, sizeof out), -1);
	CU_ASSERT_EQUAL(shared_libs_origin("new", "other/prog", out, sizeof out), -1);
	CU_ASSERT_EQUAL(shared_libs_origin("n", "n/a/b/c/d/p", out, 12), -1);
}

static void test_hash(void)
{
	char a[17], b[17], c[17];

	shared_libs_hash((const uint8_t *)"libc", 4, a);
	shared_libs_hash((const uint8_t *)"libc", 4, b);
	shared_libs_hash((const uint8_t *)"libm", 4, c);
	CU_ASSERT_EQUAL(strlen(a), 16);
	CHECK_STR(a, b);
	CU_ASSERT(strcmp(a, c) != 0);
}

/* l as libs_resolve would have found bytes at path under name */
static void fake_lib(struct lib *l, const char *name, char *path, const char *bytes)
{
	memset(l, 0, sizeof *l);
	strcpy(l->name, name);
	l->path = path;
	l->in.buf = (uint8_t *)bytes;
	l->in.size = strlen(bytes);
}

static void test_place(void)
{
	char *dir = unit_tmpdir();
	char *root = dir ? unit_path(dir, "new") : NULL;
	char *prog = dir ? unit_path(dir, "new/bin/prog") : NULL;
	static struct libset set;
	static struct plan p;
	char want[160];
	struct diag d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(prog);
	mkdir(root, 0755);
	set.n = 3;
	fake_lib(&set.libs[0], "/lib/libc.so.4", "/old/lib/libc.so.4", "libc bytes");
	fake_lib(&set.libs[1], "libnone.so.1", NULL, ""); /* not found: none */
	fake_lib(&set.libs[2], "/lib/libm.so.4", "/old/lib/libm.so.4", "libm bytes");
	strcpy(set.libs[0].aliases[0], "/libc.so.4.4");
	set.libs[0].naliases = 1;
	strcpy(p.paths, "/opt/lib");
	CU_ASSERT_EQUAL(shared_libs_place(root, prog, &set, &p, &d), 0);
	/* twice: the folders once each, the copies left as they are */
	CU_ASSERT_EQUAL(shared_libs_place(root, prog, &set, &p, &d), 0);

	char c[17], m[17];

	shared_libs_hash((const uint8_t *)"libc bytes", 10, c);
	shared_libs_hash((const uint8_t *)"libm bytes", 10, m);
	snprintf(want, sizeof want,
		 "$ORIGIN/../.aout2elf-libs/%s:$ORIGIN/../.aout2elf-libs/%s:/opt/lib",
		 c, m);
	CHECK_STR(p.paths, want);
	CU_ASSERT_EQUAL(shared_libs_present(root, c, "/lib/libc.so.4", 10), 1);
	CU_ASSERT_EQUAL(shared_libs_present(root, c, "libc.so.4.4", 10), 1);
	CU_ASSERT_EQUAL(shared_libs_present(root, m, "libm.so.4", 10), 1);
	CU_ASSERT_EQUAL(shared_libs_present(root, m, "libm.so.4", 11), 0);
	CU_ASSERT_EQUAL(shared_libs_present(root, m, "libnone.so.1", 0), 0);
	/* another library of that name and size, whose copy is not there */
	char other[17];

	shared_libs_hash((const uint8_t *)"LIBC BYTES", 10, other);
	CU_ASSERT_EQUAL(shared_libs_present(root, other, "libc.so.4", 10), 0);
	/* nor is the copy of libm by libc's name, nor a hash that is not one */
	CU_ASSERT_EQUAL(shared_libs_present(root, m, "libc.so.4", 10), 0);
	CU_ASSERT_EQUAL(shared_libs_present(root, "..", "libc.so.4", 10), 0);
	CU_ASSERT_EQUAL(shared_libs_present(root, "*", "libc.so.4", 10), 0);

	char *copy = unit_path(root, ".aout2elf-libs");
	struct stat st;

	snprintf(want, sizeof want, "%s/%s/libc.so.4", copy, c);
	CU_ASSERT(stat(want, &st) == 0 && (st.st_mode & 0777) == 0755 && st.st_size == 10);
	snprintf(want, sizeof want, "%s/%s/libc.so.4.4", copy, c);
	CU_ASSERT(lstat(want, &st) == 0 && S_ISLNK(st.st_mode));
	CU_ASSERT_EQUAL(unit_count_entries(copy), 2);
	free(copy);
	free(prog);
	free(root);
	unit_rmtree(dir);
}

int unit_shared_libs_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_origin),
		UNIT_TEST(test_hash),
		UNIT_TEST(test_place),
		UNIT_END
	};

	return unit_add_suite("--shared-libs (src/shared_libs.c)", NULL, NULL, tests);
}
