/*
 * src/aout.c: aout_parse on every magic, and every way it refuses a file,
 * each with the exact sentence the user will see.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "aout.h"
#include "helpers/aoutgen.h"
#include "unit.h"

static const unsigned magics[] = { AOUT_OMAGIC, AOUT_NMAGIC, AOUT_ZMAGIC,
				   AOUT_QMAGIC };

static const struct aoutgen_sym some_syms[] = {
	{ "_start", N_TEXT | N_EXT, 0, 0, 0x20 },
	{ "local_data", N_DATA, 1, 2, 0x3004 },
	{ NULL, N_TEXT, 0, 0, 0x24 }, /* no name */
	{ "hello.c", 0x64 /* N_SO */, 0, 0, 0x20 },
	{ "bss_var", N_BSS | N_EXT, 0, 0xbeef, 0x4008 },
	{ "abs", N_ABS | N_EXT, 0xff, 0xffff, 0xdeadbeef },
};
#define NSOME (sizeof some_syms / sizeof some_syms[0])

/* aout_parse must fail with exactly this message and keep nothing. */
static void expect_fail_at(const uint8_t *buf, size_t size, const char *want,
			   unsigned line)
{
	struct aout a;
	struct diag d = { "" };
	int rc = aout_parse(buf, size, &a, &d);
	char what[64];

	snprintf(what, sizeof what, "aout_parse fails (line %u)", line);
	unit_check_u64((uint64_t)(int64_t)rc, (uint64_t)(int64_t)-1, what, line,
		       __FILE__, "expect_fail");
	unit_check_str(d.msg, want, "diag message", line, __FILE__,
		       "expect_fail");
	unit_check_u64((uintptr_t)a.syms, 0, "a.syms freed", line, __FILE__,
		       "expect_fail");
	unit_check_u64(a.nsyms, 0, "a.nsyms", line, __FILE__, "expect_fail");
	if (rc == 0)
		aout_free(&a);
}
#define EXPECT_FAIL(buf, size, want) expect_fail_at((buf), (size), (want), __LINE__)
#define EXPECT_FAIL_G(g, want) expect_fail_at((g)->buf, (g)->size, (want), __LINE__)

static int parse_ok_at(const struct aoutgen *g, struct aout *a, unsigned line)
{
	struct diag d = { "" };
	int rc = aout_parse(g->buf, g->size, a, &d);
	char what[320];

	snprintf(what, sizeof what, "aout_parse succeeds (line %u, message \"%s\")",
		 line, d.msg);
	unit_check_u64((uint64_t)(int64_t)rc, 0, what, line, __FILE__, "parse_ok");
	return rc == 0;
}
#define PARSE_OK(g, a) parse_ok_at((g), (a), __LINE__)

static void build(struct aoutgen *g, unsigned magic)
{
	struct aoutgen_spec s;

	aoutgen_default(&s, magic);
	aoutgen_build(&s, g);
}

static void build_syms(struct aoutgen *g, unsigned magic)
{
	struct aoutgen_spec s;

	aoutgen_default(&s, magic);
	s.syms = some_syms;
	s.nsyms = NSOME;
	aoutgen_build(&s, g);
}

/* ---- refused before the header is read ---- */

static void test_empty_buffer(void)
{
	static const uint8_t one[1] = { 0 };

	EXPECT_FAIL(one, 0, "empty file, not an a.out executable");
}

static void test_elf_magic(void)
{
	uint8_t elf[64] = { 0x7f, 'E', 'L', 'F', 1, 1, 1 };

	EXPECT_FAIL(elf, sizeof elf, "already an ELF file, not an a.out executable");
	EXPECT_FAIL(elf, 4, "already an ELF file, not an a.out executable");
}

static void test_unknown_magic(void)
{
	uint8_t buf[64] = { 0x34, 0x12, 100, 0 };
	uint8_t swapped[64] = { 0x01, 0x07, 0, 100 }; /* big-endian OMAGIC */

	EXPECT_FAIL(buf, sizeof buf, "not an a.out executable (unknown magic 011064)");
	EXPECT_FAIL(buf, 2, "not an a.out executable (unknown magic 011064)");
	EXPECT_FAIL(swapped, sizeof swapped,
		    "not an a.out executable (unknown magic 03401)");
	/* three bytes of "\177ELF" are not ELF yet, and no a.out magic */
	EXPECT_FAIL((const uint8_t *)"\177EL", 3,
		    "not an a.out executable (unknown magic 042577)");
	/* a zero magic is not OMAGIC */
	uint8_t zero[32] = { 0 };
	EXPECT_FAIL(zero, sizeof zero, "not an a.out executable (unknown magic 00)");
}

static void test_truncated_header(void)
{
	for (size_t i = 0; i < 4; i++) {
		struct aoutgen g;
		char want[64];

		build(&g, magics[i]);
		static const size_t sizes[] = { 2, 3, 4, 16, 31 };
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			snprintf(want, sizeof want,
				 "truncated a.out header (%zu of 32 bytes)", sizes[k]);
			EXPECT_FAIL(g.buf, sizes[k], want);
		}
		/* one byte: too short even for the magic test */
		EXPECT_FAIL(g.buf, 1, "truncated a.out header (1 of 32 bytes)");
		aoutgen_free(&g);
	}
}

