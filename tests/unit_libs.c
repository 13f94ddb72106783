/*
 * src/libs.c and plan_add_libs (src/plan.c): the a.out shared libraries a
 * program needs, found in its data (libs_scan, libs_wants_ldso), looked up
 * in folders (libs_resolve, with library files written to a temporary
 * folder), and added to the load plan (plan_add_libs, with hand-built
 * struct libset).
 *
 * The images are built in memory with aoutgen.  A "libentry" is the
 * struct a dynamically linked program (or library) carries in its data
 * for each library it needs: { char *name; char *tools_version;
 * void *jump_table; long version; }, version = major << 16 | minor.
 * A library's own version is the first word of its jump table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "aout.h"
#include "convert.h"
#include "libs.h"
#include "plan.h"
#include "helpers/aoutgen.h"
#include "helpers/libimg.h"
#include "unit.h"

#define PAGE 4096u
#define PAGE_UP(x) (((uint64_t)(x) + PAGE - 1) & ~(uint64_t)(PAGE - 1))

static size_t scan(struct img *m, enum aout_kind kind, struct lib_need *out,
		   size_t max)
{
	if (img_parse(m, kind))
		return (size_t)-1;
	return libs_scan(&m->a, out, max);
}

/* The message, as diag_set would have cut it to its 256 bytes. */
static const char *msgf(char *buf, const char *fmt, const char *a,
			const char *b)
{
	snprintf(buf, sizeof((struct diag *)0)->msg, fmt, a, b);
	return buf;
}

/* ---- shared with the tests of src/elfwrite.c (unit.h) ---- */

int unit_lib_fill(struct lib *l, const char *name, char *path,
		  const struct aoutgen *g)
{
	struct diag d = { "" };

	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	l->path = path;
	if (!path)
		return 0;
	if (aout_parse_kind(g->buf, g->size, AOUT_SHLIB, &l->a, &d)) {
		fprintf(stderr, "unit_lib_fill: %s\n", d.msg);
		return -1;
	}
	const struct aout_header *h = &l->a.h;
	l->start = aout_lib_start(&l->a);
	l->len = (uint32_t)PAGE_UP((uint64_t)h->text + h->data);
	l->bss_len = (uint32_t)(PAGE_UP((uint64_t)h->text + h->data + h->bss) -
				l->len);
	return 0;
}

void unit_lib_release(struct lib *l)
{
	aout_free(&l->a);
}

/* ==== libs_version_str ==== */

static void test_libs_version_str(void)
{
	static const struct {
		uint32_t version;
		const char *want;
	} c[] = {
		{ 0x402be, "4.7.2" },
		{ 0x40273, "4.6.27" },
		{ 0x10000, "1.0.0" },
		{ 0x50000 | 1999, "5.19.99" },
		{ 0xff0000 | 9999, "255.99.99" },
		/* a minor above 9999 is shown as it is, not wrapped */
		{ 0x1ffff, "1.655.35" },
		{ 0, "0.0.0" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		libs_version_str(c[i].version, buf, sizeof buf);
		CHECK_STR(buf, c[i].want);
	}
	/* cut to the buffer, always terminated */
	memset(buf, 'x', sizeof buf);
	libs_version_str(0x402be, buf, 4);
	CHECK_STR(buf, "4.7");
	CHECK_U((unsigned char)buf[4], 'x');
}

/* ==== libs_scan ==== */

static void test_libs_scan_found(void)
{
	static const struct {
		const char *name;
		uint32_t jump_table, version;
	} want[] = {
		{ "libc.so.4", 0x60000040, 0x402be },
		{ "libm.so.4", 0x60fc0040, 0x40273 },
		{ "libX11.so.3", 0x60200040, 0x30001 },
	};
	struct img m;
	struct lib_need need[LIBS_MAX_NEEDS];

	img_qprogram(&m);
	img_need(&m, 0, "libc.so.4", 0x60000040, 0x402be);
	img_need(&m, 1, "libm.so.4", 0x60fc0040, 0x40273);
	/* and one whose name is in the text, not the data */
	aoutgen_put_bytes(&m.g, m.g.text_off + 0x100, "libX11.so.3", 12);
	img_entry_at(&m, 32, 0x1100, img_tools(&m), 0x60200040, 0x30001);
	size_t n = scan(&m, AOUT_EXEC, need, LIBS_MAX_NEEDS);
	CHECK_U(n, 3);
	if (n == 3) {
		for (size_t i = 0; i < 3; i++) {
			CHECK_STR(need[i].name, want[i].name);
			CHECK_U(need[i].jump_table, want[i].jump_table);
			CHECK_U(need[i].version, want[i].version);
		}
	}
	img_free(&m);

	/* nothing in the data: nothing needed */
	img_qprogram(&m);
	CHECK_U(scan(&m, AOUT_EXEC, need, LIBS_MAX_NEEDS), 0);
	img_free(&m);

	/* the last 16 bytes of the data are looked at too */
	img_qprogram(&m);
	img_entry_at(&m, m.data_size - 16, img_str(&m, "libc.so.4"),
		     img_tools(&m), 0x60000040, 0x402be);
	CHECK_U(scan(&m, AOUT_EXEC, need, LIBS_MAX_NEEDS), 1);
	CHECK_STR(need[0].name, "libc.so.4");
	img_free(&m);
}

static void test_libs_scan_duplicates_and_max(void)
{
	struct img m;
	struct lib_need need[LIBS_MAX_NEEDS];

	img_qprogram(&m);
	img_need(&m, 0, "libc.so.4", 0x60000040, 0x402be);
	img_need(&m, 1, "libm.so.4", 0x60fc0040, 0x40273);
	img_need(&m, 2, "libc.so.4", 0x60000040, 0x40300); /* again */
	img_need(&m, 3, "libc.so.4", 0x60000040, 0x402be);
	size_t n = scan(&m, AOUT_EXEC, need, LIBS_MAX_NEEDS);
	CHECK_U(n, 2);
	if (n == 2) {
		CHECK_STR(need[0].name, "libc.so.4");
		CHECK_U(need[0].version, 0x402be); /* the first one counts */
		CHECK_STR(need[1].name, "libm.so.4");
	}
	/* never more than max */
	CHECK_U(libs_scan(&m.a, need, 1), 1);
	CHECK_STR(need[0].name, "libc.so.4");
	img_free(&m);
}

/* Each libentry must be refused alone: no match, nothing written to out. */
static void expect_no_match(struct img *m, unsigned line)
{
	struct lib_need need[4];

	memset(need, 0x5a, sizeof need);
	unit_check_u64(scan(m, AOUT_EXEC, need, 4), 0, "libs_scan finds nothing",
		       line, __FILE__, "expect_no_match");
	img_free(m);
}
#define EXPECT_NO_MATCH(m) expect_no_match((m), __LINE__)

static void expect_match(struct img *m, const char *name, unsigned line)
{
	struct lib_need need[4];
	size_t n = scan(m, AOUT_EXEC, need, 4);

	unit_check_u64(n, 1, "libs_scan finds one", line, __FILE__,
		       "expect_match");
	if (n == 1)
		unit_check_str(need[0].name, name, "its name", line, __FILE__,
			       "expect_match");
	img_free(m);
}
#define EXPECT_MATCH(m, name) expect_match((m), (name), __LINE__)

static void test_libs_scan_garbage(void)
{
	struct img m;
	uint32_t name, tools;

	/* the name pointer outside the image (in bss, past it, at 0) */
	static const uint32_t outside[] = { 0x4000, 0x00500000, 0, 0xfff,
					    0x7ffffff0 };
	for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
		img_qprogram(&m);
		img_entry_at(&m, 0, outside[i], img_tools(&m), 0x60000040, 0x402be);
		EXPECT_NO_MATCH(&m);
	}
	/* the tools pointer outside the image */
	img_qprogram(&m);
	name = img_str(&m, "libc.so.4");
	img_entry_at(&m, 0, name, 0x00500000, 0x60000040, 0x402be);
	EXPECT_NO_MATCH(&m);
	/* a tools string that is not printable, or empty */
	img_qprogram(&m);
	name = img_str(&m, "libc.so.4");
	img_entry_at(&m, 0, name, img_str(&m, "gcc\x01tools"), 0x60000040, 0x402be);
	EXPECT_NO_MATCH(&m);
	img_qprogram(&m);
	name = img_str(&m, "libc.so.4");
	img_entry_at(&m, 0, name, img_str(&m, ""), 0x60000040, 0x402be);
	EXPECT_NO_MATCH(&m);

	/* names that are not library file names */
	static const char *const bad_names[] = {
		"lib\001c.so.4",   /* not printable */
		"lib\377c.so.4",
		"libc so.4",       /* a space */
		/* no ".so" is fine: see unit_libs_search.c */
		"",                /* empty */
		"libabcdefghijklmnopqrstuvwx.so.4", /* 32 characters */
	};
	for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; i++) {
		img_qprogram(&m);
		img_need(&m, 0, bad_names[i], 0x60000040, 0x402be);
		EXPECT_NO_MATCH(&m);
	}

	/* a name that runs to the end of the data without its NUL */
	img_qprogram(&m);
	tools = img_tools(&m);
	aoutgen_put_bytes(&m.g, m.g.data_off + m.data_size - 9, "libc.so.4", 9);
	img_entry_at(&m, 0, m.data_addr + m.data_size - 9, tools, 0x60000040,
		     0x402be);
	EXPECT_NO_MATCH(&m);

	/* the jump table outside [0x40000000, 0x80000000) */
	static const uint32_t bad_jump[] = { 0, 0x3000, 0x3fffffff, 0x80000000,
					     0xbffff000, 0xffffffff };
	for (size_t i = 0; i < sizeof bad_jump / sizeof bad_jump[0]; i++) {
		img_qprogram(&m);
		img_need(&m, 0, "libc.so.4", bad_jump[i], 0x402be);
		EXPECT_NO_MATCH(&m);
	}
	/* a major version of 0, or above 255 */
	static const uint32_t bad_version[] = { 0, 0x2be, 0xffff, 0x1000000,
						0xffffffff };
	for (size_t i = 0; i < sizeof bad_version / sizeof bad_version[0]; i++) {
		img_qprogram(&m);
		img_need(&m, 0, "libc.so.4", 0x60000040, bad_version[i]);
		EXPECT_NO_MATCH(&m);
	}
	/* the pattern aoutgen fills data with is no libentry either */
	{
		struct aoutgen_spec s;
		struct lib_need need[4];

		memset(&m, 0, sizeof m);
		aoutgen_default(&s, AOUT_QMAGIC);
		aoutgen_build(&s, &m.g);
		CHECK_U(scan(&m, AOUT_EXEC, need, 4), 0);
		img_free(&m);
	}
}

