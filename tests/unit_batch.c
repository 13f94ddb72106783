/*
 * src/batch_report.c: the JSON report of batch mode (batch_write_report),
 * written into memory with open_memstream and compared with the exact
 * text; src/batch_outputs.c: which entries would write an output another
 * one writes; what the .comment of an output says (conv_comment); and
 * diagnostics.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "batch.h"
#include "unit.h"

static void entry(struct batch_entry *e, const char *in, const char *out,
		  enum conv_status st, const char *format, int dynamic,
		  const char *libraries, const char *reason)
{
	memset(e, 0, sizeof *e);
	e->input = (char *)in;
	e->output = (char *)out;
	e->r.status = st;
	snprintf(e->r.format, sizeof e->r.format, "%s", format);
	e->r.dynamic = dynamic;
	snprintf(e->r.libraries, sizeof e->r.libraries, "%s", libraries);
	snprintf(e->r.reason, sizeof e->r.reason, "%s", reason);
}

/* The report of n entries, malloc'ed; NULL (and a failure) on error. */
static char *report(const struct batch_entry *e, size_t n, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	*rc = batch_write_report(f, e, n);
	CU_ASSERT_EQUAL(fclose(f), 0);
	CHECK_U(strlen(buf), len); /* no NUL inside */
	return buf;
}

static void expect_report(const struct batch_entry *e, size_t n,
			  const char *want, unsigned line)
{
	int rc = -2;
	char *got = report(e, n, &rc);

	unit_check_u64((uint64_t)(int64_t)rc, 0, "batch_write_report returns 0",
		       line, __FILE__, "expect_report");
	unit_check_str(got, want, "the report", line, __FILE__, "expect_report");
	free(got);
}
#define EXPECT_REPORT(e, n, want) expect_report((e), (n), (want), __LINE__)

static void test_report_empty(void)
{
	EXPECT_REPORT(NULL, 0, "[]\n");
}

static void test_report_each_status(void)
{
	struct batch_entry e[4];

	entry(&e[0], "in/hello", "out/hello", CONV_CONVERTED, "QMAGIC", 0, "", "");
	entry(&e[1], "in/dyn", "out/dyn", CONV_UP_TO_DATE, "ZMAGIC", 1,
	      "ld.so libc.so.4 libm.so.4", "");
	entry(&e[2], "in/README", "out/README", CONV_SKIPPED, "", -1, "",
	      "not an a.out executable");
	entry(&e[3], "in/broken", "out/broken", CONV_FAILED, "NMAGIC", -1, "",
	      "truncated a.out header (12 of 32 bytes)");

	EXPECT_REPORT(e, 4,
		"[\n"
		"  {\"input\": \"in/hello\", \"output\": \"out/hello\", "
		"\"status\": \"converted\", \"format\": \"QMAGIC\", "
		"\"dynamic\": false, \"libraries\": [], \"reason\": null},\n"
		"  {\"input\": \"in/dyn\", \"output\": \"out/dyn\", "
		"\"status\": \"up-to-date\", \"format\": \"ZMAGIC\", "
		"\"dynamic\": true, \"libraries\": [\"ld.so\", \"libc.so.4\", "
		"\"libm.so.4\"], \"reason\": null},\n"
		"  {\"input\": \"in/README\", \"output\": \"out/README\", "
		"\"status\": \"skipped\", \"format\": null, \"dynamic\": null, "
		"\"libraries\": [], \"reason\": \"not an a.out executable\"},\n"
		"  {\"input\": \"in/broken\", \"output\": \"out/broken\", "
		"\"status\": \"failed\", \"format\": \"NMAGIC\", \"dynamic\": null, "
		"\"libraries\": [], \"reason\": \"truncated a.out header (12 of "
		"32 bytes)\"}\n"
		"]\n");

	/* one entry: no comma */
	EXPECT_REPORT(&e[2], 1,
		"[\n"
		"  {\"input\": \"in/README\", \"output\": \"out/README\", "
		"\"status\": \"skipped\", \"format\": null, \"dynamic\": null, "
		"\"libraries\": [], \"reason\": \"not an a.out executable\"}\n"
		"]\n");
	CHECK_STR(conv_status_name(CONV_CONVERTED), "converted");
	CHECK_STR(conv_status_name(CONV_UP_TO_DATE), "up-to-date");
	CHECK_STR(conv_status_name(CONV_SKIPPED), "skipped");
	CHECK_STR(conv_status_name(CONV_FAILED), "failed");
}