static void test_wrong_machine(void)
{
	struct aoutgen g;
	struct aout a;

	static const struct {
		unsigned machine;
		const char *want;
	} refused[] = {
		{ 3, "machine type 3 is not i386 (100)" },
		{ 101, "machine type 101 is not i386 (100)" },
		{ 255, "machine type 255 is not i386 (100)" },
	};

	build(&g, AOUT_ZMAGIC);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		aoutgen_set_machine(&g, refused[i].machine);
		EXPECT_FAIL_G(&g, refused[i].want);
	}
	/* M_OLD (0) and M_386 (100) are both accepted; flags are kept */
	aoutgen_set_machine(&g, 0);
	aoutgen_set_flags(&g, 0x12);
	if (PARSE_OK(&g, &a)) {
		CHECK_U(a.machine, AOUT_M_OLD);
		CHECK_U(a.flags, 0x12);
		CHECK_U(a.magic, AOUT_ZMAGIC);
		aout_free(&a);
	}
	aoutgen_set_machine(&g, 100);
	if (PARSE_OK(&g, &a)) {
		CHECK_U(a.machine, AOUT_M_386);
		aout_free(&a);
	}
	aoutgen_free(&g);
}

static void test_relocation_sizes(void)
{
	static const struct {
		uint32_t trsize, drsize;
		const char *want;
	} c[] = {
		{ 12, 0, "has relocation tables (12 + 0 bytes): an object file, "
			 "not an executable" },
		{ 0, 8, "has relocation tables (0 + 8 bytes): an object file, "
			"not an executable" },
		{ 24, 16, "has relocation tables (24 + 16 bytes): an object file, "
			  "not an executable" },
	};
	struct aoutgen g;

	build(&g, AOUT_OMAGIC);
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		aoutgen_set_field(&g, AG_TRSIZE, c[i].trsize);
		aoutgen_set_field(&g, AG_DRSIZE, c[i].drsize);
		EXPECT_FAIL_G(&g, c[i].want);
	}
	/* the machine is checked before the relocation sizes */
	aoutgen_set_machine(&g, 7);
	EXPECT_FAIL_G(&g, "machine type 7 is not i386 (100)");
	aoutgen_free(&g);
}

static void test_qmagic_text_smaller_than_header(void)
{
	struct aoutgen g;
	struct aout a;

	build(&g, AOUT_QMAGIC);
	aoutgen_set_field(&g, AG_TEXT, 31);
	EXPECT_FAIL_G(&g, "QMAGIC text size 31 is smaller than its own header");
	aoutgen_set_field(&g, AG_TEXT, 0);
	EXPECT_FAIL_G(&g, "QMAGIC text size 0 is smaller than its own header");

	/* exactly the header is a (useless but) valid text */
	struct aoutgen_spec s;
	aoutgen_default(&s, AOUT_QMAGIC);
	s.text = 32;
	s.data = 0;
	s.entry = 0x1000;
	aoutgen_free(&g);
	aoutgen_build(&s, &g);
	if (PARSE_OK(&g, &a)) {
		CHECK_U(a.h.text, 32);
		CHECK_U(a.data_off, 32);
		aout_free(&a);
	}
	aoutgen_free(&g);
}

/* ---- sizes against the buffer ---- */

static void test_truncated_each_magic(void)
{
	for (size_t i = 0; i < 4; i++) {
		struct aoutgen g;
		char want[160];

		/* the header is counted too where the text does not hold it */
		const char *hdr = magics[i] == AOUT_QMAGIC ? "" : "header, ";

		build(&g, magics[i]);
		snprintf(want, sizeof want, "truncated: the header claims %zu "
			 "bytes of %stext, data and symbols, the file has %zu",
			 g.size, hdr, g.size - 1);
		EXPECT_FAIL(g.buf, g.size - 1, want);
		snprintf(want, sizeof want, "truncated: the header claims %zu "
			 "bytes of %stext, data and symbols, the file has 32",
			 g.size, hdr);
		EXPECT_FAIL(g.buf, 32, want);
		aoutgen_free(&g);
	}
}

static void test_truncated_exact_numbers(void)
{
	struct aoutgen g;

	build(&g, AOUT_OMAGIC); /* 32 + 0x123 + 0x45 = 392 bytes */
	CHECK_U(g.size, 392);
	EXPECT_FAIL(g.buf, 391, "truncated: the header claims 392 bytes of "
				"header, text, data and symbols, the file has 391");
	aoutgen_free(&g);

	build(&g, AOUT_ZMAGIC); /* 1024 + 0x2000 + 0x1000 */
	EXPECT_FAIL(g.buf, 1024, "truncated: the header claims 13312 bytes of "
				 "header, text, data and symbols, the file has 1024");
	aoutgen_free(&g);

	/* the symbol table counts too */
	struct aoutgen_spec s;
	aoutgen_default(&s, AOUT_NMAGIC);
	s.syms = some_syms;
	s.nsyms = NSOME;
	aoutgen_build(&s, &g);
	char want[160];
	snprintf(want, sizeof want, "truncated: the header claims %u bytes of "
		 "header, text, data and symbols, the file has %u", g.str_off,
		 g.str_off - 1);
	EXPECT_FAIL(g.buf, g.str_off - 1, want);
	aoutgen_free(&g);
}

