/*
 * Unit tests for src/hint.c: commands quoted for the shell, and the
 * directories near a program where a library it needs lies.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <CUnit/CUnit.h>

#include "hint.h"
#include "unit.h"
#include "helpers/aoutgen.h"

static void test_command(void)
{
	const char *words[] = { "aout2elf", "-L", "/opt/jaguar sdk/lib", "it's",
				"a\nb", "", "x=1,y:2@%+./-_" };
	char *s = hint_command(words, sizeof words / sizeof *words);

	CHECK_STR(s, "aout2elf -L '/opt/jaguar sdk/lib' 'it'\\''s' $'a\\nb' '' "
		     "x=1,y:2@%+./-_");
	free(s);
	s = hint_command(words, 0);
	CHECK_STR(s, "");
	free(s);
}

static void test_rerun_command(void)
{
	char *argv[] = { "aout2elf", "-O", "out dir", "in", NULL };
	char *s = hint_rerun_command(argv, (const char *[]){ "-L", "lib" }, 2);

	CHECK_STR(s, "aout2elf -L lib -O 'out dir' in");
	free(s);
	s = hint_rerun_command(argv + 3, NULL, 0);
	CHECK_STR(s, "in");
	free(s);
}

/* An a.out shared library named name in dir, for hint_find_lib to find. */
static void put_lib(const char *dir, const char *name)
{
	char *p = unit_path(dir, name);
	struct aoutgen_spec spec;
	struct aoutgen g;

	aoutgen_library(&spec, 0x60000000);
	aoutgen_build(&spec, &g);
	CU_ASSERT_EQUAL(unit_write_file(p, g.buf, g.size, 0644), 0);
	aoutgen_free(&g);
	free(p);
}

static void test_find_lib(void)
{
	char *dir = unit_tmpdir();

	if (!dir) {
		CU_FAIL("no temporary directory");
		return;
	}
	char *bin = unit_path(dir, "bin"), *lib = unit_path(dir, "lib"),
	     *binlib = unit_path(bin, "lib"), *prog = unit_path(bin, "prog");
	char *p, *found;

	CU_ASSERT(mkdir(bin, 0755) == 0 && mkdir(lib, 0755) == 0 &&
		  mkdir(binlib, 0755) == 0);
	/* nowhere near */
	CU_ASSERT_PTR_NULL(hint_find_lib(prog, "libc.so.4"));
	/* ../lib beside the program's directory, named by a full path too */
	put_lib(lib, "libc.so.4");
	found = hint_find_lib(prog, "/lib/libc.so.4");
	p = unit_path(bin, "../lib");
	CHECK_STR(found, p);
	free(p);
	free(found);
	/* its lib/ comes first, then its own directory before both */
	put_lib(binlib, "libc.so.4");
	found = hint_find_lib(prog, "libc.so.4");
	CHECK_STR(found, binlib);
	free(found);
	put_lib(bin, "libc.so.4");
	found = hint_find_lib(prog, "libc.so.4");
	CHECK_STR(found, bin);
	free(found);
	/*
	 * a directory by that name is no library, nor a file that is none
	 * (a symbolic link kept as text); a name ending in '/' names none
	 */
	p = unit_path(binlib, "libm.so.4");
	CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
	free(p);
	p = unit_path(bin, "libm.so.4");
	CU_ASSERT_EQUAL(unit_write_file(p, "libm.so.4.4.1\n", 14, 0644), 0);
	free(p);
	CU_ASSERT_PTR_NULL(hint_find_lib(prog, "libm.so.4"));
	CU_ASSERT_PTR_NULL(hint_find_lib(prog, "/lib/"));
	/* a program named without a directory: "." */
	found = hint_find_lib("prog", "no-such-lib.so.1");
	CU_ASSERT_PTR_NULL(found);
	free(prog);
	free(binlib);
	free(lib);
	free(bin);
	unit_rmtree(dir);
}

/* Nothing missing, or no program: no options (the e2e tests find some). */
static void test_libdirs_none(void)
{
	char *dir = unit_tmpdir();
	struct conv_options o = { 0 };
	struct aoutgen_spec spec;
	struct aoutgen g;
	size_t n = 1;

	if (!dir) {
		CU_FAIL("no temporary directory");
		return;
	}
	char *prog = unit_path(dir, "prog");

	aoutgen_default(&spec, AOUT_QMAGIC);
	aoutgen_build(&spec, &g);
	CU_ASSERT_EQUAL(unit_write_file(prog, g.buf, g.size, 0755), 0);
	CU_ASSERT_PTR_NULL(hint_libdirs(prog, &o, &n));
	CHECK_U(n, 0);
	n = 1;
	CU_ASSERT_PTR_NULL(hint_libdirs(dir, &o, &n));
	CHECK_U(n, 0);
	aoutgen_free(&g);
	free(prog);
	unit_rmtree(dir);
}

int unit_hint_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_command),
		UNIT_TEST(test_rerun_command),
		UNIT_TEST(test_find_lib),
		UNIT_TEST(test_libdirs_none),
		UNIT_END
	};

	return unit_add_suite("hints (src/hint.c)", NULL, NULL, tests);
}
