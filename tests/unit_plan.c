/*
 * src/plan.c: the load map of load_aout_binary for each magic, the exact
 * brk, the zero pages of set_brk, --noexecstack, the image limit, and
 * the names the stub knows the libraries by.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "aout.h"
#include "libs.h"
#include "plan.h"
#include "helpers/aoutgen.h"
#include "unit.h"

#define R STUB_PROT_R
#define W STUB_PROT_W
#define X STUB_PROT_X

/* Parses an image built from the spec and plans it; 0 when both worked. */
static int plan_of(const struct aoutgen_spec *s, int noexec, struct plan *p,
		   struct diag *d)
{
	struct aoutgen g;
	struct aout a;
	struct plan_options o = { .noexec = noexec };
	int rc;

	aoutgen_build(s, &g);
	rc = aout_parse(g.buf, g.size, &a, d);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc == 0) {
		rc = plan_build(&a, &o, p, d);
		aout_free(&a);
	}
	aoutgen_free(&g);
	return rc;
}

static void spec(struct aoutgen_spec *s, unsigned magic, uint32_t text,
		 uint32_t data, uint32_t bss, uint32_t entry)
{
	aoutgen_default(s, magic);
	s->text = text;
	s->data = data;
	s->bss = bss;
	s->entry = entry;
}

#define CHECK_REGION(p, i, nm, va, off, sz, pr) do { \
	CHECK_STR((p)->regions[i].name, nm); \
	CHECK_U((p)->regions[i].vaddr, va); \
	CHECK_U((p)->regions[i].aout_off, off); \
	CHECK_U((p)->regions[i].size, sz); \
	CHECK_U((p)->regions[i].prot, pr); \
} while (0)

#define CHECK_ZERO(p, va, sz, pr) do { \
	CHECK_U((p)->nzero, 1); \
	CHECK_U((p)->zero[0].vaddr, va); \
	CHECK_U((p)->zero[0].size, sz); \
	CHECK_U((p)->zero[0].prot, pr); \
} while (0)

static void test_plan_qmagic(void)
{
	struct aoutgen_spec s;
	struct plan p;
	struct diag d = { "" };

	spec(&s, AOUT_QMAGIC, 0x2000, 0x1000, 0x2345, 0x1020);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_U(p.magic, AOUT_QMAGIC);
	CHECK_U(p.entry, 0x1020);
	CHECK_U(p.nregions, 2);
	/* the header is mapped too: file offset 0 at 0x1000 */
	CHECK_REGION(&p, 0, "text", 0x1000, 0, 0x2000, R | X);
	CHECK_REGION(&p, 1, "data", 0x3000, 0x2000, 0x1000, R | W | X);
	/* the .text section starts after the header */
	CHECK_U(p.text_addr, 0x1020);
	CHECK_U(p.text_size, 0x1fe0);
	CHECK_U(p.data_addr, 0x3000);
	CHECK_U(p.data_size, 0x1000);
	CHECK_U(p.bss_addr, 0x4000);
	CHECK_U(p.bss_size, 0x2345);
	CHECK_U(p.brk, 0x6345); /* N_BSSADDR + a_bss, not rounded */
	CHECK_U(p.start_code, 0x1000);
	CHECK_U(p.end_code, 0x3000);
	CHECK_U(p.start_data, 0x3000);
	CHECK_U(p.end_data, 0x4000);
	CHECK_U(p.min_addr, 0x1000);
	CHECK_ZERO(&p, 0x4000, 0x3000, R | W | X);
	CHECK_U(p.image_end, 0x7000);
	CHECK_U(p.noexec, 0);
}

/*
 * ZMAGIC: file offset 1024 is not page aligned, so load_aout_binary took
 * its copying path (vm_brk + read_code of text and data together, as for
 * OMAGIC): one writable region from offset 1024 at 0, data right behind
 * the text.
 */