/* Space separated in conv_result, a JSON array of strings in the report. */
static void test_report_libraries(void)
{
	struct batch_entry e;

	entry(&e, "p", "q", CONV_CONVERTED, "QMAGIC", 1, "libc.so.4", "");
	EXPECT_REPORT(&e, 1,
		"[\n  {\"input\": \"p\", \"output\": \"q\", \"status\": "
		"\"converted\", \"format\": \"QMAGIC\", \"dynamic\": true, "
		"\"libraries\": [\"libc.so.4\"], \"reason\": null}\n]\n");
	/* extra spaces make no empty names */
	entry(&e, "p", "q", CONV_CONVERTED, "QMAGIC", 1,
	      "  libc.so.4   libX11.so.3 ", "");
	EXPECT_REPORT(&e, 1,
		"[\n  {\"input\": \"p\", \"output\": \"q\", \"status\": "
		"\"converted\", \"format\": \"QMAGIC\", \"dynamic\": true, "
		"\"libraries\": [\"libc.so.4\", \"libX11.so.3\"], "
		"\"reason\": null}\n]\n");
	entry(&e, "p", "q", CONV_CONVERTED, "QMAGIC", 1, " ", "");
	EXPECT_REPORT(&e, 1,
		"[\n  {\"input\": \"p\", \"output\": \"q\", \"status\": "
		"\"converted\", \"format\": \"QMAGIC\", \"dynamic\": true, "
		"\"libraries\": [], \"reason\": null}\n]\n");
	/* the entry itself is left as it was */
	CHECK_STR(e.r.libraries, " ");

	/* all sixteen, as long as conv_result holds them */
	char all[sizeof e.r.libraries], want[2048], names[1024];
	size_t used = 0, wused = 0;
	all[0] = 0;
	for (int i = 0; i < STUB_MAX_LIBS; i++) {
		used += (size_t)snprintf(all + used, sizeof all - used, "%s"
					 "libnumber%02d_long_name.so.1",
					 i ? " " : "", i);
		wused += (size_t)snprintf(names + wused, sizeof names - wused,
					  "%s\"libnumber%02d_long_name.so.1\"",
					  i ? ", " : "", i);
	}
	CU_ASSERT(used < sizeof all);
	entry(&e, "p", "q", CONV_CONVERTED, "QMAGIC", 1, all, "");
	snprintf(want, sizeof want,
		 "[\n  {\"input\": \"p\", \"output\": \"q\", \"status\": "
		 "\"converted\", \"format\": \"QMAGIC\", \"dynamic\": true, "
		 "\"libraries\": [%s], \"reason\": null}\n]\n", names);
	EXPECT_REPORT(&e, 1, want);
}

/* Quotes, backslashes and control characters in names and reasons. */
static void test_report_escaping(void)
{
	struct batch_entry e[2];

	entry(&e[0], "in/we\"ird\\name", "out/tab\there\nnl",
	      CONV_FAILED, "", -1, "",
	      "cannot read \"in/we\\ird\": \x01\x1f\r\x7f");
	entry(&e[1], "caf\xc3\xa9/\x1b[31mred", "o/\\\\\"\"", CONV_SKIPPED, "",
	      -1, "", "symbolic link, not followed");
	EXPECT_REPORT(e, 2,
		"[\n"
		"  {\"input\": \"in/we\\\"ird\\\\name\", "
		"\"output\": \"out/tab\\u0009here\\u000anl\", "
		"\"status\": \"failed\", \"format\": null, \"dynamic\": null, "
		"\"libraries\": [], \"reason\": \"cannot read \\\"in/we\\\\ird\\\": "
		"\\u0001\\u001f\\u000d\x7f\"},\n"
		"  {\"input\": \"caf\xc3\xa9/\\u001b[31mred\", "
		"\"output\": \"o/\\\\\\\\\\\"\\\"\", "
		"\"status\": \"skipped\", \"format\": null, \"dynamic\": null, "
		"\"libraries\": [], \"reason\": \"symbolic link, not followed\"}\n"
		"]\n");
}