/* Just inside each limit: found. */
static void test_libs_scan_limits(void)
{
	static const struct {
		const char *name;
		uint32_t jump, version;
	} c[] = {
		{ "libc.so.4", 0x40000000, 0x402be },
		{ "libc.so.4", 0x7fffffff, 0x402be },
		{ "libc.so.4", 0x60000040, 0x10000 },
		{ "libc.so.4", 0x60000040, 0xffffff },
		/* 31 characters, and every character a file name may have */
		{ "libabcdefghijklmnopqrstuvw.so.4", 0x60000040, 0x402be },
		{ "/usr/lib/libg++_X-9.so.2", 0x60000040, 0x402be },
		{ "ld.so", 0x60000040, 0x10000 },
	};
	struct img m;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		img_qprogram(&m);
		img_need(&m, 0, c[i].name, c[i].jump, c[i].version);
		EXPECT_MATCH(&m, c[i].name);
	}
	/* a tools string of 80 printable characters */
	img_qprogram(&m);
	{
		char t[81];

		memset(t, 'T', 80);
		t[80] = 0;
		img_entry_at(&m, 0, img_str(&m, "libc.so.4"), img_str(&m, t),
			     0x60000040, 0x402be);
	}
	EXPECT_MATCH(&m, "libc.so.4");
}

/* Libraries need libraries too: their data starts at start + a_text. */
static void test_libs_scan_library_and_omagic(void)
{
	struct img m;
	struct lib_need need[4];

	img_library(&m, LIB_A, 0x402be);
	CHECK_U(m.data_addr, LIB_A + 0x2000);
	img_need(&m, 0, "libunitb.so.1", JUMP(LIB_B), 0x10005);
	CHECK_U(scan(&m, AOUT_SHLIB, need, 4), 1);
	CHECK_STR(need[0].name, "libunitb.so.1");
	CHECK_U(need[0].jump_table, JUMP(LIB_B));
	CHECK_U(need[0].version, 0x10005);
	img_free(&m);

	/* OMAGIC: the data right behind a text of odd size */
	img_program(&m, AOUT_OMAGIC, 0x124, 0x200);
	CHECK_U(m.data_addr, 0x124);
	img_need(&m, 0, "libc.so.4", 0x60000040, 0x402be);
	CHECK_U(scan(&m, AOUT_EXEC, need, 4), 1);
	CHECK_STR(need[0].name, "libc.so.4");
	img_free(&m);

	/* ZMAGIC with a page-multiple text: data at 0x2000 either way */
	img_program(&m, AOUT_ZMAGIC, 0x2000, 0x1000);
	img_need(&m, 0, "libc.so.4", 0x60000040, 0x402be);
	CHECK_U(scan(&m, AOUT_EXEC, need, 4), 1);
	CHECK_STR(need[0].name, "libc.so.4");
	img_free(&m);
}

/*
 * SRC BUG (src/aout.c aout_at, src/libs.c libs_scan): since ZMAGIC is
 * planned as one region copied from offset 1024 (text and data
 * contiguous, data_addr = a_text), the loaded image of a ZMAGIC program
 * whose text is not a page multiple has its data at a_text, not at
 * N_DATADDR.  aout_at (documented as "the bytes at address addr of the
 * loaded image") and libs_scan still put ZMAGIC data at N_DATADDR, like
 * QMAGIC, so a libentry whose strings are at their loaded addresses is
 * not found.
 */
static void test_libs_scan_zmagic_odd_text(void)
{
	struct img m;
	struct lib_need need[4];
	struct plan p;
	struct diag d = { "" };

	img_program(&m, AOUT_ZMAGIC, 0x1234, 0x200);
	img_need(&m, 0, "libc.so.4", 0x60000040, 0x402be);
	if (img_parse(&m, AOUT_EXEC) == 0) {
		/* where the planner says the data is */
		CU_ASSERT_EQUAL(plan_build(&m.a, NULL, &p, &d), 0);
		CHECK_U(p.data_addr, 0x1234);
		CHECK_U(m.data_addr, p.data_addr);
		size_t n = libs_scan(&m.a, need, 4);
		CHECK_U(n, 1);
		if (n == 1) {
			CHECK_STR(need[0].name, "libc.so.4");
			CHECK_U(need[0].jump_table, 0x60000040);
			CHECK_U(need[0].version, 0x402be);
		}
	}
	img_free(&m);
}