static void test_plan_zmagic(void)
{
	struct aoutgen_spec s;
	struct plan p;
	struct diag d = { "" };

	spec(&s, AOUT_ZMAGIC, 0x2000, 0x1000, 0x3000, 0x10);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_U(p.magic, AOUT_ZMAGIC);
	CHECK_U(p.entry, 0x10);
	CHECK_U(p.nregions, 1);
	CHECK_REGION(&p, 0, "text+data", 0, 1024, 0x3000, R | W | X);
	CHECK_U(p.text_addr, 0);
	CHECK_U(p.text_size, 0x2000);
	CHECK_U(p.data_addr, 0x2000);
	CHECK_U(p.data_size, 0x1000);
	CHECK_U(p.bss_addr, 0x3000);
	CHECK_U(p.bss_size, 0x3000);
	CHECK_U(p.brk, 0x6000);
	CHECK_U(p.start_code, 0);
	CHECK_U(p.end_code, 0x2000);
	CHECK_U(p.start_data, 0x2000);
	CHECK_U(p.end_data, 0x3000);
	CHECK_U(p.min_addr, 0);
	CHECK_ZERO(&p, 0x3000, 0x3000, R | W | X);
	CHECK_U(p.image_end, 0x6000);
	CHECK_U(p.noexec, 0);
	CHECK_U(p.direct, 0);
	CHECK_U(p.norandom, 0);
}

/*
 * A text that is not a page multiple: read_code put the data right behind
 * the text (data_addr 0x1234), while the mm fields and N_BSSADDR use the
 * rounded N_DATADDR (0x2000), as in the kernel.
 */
static void test_plan_zmagic_unaligned_text(void)
{
	struct aoutgen_spec s;
	struct plan p;
	struct diag d = { "" };

	spec(&s, AOUT_ZMAGIC, 0x1234, 0x100, 0x1000, 0);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_U(p.nregions, 1);
	CHECK_REGION(&p, 0, "text+data", 0, 1024, 0x1334, R | W | X);
	CHECK_U(p.text_addr, 0);
	CHECK_U(p.text_size, 0x1234);
	CHECK_U(p.end_code, 0x1234);
	CHECK_U(p.data_addr, 0x1234);
	CHECK_U(p.data_size, 0x100);
	CHECK_U(p.start_data, 0x2000);
	CHECK_U(p.end_data, 0x2100);
	CHECK_U(p.bss_addr, 0x2100);
	CHECK_U(p.brk, 0x3100);
	/* set_brk: PAGE_ALIGN(0x2100) .. PAGE_ALIGN(0x3100) */
	CHECK_ZERO(&p, 0x3000, 0x1000, R | W | X);
	CHECK_U(p.image_end, 0x4000);
}

static void test_plan_omagic(void)
{
	struct aoutgen_spec s;
	struct plan p;
	struct diag d = { "" };

	spec(&s, AOUT_OMAGIC, 0x123, 0x45, 0x2000, 0x11);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_U(p.magic, AOUT_OMAGIC);
	CHECK_U(p.entry, 0x11);
	CHECK_U(p.nregions, 1);
	/* text and data copied together from offset 32 to 0, writable */
	CHECK_REGION(&p, 0, "text+data", 0, 32, 0x168, R | W | X);
	CHECK_U(p.text_addr, 0);
	CHECK_U(p.text_size, 0x123);
	CHECK_U(p.data_addr, 0x123);
	CHECK_U(p.data_size, 0x45);
	CHECK_U(p.bss_addr, 0x168);
	CHECK_U(p.bss_size, 0x2000);
	CHECK_U(p.brk, 0x2168);
	CHECK_U(p.start_code, 0);
	CHECK_U(p.end_code, 0x123);
	CHECK_U(p.start_data, 0x123);
	CHECK_U(p.end_data, 0x168);
	CHECK_U(p.min_addr, 0);
	/* the first bss page is the file's last page */
	CHECK_ZERO(&p, 0x1000, 0x2000, R | W | X);
	CHECK_U(p.image_end, 0x3000);

	/* bss inside the last file page: no zero pages */
	spec(&s, AOUT_OMAGIC, 0x123, 0x45, 0x200, 0);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_U(p.nzero, 0);
	CHECK_U(p.brk, 0x368);
	CHECK_U(p.image_end, 0x1000);
}

static void test_plan_nmagic(void)
{
	struct aoutgen_spec s;
	struct plan p;
	struct diag d = { "" };

	spec(&s, AOUT_NMAGIC, 0x1000, 0x234, 0x1800, 0x10);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_U(p.magic, AOUT_NMAGIC);
	CHECK_U(p.nregions, 1);
	CHECK_REGION(&p, 0, "text+data", 0, 32, 0x1234, R | W | X);
	CHECK_U(p.text_addr, 0);
	CHECK_U(p.text_size, 0x1000);
	CHECK_U(p.data_addr, 0x1000);
	CHECK_U(p.start_data, 0x1000);
	CHECK_U(p.end_data, 0x1234);
	CHECK_U(p.bss_addr, 0x1234);
	CHECK_U(p.brk, 0x2a34);
	CHECK_ZERO(&p, 0x2000, 0x1000, R | W | X);
	CHECK_U(p.image_end, 0x3000);
	CHECK_U(p.min_addr, 0);
}