/* Bytes that are not UTF-8 become U+00XX, so the report stays valid JSON. */
static void test_report_not_utf8(void)
{
	struct batch_entry e;

	entry(&e, "latin1-\xe9t\xe9", "bad-\xc3(-\xf8\x88\x80\x80\x80-\xe2\x82",
	      CONV_SKIPPED, "", -1, "", "not an a.out executable");
	EXPECT_REPORT(&e, 1,
		"[\n"
		"  {\"input\": \"latin1-\\u00e9t\\u00e9\", "
		"\"output\": \"bad-\\u00c3(-\\u00f8\\u0088\\u0080\\u0080\\u0080-"
		"\\u00e2\\u0082\", "
		"\"status\": \"skipped\", \"format\": null, \"dynamic\": null, "
		"\"libraries\": [], \"reason\": \"not an a.out executable\"}\n"
		"]\n");
}

/*
 * Well-formed but not UTF-8 (RFC 3629): a surrogate, overlong forms, a
 * code point above U+10FFFF; each byte becomes U+00XX.  The edges that
 * are UTF-8 (U+D7FF, U+E000, U+0800, U+10000, U+10FFFF) stay as they are.
 */
static void test_report_not_utf8_edges(void)
{
	struct batch_entry e;

	entry(&e, "s\xed\xa0\x80-o\xe0\x9f\xbf-o\xf0\x8f\xbf\xbf-h\xf4\x90\x80\x80",
	      "\xed\x9f\xbf\xee\x80\x80\xe0\xa0\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
	      CONV_SKIPPED, "", -1, "", "not an a.out executable");
	EXPECT_REPORT(&e, 1,
		"[\n"
		"  {\"input\": \"s\\u00ed\\u00a0\\u0080-o\\u00e0\\u009f\\u00bf-"
		"o\\u00f0\\u008f\\u00bf\\u00bf-h\\u00f4\\u0090\\u0080\\u0080\", "
		"\"output\": \"\xed\x9f\xbf\xee\x80\x80\xe0\xa0\x80\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\", "
		"\"status\": \"skipped\", \"format\": null, \"dynamic\": null, "
		"\"libraries\": [], \"reason\": \"not an a.out executable\"}\n"
		"]\n");
}

/* A stream that cannot be written: -1. */
static void test_report_write_error(void)
{
	struct batch_entry e;
	FILE *f = fopen("/dev/null", "r");

	if (!f) {
		fprintf(stderr, "(skipped: no /dev/null)\n");
		return;
	}
	entry(&e, "p", "q", CONV_CONVERTED, "QMAGIC", 0, "", "");
	CU_ASSERT_EQUAL(batch_write_report(f, &e, 1), -1);
	fclose(f);
}

/* Same output, later entry: output_of names the first, whatever the order. */
static void test_shared_outputs(void)
{
	struct batch_entry e[6];
	static const char *const io[6][2] = {
		{ "a/prog", "out/prog" }, { "b/x", "out/x" },
		{ "b/prog", "out/prog" }, { "c/x", "out/x" },
		{ "d/y", "out/y" },	  { "a/prog", "out/prog" },
	};
	static const size_t output_of[6] = { 0, 0, 1, 2, 0, 1 };

	for (size_t i = 0; i < 6; i++)
		entry(&e[i], io[i][0], io[i][1], CONV_FAILED, "", -1, "", "");
	e[4].output_of = 99; /* stale: cleared */
	CHECK_U(batch_find_shared_outputs(e, 6), 3);
	for (size_t i = 0; i < 6; i++)
		CHECK_U(e[i].output_of, output_of[i]);
	CHECK_U(batch_find_shared_outputs(e, 1), 0);
	CHECK_U(batch_find_shared_outputs(e, 0), 0);
}

