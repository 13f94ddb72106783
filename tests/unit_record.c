/*
 * Unit tests for src/record.c: the dates of the .comment record (ISO 8601
 * in UTC, and the seconds of older records), the a.out's string, and the
 * whole record read back from a string table or from a converted file.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "elfwrite.h"
#include "record.h"
#include "stub_image.h"
#include "unit.h"
#include "helpers/aoutgen.h"

#define SHA_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

/* Written and read back to the nanosecond; before 1970 and leap-year days too. */
static void test_time_round_trip(void)
{
	static const struct timespec times[] = {
		{ 0, 0 }, { 1733500000, 7 }, { 951782400, 999999999 }, /* 2000-02-29 */
		{ -1, 5 }, { 4102444799, 123456789 },
	};
	char s[RECORD_TIME_MAX];
	struct timespec t;

	record_time_iso(s, &times[1]);
	CHECK_STR(s, "2024-12-06T15:46:40.000000007Z");
	record_time_iso(s, &times[3]);
	CHECK_STR(s, "1969-12-31T23:59:59.000000005Z");
	for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
		record_time_iso(s, &times[i]);
		CHECK_U(record_time_parse(s, &t), 30);
		CHECK_U(t.tv_sec, times[i].tv_sec);
		CHECK_U(t.tv_nsec, times[i].tv_nsec);
	}
}

/* SEC.NSEC, as aout2elf 0.1.0 wrote it, still reads; nothing else does. */
static void test_time_parse(void)
{
	static const char *const bad[] = {
		"", "x", "2", "2.", ".3", "-2.3", "2.-3", "2024-12-06T15:46:40Z",
		"2024-12-06T15:46:40.00000007Z", "2024-12-06T15:46:40.000000007",
		"2024-00-06T15:46:40.000000007Z", "2024-12-32T15:46:40.000000007Z",
		"2024-12-06T24:46:40.000000007Z", "2024-12-06T15:60:40.000000007Z",
		"2024-12-06T15:46:61.000000007Z", "2024/12/06T15:46:40.000000007Z",
		"24-12-06T15:46:40.000000007Z",
	};
	struct timespec t;

	CHECK_U(record_time_parse("1733500000.000000007)", &t), 20);
	CHECK_U(t.tv_sec, 1733500000);
	CHECK_U(t.tv_nsec, 7);
	CHECK_U(record_time_parse("2.3", &t), 3);
	CHECK_U(t.tv_nsec, 3);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (!CHECK_U(record_time_parse(bad[i], &t), 0))
			fprintf(stderr, "read: \"%s\"\n", bad[i]);
}

static void test_from(void)
{
	static const char *const bad[] = {
		"from QMAGIC (3 bytes, sha256 " SHA_ABC ") ",
		"from QMAGIC (3 bytes, sha256 " SHA_ABC,
		"from QMAGIC (3 bytes, sha256 0123)",
		"from QMAGIC (x bytes, sha256 " SHA_ABC ")",
		"from QMAGICAL (3 bytes, sha256 " SHA_ABC ")",
		"From QMAGIC (3 bytes, sha256 " SHA_ABC ")",
		"from QMAGIC (3 bytes, sha1 " SHA_ABC ")",
		"from  (3 bytes, sha256 " SHA_ABC ")",
	};
	struct record_from f;
	char s[256];

	record_from_write(s, sizeof s, "QMAGIC", 3, SHA_ABC);
	CHECK_STR(s, "from QMAGIC (3 bytes, sha256 " SHA_ABC ")");
	CU_ASSERT_EQUAL(record_from_parse(s, &f), 0);
	CHECK_STR(f.format, "QMAGIC");
	CHECK_U(f.size, 3);
	CHECK_STR(f.sha256, SHA_ABC);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (record_from_parse(bad[i], &f) != -1) {
			CU_FAIL("a string record_from_write did not write reads");
			fprintf(stderr, "read: \"%s\"\n", bad[i]);
		}
}

static void test_parse(void)
{
	static const char whole[] =
		"aout2elf 0.1.0 (-L /a (b) --strip)\0"
		"from ZMAGIC (3 bytes, sha256 " SHA_ABC ")\0"
		"embeds /l/libc.so.4 (libc.so.4, 9 bytes, modified "
		"2024-12-06T15:46:40.000000007Z)\0"
		"shares /l/libm.so.4 (libm.so.4, 8 bytes, modified 2.3, hash "
		"0123456789abcdef)";
	static const char old[] = "aout2elf 0.1.0\0"
				  "embeds /l/libc.so.4 (libc.so.4, 9 bytes, modified 2.3)";
	struct record r;

	CU_ASSERT_EQUAL(record_parse(whole, sizeof whole, &r), 0);
	CHECK_STR(r.version, "0.1.0");
	CHECK_STR(r.options, "-L /a (b) --strip");
	CU_ASSERT_EQUAL(r.has_from, 1);
	CHECK_STR(r.from.format, "ZMAGIC");
	CHECK_U(r.nlibs, 2);
	CHECK_STR(r.libs[0].path, "/l/libc.so.4");
	CHECK_U(r.libs[0].mtime.tv_sec, 1733500000);
	CU_ASSERT_EQUAL(r.libs[1].shared, 1);
	CHECK_STR(r.libs[1].name, "libm.so.4");
	record_free(&r);
	CU_ASSERT_EQUAL(r.nlibs, 0);
	/* a record of before the a.out's string */
	CU_ASSERT_EQUAL(record_parse(old, sizeof old, &r), 0);
	CHECK_STR(r.options, "");
	CU_ASSERT_EQUAL(r.has_from, 0);
	CHECK_U(r.nlibs, 1);
	record_free(&r);
}

