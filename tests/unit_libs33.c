/*
 * src/libs.c for the programs of 1992-1994 (issue 33): libentries found
 * through the __SHARED_LIBRARIES__ set whatever their names, with the
 * CLASSIC bit kept apart.  Images are built in memory (aoutgen, libimg).
 */
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "aout.h"
#include "aoutgen.h"
#include "convert.h"
#include "libimg.h"
#include "libs.h"
#include "unit.h"

#define CLASSIC LIBS_CLASSIC_BIT
#define LIB_EMU 0x10000000u /* where SLS's /lib/libemu loaded */

/* ---- building images ---- */

/* A libentry at data offset off, its strings in the data; its address. */
static uint32_t record(struct img *m, uint32_t off, const char *name,
		       const char *avers, uint32_t jump, uint32_t vers)
{
	img_entry_at(m, off, img_str(m, name), img_str(m, avers), jump, vers);
	return m->data_addr + off;
}

/* The set at data offset off: n, the n elements, 0. */
static void put_set(struct img *m, uint32_t off, const uint32_t *e, uint32_t n)
{
	aoutgen_put32(&m->g, m->g.data_off + off, n);
	for (uint32_t i = 0; i < n; i++)
		aoutgen_put32(&m->g, m->g.data_off + off + 4 + 4 * i, e[i]);
	aoutgen_put32(&m->g, m->g.data_off + off + 4 + 4 * n, 0);
}

/* A program whose set names one library, crt0's dummy first. */
static void prog_with(struct img *m, const char *name, uint32_t jump,
		      uint32_t vers)
{
	img_qprogram(m);
	uint32_t e[2] = { m->data_addr - 4, record(m, 0x100, name, "DLL Jump 4.4pl1",
						   jump, vers) };
	put_set(m, 0x40, e, 2);
}

static size_t scan_of(struct img *m, enum aout_kind kind, struct lib_need *need,
		      size_t max)
{
	if (img_parse(m, kind))
		return (size_t)-1;
	return libs_scan(&m->a, need, max);
}

/* How many libentries libs_scan finds in program m (then freed), the first in *need. */
static size_t scan1(struct img *m, struct lib_need *need)
{
	struct lib_need all[4];
	size_t n = scan_of(m, AOUT_EXEC, all, 4);

	if (n >= 1 && n != (size_t)-1)
		*need = all[0];
	img_free(m);
	return n;
}

/* ==== recognition ==== */

static void test_set_program(void)
{
	struct img m;
	struct lib_need need[4];

	img_qprogram(&m);
	uint32_t e[3] = {
		m.data_addr - 4, /* crt0's dummy, into the text */
		record(&m, 0x100, "/lib/libc.so.4.0", "4.0", 0x60000000u,
		       CLASSIC | 0x40000),
		/* no ".so", a jump table below 0x40000000 (libemu's place) */
		record(&m, 0x110, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca),
	};
	put_set(&m, 0x40, e, 3);
	size_t n = scan_of(&m, AOUT_EXEC, need, 4);
	CHECK_U(n, 2);
	if (n == 2) {
		CHECK_STR(need[0].name, "/lib/libc.so.4.0");
		CHECK_STR(need[0].avers, "4.0");
		CHECK_U(need[0].jump_table, 0x60000000u);
		CHECK_U(need[0].version, 0x40000);
		CHECK_U(need[0].exact, 1);
		CHECK_STR(need[1].name, "/lib/libc.2.2.2");
		CHECK_STR(need[1].avers, "2.2.2");
		CHECK_U(need[1].jump_table, LIB_EMU);
		CHECK_U(need[1].version, 0x200ca);
		CHECK_U(need[1].exact, 0);
	}
	/* never more than max */
	CHECK_U(libs_scan(&m.a, need, 1), 1);
	CHECK_STR(need[0].name, "/lib/libc.so.4.0");
	img_free(&m);

	/* the same set without the dummy: element [0] may be a libentry too */
	img_qprogram(&m);
	e[0] = record(&m, 0x120, "libm.so.4", "4.4", 0x600e0000u, 0x40191);
	e[1] = record(&m, 0x100, "libc.so.4", "4.4", 0x60000000u, 0x40191);
	put_set(&m, 0x40, e, 2);
	n = scan_of(&m, AOUT_EXEC, need, 4);
	CHECK_U(n, 2);
	CHECK_STR(need[0].name, "libm.so.4");
	img_free(&m);

	/* two sets: both counted, each name once */
	img_qprogram(&m);
	e[0] = m.data_addr - 4;
	e[1] = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	put_set(&m, 0x40, e, 2);
	e[2] = record(&m, 0x110, "/lib/libm.2.2.2", "2.2.2", LIB_EMU + 0x100000,
		      0x200ca);
	put_set(&m, 0x80, e, 3);
	n = scan_of(&m, AOUT_EXEC, need, 4);
	CHECK_U(n, 2);
	if (n == 2)
		CHECK_STR(need[1].name, "/lib/libm.2.2.2");
	img_free(&m);
}