/*
 * Other names of one existing file (a linked folder, a case-blind file
 * system) are one output too; names of no file yet, or of files on other
 * devices, are not.
 */
static void test_shared_output_files(void)
{
	struct batch_entry e[8];
	static const struct {
		const char *in, *out;
		int existed;
		dev_t dev;
		ino_t ino;
	} io[8] = {
		{ "a/p", "out/A", 1, 1, 10 }, { "b/p", "out/a", 1, 1, 10 },
		{ "c/p", "out/B", 1, 1, 11 }, { "d/p", "out/x", 0, 0, 0 },
		{ "e/p", "out/y", 0, 0, 0 },  { "f/p", "out/A", 1, 1, 10 },
		{ "g/p", "out/C", 1, 2, 10 }, { "h/p", "out/b", 1, 1, 11 },
	};
	static const size_t output_of[8] = { 0, 1, 0, 0, 0, 1, 0, 3 };

	for (size_t i = 0; i < 8; i++) {
		entry(&e[i], io[i].in, io[i].out, CONV_FAILED, "", -1, "", "");
		e[i].out_existed = io[i].existed;
		e[i].out_dev = io[i].dev;
		e[i].out_ino = io[i].ino;
	}
	CHECK_U(batch_find_shared_outputs(e, 8), 3);
	for (size_t i = 0; i < 8; i++)
		CHECK_U(e[i].output_of, output_of[i]);
	/* the first entry of a file is the one that keeps it, whatever the names */
	e[0].out_ino = 12;
	e[7].out_ino = 12;
	CHECK_U(batch_find_shared_outputs(e, 8), 2);
	CHECK_U(e[1].output_of, 0);
	CHECK_U(e[5].output_of, 1);
	CHECK_U(e[7].output_of, 1);
}

/*
 * A FUSE file system that ignores case gives each spelling its own inode
 * number: an output its folder does not list is the listed spelling's.
 */
static void test_shared_output_spellings(void)
{
	struct batch_entry e[4];
	static const char *const io[4][2] = {
		{ "a/prog", "out/prog" }, { "b/Prog", "out/Prog" },
		{ "c/x", "out/x" },	  { "d/PROG", "out/PROG" },
	};
	static const size_t output_of[4] = { 2, 0, 0, 0 };

	for (size_t i = 0; i < 4; i++) {
		entry(&e[i], io[i][0], io[i][1], CONV_FAILED, "", -1, "", "");
		e[i].out_existed = 1;
		e[i].out_ino = 20 + i;
	}
	e[0].out_unlisted = 1; /* listed: "Prog" */
	e[2].out_unlisted = 1; /* no other spelling here: stays */
	CHECK_U(batch_find_shared_outputs(e, 4), 1);
	for (size_t i = 0; i < 4; i++)
		CHECK_U(e[i].output_of, output_of[i]);
	e[3].out_unlisted = 1;
	CHECK_U(batch_find_shared_outputs(e, 4), 2);
	CHECK_U(e[3].output_of, 2);
}

/* The options that shape the bytes, in a fixed order; the others not at all. */
static void test_conv_comment(void)
{
	struct conv_options o = { .force = 1, .quiet = 1, .umask_bits = 077 };
	char *c = conv_comment(&o);

	CU_ASSERT_STRING_EQUAL(c ? c : "", "aout2elf " PACKAGE_VERSION);
	free(c);
	o.strip = 1;
	o.plan.noexec = o.plan.norandom = o.plan.direct = o.plan.no_embed_libs = 1;
	o.libdirs[0] = "/opt/a out";
	o.libdirs[1] = "/b";
	o.nlibdirs = 2;
	c = conv_comment(&o);
	CU_ASSERT_STRING_EQUAL(c ? c : "", "aout2elf " PACKAGE_VERSION
			       " (-L /opt/a out -L /b --no-embed-libs --direct "
			       "--noexecstack --strip --no-randomize)");
	free(c);
	o = (struct conv_options){ .strip = 1 };
	c = conv_comment(&o);
	CU_ASSERT_STRING_EQUAL(c ? c : "", "aout2elf " PACKAGE_VERSION " (--strip)");
	free(c);
}