/* Sums that wrap in 32 bits must not make a huge header look small. */
static void test_truncated_32bit_overflow(void)
{
	struct aoutgen g;

	build(&g, AOUT_OMAGIC);
	aoutgen_set_field(&g, AG_TEXT, 0xffffffff);
	aoutgen_set_field(&g, AG_DATA, 0);
	EXPECT_FAIL_G(&g, "truncated: the header claims 4294967327 bytes of "
			  "header, text, data and symbols, the file has 392");
	/* 0xffffffe0 + 32 is exactly 2^32, which wraps to 0 */
	aoutgen_set_field(&g, AG_TEXT, 0xffffffe0);
	EXPECT_FAIL_G(&g, "truncated: the header claims 4294967296 bytes of "
			  "header, text, data and symbols, the file has 392");
	aoutgen_set_field(&g, AG_TEXT, 0x10);
	aoutgen_set_field(&g, AG_DATA, 0xffffffff);
	EXPECT_FAIL_G(&g, "truncated: the header claims 4294967343 bytes of "
			  "header, text, data and symbols, the file has 392");
	aoutgen_set_field(&g, AG_DATA, 0);
	aoutgen_set_field(&g, AG_SYMS, 0xfffffffc); /* 32 + 0x10 + 0xfffffffc */
	EXPECT_FAIL_G(&g, "truncated: the header claims 4294967340 bytes of "
			  "header, text, data and symbols, the file has 392");
	aoutgen_set_field(&g, AG_TEXT, 0xffffffff);
	aoutgen_set_field(&g, AG_DATA, 0xffffffff);
	aoutgen_set_field(&g, AG_SYMS, 0xffffffff);
	EXPECT_FAIL_G(&g, "truncated: the header claims 12884901917 bytes of "
			  "header, text, data and symbols, the file has 392");
	aoutgen_free(&g);

	/* ZMAGIC: 1024 + 0xfffffc00 wraps to 0 in 32 bits */
	build(&g, AOUT_ZMAGIC);
	aoutgen_set_field(&g, AG_TEXT, 0xfffffc00);
	aoutgen_set_field(&g, AG_DATA, 0);
	EXPECT_FAIL_G(&g, "truncated: the header claims 4294967296 bytes of "
			  "header, text, data and symbols, the file has 13312");
	aoutgen_free(&g);

	/* QMAGIC: text + data = 2^32 exactly */
	build(&g, AOUT_QMAGIC);
	aoutgen_set_field(&g, AG_TEXT, 0xfffff000);
	aoutgen_set_field(&g, AG_DATA, 0x1000);
	EXPECT_FAIL_G(&g, "truncated: the header claims 4294967296 bytes of text, "
			  "data and symbols, the file has 12288");
	aoutgen_free(&g);
}

static void test_syms_not_multiple_of_12(void)
{
	struct aoutgen_spec s;
	struct aoutgen g;

	aoutgen_default(&s, AOUT_OMAGIC);
	s.pad = 64; /* the bytes are there: only the size is wrong */
	aoutgen_build(&s, &g);
	aoutgen_set_field(&g, AG_SYMS, 13);
	EXPECT_FAIL_G(&g, "symbol table size 13 is not a multiple of 12");
	aoutgen_set_field(&g, AG_SYMS, 6);
	EXPECT_FAIL_G(&g, "symbol table size 6 is not a multiple of 12");
	/* 65 bytes, one more than the file has: the size test comes first */
	aoutgen_set_field(&g, AG_SYMS, 65);
	EXPECT_FAIL_G(&g, "truncated: the header claims 457 bytes of "
			  "header, text, data and symbols, the file has 456");
	aoutgen_free(&g);
}

static void test_entry_outside_text(void)
{
	static const struct {
		unsigned magic;
		uint32_t entry;
		const char *want; /* NULL: accepted */
	} c[] = {
		/* OMAGIC: text 0x123 at 0 */
		{ AOUT_OMAGIC, 0x123, "entry point 0x123 is outside the text "
				      "segment (0x0-0x123)" },
		{ AOUT_OMAGIC, 0xffffffff, "entry point 0xffffffff is outside the "
					   "text segment (0x0-0x123)" },
		{ AOUT_OMAGIC, 0x122, NULL },
		/* QMAGIC: text 0x2000 at 0x1000 */
		{ AOUT_QMAGIC, 0xfff, "entry point 0xfff is outside the text "
				      "segment (0x1000-0x3000)" },
		{ AOUT_QMAGIC, 0, "entry point 0x0 is outside the text segment "
				  "(0x1000-0x3000)" },
		{ AOUT_QMAGIC, 0x3000, "entry point 0x3000 is outside the text "
				       "segment (0x1000-0x3000)" },
		{ AOUT_QMAGIC, 0x1000, NULL },
		{ AOUT_QMAGIC, 0x2fff, NULL },
		/* ZMAGIC: text 0x2000 at 0, data is not text */
		{ AOUT_ZMAGIC, 0x2000, "entry point 0x2000 is outside the text "
				       "segment (0x0-0x2000)" },
		{ AOUT_NMAGIC, 0x1000, "entry point 0x1000 is outside the text "
				       "segment (0x0-0x1000)" },
	};
	struct aoutgen g;
	struct aout a;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		build(&g, c[i].magic);
		aoutgen_set_field(&g, AG_ENTRY, c[i].entry);
		if (!c[i].want) {
			if (PARSE_OK(&g, &a))
				aout_free(&a);
		} else {
			EXPECT_FAIL_G(&g, c[i].want);
		}
		aoutgen_free(&g);
	}
}

/* ---- the string table ---- */