/* ==== libs_wants_ldso ==== */

static void test_libs_wants_ldso(void)
{
	struct img m;

	img_qprogram(&m);
	img_str(&m, "/lib/ld.so");
	if (img_parse(&m, AOUT_EXEC) == 0)
		CHECK_U(libs_wants_ldso(&m.a), 1);
	img_free(&m);

	/* in the text */
	img_qprogram(&m);
	aoutgen_put_bytes(&m.g, m.g.text_off + 0x200, "/lib/ld.so", 11);
	if (img_parse(&m, AOUT_EXEC) == 0)
		CHECK_U(libs_wants_ldso(&m.a), 1);
	img_free(&m);

	/* the last bytes of the data, its NUL included */
	img_qprogram(&m);
	aoutgen_put_bytes(&m.g, m.g.data_off + m.data_size - 11, "/lib/ld.so", 11);
	if (img_parse(&m, AOUT_EXEC) == 0)
		CHECK_U(libs_wants_ldso(&m.a), 1);
	img_free(&m);

	/* not the whole string: no */
	static const char *const no[] = { "/lib/ld.so.1", "/lib/ld.s", "lib/ld.so.",
					  "/usr/lib/ld.sox" };
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		img_qprogram(&m);
		img_str(&m, no[i]);
		if (img_parse(&m, AOUT_EXEC) == 0)
			CHECK_U(libs_wants_ldso(&m.a), 0);
		img_free(&m);
	}

	/* the data ends right after "/lib/ld.so", without its NUL */
	img_qprogram(&m);
	aoutgen_put_bytes(&m.g, m.g.data_off + m.data_size - 10, "/lib/ld.so", 10);
	if (img_parse(&m, AOUT_EXEC) == 0)
		CHECK_U(libs_wants_ldso(&m.a), 0);
	img_free(&m);

	/* in the string table only (a symbol's name): not part of the image */
	{
		static const struct aoutgen_sym sym = { "/lib/ld.so", N_TEXT, 0, 0,
							0x1020 };
		struct aoutgen_spec s;

		memset(&m, 0, sizeof m);
		aoutgen_default(&s, AOUT_QMAGIC);
		s.syms = &sym;
		s.nsyms = 1;
		aoutgen_build(&s, &m.g);
		if (img_parse(&m, AOUT_EXEC) == 0)
			CHECK_U(libs_wants_ldso(&m.a), 0);
		img_free(&m);
	}
}

/* ==== libs_resolve ==== */

/* A program needing the given libraries, parsed. */
static int prog_needing(struct img *m, const char *const *names,
			const uint32_t *jumps, const uint32_t *versions,
			size_t n)
{
	img_qprogram(m);
	for (size_t i = 0; i < n; i++)
		img_need(m, (unsigned)i, names[i], jumps[i], versions[i]);
	return img_parse(m, AOUT_EXEC);
}

static int resolve(const struct img *prog, const char *const *dirs,
		   size_t ndirs, int missing_ok, struct libset *set,
		   struct diag *d)
{
	/* the default program's image: 0x1000 .. 0x7000 */
	return libs_resolve(&prog->a, 0x1000, 0x7000, dirs, ndirs, NULL, missing_ok,
			    set, d);
}

static void test_libs_resolve_found(void)
{
	static const char *const names[] = { "libunita.so.4" };
	static const uint32_t jumps[] = { JUMP(LIB_A) };
	static const uint32_t older[] = { 0x40273 }; /* 4.6.27 < 4.7.2 */
	static const uint32_t same[] = { 0x402be };
	char *dir = unit_tmpdir();
	struct img lib, prog;
	struct libset set;
	struct diag d = { "" };

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	img_library(&lib, LIB_A, 0x402be); /* 4.7.2 */
	char *path = img_write(&lib, dir, "libunita.so.4");
	const char *dirs[] = { dir };

	for (int k = 0; k < 2; k++) {
		if (prog_needing(&prog, names, jumps, k ? same : older, 1))
			break;
		memset(&set, 0xa5, sizeof set);
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), 0);
		CHECK_U(set.n, 1);
		if (set.n == 1) {
			const struct lib *l = &set.libs[0];

			CHECK_STR(l->name, "libunita.so.4");
			CHECK_STR(l->path, path);
			CHECK_U(l->start, LIB_A);
			CHECK_U(l->len, 0x3000);     /* text 0x2000 + data 0x1000 */
			CHECK_U(l->bss_len, 0x3000); /* PAGE_UP(0x5345) - 0x3000 */
			CHECK_U(l->version, 0x402be);
			CHECK_U(l->needed, k ? 0x402be : 0x40273);
			CHECK_STR(l->needed_by, "the program");
			CHECK_U(l->a.kind, AOUT_SHLIB);
			CHECK_U(l->a.magic, AOUT_QMAGIC);
			CHECK_U(l->in.size, lib.g.size);
			CU_ASSERT(l->in.buf &&
				  memcmp(l->in.buf, lib.g.buf, lib.g.size) == 0);
			CU_ASSERT(l->a.buf == l->in.buf);
			libs_free(&set);
			CHECK_U(set.n, 0);
		}
		img_free(&prog);
	}

	/* a program that needs nothing: an empty set, whatever the folders */
	img_qprogram(&prog);
	if (img_parse(&prog, AOUT_EXEC) == 0) {
		memset(&set, 0xa5, sizeof set);
		CU_ASSERT_EQUAL(resolve(&prog, NULL, 0, 0, &set, &d), 0);
		CHECK_U(set.n, 0);
	}
	img_free(&prog);
	img_free(&lib);
	free(path);
	unit_rmtree(dir);
}

/* The folders in their order: the first that has the file wins. */
static void test_libs_resolve_search_order(void)
{
	static const char *const names[] = { "libunita.so.4" };
	static const uint32_t jumps[] = { JUMP(LIB_A) };
	static const uint32_t versions[] = { 0x40000 };
	char *dir = unit_tmpdir();
	struct img lib, prog;
	struct libset set;
	struct diag d = { "" };

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *one = unit_path(dir, "one"), *two = unit_path(dir, "two");
	char *none = unit_path(dir, "none");
	CU_ASSERT_EQUAL_FATAL(mkdir(one, 0755), 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(two, 0755), 0);
	if (prog_needing(&prog, names, jumps, versions, 1))
		goto out;

	/* only in the second folder (the first does not even exist) */
	img_library(&lib, LIB_A, 0x402be);
	char *p2 = img_write(&lib, two, "libunita.so.4");
	const char *dirs[] = { none, one, two };
	CU_ASSERT_EQUAL(resolve(&prog, dirs, 3, 0, &set, &d), 0);
	CHECK_U(set.n, 1);
	if (set.n == 1) {
		CHECK_STR(set.libs[0].path, p2);
		CHECK_U(set.libs[0].version, 0x402be);
		libs_free(&set);
	}
	img_free(&lib);

	/* in both: the first folder's, a different version to tell them apart */
	img_library(&lib, LIB_A, 0x40300);
	char *p1 = img_write(&lib, one, "libunita.so.4");
	CU_ASSERT_EQUAL(resolve(&prog, dirs, 3, 0, &set, &d), 0);
	CHECK_U(set.n, 1);
	if (set.n == 1) {
		CHECK_STR(set.libs[0].path, p1);
		CHECK_U(set.libs[0].version, 0x40300);
		libs_free(&set);
	}
	img_free(&lib);
	free(p1);
	free(p2);
out:
	img_free(&prog);
	free(one);
	free(two);
	free(none);
	unit_rmtree(dir);
}