/* The same options as words, each as a command line takes it. */
static void test_conv_option_words(void)
{
	struct conv_options o = { .force = 1, .quiet = 1 };
	const char *w[CONV_OPTION_WORDS];

	CHECK_U(conv_option_words(&o, w), 0);
	o.libdirs[0] = "/opt/a out";
	o.nlibdirs = 1;
	o.sysroot = "/old";
	o.shared_libs = "out";
	o.plan.no_embed_libs = o.setcap = 1;
	CHECK_U(conv_option_words(&o, w), 6);
	CHECK_STR(w[0], "-L");
	CHECK_STR(w[1], "/opt/a out");
	CHECK_STR(w[2], "--sysroot");
	CHECK_STR(w[3], "/old");
	CHECK_STR(w[4], "--shared-libs");
	CHECK_STR(w[5], "--setcap");
}

/* A failure with the command that fixes it: the report's reason says both. */
static void test_report_message(void)
{
	struct batch_entry e;

	entry(&e, "in", "out/in", CONV_FAILED, "", -1, "",
	      "is a directory (use -r to convert its tree)");
	e.message = "is a directory; to convert its tree: aout2elf -r -O out in";
	EXPECT_REPORT(&e, 1,
		"[\n"
		"  {\"input\": \"in\", \"output\": \"out/in\", \"status\": \"failed\", "
		"\"format\": null, \"dynamic\": null, \"libraries\": [], \"reason\": "
		"\"is a directory; to convert its tree: aout2elf -r -O out in\"}\n"
		"]\n");
}

/*
 * The options' string, the a.out's, then one string per library carried,
 * in order, their dates in UTC to the nanosecond.
 */
static void test_conv_file_comment(void)
{
#define FROM_ABC "from QMAGIC (3 bytes, sha256 " \
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad)"
	static const char want[] =
		"aout2elf " PACKAGE_VERSION " (--strip)\0" FROM_ABC "\0"
		"embeds lib dir/libc.so.4 (libc.so.4, 812345 bytes, modified "
		"2024-12-06T15:46:40.000000007Z)\0"
		"embeds /usr/lib/libm.so.4 (libm.so.4, 0 bytes, modified "
		"1970-01-01T00:00:00.999999999Z)";
	static const char head[] = "aout2elf " PACKAGE_VERSION " (--strip)";
	struct conv_options o = { .strip = 1 };
	struct conv_job j;
	size_t size = 0;
	char *c;

	memset(&j, 0, sizeof j);
	j.in.buf = (uint8_t *)"abc";
	j.in.size = 3;
	j.a.magic = AOUT_QMAGIC;
	c = conv_file_comment(&o, &j, &size);
	CU_ASSERT_STRING_EQUAL(c ? c : "", head);
	CU_ASSERT_EQUAL(size, sizeof head + sizeof FROM_ABC);
	CU_ASSERT_STRING_EQUAL(c ? c + sizeof head : "", FROM_ABC);
	free(c);
	j.p.nlibs = j.libs.n = 3;
	j.libs.libs[0].path = "lib dir/libc.so.4";
	strcpy(j.libs.libs[0].name, "libc.so.4");
	j.libs.libs[0].in.st.st_size = 812345;
	j.libs.libs[0].in.st.st_mtim = (struct timespec){ 1733500000, 7 };
	j.libs.libs[1].path = "/found/at/run/time"; /* --no-embed-libs would say so */
	j.libs.libs[2].path = "/usr/lib/libm.so.4";
	strcpy(j.libs.libs[2].name, "libm.so.4");
	j.libs.libs[2].in.st.st_mtim = (struct timespec){ 0, 999999999 };
	j.p.libs[0].embedded = j.p.libs[2].embedded = 1;
	c = conv_file_comment(&o, &j, &size);
	CU_ASSERT_EQUAL(size, sizeof want);
	CU_ASSERT(c && size == sizeof want && memcmp(c, want, size) == 0);
	free(c);