/* A set that is not one: its entries, which only it could give, are not found. */
static void test_set_refused(void)
{
	struct img m;
	struct lib_need need;
	uint32_t e[3];

	/* an element after the first that is no libentry */
	img_qprogram(&m);
	e[0] = m.data_addr - 4;
	e[1] = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	e[2] = m.data_addr + 0x200; /* zeros */
	put_set(&m, 0x40, e, 3);
	CHECK_U(scan1(&m, &need), 0);

	/* counts of 0 and 65; no 0 after the elements; running past the data */
	static const uint32_t counts[] = { 0, 65 };
	for (size_t i = 0; i < 2; i++) {
		prog_with(&m, "/lib/libc.2.2.2", LIB_EMU, 0x200ca);
		aoutgen_put32(&m.g, m.g.data_off + 0x40, counts[i]);
		CHECK_U(scan1(&m, &need), 0);
	}
	prog_with(&m, "/lib/libc.2.2.2", LIB_EMU, 0x200ca);
	aoutgen_put32(&m.g, m.g.data_off + 0x4c, 7);
	CHECK_U(scan1(&m, &need), 0);
	img_qprogram(&m);
	e[0] = m.data_addr - 4;
	e[1] = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	aoutgen_put32(&m.g, m.g.data_off + m.data_size - 8, 2);
	aoutgen_put32(&m.g, m.g.data_off + m.data_size - 4, e[0]);
	CHECK_U(scan1(&m, &need), 0);

	/* an element pointing into the text, at a copy of a good libentry */
	img_qprogram(&m);
	uint32_t good = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	aoutgen_put_bytes(&m.g, m.g.text_off + 0x800, m.g.buf + m.g.data_off + 0x100, 16);
	e[0] = m.data_addr - 4;
	e[1] = 0x1800;
	put_set(&m, 0x40, e, 2);
	CHECK_U(scan1(&m, &need), 0);
	(void)good;
	/* an element whose 16 bytes do not fit in the data */
	img_qprogram(&m);
	e[1] = m.data_addr + m.data_size - 8;
	put_set(&m, 0x40, e, 2);
	CHECK_U(scan1(&m, &need), 0);

	/* a library's set has no dummy: its first element must be good too */
	img_library(&m, LIB_A, 0x40000);
	e[0] = m.data_addr + 0x300;
	e[1] = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	put_set(&m, 0x40, e, 2);
	CHECK_U(scan_of(&m, AOUT_SHLIB, &need, 1), 0);
	img_free(&m);
	img_library(&m, LIB_A, 0x40000);
	e[0] = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	put_set(&m, 0x40, e, 1);
	CHECK_U(scan_of(&m, AOUT_SHLIB, &need, 1), 1);
	CHECK_STR(need.name, "/lib/libc.2.2.2");
	img_free(&m);
}

/* Each limit of a libentry reached through the set, just in and just out. */
static void test_set_limits(void)
{
	struct img m;
	struct lib_need need;
	/* the program's image ends at its bss: 0x3000 + 0x1000 + 0x2345 */
	const uint32_t end = 0x6345;
	char name[LIBS_NAME_MAX + 1];

	prog_with(&m, "/lib/libx", end, 0x10000);
	CHECK_U(scan1(&m, &need), 1);
	prog_with(&m, "/lib/libx", end - 1, 0x10000);
	CHECK_U(scan1(&m, &need), 0);
	prog_with(&m, "/lib/libx", IMAGE_LIMIT - 1, 0x10000);
	CHECK_U(scan1(&m, &need), 1);
	prog_with(&m, "/lib/libx", IMAGE_LIMIT, 0x10000);
	CHECK_U(scan1(&m, &need), 0);

	/* majors up to 0xfff; nothing above the CLASSIC bit; not 0 */
	prog_with(&m, "/lib/libx", LIB_EMU, 0x0fffffffu);
	CHECK_U(scan1(&m, &need), 1);
	CHECK_U(need.version, 0x0fffffffu);
	prog_with(&m, "/lib/libx", LIB_EMU, 0x1fffffffu);
	CHECK_U(scan1(&m, &need), 1);
	CHECK_U(need.exact, 1);
	static const uint32_t bad[] = { 0x20040000u, 0x80040000u, 0xffff, CLASSIC };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		prog_with(&m, "/lib/libx", LIB_EMU, bad[i]);
		CHECK_U(scan1(&m, &need), 0);
	}

	/* names of 255 characters, not 256, and not ending in '/' */
	memset(name, 'x', sizeof name);
	name[0] = '/';
	name[LIBS_NAME_MAX - 1] = 0;
	prog_with(&m, name, LIB_EMU, 0x10000);
	CHECK_U(scan1(&m, &need), 1);
	CHECK_U(strlen(need.name), LIBS_NAME_MAX - 1);
	name[LIBS_NAME_MAX - 1] = 'x';
	name[LIBS_NAME_MAX] = 0;
	prog_with(&m, name, LIB_EMU, 0x10000);
	CHECK_U(scan1(&m, &need), 0);
	prog_with(&m, "/lib/", LIB_EMU, 0x10000);
	CHECK_U(scan1(&m, &need), 0);
	prog_with(&m, "/lib/lib x", LIB_EMU, 0x10000);
	CHECK_U(scan1(&m, &need), 0);
}