/* what this change appends to each refusal of the program's crt0 (SLS) */
#define CRT0 "; its crt0 refuses it (\"Incompatible version.\")"

static void test_libs_resolve_version_errors(void)
{
	static const char *const names[] = { "libunita.so.4" };
	static const uint32_t jumps[] = { JUMP(LIB_A) };
	char *dir = unit_tmpdir();
	struct img lib, prog;
	struct libset set;
	struct diag d = { "" };
	char want[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	img_library(&lib, LIB_A, 0x402be); /* 4.7.2 */
	char *path = img_write(&lib, dir, "libunita.so.4");
	const char *dirs[] = { dir };

	/* 4.7.4 needed: older */
	static const uint32_t newer[] = { 0x402c0 };
	if (prog_needing(&prog, names, jumps, newer, 1) == 0) {
		set.n = 99;
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
		CHECK_MSG(&d, msgf(want, "%s is version 4.7.2, older than the "
					 "4.7.4 that the program needs%s", path, CRT0));
		CHECK_U(set.n, 0); /* freed */
		/* missing_ok is about libraries that are not found, not these */
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 1, &set, &d), -1);
		CHECK_MSG(&d, want);
	}
	img_free(&prog);

	/* 4.7.3 and 4.8.0 */
	static const uint32_t newer2[] = { 0x402bf };
	if (prog_needing(&prog, names, jumps, newer2, 1) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
		CHECK_MSG(&d, msgf(want, "%s is version 4.7.2, older than the "
					 "4.7.3 that the program needs%s", path, CRT0));
	}
	img_free(&prog);

	/* a jump table that is not in the library */
	static const uint32_t v4[] = { 0x40000 };
	static const uint32_t far[] = { LIB_A + 0x3000 }; /* in its bss */
	if (prog_needing(&prog, names, far, v4, 1) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
		CHECK_MSG(&d, msgf(want, "%s: the jump table 0x61003000 that the "
					 "program uses is not in this library "
					 "(0x61000000-0x61003000)", path, NULL));
		CHECK_U(set.n, 0);
	}
	img_free(&prog);

	/* another major version, older or newer */
	static const uint32_t major5[] = { 0x502be };
	if (prog_needing(&prog, names, jumps, major5, 1) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
		CHECK_MSG(&d, msgf(want, "%s is version 4.7.2, the program needs "
					 "major version 5%s", path, CRT0));
		CHECK_U(set.n, 0);
	}
	img_free(&prog);
	static const uint32_t major3[] = { 0x30000 };
	if (prog_needing(&prog, names, jumps, major3, 1) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
		CHECK_MSG(&d, msgf(want, "%s is version 4.7.2, the program needs "
					 "major version 3%s", path, CRT0));
	}
	img_free(&prog);

	img_free(&lib);
	free(path);
	unit_rmtree(dir);
}

static void test_libs_resolve_not_shlib(void)
{
	static const char *const names[] = { "libunita.so.4" };
	static const uint32_t jumps[] = { JUMP(LIB_A) };
	static const uint32_t versions[] = { 0x40000 };
	char *dir = unit_tmpdir();
	struct img prog;
	struct libset set;
	struct diag d = { "" };
	char want[256];
	struct aoutgen_spec s;
	struct aoutgen g;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *path = unit_path(dir, "libunita.so.4");
	const char *dirs[] = { dir };
	if (prog_needing(&prog, names, jumps, versions, 1))
		goto out;

	/* an OMAGIC program under the library's name */
	aoutgen_default(&s, AOUT_OMAGIC);
	aoutgen_build(&s, &g);
	CU_ASSERT_EQUAL(unit_write_file(path, g.buf, g.size, 0644), 0);
	aoutgen_free(&g);
	CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
	CHECK_MSG(&d, msgf(want, "%s: not an a.out shared library: OMAGIC is "
				 "not a shared library format (QMAGIC or ZMAGIC)",
			   path, NULL));
	CHECK_U(set.n, 0);
	/* found but unusable: an error even with missing_ok */
	CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 1, &set, &d), -1);
	CHECK_MSG(&d, want);

	/* an ELF file */
	CU_ASSERT_EQUAL(unit_write_file(path, "\177ELF\1\1\1\0\0\0\0\0\0\0\0\0", 16, 0644), 0);
	CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
	CHECK_MSG(&d, msgf(want, "%s: not an a.out shared library: already an "
				 "ELF file, not an a.out executable", path, NULL));

	/* a ZMAGIC library whose entry is not page aligned */
	aoutgen_default(&s, AOUT_ZMAGIC);
	s.entry = LIB_A + 0x20;
	aoutgen_build(&s, &g);
	CU_ASSERT_EQUAL(unit_write_file(path, g.buf, g.size, 0644), 0);
	aoutgen_free(&g);
	CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
	CHECK_MSG(&d, msgf(want, "%s: not an a.out shared library: ZMAGIC "
				 "library entry 0x61000020 is not page aligned",
			   path, NULL));
out:
	img_free(&prog);
	free(path);
	unit_rmtree(dir);
}

/* what this change appends to "not found" */
#define LIBS_HINT "; give its directory with -L DIR, or the old system's " \
		  "root with --sysroot DIR"