static void test_strtab_size_word_missing(void)
{
	struct aoutgen_spec s;
	struct aoutgen g;

	aoutgen_default(&s, AOUT_QMAGIC);
	s.syms = some_syms;
	s.nsyms = NSOME;
	s.no_strtab = 1;
	aoutgen_build(&s, &g);
	CHECK_U(g.size, g.str_off);
	EXPECT_FAIL_G(&g, "truncated: the string table's size word is missing");
	aoutgen_resize(&g, g.size + 3);
	EXPECT_FAIL_G(&g, "truncated: the string table's size word is missing");
	aoutgen_free(&g);
}

static void test_strtab_smaller_than_size_word(void)
{
	struct aoutgen g;

	for (uint32_t n = 0; n < 4; n++) {
		char want[96];

		build_syms(&g, AOUT_ZMAGIC);
		aoutgen_set_str_size(&g, n);
		snprintf(want, sizeof want, "string table size %u is smaller than "
			 "its own size word", n);
		EXPECT_FAIL_G(&g, want);
		aoutgen_free(&g);
	}
}

static void test_strtab_past_end(void)
{
	struct aoutgen g;
	char want[128];

	build_syms(&g, AOUT_NMAGIC);
	aoutgen_set_str_size(&g, g.str_size + 1);
	snprintf(want, sizeof want, "truncated: the string table claims %u bytes, "
		 "%u are left in the file", g.str_size + 1, g.str_size);
	EXPECT_FAIL_G(&g, want);
	aoutgen_set_str_size(&g, 0xffffffff);
	snprintf(want, sizeof want, "truncated: the string table claims 4294967295 "
		 "bytes, %u are left in the file", g.str_size);
	EXPECT_FAIL_G(&g, want);
	/* the size word alone, claiming more */
	aoutgen_set_str_size(&g, g.str_size);
	aoutgen_resize(&g, g.str_off + 4);
	snprintf(want, sizeof want, "truncated: the string table claims %u bytes, "
		 "4 are left in the file", g.str_size);
	EXPECT_FAIL_G(&g, want);
	aoutgen_free(&g);
}

static void test_strx_below_4(void)
{
	struct aoutgen g;
	char want[128];

	build_syms(&g, AOUT_OMAGIC);
	for (uint32_t x = 1; x < 4; x++) {
		aoutgen_set_strx(&g, 1, x);
		snprintf(want, sizeof want, "symbol 1: name offset %u is inside the "
			 "string table's size word", x);
		EXPECT_FAIL_G(&g, want);
	}
	aoutgen_free(&g);
}

static void test_strx_past_table(void)
{
	struct aoutgen g;
	char want[128];

	build_syms(&g, AOUT_QMAGIC);
	aoutgen_set_strx(&g, 0, g.str_size);
	snprintf(want, sizeof want, "symbol 0: name offset %u is outside the "
		 "string table (%u bytes)", g.str_size, g.str_size);
	EXPECT_FAIL_G(&g, want);
	aoutgen_set_strx(&g, 0, 0xffffffff);
	snprintf(want, sizeof want, "symbol 0: name offset 4294967295 is outside "
		 "the string table (%u bytes)", g.str_size);
	EXPECT_FAIL_G(&g, want);
	/* the last symbol, so that the earlier ones were already accepted */
	aoutgen_set_strx(&g, 0, g.strx[1] /* any valid */);
	aoutgen_set_strx(&g, NSOME - 1, g.str_size + 100);
	snprintf(want, sizeof want, "symbol %zu: name offset %u is outside the "
		 "string table (%u bytes)", NSOME - 1, g.str_size + 100, g.str_size);
	EXPECT_FAIL_G(&g, want);
	aoutgen_free(&g);
}

/* With AOUT_PARSE_NO_SYMBOLS, neither table can fail the file. */
static void parse_no_symbols_ok_at(const struct aoutgen *g, unsigned line)
{
	struct aout a;
	struct diag d = { "" };
	int rc = aout_parse_opts(g->buf, g->size, AOUT_EXEC, AOUT_PARSE_NO_SYMBOLS,
				 &a, &d);
	char what[320];

	snprintf(what, sizeof what, "aout_parse_opts(NO_SYMBOLS) succeeds (line %u, "
		 "message \"%s\")", line, d.msg);
	unit_check_u64((uint64_t)(int64_t)rc, 0, what, line, __FILE__, "no_symbols");
	if (rc)
		return;
	unit_check_u64(a.nsyms, 0, "a.nsyms", line, __FILE__, "no_symbols");
	unit_check_u64((uintptr_t)a.syms, 0, "a.syms", line, __FILE__, "no_symbols");
	unit_check_u64(a.str_size, 0, "a.str_size", line, __FILE__, "no_symbols");
	unit_check_u64((uint64_t)a.no_symbols, 1, "a.no_symbols", line, __FILE__,
		       "no_symbols");
	aout_free(&a);
}
#define PARSE_NO_SYMBOLS_OK(g) parse_no_symbols_ok_at((g), __LINE__)