/*
 * NMAGIC with a text that is not a page multiple: read_code put the data
 * right behind the text, but the mm fields (and N_BSSADDR) use the rounded
 * N_DATADDR, as in the kernel.
 */
static void test_plan_nmagic_unaligned_text(void)
{
	struct aoutgen_spec s;
	struct plan p;
	struct diag d = { "" };

	spec(&s, AOUT_NMAGIC, 0x1100, 0x100, 0x1080, 0);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_REGION(&p, 0, "text+data", 0, 32, 0x1200, R | W | X);
	CHECK_U(p.data_addr, 0x1100);
	CHECK_U(p.data_size, 0x100);
	CHECK_U(p.start_data, 0x2000);
	CHECK_U(p.end_data, 0x2100);
	CHECK_U(p.bss_addr, 0x2100);
	CHECK_U(p.brk, 0x3180);
	/* set_brk: PAGE_ALIGN(0x2100) .. PAGE_ALIGN(0x3180) */
	CHECK_ZERO(&p, 0x3000, 0x1000, R | W | X);
	CHECK_U(p.image_end, 0x4000);

	/* bss inside the page after the file's last one: set_brk maps
	 * nothing (PAGE_ALIGN(0x2fff) == PAGE_ALIGN(0x3000)), as in the kernel */
	spec(&s, AOUT_NMAGIC, 0x1001, 0xfff, 1, 0);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_REGION(&p, 0, "text+data", 0, 32, 0x2000, R | W | X);
	CHECK_U(p.bss_addr, 0x2fff);
	CHECK_U(p.brk, 0x3000);
	CHECK_U(p.nzero, 0);
}

static void test_plan_qmagic_without_data(void)
{
	struct aoutgen_spec s;
	struct plan p;
	struct diag d = { "" };

	spec(&s, AOUT_QMAGIC, 0x1000, 0, 0x10, 0x1020);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_U(p.nregions, 1);
	CHECK_REGION(&p, 0, "text", 0x1000, 0, 0x1000, R | X);
	CHECK_U(p.data_addr, 0x2000);
	CHECK_U(p.data_size, 0);
	CHECK_U(p.bss_addr, 0x2000);
	CHECK_U(p.brk, 0x2010);
	CHECK_ZERO(&p, 0x2000, 0x1000, R | W | X);
	CHECK_U(p.image_end, 0x3000);

	/* and without bss: nothing but the text */
	spec(&s, AOUT_QMAGIC, 0x1800, 0, 0, 0x1020);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_U(p.nregions, 1);
	CHECK_U(p.nzero, 0);
	CHECK_U(p.bss_addr, 0x3000);
	CHECK_U(p.brk, 0x3000);
	CHECK_U(p.image_end, 0x3000);
}

static void test_plan_bss_in_last_data_page(void)
{
	struct aoutgen_spec s;
	struct plan p;
	struct diag d = { "" };

	spec(&s, AOUT_QMAGIC, 0x2000, 0x800, 0x100, 0x1020);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_U(p.bss_addr, 0x3800);
	CHECK_U(p.brk, 0x3900);
	CHECK_U(p.nzero, 0);
	CHECK_U(p.image_end, 0x4000);

	/* one byte past the page: one zero page */
	spec(&s, AOUT_QMAGIC, 0x2000, 0x800, 0x801, 0x1020);
	if (plan_of(&s, 0, &p, &d))
		return;
	CHECK_U(p.brk, 0x4001);
	CHECK_ZERO(&p, 0x4000, 0x1000, R | W | X);
	CHECK_U(p.image_end, 0x5000);
}