static void test_libs_resolve_not_found(void)
{
	static const char *const names[] = { "libunitz.so.4" };
	static const uint32_t jumps[] = { 0x6f000040 };
	static const uint32_t versions[] = { 0x40000 };
	char *dir = unit_tmpdir();
	struct img prog;
	struct libset set;
	struct diag d = { "" };
	char want[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *sub = unit_path(dir, "sub");
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
	/* a folder of that name is not the library */
	char *decoy = unit_path(sub, "libunitz.so.4");
	CU_ASSERT_EQUAL_FATAL(mkdir(decoy, 0755), 0);
	if (prog_needing(&prog, names, jumps, versions, 1))
		goto out;

	const char *dirs[] = { dir, sub };
	CU_ASSERT_EQUAL(resolve(&prog, dirs, 2, 0, &set, &d), -1);
	snprintf(want, sizeof want, "needs the a.out library libunitz.so.4, not "
		 "found in %s:%s:/usr/i486-linuxaout/lib:/usr/i486-linux/lib:"
		 "/lib:/usr/lib" LIBS_HINT, dir, sub);
	CHECK_MSG(&d, want);
	CHECK_U(set.n, 0);

	/* no folders given: the customary ones only */
	CU_ASSERT_EQUAL(resolve(&prog, NULL, 0, 0, &set, &d), -1);
	CHECK_MSG(&d, "needs the a.out library libunitz.so.4, not found in "
		      "/usr/i486-linuxaout/lib:/usr/i486-linux/lib:/lib:/usr/lib"
		      LIBS_HINT);
	CHECK_STR(libs_customary_dirs,
		  "/usr/i486-linuxaout/lib:/usr/i486-linux/lib:/lib:/usr/lib");

	/* missing_ok: kept by name, without a path, and no error */
	memset(&set, 0xa5, sizeof set);
	CU_ASSERT_EQUAL(resolve(&prog, dirs, 2, 1, &set, &d), 0);
	CHECK_U(set.n, 1);
	if (set.n == 1) {
		const struct lib *l = &set.libs[0];

		CHECK_STR(l->name, "libunitz.so.4");
		CU_ASSERT_PTR_NULL(l->path);
		CHECK_U(l->start, 0);
		CHECK_U(l->len, 0);
		CHECK_U(l->bss_len, 0);
		CHECK_U(l->version, 0);
		CHECK_U(l->needed, 0x40000);
		CHECK_STR(l->needed_by, "the program");
		CU_ASSERT_PTR_NULL(l->in.buf);
		libs_free(&set);
		CHECK_U(set.n, 0);
	}
out:
	img_free(&prog);
	free(decoy);
	free(sub);
	unit_rmtree(dir);
}

/*
 * Out of file descriptors: the search ends with the error, even where a
 * missing library is allowed, instead of looking in the next folder
 * (which would fail alike) and calling the library not found.
 */
static void test_libs_resolve_out_of_descriptors(void)
{
	static const char *const names[] = { "libunita.so.4" };
	static const uint32_t jumps[] = { JUMP(LIB_A) };
	static const uint32_t versions[] = { 0x402be };
	char *dir = unit_tmpdir();
	struct img lib, prog;
	struct libset set;
	struct diag d = { "" };
	struct rlimit old, low;
	char want[512];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	img_library(&lib, LIB_A, 0x402be);
	char *path = img_write(&lib, dir, "libunita.so.4");
	const char *dirs[] = { dir };
	int lowest = dup(0); /* the lowest free descriptor */

	CU_ASSERT_FATAL(lowest >= 0 && getrlimit(RLIMIT_NOFILE, &old) == 0);
	close(lowest);
	if (prog_needing(&prog, names, jumps, versions, 1) == 0) {
		low = old;
		low.rlim_cur = (rlim_t)lowest;
		for (int missing_ok = 0; missing_ok < 2; missing_ok++) {
			int set_low = setrlimit(RLIMIT_NOFILE, &low);
			int rc = resolve(&prog, dirs, 1, missing_ok, &set, &d);

			setrlimit(RLIMIT_NOFILE, &old);
			CU_ASSERT_EQUAL(set_low, 0);
			CU_ASSERT_EQUAL(rc, -1);
			snprintf(want, sizeof want, "%s: %s", path, strerror(EMFILE));
			CHECK_MSG(&d, want);
		}
		/* with descriptors again, it is found */
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), 0);
		CHECK_U(set.n, 1);
		libs_free(&set);
	}
	img_free(&prog);
	img_free(&lib);
	free(path);
	unit_rmtree(dir);
}

static void test_libs_resolve_overlaps(void)
{
	static const char *const names[] = { "libunita.so.4", "libunitb.so.1" };
	static const uint32_t versions[] = { 0x40000, 0x10000 };
	char *dir = unit_tmpdir();
	struct img a, b, prog;
	struct libset set;
	struct diag d = { "" };
	char want[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	const char *dirs[] = { dir };
	/* libunita spans 0x61000000-0x61006000 with its bss */
	img_library(&a, LIB_A, 0x40000);
	char *pa = img_write(&a, dir, "libunita.so.4");

	/* libunitb inside that bss */
	img_library(&b, LIB_A + 0x4000, 0x10000);
	char *pb = img_write(&b, dir, "libunitb.so.1");
	uint32_t jumps[] = { JUMP(LIB_A), JUMP(LIB_A + 0x4000) };
	if (prog_needing(&prog, names, jumps, versions, 2) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
		snprintf(want, sizeof want, "%s (0x61004000-0x6100a000) overlaps %s "
			 "(0x61000000-0x61006000)", pb, pa);
		CHECK_MSG(&d, want);
		CHECK_U(set.n, 0);
	}
	img_free(&prog);
	img_free(&b);
	free(pb);

	/* right behind it: fine */
	img_library(&b, LIB_A + 0x6000, 0x10000);
	pb = img_write(&b, dir, "libunitb.so.1");
	jumps[1] = JUMP(LIB_A + 0x6000);
	if (prog_needing(&prog, names, jumps, versions, 2) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), 0);
		CHECK_U(set.n, 2);
		libs_free(&set);

		/* the program's image reaching into the library */
		CU_ASSERT_EQUAL(libs_resolve(&prog.a, 0x1000, LIB_A + 1, dirs, 1, NULL, 0,
					     &set, &d), -1);
		snprintf(want, sizeof want, "%s (0x61000000-0x61006000) overlaps "
			 "the program (0x00001000-0x61000001)", pa);
		CHECK_MSG(&d, want);
		CHECK_U(set.n, 0);
		CU_ASSERT_EQUAL(libs_resolve(&prog.a, LIB_A + 0x5fff, 0x70000000,
					     dirs, 1, NULL, 0, &set, &d), -1);
		snprintf(want, sizeof want, "%s (0x61000000-0x61006000) overlaps "
			 "the program (0x61005fff-0x70000000)", pa);
		CHECK_MSG(&d, want);
		/* ending where the library starts: fine */
		CU_ASSERT_EQUAL(libs_resolve(&prog.a, 0x1000, LIB_A, dirs, 1, NULL, 0,
					     &set, &d), 0);
		CHECK_U(set.n, 2);
		libs_free(&set);
	}
	img_free(&prog);
	img_free(&a);
	img_free(&b);
	free(pa);
	free(pb);
	unit_rmtree(dir);
}