#undef FROM_ABC
}

/* What conv_file_comment wrote of a library reads back; nothing else does. */
static void test_conv_embeds_parse(void)
{
	static const char *const bad[] = {
		"aout2elf 0.1.0",
		"embeds /lib/libc.so.4",
		"embeds (libc.so.4, 1 bytes, modified 2.3)",
		"embeds /lib/libc.so.4(libc.so.4, 1 bytes, modified 2.3)",
		"embeds /lib/libc.so.4 (libc.so.4, 1 bytes, modified 2.3) ",
		"embeds /lib/libc.so.4 (1 bytes, modified 2.3)",
		"embeds /lib/libc.so.4 (libc.so.4, 1 bytes, modified 2)",
		"embeds /lib/libc.so.4 (libc.so.4, 1 bytes, modified 2.-3)",
		"embeds /lib/libc.so.4 (libc.so.4, x bytes, modified 2.3)",
		"embeds /lib/libc.so.4 (libc.so.4, 1 bytes, modified 2.3",
		"embeds /lib/x (a-name-longer-than-thirty-one-bytes.so, 1 bytes, "
		"modified 2.3)",
		/* a shared copy is known by its hash: none, short, or an embed's */
		"shares /lib/libc.so.4 (libc.so.4, 5 bytes, modified 2.3)",
		"shares /lib/libc.so.4 (libc.so.4, 5 bytes, modified 2.3, hash 0123abc)",
		"shares /lib/libc.so.4 (libc.so.4, 5 bytes, modified 2.3, hash "
		"0123456789abcdefa)",
		"embeds /lib/libc.so.4 (libc.so.4, 5 bytes, modified 2.3, hash "
		"0123456789abcdef)",
		/* ISO 8601 dates: whole, in UTC, to the nanosecond */
		"embeds /lib/libc.so.4 (libc.so.4, 1 bytes, modified 2024-12-06T15:46:40Z)",
		"embeds /lib/libc.so.4 (libc.so.4, 1 bytes, modified "
		"2024-12-06T15:46:40.000000007)",
		"embeds /lib/libc.so.4 (libc.so.4, 1 bytes, modified "
		"2024-13-06T15:46:40.000000007Z)",
		"embeds /lib/libc.so.4 (libc.so.4, 1 bytes, modified "
		"2024-12-06 15:46:40.000000007Z)",
		"embeds /lib/libc.so.4 (libc.so.4, 1 bytes, modified "
		"2024-12-06T15:46:40.000000007Z, hash 0123456789abcdef)",
	};
	struct conv_embedded e;

	CU_ASSERT_EQUAL(conv_embeds_parse("embeds /a (b)/lib c.so (lib c.so, 812345 "
					  "bytes, modified 1733500000.000000007)",
					  &e),
			0);
	CU_ASSERT_STRING_EQUAL(e.path ? e.path : "", "/a (b)/lib c.so");
	CU_ASSERT_STRING_EQUAL(e.name, "lib c.so");
	CU_ASSERT_EQUAL(e.size, 812345);
	CU_ASSERT_EQUAL(e.mtime.tv_sec, 1733500000);
	CU_ASSERT_EQUAL(e.mtime.tv_nsec, 7);
	CU_ASSERT_EQUAL(e.shared, 0);
	free(e.path);
	/* the same as aout2elf writes it now: the date in ISO 8601 */
	CU_ASSERT_EQUAL(conv_embeds_parse("embeds /lib/libc.so.4 (libc.so.4, 1 bytes, "
					  "modified 2024-12-06T15:46:40.000000007Z)", &e),
			0);
	CU_ASSERT_EQUAL(e.mtime.tv_sec, 1733500000);
	CU_ASSERT_EQUAL(e.mtime.tv_nsec, 7);
	free(e.path);
	CU_ASSERT_EQUAL(conv_embeds_parse("shares /lib/libc.so.4 (libc.so.4, 5 bytes, "
					  "modified 1970-01-01T00:00:02.000000003Z, "
					  "hash 0123456789abcdef)", &e),
			0);
	CU_ASSERT_EQUAL(e.mtime.tv_sec, 2);
	CU_ASSERT_EQUAL(e.mtime.tv_nsec, 3);
	CU_ASSERT_STRING_EQUAL(e.hash, "0123456789abcdef");
	free(e.path);
	/* --shared-libs's record of a library copied into the output tree */
	CU_ASSERT_EQUAL(conv_embeds_parse("shares /lib/libc.so.4 (libc.so.4, 5 bytes, "
					  "modified 2.3, hash 0123456789abcdef)", &e),
			0);
	CU_ASSERT_EQUAL(e.shared, 1);
	CU_ASSERT_STRING_EQUAL(e.path ? e.path : "", "/lib/libc.so.4");
	CU_ASSERT_STRING_EQUAL(e.hash, "0123456789abcdef");
	free(e.path);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CU_ASSERT_EQUAL(conv_embeds_parse(bad[i], &e), -1);
		CU_ASSERT_PTR_NULL(e.path);
	}
}