static void test_no_symbols_damaged_tables(void)
{
	struct aoutgen_spec s;
	struct aoutgen g;

	/* each damage fails a plain parse and passes one without symbols */
	build_syms(&g, AOUT_QMAGIC);
	aoutgen_set_strx(&g, 1, 2);
	EXPECT_FAIL_G(&g, "symbol 1: name offset 2 is inside the string table's "
			  "size word");
	PARSE_NO_SYMBOLS_OK(&g);
	aoutgen_set_strx(&g, 1, 0xffffffff);
	PARSE_NO_SYMBOLS_OK(&g);
	aoutgen_resize(&g, g.size - 1); /* the string table one byte short */
	PARSE_NO_SYMBOLS_OK(&g);
	aoutgen_resize(&g, g.str_off); /* no size word at all */
	EXPECT_FAIL_G(&g, "truncated: the string table's size word is missing");
	PARSE_NO_SYMBOLS_OK(&g);
	aoutgen_free(&g);

	aoutgen_default(&s, AOUT_OMAGIC);
	s.pad = 64;
	aoutgen_build(&s, &g);
	aoutgen_set_field(&g, AG_SYMS, 13);
	PARSE_NO_SYMBOLS_OK(&g);
	/* the bytes the header claims must still be there, as for the kernel */
	aoutgen_set_field(&g, AG_SYMS, 65);
	struct aout a;
	struct diag d = { "" };
	CU_ASSERT_EQUAL(aout_parse_opts(g.buf, g.size, AOUT_EXEC,
					AOUT_PARSE_NO_SYMBOLS, &a, &d), -1);
	CU_ASSERT_STRING_EQUAL(d.msg, "truncated: the header claims 457 bytes of "
				      "header, text, data and symbols, the file has 456");
	aoutgen_free(&g);

	/* an intact table is left out too */
	build_syms(&g, AOUT_ZMAGIC);
	PARSE_NO_SYMBOLS_OK(&g);
	aoutgen_free(&g);
}

static void test_unterminated_name(void)
{
	struct aoutgen g;
	char want[128];

	build_syms(&g, AOUT_ZMAGIC);
	/* the last name ("abs", symbol 5) ends the table: remove its NUL */
	CHECK_U(g.buf[g.size - 1], 0);
	g.buf[g.size - 1] = 'x';
	snprintf(want, sizeof want, "symbol 5: name at offset %u is not terminated "
		 "inside the string table", g.strx[5]);
	EXPECT_FAIL_G(&g, want);
	/* a NUL after the table's end does not count */
	aoutgen_resize(&g, g.size + 1);
	g.buf[g.size - 1] = 0;
	EXPECT_FAIL_G(&g, want);
	aoutgen_free(&g);
}

static void test_null_diag(void)
{
	struct aoutgen g;
	struct aout a;

	build(&g, AOUT_OMAGIC);
	aoutgen_set_machine(&g, 3);
	CU_ASSERT_EQUAL(aout_parse(g.buf, g.size, &a, NULL), -1);
	CU_ASSERT_PTR_NULL(a.syms);
	CU_ASSERT_EQUAL(aout_parse(g.buf, 0, &a, NULL), -1);
	aoutgen_free(&g);
}

/* ---- success ---- */

struct layout_case {
	unsigned magic;
	uint32_t text, data, bss, entry;
	uint32_t text_off;
	uint64_t txtaddr, dataddr, bssaddr;
};

static const struct layout_case layouts[] = {
	/* OMAGIC: data right behind text */
	{ AOUT_OMAGIC, 0x123, 0x45, 0x200, 0, 32, 0, 0x123, 0x168 },
	{ AOUT_OMAGIC, 0x1000, 0x10, 0, 0xfff, 32, 0, 0x1000, 0x1010 },
	/* the others: N_DATADDR rounded up to SEGMENT_SIZE (4096) */
	{ AOUT_NMAGIC, 0x1000, 0x234, 0x1800, 0x10, 32, 0, 0x1000, 0x1234 },
	{ AOUT_NMAGIC, 0x1001, 0x10, 0, 0, 32, 0, 0x2000, 0x2010 },
	{ AOUT_NMAGIC, 0x1, 0, 0, 0, 32, 0, 0x1000, 0x1000 },
	{ AOUT_ZMAGIC, 0x2000, 0x1000, 0x3000, 0, 1024, 0, 0x2000, 0x3000 },
	{ AOUT_ZMAGIC, 0x1234, 0x100, 0x10, 0x1233, 1024, 0, 0x2000, 0x2100 },
	{ AOUT_QMAGIC, 0x2000, 0x1000, 0x2345, 0x1020, 0, 0x1000, 0x3000, 0x4000 },
	{ AOUT_QMAGIC, 0x1234, 0x800, 0x10, 0x1020, 0, 0x1000, 0x3000, 0x3800 },
	{ AOUT_QMAGIC, 0x1000, 0, 0x10, 0x1020, 0, 0x1000, 0x2000, 0x2000 },
};

static void test_layout_and_addresses(void)
{
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
		const struct layout_case *c = &layouts[i];
		struct aoutgen_spec s;
		struct aoutgen g;
		struct aout a;

		aoutgen_default(&s, c->magic);
		s.text = c->text;
		s.data = c->data;
		s.bss = c->bss;
		s.entry = c->entry;
		aoutgen_build(&s, &g);
		if (PARSE_OK(&g, &a)) {
			CHECK_U(a.magic, c->magic);
			CHECK_U(a.buf, (uintptr_t)g.buf);
			CHECK_U(a.size, g.size);
			CHECK_U(a.h.text, c->text);
			CHECK_U(a.h.data, c->data);
			CHECK_U(a.h.bss, c->bss);
			CHECK_U(a.h.entry, c->entry);
			CHECK_U(a.text_off, c->text_off);
			CHECK_U(a.data_off, c->text_off + c->text);
			CHECK_U(a.sym_off, c->text_off + c->text + c->data);
			CHECK_U(a.str_off, a.sym_off);
			CHECK_U(a.str_size, 0);
			CHECK_U(a.nsyms, 0);
			CHECK_U((uintptr_t)a.syms, 0);
			CHECK_U(aout_txtaddr(&a), c->txtaddr);
			CHECK_U(aout_dataddr(&a), c->dataddr);
			CHECK_U(aout_bssaddr(&a), c->bssaddr);
			aout_free(&a);
		}
		aoutgen_free(&g);
	}
}