static void test_libs_resolve_beyond_limit(void)
{
	static const char *const names[] = { "libunita.so.4" };
	static const uint32_t jumps[] = { JUMP(0x7fffe000u) };
	static const uint32_t versions[] = { 0x40000 };
	char *dir = unit_tmpdir();
	struct img lib, prog;
	struct libset set;
	struct diag d = { "" };
	char want[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	const char *dirs[] = { dir };
	img_library(&lib, 0x7fffe000u, 0x40000);
	char *path = img_write(&lib, dir, "libunita.so.4");
	if (prog_needing(&prog, names, jumps, versions, 1) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
		CHECK_MSG(&d, msgf(want, "%s ends at 0x80004000, beyond 0x80000000",
				   path, NULL));
		CHECK_U(set.n, 0);
	}
	img_free(&prog);
	img_free(&lib);
	free(path);
	unit_rmtree(dir);
}

/* conv_prepare on a copy of m's bytes, which the job owns and frees. */
static int prepare_copy(const struct img *m, struct diag *d)
{
	struct conv_options o;
	struct conv_job j;
	int rc;

	memset(&o, 0, sizeof o);
	memset(&j, 0, sizeof j);
	j.in.size = m->g.size;
	j.in.buf = malloc(m->g.size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j.in.buf);
	memcpy(j.in.buf, m->g.buf, m->g.size);
	rc = conv_prepare(&j, &o, 0, d);
	if (rc == 0)
		conv_job_free(&j);
	CU_ASSERT_PTR_NULL(j.in.buf); /* freed with the job */
	return rc;
}

/*
 * A shared library given where a program is expected: read as a program
 * its entry lies outside its text, so it is named for what it is.
 */
static void test_conv_shared_library(void)
{
	struct img lib, low, prog;
	struct diag d = { "" };

	img_library(&lib, 0x60000000u, 0x40000);
	/* below 64 KiB, where programs are, a library is a bad program */
	img_library(&low, 0x8000u, 0x40000);
	img_qprogram(&prog);
	CHECK_U(conv_is_shared_library(lib.g.buf, lib.g.size), 1);
	CHECK_U(conv_is_shared_library(lib.g.buf, AOUT_HEADER_SIZE - 1), 0);
	CHECK_U(conv_is_shared_library(low.g.buf, low.g.size), 0);
	CHECK_U(conv_is_shared_library(prog.g.buf, prog.g.size), 0);

	CU_ASSERT_EQUAL(prepare_copy(&lib, &d), -1);
	CHECK_MSG(&d, CONV_SHARED_LIBRARY);
	CU_ASSERT_EQUAL(prepare_copy(&low, &d), -1);
	CHECK_MSG_HAS(&d, "entry point");
	/* (libraries below 0x40000000, as load_aout_library took them, are
	 * in unit_libs_search.c) */
	img_free(&prog);
	img_free(&low);
	img_free(&lib);
}

/*
 * A library's own libentries are not loaded: no crt0 or ld.so read them.
 * They only give warnings, when they name a library the program does not
 * load or a version it does not have.
 */
static void test_libs_resolve_follows_needs(void)
{
	static const char *const names[] = { "libunita.so.4", "libunitb.so.1" };
	static const uint32_t jumps[] = { JUMP(LIB_A), JUMP(LIB_B) };
	static const uint32_t versions[] = { 0x402be, 0x10001 };
	char *dir = unit_tmpdir();
	struct img a, b, c, prog;
	struct libset set;
	struct diag d = { "" };
	char want[512];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	const char *dirs[] = { dir };
	/* libunita needs itself (ignored) and libunitb 1.0.5 */
	img_library(&a, LIB_A, 0x402be);
	img_need(&a, 0, "libunita.so.4", JUMP(LIB_A), 0x40300);
	img_need(&a, 1, "libunitb.so.1", JUMP(LIB_B), 0x10005);
	char *pa = img_write(&a, dir, "libunita.so.4");
	/* libunitb (1.0.7) needs libunitc 2.0.0 */
	img_library(&b, LIB_B, 0x10007);
	img_need(&b, 0, "libunitc.so.2", JUMP(LIB_C), 0x20000);
	char *pb = img_write(&b, dir, "libunitb.so.1");
	img_library(&c, LIB_C, 0x20001);
	char *pc = img_write(&c, dir, "libunitc.so.2");

	/* the program needs libunita 4.7.2 and libunitb 1.0.1: libunitc is
	 * not loaded, though it is there */
	if (prog_needing(&prog, names, jumps, versions, 2) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), 0);
		CHECK_U(set.n, 2);
		if (set.n == 2) {
			CHECK_STR(set.libs[0].name, "libunita.so.4");
			CHECK_STR(set.libs[0].path, pa);
			CHECK_U(set.libs[0].needed, 0x402be);
			CHECK_STR(set.libs[0].needed_by, "the program");
			CHECK_STR(set.libs[1].name, "libunitb.so.1");
			CHECK_STR(set.libs[1].path, pb);
			CHECK_U(set.libs[1].version, 0x10007);
			/* the program's need, not libunita's higher one */
			CHECK_U(set.libs[1].needed, 0x10001);
			CHECK_STR(set.libs[1].needed_by, "the program");
		}
		snprintf(want, sizeof want, "%s needs the a.out library "
			 "libunitc.so.2, which the program does not load\n", pb);
		CHECK_STR(set.warnings, want);
		libs_free(&set);
	}
	img_free(&prog);

	/* the program alone needs libunita: nothing comes from it */
	if (prog_needing(&prog, names, jumps, versions, 1) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), 0);
		CHECK_U(set.n, 1);
		snprintf(want, sizeof want, "%s needs the a.out library "
			 "libunitb.so.1, which the program does not load\n", pa);
		CHECK_STR(set.warnings, want);
		libs_free(&set);
	}
	img_free(&prog);

	/* libunitb needed by libunita in a version it does not have: said */
	img_need(&a, 1, "libunitb.so.1", JUMP(LIB_B), 0x10009);
	free(pa);
	pa = img_write(&a, dir, "libunita.so.4");
	if (prog_needing(&prog, names, jumps, versions, 2) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), 0);
		CHECK_U(set.n, 2);
		snprintf(want, sizeof want, "%s was built against libunitb.so.1 "
			 "1.0.9 or later, and %s is version 1.0.7\n"
			 "%s needs the a.out library libunitc.so.2, which the "
			 "program does not load\n", pa, pb, pb);
		CHECK_STR(set.warnings, want);
		libs_free(&set);
	}
	img_free(&prog);

	/* libunitc missing: never looked for */
	CU_ASSERT_EQUAL(unlink(pc), 0);
	if (prog_needing(&prog, names, jumps, versions, 2) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), 0);
		CHECK_U(set.n, 2);
		libs_free(&set);
	}
	img_free(&prog);

	img_free(&a);
	img_free(&b);
	img_free(&c);
	free(pa);
	free(pb);
	free(pc);
	unit_rmtree(dir);
}

/* A crt0 that maps /lib/ld.so: ld.so comes first, with no version. */
static void test_libs_resolve_ldso(void)
{
	char *dir = unit_tmpdir();
	struct img ldso, a, prog;
	struct libset set;
	struct diag d = { "" };
	char want[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	const char *dirs[] = { dir };
	img_library(&a, LIB_A, 0x402be);
	char *pa = img_write(&a, dir, "libunita.so.4");

	img_qprogram(&prog);
	img_need(&prog, 0, "libunita.so.4", JUMP(LIB_A), 0x40000);
	img_str(&prog, "/lib/ld.so");
	if (img_parse(&prog, AOUT_EXEC) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), -1);
		snprintf(want, sizeof want, "needs the a.out library ld.so, not "
			 "found in %s:/usr/i486-linuxaout/lib:/usr/i486-linux/lib:"
			 "/lib:/usr/lib" LIBS_HINT, dir);
		CHECK_MSG(&d, want);

		img_library(&ldso, LIB_LDSO, 0x10000);
		char *pl = img_write(&ldso, dir, "ld.so");
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), 0);
		CHECK_U(set.n, 2);
		if (set.n == 2) {
			CHECK_STR(set.libs[0].name, "ld.so");
			CHECK_STR(set.libs[0].path, pl);
			CHECK_U(set.libs[0].start, LIB_LDSO);
			CHECK_U(set.libs[0].version, 0);
			CHECK_U(set.libs[0].needed, 0);
			CHECK_STR(set.libs[0].needed_by, "");
			CHECK_STR(set.libs[1].name, "libunita.so.4");
			CHECK_STR(set.libs[1].path, pa);
		}
		libs_free(&set);
		img_free(&ldso);
		free(pl);
	}
	img_free(&prog);

	/* "/lib/ld.so" in a program that needs no library: nothing */
	img_qprogram(&prog);
	img_str(&prog, "/lib/ld.so");
	if (img_parse(&prog, AOUT_EXEC) == 0) {
		CU_ASSERT_EQUAL(resolve(&prog, dirs, 1, 0, &set, &d), 0);
		CHECK_U(set.n, 0);
	}
	img_free(&prog);
	img_free(&a);
	free(pa);
	unit_rmtree(dir);
}