/* Control characters become C escapes; a string that does not fit is cut. */
static void test_diag_escape(void)
{
	char out[64];

	CU_ASSERT_EQUAL(diag_escape(out, sizeof out, "a\nb\tc\033d\177'\\e"), 0);
	CU_ASSERT_STRING_EQUAL(out, "a\\nb\\tc\\033d\\177'\\e");
	CU_ASSERT_EQUAL(diag_escape(out, 4, "abcdef"), 1);
	CU_ASSERT_STRING_EQUAL(out, "abc");
	CU_ASSERT_EQUAL(diag_escape(out, 3, "\n"), 0);
	CU_ASSERT_STRING_EQUAL(out, "\\n");
	CU_ASSERT_EQUAL(diag_escape(out, 2, "\n"), 1);
	CU_ASSERT_EQUAL(strlen(out), 1);
	CU_ASSERT_EQUAL(diag_escape(out, 0, "x"), 1);
}

/* Names as the shell reads them back: bare or $'...' (diag_name), always
 * quoted (diag_quote, for -v). */
static void test_diag_names(void)
{
	char out[64];

	CU_ASSERT_EQUAL(diag_name(out, sizeof out, "dir/it's"), 0);
	CU_ASSERT_STRING_EQUAL(out, "dir/it's");
	CU_ASSERT_EQUAL(diag_name(out, sizeof out, "a\nb'\\"), 0);
	CU_ASSERT_STRING_EQUAL(out, "$'a\\nb\\'\\\\'");
	CU_ASSERT_EQUAL(diag_quote(out, sizeof out, "dir/prog"), 0);
	CU_ASSERT_STRING_EQUAL(out, "'dir/prog'");
	CU_ASSERT_EQUAL(diag_quote(out, sizeof out, "it's"), 0);
	CU_ASSERT_STRING_EQUAL(out, "'it'\\''s'");
	CU_ASSERT_EQUAL(diag_quote(out, sizeof out, "x\033[31my"), 0);
	CU_ASSERT_STRING_EQUAL(out, "$'x\\033[31my'");
	CU_ASSERT_EQUAL(diag_quote(out, 5, "abcdef"), 1);
	CU_ASSERT_STRING_EQUAL(out, "'abc");
	CU_ASSERT_EQUAL(diag_quote(out, 0, "x"), 1);
	CU_ASSERT_EQUAL(diag_name(out, 0, "x"), 1);
}