/* Not aout2elf's, or a string of it unreadable: -1, and nothing kept. */
static void test_parse_bad(void)
{
	static const struct {
		const char *c;
		size_t size;
	} bad[] = {
#define B(s) { s, sizeof s }
		B("GCC: (Debian 12.2.0-14) 12.2.0"),
		B("aout2elf "),
		B("aout2elf 0.1.0 --strip"),
		B("aout2elf 0.1.0 (--strip"),
		B("aout2elf 0.1.0 ()"),
		B("aout2elf 0.1.0\0from QMAGIC (3 bytes)"),
		B("aout2elf 0.1.0\0embeds /l/x (x, 1 bytes, modified 2.3)\0"
		  "from QMAGIC (3 bytes, sha256 " SHA_ABC ")"),
		B("aout2elf 0.1.0\0from QMAGIC (3 bytes, sha256 " SHA_ABC ")\0"
		  "from QMAGIC (3 bytes, sha256 " SHA_ABC ")"),
		B("aout2elf 0.1.0\0embeds /l/x (x, 1 bytes, modified 2.3)\0"
		  "embeds /l/y (y, 1 bytes, modified 2)"),
		B("aout2elf 0.1.0\0something else"),
		{ "aout2elf 0.1.0", 14 }, /* no NUL at its end */
		{ "", 0 },
#undef B
	};
	struct record r;

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		if (record_parse(bad[i].c, bad[i].size, &r) != -1) {
			CU_FAIL("a record aout2elf did not write reads");
			fprintf(stderr, "read: \"%s\"\n", bad[i].c);
		}
		CU_ASSERT_EQUAL(r.nlibs, 0);
		CU_ASSERT_EQUAL(r.version[0], 0);
	}

	/* more libraries than a program can carry */
	char many[64 * (STUB_MAX_LIBS + 2)];
	size_t size = (size_t)sprintf(many, "aout2elf 0.1.0") + 1;

	for (int i = 0; i <= STUB_MAX_LIBS; i++)
		size += (size_t)sprintf(many + size,
					"embeds /l/x%d (x%d, 1 bytes, modified 2.3)", i, i) + 1;
	CU_ASSERT_EQUAL(record_parse(many, size, &r), -1);
	CU_ASSERT_EQUAL(r.nlibs, 0);
}

/* A converted program's record, one without a record, and no program at all. */
static void test_read(void)
{
	char *dir = unit_tmpdir();
	struct aoutgen_spec spec;
	struct aoutgen g;
	struct conv_options o = { .strip = 1, .umask_bits = 022 };
	struct conv_result res;
	struct conv_job j;
	struct record r;
	struct diag d;

	if (!dir) {
		CU_FAIL("no temporary directory");
		return;
	}
	char *src = unit_path(dir, "prog"), *dst = unit_path(dir, "prog.elf"),
	     *bare = unit_path(dir, "bare.elf");

	aoutgen_default(&spec, AOUT_QMAGIC);
	aoutgen_build(&spec, &g);
	CU_ASSERT_EQUAL(unit_write_file(src, g.buf, g.size, 0755), 0);
	CU_ASSERT_EQUAL(conv_file(src, dst, &o, &res), 0);
	CU_ASSERT_EQUAL(record_read(dst, &r), 0);
	CHECK_STR(r.options, "--strip");
	CHECK_STR(r.from.format, "QMAGIC");
	CHECK_U(r.from.size, g.size);
	CHECK_U(strlen(r.from.sha256), 64);
	record_free(&r);
	/* the a.out itself, and no file */
	CU_ASSERT_EQUAL(record_read(src, &r), -1);
	CU_ASSERT_EQUAL(record_read(bare, &r), -1);
	/* written without its .comment: aout2elf's, the record unreadable */
	int fd = open(bare, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	CU_ASSERT_EQUAL(conv_load(src, &o, 1, &j, &d), 0);
	CU_ASSERT_EQUAL(elfw_write(fd, &j.a, &j.p, stub_image, stub_image_size, &d), 0);
	close(fd);
	conv_job_free(&j);
	CU_ASSERT_EQUAL(record_read(bare, &r), 1);
	CU_ASSERT_EQUAL(r.version[0], 0);
	aoutgen_free(&g);
	free(src);
	free(dst);
	free(bare);
	unit_rmtree(dir);
}

int unit_record_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_time_round_trip),
		UNIT_TEST(test_time_parse),
		UNIT_TEST(test_from),
		UNIT_TEST(test_parse),
		UNIT_TEST(test_parse_bad),
		UNIT_TEST(test_read),
		UNIT_END
	};

	return unit_add_suite("the .comment record (src/record.c)", NULL, NULL, tests);
}