static void test_plan_noexec(void)
{
	static const unsigned magics[] = { AOUT_OMAGIC, AOUT_NMAGIC,
					   AOUT_ZMAGIC, AOUT_QMAGIC };

	for (size_t i = 0; i < 4; i++) {
		struct aoutgen_spec s;
		struct plan p;
		struct diag d = { "" };

		aoutgen_default(&s, magics[i]);
		s.bss = 0x5000; /* so that there are zero pages */
		if (plan_of(&s, 1, &p, &d))
			continue;
		CHECK_U(p.noexec, 1);
		if (magics[i] == AOUT_QMAGIC) {
			CHECK_U(p.nregions, 2);
			CHECK_U(p.regions[0].prot, R | X); /* text stays r-x */
			CHECK_U(p.regions[1].prot, R | W);
		} else {
			/* code and data in one mapping: the code must run */
			CHECK_U(p.nregions, 1);
			CHECK_U(p.regions[0].prot, R | W | X);
		}
		CHECK_U(p.nzero, 1);
		CHECK_U(p.zero[0].prot, R | W);

		/* the same without the option, and with no options at all */
		struct plan q;
		if (plan_of(&s, 0, &q, &d))
			continue;
		CHECK_U(q.noexec, 0);
		CHECK_U(q.zero[0].prot, R | W | X);
		CHECK_U(q.regions[q.nregions - 1].prot, R | W | X);
		/* apart from access, the two plans are the same */
		CHECK_U(q.brk, p.brk);
		CHECK_U(q.image_end, p.image_end);
		CHECK_U(q.zero[0].vaddr, p.zero[0].vaddr);
	}

	struct aoutgen_spec s;
	struct aoutgen g;
	struct aout a;
	struct plan p;
	struct diag d = { "" };

	aoutgen_default(&s, AOUT_QMAGIC);
	aoutgen_build(&s, &g);
	CU_ASSERT_EQUAL_FATAL(aout_parse(g.buf, g.size, &a, &d), 0);
	CU_ASSERT_EQUAL(plan_build(&a, NULL, &p, &d), 0);
	CHECK_U(p.noexec, 0);
	CHECK_U(p.regions[1].prot, R | W | X);
	aout_free(&a);
	aoutgen_free(&g);
}

static void test_plan_image_limit(void)
{
	struct aoutgen_spec s;
	struct plan p;
	struct diag d = { "" };

	CHECK_U(IMAGE_LIMIT, 0x80000000u);
	/* QMAGIC default: N_BSSADDR 0x4000 */
	spec(&s, AOUT_QMAGIC, 0x2000, 0x1000, 0x80000000u - 0x4000 + 1, 0x1020);
	CU_ASSERT_EQUAL(plan_of(&s, 0, &p, &d), -1);
	CHECK_MSG(&d, "text, data and bss end at 0x80000001, beyond 0x80000000 "
		      "where the runtime stub and the stack of the converted "
		      "program live");

	/* a huge bss: the end is computed in 64 bits */
	spec(&s, AOUT_QMAGIC, 0x2000, 0x1000, 0xffffffff, 0x1020);
	CU_ASSERT_EQUAL(plan_of(&s, 0, &p, &d), -1);
	CHECK_MSG(&d, "text, data and bss end at 0x100003fff, beyond 0x80000000 "
		      "where the runtime stub and the stack of the converted "
		      "program live");
	spec(&s, AOUT_OMAGIC, 0x123, 0x45, 0xfffffe98, 0);
	CU_ASSERT_EQUAL(plan_of(&s, 0, &p, &d), -1);
	CHECK_MSG(&d, "text, data and bss end at 0x100000000, beyond 0x80000000 "
		      "where the runtime stub and the stack of the converted "
		      "program live");

	/* ending exactly at the limit is allowed */
	spec(&s, AOUT_QMAGIC, 0x2000, 0x1000, 0x80000000u - 0x4000, 0x1020);
	if (plan_of(&s, 0, &p, &d) == 0) {
		CHECK_U(p.brk, 0x80000000u);
		CHECK_ZERO(&p, 0x4000, 0x80000000u - 0x4000, R | W | X);
		CHECK_U(p.image_end, 0x80000000u);
	} else {
		CU_FAIL("an image ending at IMAGE_LIMIT was refused");
	}
}