static void test_symbols_every_magic(void)
{
	for (size_t m = 0; m < 4; m++) {
		struct aoutgen g;
		struct aout a;

		build_syms(&g, magics[m]);
		if (!PARSE_OK(&g, &a)) {
			aoutgen_free(&g);
			continue;
		}
		CHECK_U(a.nsyms, NSOME);
		CHECK_U(a.h.syms, NSOME * 12);
		CHECK_U(a.sym_off, g.sym_off);
		CHECK_U(a.str_off, g.sym_off + NSOME * 12);
		CHECK_U(a.str_size, g.str_size);
		/* 4 + "_start" 7 + "local_data" 11 + "hello.c" 8 + "bss_var" 8 + "abs" 4 */
		CHECK_U(a.str_size, 42);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a.syms);
		for (size_t i = 0; i < NSOME; i++) {
			const struct aout_symbol *s = &a.syms[i];
			const struct aoutgen_sym *w = &some_syms[i];

			CHECK_U(s->strx, g.strx[i]);
			CHECK_U(s->type, w->type);
			CHECK_U(s->other, w->other);
			CHECK_U(s->desc, w->desc);
			CHECK_U(s->value, w->value);
			CHECK_STR(s->name, w->name ? w->name : "");
			if (s->strx)
				CU_ASSERT_PTR_EQUAL(s->name, (const char *)g.buf +
						    g.str_off + s->strx);
		}
		aout_free(&a);
		CU_ASSERT_PTR_NULL(a.syms);
		CHECK_U(a.nsyms, 0);
		aout_free(&a); /* twice is harmless */
		aoutgen_free(&g);
	}
}

static void test_stripped(void)
{
	struct aoutgen_spec s;
	struct aoutgen g;
	struct aout a;

	/* no symbols: what follows the data is not looked at */
	aoutgen_default(&s, AOUT_QMAGIC);
	s.pad = 3; /* 0xee 0xee 0xee: no valid size word */
	aoutgen_build(&s, &g);
	if (PARSE_OK(&g, &a)) {
		CHECK_U(a.nsyms, 0);
		CHECK_U(a.str_size, 0);
		CU_ASSERT_PTR_NULL(a.syms);
		aout_free(&a);
	}
	aoutgen_free(&g);

	s.pad = 0;
	s.strtab_if_stripped = 1; /* strip left a size word of 4 */
	aoutgen_build(&s, &g);
	aoutgen_set_str_size(&g, 1000); /* even a wrong one */
	if (PARSE_OK(&g, &a)) {
		CHECK_U(a.str_size, 0);
		aout_free(&a);
	}
	aoutgen_free(&g);
}

static void test_strtab_only_size_word(void)
{
	static const struct aoutgen_sym nameless[] = {
		{ NULL, N_TEXT, 0, 0, 0 },
		{ "", 0x44 /* N_SLINE */, 0, 7, 0x10 },
	};
	struct aoutgen_spec s;
	struct aoutgen g;
	struct aout a;

	aoutgen_default(&s, AOUT_OMAGIC);
	s.syms = nameless;
	s.nsyms = 2;
	aoutgen_build(&s, &g);
	CHECK_U(g.str_size, 4);
	if (PARSE_OK(&g, &a)) {
		CHECK_U(a.str_size, 4);
		CHECK_U(a.nsyms, 2);
		CHECK_STR(a.syms[0].name, "");
		CHECK_STR(a.syms[1].name, "");
		CHECK_U(a.syms[1].desc, 7);
		aout_free(&a);
	}
	aoutgen_free(&g);
}

static void test_name_at_last_byte(void)
{
	struct aoutgen g;
	struct aout a;

	build_syms(&g, AOUT_NMAGIC);
	/* offset str_size - 1 is the final NUL: an empty, valid name */
	aoutgen_set_strx(&g, 2, g.str_size - 1);
	if (PARSE_OK(&g, &a)) {
		CHECK_STR(a.syms[2].name, "");
		CHECK_U(a.syms[2].strx, g.str_size - 1);
		aout_free(&a);
	}
	/* offset 4 is the first name */
	aoutgen_set_strx(&g, 2, 4);
	if (PARSE_OK(&g, &a)) {
		CHECK_STR(a.syms[2].name, "_start");
		aout_free(&a);
	}
	aoutgen_free(&g);
}

/* ---- shared libraries (load_aout_library's rules) ---- */

static void expect_lib_fail_at(const struct aoutgen *g, const char *want,
			       unsigned line)
{
	struct aout a;
	struct diag d = { "" };
	int rc = aout_parse_kind(g->buf, g->size, AOUT_SHLIB, &a, &d);

	unit_check_u64((uint64_t)(int64_t)rc, (uint64_t)(int64_t)-1,
		       "aout_parse_kind(AOUT_SHLIB) fails", line, __FILE__,
		       "expect_lib_fail");
	unit_check_str(d.msg, want, "diag message", line, __FILE__,
		       "expect_lib_fail");
	if (rc == 0)
		aout_free(&a);
}
#define EXPECT_LIB_FAIL(g, want) expect_lib_fail_at((g), (want), __LINE__)