/* What diag_print writes on stderr (fd 2), read back. */
static char *printed(const char *name, const char *msg)
{
	static char buf[20000];
	FILE *f = tmpfile();
	int saved = dup(2);
	long n;

	if (!f || saved < 0)
		return NULL;
	fflush(stderr);
	dup2(fileno(f), 2);
	diag_print(name, msg);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = (long)fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* One line, whatever the name holds: as it is, or as bash's $'...'. */
static void test_diag_print(void)
{
	static char longname[6000];
	char *s = printed("dir/prog", "No such file");

	CU_ASSERT_STRING_EQUAL(s ? s : "", "aout2elf: dir/prog: No such file\n");
	s = printed("it's\n a\\b", "would overwrite x\ny");
	CU_ASSERT_STRING_EQUAL(s ? s : "",
			       "aout2elf: $'it\\'s\\n a\\\\b': would overwrite x\\ny\n");
	s = printed(NULL, "out of memory");
	CU_ASSERT_STRING_EQUAL(s ? s : "", "aout2elf: out of memory\n");
	/* a name too long to escape whole: cut, still one line */
	memset(longname, 1, sizeof longname - 1); /* \001: four bytes each */
	s = printed(longname, "m");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(strchr(s, '\n'), s + strlen(s) - 1);
	CU_ASSERT(strlen(s) > 4 * 4096);
}

/* A file of these bytes in dir; its path, malloc'ed. */
static char *file_of(const char *dir, const char *name, const char *bytes,
		     size_t n)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *path = malloc(len);
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(bytes, 1, n, f), n);
	CU_ASSERT_EQUAL(fclose(f), 0);
	return path;
}

/* --report replaces a report, an empty file, a device; nothing else. */
static void test_report_clobbers(void)
{
	static const char aout[] = "\314\000\144\000";
	char *dir = unit_tmpdir();

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *prog = file_of(dir, "prog", aout, 4);
	char *text = file_of(dir, "notes", "hello\n", 6);
	char *old = file_of(dir, "old.json", "[\n  {\"input\": \"a\"}\n]\n", 21);
	char *none = file_of(dir, "none.json", "[]\n", 3);
	char *ini = file_of(dir, "s.ini", "[section]\n", 10);
	char *empty = file_of(dir, "empty", "", 0);
	char *missing = file_of(dir, "gone", "", 0);

	remove(missing);
	CHECK_U(batch_report_clobbers(prog), 1);
	CHECK_U(batch_report_clobbers(text), 1);
	CHECK_U(batch_report_clobbers(old), 0);
	CHECK_U(batch_report_clobbers(none), 0);
	CHECK_U(batch_report_clobbers(ini), 1);
	CHECK_U(batch_report_clobbers(empty), 0);
	CHECK_U(batch_report_clobbers(missing), 0);
	CHECK_U(batch_report_clobbers("/dev/null"), 0);
	CHECK_U(batch_report_clobbers(dir), 0); /* fopen says "Is a directory" */
	free(prog);
	free(text);
	free(old);
	free(none);
	free(ini);
	free(empty);
	free(missing);
	unit_rmtree(dir);
}

int unit_batch_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_report_empty),
		UNIT_TEST(test_report_each_status),
		UNIT_TEST(test_report_libraries),
		UNIT_TEST(test_report_escaping),
		UNIT_TEST(test_report_not_utf8),
		UNIT_TEST(test_report_not_utf8_edges),
		UNIT_TEST(test_report_write_error),
		UNIT_TEST(test_shared_outputs),
		UNIT_TEST(test_shared_output_files),
		UNIT_TEST(test_shared_output_spellings),
		UNIT_TEST(test_conv_comment),
		UNIT_TEST(test_conv_option_words),
		UNIT_TEST(test_report_message),
		UNIT_TEST(test_conv_file_comment),
		UNIT_TEST(test_conv_embeds_parse),
		UNIT_TEST(test_diag_escape),
		UNIT_TEST(test_diag_names),
		UNIT_TEST(test_diag_print),
		UNIT_TEST(test_report_clobbers),
		UNIT_END
	};

	return unit_add_suite("batch report and outputs (src/batch_report.c, "
			      "src/batch_outputs.c)", NULL, NULL, tests);
}