static void test_plan_min_addr_and_entry(void)
{
	static const struct {
		unsigned magic;
		uint32_t entry, min_addr, start_code;
	} c[] = {
		{ AOUT_OMAGIC, 0x100, 0, 0 },
		{ AOUT_NMAGIC, 0x0, 0, 0 },
		{ AOUT_ZMAGIC, 0x1fff, 0, 0 },
		{ AOUT_QMAGIC, 0x2fff, 0x1000, 0x1000 },
	};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct aoutgen_spec s;
		struct plan p;
		struct diag d = { "" };

		aoutgen_default(&s, c[i].magic);
		s.entry = c[i].entry;
		if (plan_of(&s, 0, &p, &d))
			continue;
		CHECK_U(p.entry, c[i].entry);
		CHECK_U(p.min_addr, c[i].min_addr);
		CHECK_U(p.start_code, c[i].start_code);
		CHECK_U(p.min_addr % 4096, 0);
		CHECK_U(p.image_end % 4096, 0);
		CU_ASSERT(p.image_end >= p.end_data);
	}
}

/* ==== plan_add_libs: the names the stub knows the libraries by ==== */

#define LIB_A 0x61000000u
#define LIB_B 0x62000000u

/* Two found libraries, A and B, as libs_resolve leaves them. */
struct two_libs {
	struct aoutgen g[2];
	char path[2][64];
	struct libset set;
	struct plan p;
};

static struct two_libs *two_libs_new(const char *name_a, const char *name_b)
{
	struct two_libs *t = calloc(1, sizeof *t);
	struct aoutgen_spec s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	aoutgen_library(&s, LIB_A);
	aoutgen_build(&s, &t->g[0]);
	aoutgen_library(&s, LIB_B);
	aoutgen_build(&s, &t->g[1]);
	snprintf(t->path[0], sizeof t->path[0], "/old/lib/libc.so.4.4.1");
	snprintf(t->path[1], sizeof t->path[1], "/old/usr/lib/libm.so.4.4.1");
	CU_ASSERT_EQUAL_FATAL(unit_lib_fill(&t->set.libs[0], name_a, t->path[0],
					    &t->g[0]), 0);
	CU_ASSERT_EQUAL_FATAL(unit_lib_fill(&t->set.libs[1], name_b, t->path[1],
					    &t->g[1]), 0);
	t->set.n = 2;
	return t;
}

static void two_libs_free(struct two_libs *t)
{
	for (size_t i = 0; i < 2; i++) {
		unit_lib_release(&t->set.libs[i]);
		aoutgen_free(&t->g[i]);
	}
	free(t);
}

static void alias(struct lib *l, const char *name)
{
	snprintf(l->aliases[l->naliases++], sizeof l->aliases[0], "%s", name);
}

static int add_libs(struct two_libs *t, int no_embed, struct diag *d)
{
	struct plan_options o = { .no_embed_libs = no_embed };

	memset(&t->p, 0, sizeof t->p);
	return plan_add_libs(&t->p, &t->set, &o, NULL, 0, d);
}

#define CHECK_PLIB(pl, nm, same, emb, st) do { \
	CHECK_STR((pl).name, nm); \
	CHECK_U((pl).same_as, same); \
	CHECK_U((pl).embedded, emb); \
	CHECK_U((pl).start, st); \
} while (0)

/* The final component of the name the program gives, each library at
 * the index it has in the set. */
static void test_plan_libs_final_component(void)
{
	struct two_libs *t = two_libs_new("/lib/libc.so.4", "libm.so.4");
	struct diag d = { "" };

	for (int no_embed = 0; no_embed < 2; no_embed++) {
		CU_ASSERT_EQUAL(add_libs(t, no_embed, &d), 0);
		CHECK_U(t->p.nlibs, 2);
		CHECK_PLIB(t->p.libs[0], "libc.so.4", 0, !no_embed, LIB_A);
		CHECK_PLIB(t->p.libs[1], "libm.so.4", 0, !no_embed, LIB_B);
		CU_ASSERT(t->p.dynamic);
	}
	two_libs_free(t);
}

/*
 * Other names of an embedded library: one entry per other final
 * component, after the libraries, naming the entry it shares.
 */