static void test_shlib_errors(void)
{
	struct aoutgen g;

	build(&g, AOUT_OMAGIC);
	EXPECT_LIB_FAIL(&g, "OMAGIC is not a shared library format (QMAGIC or "
			    "ZMAGIC)");
	aoutgen_free(&g);
	build(&g, AOUT_NMAGIC);
	EXPECT_LIB_FAIL(&g, "NMAGIC is not a shared library format (QMAGIC or "
			    "ZMAGIC)");
	aoutgen_free(&g);

	build(&g, AOUT_ZMAGIC);
	aoutgen_set_field(&g, AG_ENTRY, 0x60000010);
	EXPECT_LIB_FAIL(&g, "ZMAGIC library entry 0x60000010 is not page aligned");
	aoutgen_set_field(&g, AG_ENTRY, 0x60000000);
	aoutgen_set_flags(&g, 0x12);
	EXPECT_LIB_FAIL(&g, "library has flags 0x12 set");
	aoutgen_free(&g);

	build(&g, AOUT_QMAGIC);
	aoutgen_set_field(&g, AG_ENTRY, 0x60001020);
	aoutgen_set_flags(&g, 0x80);
	EXPECT_LIB_FAIL(&g, "library has flags 0x80 set");
	/* the header, layout and symbol checks apply to libraries too */
	aoutgen_set_flags(&g, 0);
	aoutgen_set_field(&g, AG_TRSIZE, 4);
	EXPECT_LIB_FAIL(&g, "has relocation tables (4 + 0 bytes): an object "
			    "file, not an executable");
	aoutgen_set_field(&g, AG_TRSIZE, 0);
	aoutgen_set_field(&g, AG_SYMS, 12);
	EXPECT_LIB_FAIL(&g, "truncated: the header claims 12300 bytes of text, "
			    "data and symbols, the file has 12288");
	aoutgen_free(&g);
}

static void test_shlib_ok(void)
{
	struct aoutgen g;
	struct aout a;
	struct diag d = { "" };

	/* a library's entry is its address, not a text address */
	build(&g, AOUT_QMAGIC);
	aoutgen_set_field(&g, AG_ENTRY, 0x60001020);
	CU_ASSERT_EQUAL(aout_parse(g.buf, g.size, &a, &d), -1);
	CHECK_MSG(&d, "entry point 0x60001020 is outside the text segment "
		      "(0x1000-0x3000)");
	CU_ASSERT_EQUAL(aout_parse_kind(g.buf, g.size, AOUT_SHLIB, &a, &d), 0);
	CHECK_U(a.kind, AOUT_SHLIB);
	CHECK_U(aout_lib_start(&a), 0x60001000);
	aout_free(&a);
	aoutgen_free(&g);

	build_syms(&g, AOUT_ZMAGIC);
	aoutgen_set_field(&g, AG_ENTRY, 0x62f00000);
	CU_ASSERT_EQUAL(aout_parse_kind(g.buf, g.size, AOUT_SHLIB, &a, &d), 0);
	CHECK_U(aout_lib_start(&a), 0x62f00000);
	CHECK_U(a.nsyms, NSOME);
	CHECK_STR(a.syms[0].name, "_start");
	aout_free(&a);
	/* and an executable is AOUT_EXEC */
	aoutgen_set_field(&g, AG_ENTRY, 0);
	if (PARSE_OK(&g, &a)) {
		CHECK_U(a.kind, AOUT_EXEC);
		aout_free(&a);
	}
	aoutgen_free(&g);
}

/* ---- aout_at: loaded addresses back to file bytes ---- */

static void expect_at(const struct aout *a, uint32_t addr, long off,
		      size_t avail, unsigned line)
{
	size_t got_avail = 12345;
	const uint8_t *p = aout_at(a, addr, &got_avail);
	char what[96];

	snprintf(what, sizeof what, "aout_at(0x%x) file offset", addr);
	if (off < 0) {
		unit_check_u64((uintptr_t)p, 0, what, line, __FILE__, "expect_at");
		return;
	}
	unit_check_u64(p ? (uint64_t)(p - a->buf) : UINT64_MAX, (uint64_t)off,
		       what, line, __FILE__, "expect_at");
	snprintf(what, sizeof what, "aout_at(0x%x) bytes available", addr);
	unit_check_u64(got_avail, avail, what, line, __FILE__, "expect_at");
}
#define EXPECT_AT(a, addr, off, avail) expect_at((a), (addr), (off), (avail), __LINE__)