static void test_libs_resolve_too_many(void)
{
	struct img prog;
	struct libset set;
	struct diag d = { "" };
	char name[32];

	for (unsigned n = STUB_MAX_LIBS; n <= STUB_MAX_LIBS + 1; n++) {
		img_qprogram(&prog);
		for (unsigned i = 0; i < n; i++) {
			snprintf(name, sizeof name, "libunit%u.so.1", i);
			img_need(&prog, i, name, 0x6f000040, 0x10000);
		}
		if (img_parse(&prog, AOUT_EXEC) == 0) {
			int rc = resolve(&prog, NULL, 0, 1, &set, &d);

			if (n == STUB_MAX_LIBS) {
				CU_ASSERT_EQUAL(rc, 0);
				CHECK_U(set.n, STUB_MAX_LIBS);
				CHECK_STR(set.libs[STUB_MAX_LIBS - 1].name,
					  "libunit15.so.1");
				libs_free(&set);
			} else {
				CU_ASSERT_EQUAL(rc, -1);
				CHECK_MSG(&d, "needs more than 16 a.out libraries");
				CHECK_U(set.n, 0);
			}
		}
		img_free(&prog);
	}
}

/* ==== plan_add_libs ==== */

struct libfix {
	struct img img[4];
	char path[4][64];
	struct libset set;
	struct img prog;
	struct plan p;
};

/* The default QMAGIC program, planned with o. */
static int plan_prog(struct libfix *f, const struct plan_options *o)
{
	struct diag d = { "" };

	img_qprogram(&f->prog);
	if (img_parse(&f->prog, AOUT_EXEC))
		return -1;
	CU_ASSERT_EQUAL_FATAL(plan_build(&f->prog.a, o, &f->p, &d), 0);
	return 0;
}

/* Library i of the set: an image at start, or not found (start 0). */
static void fix_lib(struct libfix *f, size_t i, const char *name,
		    uint32_t start)
{
	if (start) {
		img_library(&f->img[i], start, 0x10000);
		snprintf(f->path[i], sizeof f->path[i], "/aout/lib/%s", name);
	}
	CU_ASSERT_EQUAL_FATAL(unit_lib_fill(&f->set.libs[i], name,
					    start ? f->path[i] : NULL,
					    &f->img[i].g), 0);
	if (f->set.n <= i)
		f->set.n = i + 1;
}

static void fix_free(struct libfix *f)
{
	for (size_t i = 0; i < f->set.n; i++)
		if (f->set.libs[i].path)
			unit_lib_release(&f->set.libs[i]);
	for (size_t i = 0; i < 4; i++)
		img_free(&f->img[i]);
	img_free(&f->prog);
	free(f);
}

static struct libfix *fix_new(void)
{
	struct libfix *f = calloc(1, sizeof *f);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	return f;
}

#define CHECK_PLIB(p, i, nm, st, ln, bl, by, fs, emb) do { \
	CHECK_STR((p)->libs[i].name, nm); \
	CHECK_U((p)->libs[i].start, st); \
	CHECK_U((p)->libs[i].len, ln); \
	CHECK_U((p)->libs[i].bss_len, bl); \
	CU_ASSERT((p)->libs[i].bytes == (by)); \
	CHECK_U((p)->libs[i].filesz, fs); \
	CHECK_U((p)->libs[i].embedded, emb); \
} while (0)

static void test_plan_add_libs_embedded(void)
{
	for (int variant = 0; variant < 3; variant++) {
		struct libfix *f = fix_new();
		struct plan_options o = { 0 };
		struct diag d = { "" };

		o.no_embed_libs = variant == 1;
		if (plan_prog(f, &o)) {
			fix_free(f);
			return;
		}
		/* libunita: 0x61000000, len 0x3000, bss 0x3000 */
		fix_lib(f, 0, "libunita.so.4", LIB_A);
		/* libunitb below it: text 0x1000, data 0x800, no bss */
		{
			struct aoutgen_spec s;

			aoutgen_library(&s, 0x60000000);
			s.text = 0x1000;
			s.data = 0x800;
			s.bss = 0;
			aoutgen_build(&s, &f->img[1].g);
			snprintf(f->path[1], sizeof f->path[1], "/b/libunitb.so.1");
			CU_ASSERT_EQUAL_FATAL(unit_lib_fill(&f->set.libs[1],
							    "libunitb.so.1",
							    f->path[1],
							    &f->img[1].g), 0);
			f->set.n = 2;
		}
		/* a ZMAGIC library: its bytes from offset 1024 */
		{
			struct aoutgen_spec s;

			aoutgen_default(&s, AOUT_ZMAGIC);
			s.entry = LIB_B;
			aoutgen_build(&s, &f->img[2].g);
			snprintf(f->path[2], sizeof f->path[2], "/b/libunitz.so.2");
			CU_ASSERT_EQUAL_FATAL(unit_lib_fill(&f->set.libs[2],
							    "libunitz.so.2",
							    f->path[2],
							    &f->img[2].g), 0);
			f->set.n = 3;
		}
		int emb = variant != 1;
		int rc = plan_add_libs(&f->p, &f->set, variant == 2 ? NULL : &o,
				       NULL, 0, &d);
		CU_ASSERT_EQUAL(rc, 0);
		CHECK_U(f->p.dynamic, 1);
		CHECK_U(f->p.nlibs, 3);
		CHECK_PLIB(&f->p, 0, "libunita.so.4", LIB_A, 0x3000, 0x3000,
			   f->img[0].g.buf, 0x3000, emb);
		CHECK_PLIB(&f->p, 1, "libunitb.so.1", 0x60000000, 0x2000, 0,
			   f->img[1].g.buf, 0x1800, emb);
		CHECK_PLIB(&f->p, 2, "libunitz.so.2", LIB_B, 0x3000, 0x3000,
			   f->img[2].g.buf + 1024, 0x3000, emb);
		CHECK_U(f->p.lib_lo, 0x60000000);
		CHECK_U(f->p.lib_hi, LIB_B + 0x6000);
		CHECK_STR(f->p.paths, "");
		/* the program's own plan is left alone */
		CHECK_U(f->p.nregions, 2);
		CHECK_U(f->p.brk, 0x6345);
		CHECK_U(f->p.image_end, 0x7000);
		fix_free(f);
	}
}

/* A library not found (path NULL): looked up at run time, in the window. */
static void test_plan_add_libs_missing_window(void)
{
	struct libfix *f = fix_new();
	struct diag d = { "" };

	CHECK_U(PLAN_LIB_WINDOW_LO, 0x5f000000);
	CHECK_U(PLAN_LIB_WINDOW_HI, 0x70000000);
	if (plan_prog(f, NULL) == 0) {
		fix_lib(f, 0, "libunita.so.4", LIB_A);
		fix_lib(f, 1, "libunitz.so.9", 0);
		CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, NULL, 0, &d), 0);
		CHECK_U(f->p.dynamic, 1);
		CHECK_U(f->p.nlibs, 2);
		CHECK_PLIB(&f->p, 0, "libunita.so.4", LIB_A, 0x3000, 0x3000,
			   f->img[0].g.buf, 0x3000, 1);
		CHECK_PLIB(&f->p, 1, "libunitz.so.9", 0, 0, 0, NULL, 0, 0);
		CHECK_U(f->p.lib_lo, 0x5f000000);
		CHECK_U(f->p.lib_hi, 0x70000000);
	}
	fix_free(f);

	/* only missing ones */
	f = fix_new();
	if (plan_prog(f, NULL) == 0) {
		fix_lib(f, 0, "libunitz.so.9", 0);
		fix_lib(f, 1, "libunity.so.9", 0);
		CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, NULL, 0, &d), 0);
		CHECK_U(f->p.nlibs, 2);
		CHECK_PLIB(&f->p, 1, "libunity.so.9", 0, 0, 0, NULL, 0, 0);
		CHECK_U(f->p.lib_lo, 0x5f000000);
		CHECK_U(f->p.lib_hi, 0x70000000);
	}
	fix_free(f);
}