static void test_plan_libs_aliases(void)
{
	struct two_libs *t = two_libs_new("/lib/libc.so.4", "/usr/lib/libm.so.4");
	struct diag d = { "" };

	alias(&t->set.libs[0], "/usr/lib/libc.so.4"); /* the same final one */
	alias(&t->set.libs[0], "/lib/libc.so.4.4.1");
	alias(&t->set.libs[0], "libc.so.4.4.1");      /* again */
	alias(&t->set.libs[1], "/lib/libm.so");
	CU_ASSERT_EQUAL(add_libs(t, 0, &d), 0);
	CHECK_U(t->p.nlibs, 4);
	CHECK_PLIB(t->p.libs[0], "libc.so.4", 0, 1, LIB_A);
	CHECK_PLIB(t->p.libs[1], "libm.so.4", 0, 1, LIB_B);
	/* staged once, with the first name: nothing of their own */
	CHECK_PLIB(t->p.libs[2], "libc.so.4.4.1", 1, 0, 0);
	CHECK_PLIB(t->p.libs[3], "libm.so", 2, 0, 0);
	CHECK_U(t->p.libs[2].len, 0);
	CHECK_U(t->p.libs[3].filesz, 0);

	/* found at run time, each is looked for by the name given */
	CU_ASSERT_EQUAL(add_libs(t, 1, &d), 0);
	CHECK_U(t->p.nlibs, 2);
	two_libs_free(t);
}

/* Two libraries the stub could not tell apart fail, naming both files. */
static void test_plan_libs_one_file_name(void)
{
	struct two_libs *t = two_libs_new("/lib/libc.so.4", "/usr/lib/libc.so.4");
	struct diag d = { "" };

	CU_ASSERT_EQUAL(add_libs(t, 0, &d), -1);
	CHECK_MSG(&d, "the a.out libraries /old/lib/libc.so.4.4.1 and "
		      "/old/usr/lib/libm.so.4.4.1 have one file name, libc.so.4: "
		      "the converted program could not tell them apart");
	/* not embedded, each is looked for by the whole path given */
	CU_ASSERT_EQUAL(add_libs(t, 1, &d), 0);
	CHECK_U(t->p.nlibs, 2);
	two_libs_free(t);

	t = two_libs_new("/lib/libc.so.4", "/lib/libm.so.4");
	alias(&t->set.libs[1], "/usr/lib/libc.so.4");
	CU_ASSERT_EQUAL(add_libs(t, 0, &d), -1);
	CHECK_MSG(&d, "the a.out libraries /old/lib/libc.so.4.4.1 and "
		      "/old/usr/lib/libm.so.4.4.1 have one file name, libc.so.4: "
		      "the converted program could not tell them apart");
	two_libs_free(t);
}

/* The names, other names included, fit in the stub's STUB_MAX_LIBS. */
static void test_plan_libs_too_many_names(void)
{
	struct two_libs *t = two_libs_new("libc.so.4", "libm.so.4");
	struct diag d = { "" };
	char name[32];

	/* a third, not found: 3 names and 13 others */
	CU_ASSERT_EQUAL_FATAL(unit_lib_fill(&t->set.libs[2], "libx.so.1", NULL,
					    NULL), 0);
	t->set.n = 3;
	for (int i = 0; i < STUB_MAX_LIBS - 3; i++) {
		snprintf(name, sizeof name, "libc.so.4.%d", i);
		alias(&t->set.libs[i % 2], name);
	}
	CU_ASSERT_EQUAL(add_libs(t, 0, &d), 0);
	CHECK_U(t->p.nlibs, STUB_MAX_LIBS);
	alias(&t->set.libs[1], "libm.so");
	CU_ASSERT_EQUAL(add_libs(t, 0, &d), -1);
	CHECK_MSG(&d, "names a.out libraries by more than 16 file names");
	two_libs_free(t);
}

int unit_plan_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_plan_qmagic),
		UNIT_TEST(test_plan_zmagic),
		UNIT_TEST(test_plan_zmagic_unaligned_text),
		UNIT_TEST(test_plan_omagic),
		UNIT_TEST(test_plan_nmagic),
		UNIT_TEST(test_plan_nmagic_unaligned_text),
		UNIT_TEST(test_plan_qmagic_without_data),
		UNIT_TEST(test_plan_bss_in_last_data_page),
		UNIT_TEST(test_plan_noexec),
		UNIT_TEST(test_plan_image_limit),
		UNIT_TEST(test_plan_min_addr_and_entry),
		UNIT_TEST(test_plan_libs_final_component),
		UNIT_TEST(test_plan_libs_aliases),
		UNIT_TEST(test_plan_libs_one_file_name),
		UNIT_TEST(test_plan_libs_too_many_names),
		UNIT_END
	};

	return unit_add_suite("planner (src/plan.c)", NULL, NULL, tests);
}