/* Without a set, every word is tried as before, ".so" or not. */
static void test_fallback(void)
{
	struct img m;
	struct lib_need need;
	char name[40];

	static const char *const names[] = { "libc.a", "libc.s.o", "/lib/libc.2.2.2" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		img_qprogram(&m);
		img_need(&m, 0, names[i], 0x60000000u, 0x20202);
		CHECK_U(scan1(&m, &need), 1);
		CHECK_STR(need.name, names[i]);
	}
	/* the CLASSIC bit is kept apart from the major */
	img_qprogram(&m);
	img_need(&m, 0, "/lib/libc.so.4.0", 0x60000000u, CLASSIC | 0x40000);
	CHECK_U(scan1(&m, &need), 1);
	CHECK_U(need.version, 0x40000);
	CHECK_U(need.exact, 1);
	/* but no more than before: majors to 255, jump tables from 0x40000000,
	 * names of 31 characters */
	img_qprogram(&m);
	img_need(&m, 0, "libc.so.4", 0x60000000u, CLASSIC | 0x1000000);
	CHECK_U(scan1(&m, &need), 0);
	img_qprogram(&m);
	img_need(&m, 0, "libc.so.4", LIB_EMU, 0x40000);
	CHECK_U(scan1(&m, &need), 0);
	memset(name, 'x', 32);
	name[32] = 0;
	img_qprogram(&m);
	img_need(&m, 0, name, 0x60000000u, 0x40000);
	CHECK_U(scan1(&m, &need), 0);
}

/* ==== libraries where load_aout_library took them ==== */

static void test_libemu(void)
{
	struct img lib, low, prog;

	img_library(&lib, LIB_EMU, 0x10000);
	img_library(&low, 0xf000u, 0x10000);
	CHECK_U(conv_is_shared_library(lib.g.buf, lib.g.size), 1);
	CHECK_U(conv_is_shared_library(low.g.buf, low.g.size), 0);
	if (img_parse(&lib, AOUT_SHLIB) == 0)
		CHECK_U(libs_is_library(&lib.a), 1);
	if (img_parse(&low, AOUT_SHLIB) == 0)
		CHECK_U(libs_is_library(&low.a), 0);
	/* read as a program, it is not a library */
	img_qprogram(&prog);
	if (img_parse(&prog, AOUT_EXEC) == 0)
		CHECK_U(libs_is_library(&prog.a), 0);
	img_free(&prog);
	/* as a library, a program's image is not one either: below 64 KiB,
	 * or (with its entry at 0x10020, in its text) fine as a program */
	img_qprogram(&prog);
	if (img_parse(&prog, AOUT_SHLIB) == 0)
		CHECK_U(libs_is_library(&prog.a), 0);
	img_free(&prog);
	img_program(&prog, AOUT_QMAGIC, 0x20000, 0x1000);
	aoutgen_set_field(&prog.g, AG_ENTRY, 0x10020);
	if (img_parse(&prog, AOUT_SHLIB) == 0) {
		CHECK_U(aout_lib_start(&prog.a), 0x10000);
		CHECK_U(libs_is_library(&prog.a), 0);
	}
	CHECK_U(conv_is_shared_library(prog.g.buf, prog.g.size), 0);
	img_free(&prog);
	/* one ending past IMAGE_LIMIT is no library */
	{
		struct img top;

		img_library(&top, IMAGE_LIMIT - 0x2000, 0x10000);
		if (img_parse(&top, AOUT_SHLIB) == 0)
			CHECK_U(libs_is_library(&top.a), 0);
		img_free(&top);
	}

	img_free(&lib);
	img_free(&low);
}

int unit_libs33_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_set_program),
		UNIT_TEST(test_set_refused),
		UNIT_TEST(test_set_limits),
		UNIT_TEST(test_fallback),
		UNIT_TEST(test_libemu),
		UNIT_END,
	};

	return unit_add_suite("a.out libraries of 1992-1994 (src/libs.c, issue 33)",
			      NULL, NULL, tests);
}