static void test_aout_at(void)
{
	struct aoutgen_spec s;
	struct aoutgen g;
	struct aout a;
	struct diag d = { "" };

	/* QMAGIC: text 0x2000 at 0x1000 (header included), data 0x1000 at 0x3000 */
	build(&g, AOUT_QMAGIC);
	if (PARSE_OK(&g, &a)) {
		EXPECT_AT(&a, 0xfff, -1, 0);
		EXPECT_AT(&a, 0x1000, 0, 0x2000);
		EXPECT_AT(&a, 0x1020, 0x20, 0x1fe0);
		EXPECT_AT(&a, 0x2fff, 0x1fff, 1);
		EXPECT_AT(&a, 0x3000, 0x2000, 0x1000);
		EXPECT_AT(&a, 0x3fff, 0x2fff, 1);
		EXPECT_AT(&a, 0x4000, -1, 0); /* bss is not in the file */
		aout_free(&a);
	}
	aoutgen_free(&g);

	/*
	 * ZMAGIC with an odd text: copied from offset 1024 in one piece (the
	 * kernel's path for an offset that is not page aligned, and the
	 * planner's ZMAGIC region), so the data is right behind the text and
	 * nothing is loaded at N_DATADDR.
	 *
	 * SRC BUG (src/aout.c aout_at): still puts ZMAGIC data at N_DATADDR
	 * (0x2000) like QMAGIC, which is not the loaded image the planner
	 * describes (data_addr 0x1234); libs_scan inherits it (see
	 * test_libs_scan_zmagic_odd_text).
	 */
	aoutgen_default(&s, AOUT_ZMAGIC);
	s.text = 0x1234;
	s.data = 0x100;
	aoutgen_build(&s, &g);
	if (PARSE_OK(&g, &a)) {
		EXPECT_AT(&a, 0, 1024, 0x1234); /* as for OMAGIC: to the text's end */
		EXPECT_AT(&a, 0x1233, 1024 + 0x1233, 1);
		EXPECT_AT(&a, 0x1234, 1024 + 0x1234, 0x100);
		EXPECT_AT(&a, 0x1333, 1024 + 0x1333, 1);
		EXPECT_AT(&a, 0x1334, -1, 0);
		EXPECT_AT(&a, 0x1fff, -1, 0);
		EXPECT_AT(&a, 0x2000, -1, 0);
		EXPECT_AT(&a, 0x2100, -1, 0);
		aout_free(&a);
	}
	aoutgen_free(&g);

	/* OMAGIC and NMAGIC: data right behind the text, as read_code put it */
	build(&g, AOUT_OMAGIC);
	if (PARSE_OK(&g, &a)) {
		EXPECT_AT(&a, 0, 32, 0x123);
		EXPECT_AT(&a, 0x123, 32 + 0x123, 0x45);
		EXPECT_AT(&a, 0x168, -1, 0);
		aout_free(&a);
	}
	aoutgen_free(&g);
	aoutgen_default(&s, AOUT_NMAGIC);
	s.text = 0x1001;
	s.data = 0x10;
	s.entry = 0;
	aoutgen_build(&s, &g);
	if (PARSE_OK(&g, &a)) {
		EXPECT_AT(&a, 0x1001, 32 + 0x1001, 0x10);
		EXPECT_AT(&a, 0x2000, -1, 0);
		aout_free(&a);
	}
	aoutgen_free(&g);

	/* a library: text at a_entry & ~0xfff, data right behind it */
	build(&g, AOUT_QMAGIC);
	aoutgen_set_field(&g, AG_ENTRY, 0x60000020);
	CU_ASSERT_EQUAL(aout_parse_kind(g.buf, g.size, AOUT_SHLIB, &a, &d), 0);
	EXPECT_AT(&a, 0x60000000, 0, 0x2000);
	EXPECT_AT(&a, 0x60002000, 0x2000, 0x1000);
	EXPECT_AT(&a, 0x60003000, -1, 0);
	EXPECT_AT(&a, 0x1000, -1, 0);
	aout_free(&a);
	aoutgen_free(&g);
}

static void test_magic_names(void)
{
	CHECK_STR(aout_magic_name(AOUT_OMAGIC), "OMAGIC");
	CHECK_STR(aout_magic_name(AOUT_NMAGIC), "NMAGIC");
	CHECK_STR(aout_magic_name(AOUT_ZMAGIC), "ZMAGIC");
	CHECK_STR(aout_magic_name(AOUT_QMAGIC), "QMAGIC");
	CHECK_STR(aout_magic_name(0x1234), "unknown");
	CHECK_U(AOUT_OMAGIC, 0x107);
	CHECK_U(AOUT_NMAGIC, 0x108);
	CHECK_U(AOUT_ZMAGIC, 0x10b);
	CHECK_U(AOUT_QMAGIC, 0xcc);
}

int unit_aout_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_empty_buffer),
		UNIT_TEST(test_elf_magic),
		UNIT_TEST(test_unknown_magic),
		UNIT_TEST(test_truncated_header),
		UNIT_TEST(test_wrong_machine),
		UNIT_TEST(test_relocation_sizes),
		UNIT_TEST(test_qmagic_text_smaller_than_header),
		UNIT_TEST(test_truncated_each_magic),
		UNIT_TEST(test_truncated_exact_numbers),
		UNIT_TEST(test_truncated_32bit_overflow),
		UNIT_TEST(test_syms_not_multiple_of_12),
		UNIT_TEST(test_entry_outside_text),
		UNIT_TEST(test_strtab_size_word_missing),
		UNIT_TEST(test_strtab_smaller_than_size_word),
		UNIT_TEST(test_strtab_past_end),
		UNIT_TEST(test_strx_below_4),
		UNIT_TEST(test_strx_past_table),
		UNIT_TEST(test_unterminated_name),
		UNIT_TEST(test_no_symbols_damaged_tables),
		UNIT_TEST(test_null_diag),
		UNIT_TEST(test_layout_and_addresses),
		UNIT_TEST(test_symbols_every_magic),
		UNIT_TEST(test_stripped),
		UNIT_TEST(test_strtab_only_size_word),
		UNIT_TEST(test_name_at_last_byte),
		UNIT_TEST(test_magic_names),
		UNIT_TEST(test_shlib_errors),
		UNIT_TEST(test_shlib_ok),
		UNIT_TEST(test_aout_at),
		UNIT_END
	};

	return unit_add_suite("reader (src/aout.c)", NULL, NULL, tests);
}