/*
 * SRC BUG (src/plan.c, plan_add_libs): lib_lo..lib_hi is the span of all
 * the libraries' addresses (the stub traps their brk calls there).  A
 * library that was not found sets it to the window, overwriting what the
 * libraries before it had added; the libraries after it extend it.  So a
 * found library outside the window (jump tables may be anywhere in
 * [0x40000000, 0x80000000)) is left out or not depending on the order.
 */
static void test_plan_add_libs_span_order(void)
{
	static const uint32_t starts[] = { 0x40000000, 0x70000000 };
	static const uint32_t lo[] = { 0x40000000, 0x5f000000 };
	static const uint32_t hi[] = { 0x70000000, 0x70006000 };

	for (size_t k = 0; k < 2; k++) {
		for (int missing_first = 0; missing_first < 2; missing_first++) {
			struct libfix *f = fix_new();
			struct diag d = { "" };

			if (plan_prog(f, NULL) == 0) {
				fix_lib(f, !missing_first, "libunitz.so.9", 0);
				fix_lib(f, missing_first, "libunita.so.4", starts[k]);
				CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL,
							      NULL, 0, &d), 0);
				CHECK_U(f->p.lib_lo, lo[k]);
				CHECK_U(f->p.lib_hi, hi[k]);
			}
			fix_free(f);
		}
	}
}

static void test_plan_add_libs_none(void)
{
	struct libfix *f = fix_new();
	struct diag d = { "" };
	const char *dirs[] = { "/opt/aout/lib" };

	if (plan_prog(f, NULL) == 0) {
		CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, dirs, 1, &d), 0);
		CHECK_U(f->p.dynamic, 0);
		CHECK_U(f->p.nlibs, 0);
		CHECK_U(f->p.lib_lo, 0);
		CHECK_U(f->p.lib_hi, 0);
		/* the folders are kept all the same */
		CHECK_STR(f->p.paths, "/opt/aout/lib");
	}
	fix_free(f);
}

static void test_plan_add_libs_paths(void)
{
	struct libfix *f = fix_new();
	struct diag d = { "" };
	const char *dirs[] = { "/opt/aout/lib", "lib", "/usr/i486-linuxaout/lib" };

	if (plan_prog(f, NULL) == 0) {
		fix_lib(f, 0, "libunita.so.4", LIB_A);
		CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, dirs, 3, &d), 0);
		CHECK_STR(f->p.paths, "/opt/aout/lib:lib:/usr/i486-linuxaout/lib");
		CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, dirs, 1, &d), 0);
		CHECK_STR(f->p.paths, "/opt/aout/lib");
		/* none: an empty string, not what was there before */
		memset(f->p.paths, 'x', sizeof f->p.paths);
		CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, dirs, 0, &d), 0);
		CHECK_U((unsigned char)f->p.paths[0], 0);
	}
	fix_free(f);
}

/* STUB_PATHS (1024) bytes in all, separators and the final NUL included. */
static void test_plan_add_libs_paths_too_long(void)
{
	struct libfix *f = fix_new();
	struct diag d = { "" };
	static char a[1100], b[1100];
	const char *dirs[] = { a, b };

	CHECK_U(STUB_PATHS, 1024);
	if (plan_prog(f, NULL))
		goto out;
	/* 511 + ':' + 511 + NUL = 1024: fits exactly */
	memset(a, 'a', 511);
	a[0] = '/';
	a[511] = 0;
	memset(b, 'b', 511);
	b[511] = 0;
	strcpy(d.msg, "untouched");
	CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, dirs, 2, &d), 0);
	CHECK_U(strlen(f->p.paths), 1023);
	CHECK_U((unsigned char)f->p.paths[511], ':');
	CU_ASSERT(memcmp(f->p.paths, a, 511) == 0);
	CU_ASSERT(memcmp(f->p.paths + 512, b, 512) == 0);
	CHECK_MSG(&d, "untouched");

	/* one byte more */
	b[511] = 'b';
	b[512] = 0;
	CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, dirs, 2, &d), -1);
	CHECK_MSG(&d, "the -L directories are longer than 1024 bytes in all");

	/* one folder: 1023 and its NUL fit, 1024 does not */
	memset(a, 'a', 1023);
	a[1023] = 0;
	CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, dirs, 1, &d), 0);
	CHECK_U(strlen(f->p.paths), 1023);
	CU_ASSERT(memcmp(f->p.paths, a, 1024) == 0);
	memset(a, 'a', 1024);
	a[1024] = 0;
	strcpy(d.msg, "");
	CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, dirs, 1, &d), -1);
	CHECK_MSG(&d, "the -L directories are longer than 1024 bytes in all");
	memset(a, 'a', 1099);
	a[1099] = 0;
	CU_ASSERT_EQUAL(plan_add_libs(&f->p, &f->set, NULL, dirs, 1, &d), -1);
	CHECK_MSG(&d, "the -L directories are longer than 1024 bytes in all");
out:
	fix_free(f);
}

int unit_libs_register(void)
{
	static const struct unit_test libs[] = {
		UNIT_TEST(test_libs_version_str),
		UNIT_TEST(test_libs_scan_found),
		UNIT_TEST(test_libs_scan_duplicates_and_max),
		UNIT_TEST(test_libs_scan_garbage),
		UNIT_TEST(test_libs_scan_limits),
		UNIT_TEST(test_libs_scan_library_and_omagic),
		UNIT_TEST(test_libs_scan_zmagic_odd_text),
		UNIT_TEST(test_libs_wants_ldso),
		UNIT_TEST(test_libs_resolve_found),
		UNIT_TEST(test_libs_resolve_search_order),
		UNIT_TEST(test_libs_resolve_version_errors),
		UNIT_TEST(test_libs_resolve_not_shlib),
		UNIT_TEST(test_libs_resolve_not_found),
		UNIT_TEST(test_libs_resolve_out_of_descriptors),
		UNIT_TEST(test_libs_resolve_overlaps),
		UNIT_TEST(test_libs_resolve_beyond_limit),
		UNIT_TEST(test_conv_shared_library),
		UNIT_TEST(test_libs_resolve_follows_needs),
		UNIT_TEST(test_libs_resolve_ldso),
		UNIT_TEST(test_libs_resolve_too_many),
		UNIT_END
	};
	static const struct unit_test plan[] = {
		UNIT_TEST(test_plan_add_libs_embedded),
		UNIT_TEST(test_plan_add_libs_missing_window),
		UNIT_TEST(test_plan_add_libs_span_order),
		UNIT_TEST(test_plan_add_libs_none),
		UNIT_TEST(test_plan_add_libs_paths),
		UNIT_TEST(test_plan_add_libs_paths_too_long),
		UNIT_END
	};

	if (unit_add_suite("libraries (src/libs.c)", NULL, NULL, libs) ||
	    unit_add_suite("planner with libraries (plan_add_libs)", NULL, NULL,
			   plan))
		return -1;
	return 0;
}
