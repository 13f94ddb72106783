/*
 * src/elfwrite.c.
 *
 * The pure parts first (elfw_layout, elfw_stub_plan, the stub check), then
 * whole conversions written to a temporary file with the real runtime stub
 * and read back twice: with libelf, which checks the file as the kernel
 * and the stub will see it, and independently with BFD, which checks it
 * as objdump, nm and gdb will.  Last, the errors, the file written in
 * pieces, and the .comment a batch rerun reads back.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#ifndef PACKAGE
#define PACKAGE "aout2elf"
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif
#include <bfd.h>

#include <CUnit/CUnit.h>

#include "aout.h"
#include "elfwrite.h"
#include "libs.h"
#include "plan.h"
#include "stub_abi.h"
#include "stub_image.h"
#include "helpers/aoutgen.h"
#include "unit.h"

#define PAGE 4096u
#define PAGE_UP(x) (((uint64_t)(x) + PAGE - 1) & ~(uint64_t)(PAGE - 1))
#define PLAN_SIZE ((uint32_t)sizeof(struct stub_plan))

static const unsigned magics[] = { AOUT_OMAGIC, AOUT_NMAGIC, AOUT_ZMAGIC,
				   AOUT_QMAGIC };

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static uint32_t pflags_of(uint32_t prot)
{
	return (prot & STUB_PROT_R ? PF_R : 0) | (prot & STUB_PROT_W ? PF_W : 0) |
	       (prot & STUB_PROT_X ? PF_X : 0);
}

/* A stub image of size bytes with a header saying so (and a given bss_size). */
static uint8_t *fake_stub(size_t size, uint32_t bss_size)
{
	const size_t head = sizeof(struct stub_header);
	uint8_t *s = calloc(1, size < head ? head : size);

	if (!s)
		abort();
	wr32(s, STUB_MAGIC);
	wr32(s + 4, STUB_ABI_VERSION);
	wr32(s + 8, 0x18);
	wr32(s + 12, 0);
	wr32(s + 16, (uint32_t)size);
	wr32(s + 20, bss_size);
	wr32(s + 24, 0x18); /* the thunks: anywhere in the image */
	wr32(s + 28, 0x18);
	wr32(s + 32, 0x18);
	for (size_t i = head; i < size; i++)
		s[i] = (uint8_t)(i | 1);
	return s;
}

static int parse_and_plan_opts(const struct aoutgen_spec *s,
			       const struct plan_options *o, struct aoutgen *g,
			       struct aout *a, struct plan *p)
{
	struct diag d = { "" };

	aoutgen_build(s, g);
	if (aout_parse(g->buf, g->size, a, &d)) {
		CU_FAIL("aout_parse failed");
		fprintf(stderr, "aout_parse: %s\n", d.msg);
		aoutgen_free(g);
		return -1;
	}
	if (plan_build(a, o, p, &d)) {
		CU_FAIL("plan_build failed");
		fprintf(stderr, "plan_build: %s\n", d.msg);
		aout_free(a);
		aoutgen_free(g);
		return -1;
	}
	return 0;
}

static int parse_and_plan(const struct aoutgen_spec *s, int noexec,
			  struct aoutgen *g, struct aout *a, struct plan *p)
{
	struct plan_options o = { .noexec = noexec };

	return parse_and_plan_opts(s, &o, g, a, p);
}

/* ==== elfw_layout ==== */

static void test_layout_fake_stub(void)
{
	uint8_t *stub = fake_stub(0x123, 0x100);
	struct aoutgen_spec s;
	struct aoutgen g;
	struct aout a;
	struct plan p;
	struct elfw_layout l;
	struct diag d = { "" };

	aoutgen_default(&s, AOUT_QMAGIC); /* text 0x2000 at 0x1000, data 0x1000 */
	if (parse_and_plan(&s, 0, &g, &a, &p) == 0) {
		CU_ASSERT_EQUAL(elfw_layout(&p, stub, 0x123, &l, &d), 0);
		CHECK_U(l.plan_off, 0x130); /* filesz rounded up to 16 */
		CHECK_U(l.stub_filesz, 0x130 + PLAN_SIZE);
		CHECK_U(l.stub_bss_size, 0x100);
		CHECK_U(l.nregions, 2);
		/* 0x2000 as long as the plan is smaller than 0xed0 bytes */
		uint32_t base = (uint32_t)PAGE_UP(ELFW_STUB_OFFSET + 0x130 + PLAN_SIZE);
		/* staging right behind the stub, in the file as in memory */
		CHECK_U(l.stage_base, STUB_BASE + base - ELFW_STUB_OFFSET);
		CHECK_U(l.region[0].page_off, base);
		CHECK_U(l.region[0].stage, l.stage_base);
		CHECK_U(l.region[0].len, 0x2000);
		CHECK_U(l.region[1].page_off, base + 0x2000);
		CHECK_U(l.region[1].stage, l.stage_base + 0x2000);
		CHECK_U(l.region[1].len, 0x1000);
		CHECK_U(l.end, base + 0x3000);
		aout_free(&a);
		aoutgen_free(&g);
	}
	free(stub);

	/* a stub segment that just fits in its pages puts the first region
	 * right behind them; 16 bytes more of stub, one page further */
	uint32_t pages = (uint32_t)PAGE_UP(PLAN_SIZE + 64);
	uint32_t filesz = (pages - PLAN_SIZE) & ~15u;
	uint8_t *bigger = fake_stub(filesz + 1, 0);
	stub = fake_stub(filesz, 0);
	aoutgen_default(&s, AOUT_OMAGIC);
	if (parse_and_plan(&s, 0, &g, &a, &p) == 0) {
		CU_ASSERT_EQUAL(elfw_layout(&p, stub, filesz, &l, &d), 0);
		CHECK_U(l.plan_off, filesz);
		CHECK_U(l.stub_filesz, filesz + PLAN_SIZE);
		CU_ASSERT(l.stub_filesz <= pages);
		CHECK_U(l.region[0].page_off, ELFW_STUB_OFFSET + pages);
		CHECK_U(l.region[0].stage, STUB_BASE + pages);
		CU_ASSERT_EQUAL(elfw_layout(&p, bigger, filesz + 1, &l, &d), 0);
		CHECK_U(l.plan_off, filesz + 16);
		CU_ASSERT(l.stub_filesz > pages);
		CHECK_U(l.region[0].page_off, ELFW_STUB_OFFSET + pages + PAGE);
		CHECK_U(l.nregions, 1);
		CHECK_U(l.stage_base, STUB_BASE + pages + PAGE);
		CHECK_U(l.region[0].stage, l.stage_base);
		CHECK_U(l.region[0].len, 0x1000); /* 0x168 bytes of text+data */
		CHECK_U(l.end, ELFW_STUB_OFFSET + pages + 2 * PAGE);
		aout_free(&a);
		aoutgen_free(&g);
	}
	free(bigger);
	free(stub);
}

static void test_layout_real_stub_every_magic(void)
{
	uint32_t bss_size = rd32(stub_image + 20);

	CHECK_U(rd32(stub_image), STUB_MAGIC);
	CU_ASSERT(bss_size > 0 && bss_size <= STUB_MAX_BSS);
	CHECK_U(rd32(stub_image + 16), stub_image_size);
	for (size_t m = 0; m < 4; m++) {
		struct aoutgen_spec s;
		struct aoutgen g;
		struct aout a;
		struct plan p;
		struct elfw_layout l;
		struct diag d = { "" };

		aoutgen_default(&s, magics[m]);
		s.bss = 0x4321;
		if (parse_and_plan(&s, 0, &g, &a, &p))
			continue;
		CU_ASSERT_EQUAL(elfw_layout(&p, stub_image, stub_image_size, &l,
					    &d), 0);
		CHECK_U(l.plan_off, (stub_image_size + 15) & ~15u);
		CU_ASSERT(l.plan_off >= stub_image_size);
		CHECK_U(l.plan_off % 4, 0);
		CHECK_U(l.stub_filesz, l.plan_off + PLAN_SIZE);
		CHECK_U(l.stub_bss_size, bss_size);
		CHECK_U(l.nregions, p.nregions);
		uint64_t off = PAGE_UP(ELFW_STUB_OFFSET + l.stub_filesz);
		uint64_t stage = STUB_BASE + PAGE_UP(l.stub_filesz);
		CHECK_U(l.stage_base, stage);
		for (size_t i = 0; i < l.nregions; i++) {
			const struct plan_region *r = &p.regions[i];

			CHECK_U(l.region[i].page_off, off);
			CHECK_U(l.region[i].stage, stage);
			CHECK_U(l.region[i].page_off % PAGE, 0);
			CHECK_U(l.region[i].stage % PAGE, 0);
			CHECK_U(l.region[i].len,
				PAGE_UP(r->vaddr % PAGE + r->size));
			CU_ASSERT(l.region[i].len >= r->size);
			off += l.region[i].len;
			stage += l.region[i].len;
		}
		CHECK_U(l.end, off);
		CU_ASSERT(stage <= STAGE_LIMIT);
		aout_free(&a);
		aoutgen_free(&g);
	}
}

/* Regions that do not start on a page (never produced by plan_build
 * today, but elfw_layout's contract allows them). */
static void test_layout_unaligned_regions(void)
{
	uint8_t *stub = fake_stub(64, 64);
	struct plan p;
	struct elfw_layout l;
	struct diag d = { "" };

	memset(&p, 0, sizeof p);
	p.nregions = 2;
	p.regions[0] = (struct plan_region){ "text", 0x1234, 32, 0x100,
					     STUB_PROT_R | STUB_PROT_X };
	p.regions[1] = (struct plan_region){ "data", 0x3f00, 0x200, 0x200,
					     STUB_PROT_R | STUB_PROT_W };
	CU_ASSERT_EQUAL(elfw_layout(&p, stub, 64, &l, &d), 0);
	uint32_t base = (uint32_t)PAGE_UP(ELFW_STUB_OFFSET + 64 + PLAN_SIZE);
	CHECK_U(l.region[0].page_off, base);
	CHECK_U(l.region[0].stage, l.stage_base);
	CHECK_U(l.region[0].len, 0x1000);
	CHECK_U(l.region[1].page_off, base + 0x1000);
	CHECK_U(l.region[1].stage, l.stage_base + 0x1000);
	CHECK_U(l.region[1].len, 0x2000); /* 0x3f00..0x4100 spans two pages */
	CHECK_U(l.end, base + 0x3000);
	/* file offset and staging address congruent to the a.out address */
	for (int i = 0; i < 2; i++)
		CHECK_U((l.region[i].page_off + p.regions[i].vaddr % PAGE) % PAGE,
			p.regions[i].vaddr % PAGE);
	free(stub);
}

static void test_layout_too_large_to_stage(void)
{
	uint8_t *stub = fake_stub(64, 64);
	struct plan p;
	struct elfw_layout l;
	struct diag d = { "" };
	/* the stub and plan take the first page of the 768 MiB */
	uint32_t room = STAGE_LIMIT - (STUB_BASE + PAGE);

	CHECK_U(room, 805302272u);
	memset(&p, 0, sizeof p);
	p.nregions = 1;
	p.regions[0] = (struct plan_region){ "text+data", 0, 32, room,
					     STUB_PROT_R | STUB_PROT_X };
	CU_ASSERT_EQUAL(elfw_layout(&p, stub, 64, &l, &d), 0);
	CHECK_U(l.region[0].len, room);

	p.regions[0].size = room + 1;
	CU_ASSERT_EQUAL(elfw_layout(&p, stub, 64, &l, &d), -1);
	CHECK_MSG(&d, "the a.out image is too large to stage (805306368 bytes, "
		      "at most 805302272)");

	/* two regions that fit alone but not together */
	p.nregions = 2;
	p.regions[0].size = 0x20000000;
	p.regions[1] = (struct plan_region){ "data", 0x20000000, 32, 0x20000000,
					     STUB_PROT_R | STUB_PROT_W };
	CU_ASSERT_EQUAL(elfw_layout(&p, stub, 64, &l, &d), -1);
	CHECK_MSG(&d, "the a.out image is too large to stage (1073741824 bytes, "
		      "at most 805302272)");
	free(stub);
}

/* elfw_check: what the input decides, before any output is opened */
static void test_check_elf32_limit(void)
{
	uint8_t *stub = fake_stub(64, 64);
	struct plan p;
	struct aout a;
	struct diag d = { "" };

	memset(&p, 0, sizeof p);
	memset(&a, 0, sizeof a);
	p.nregions = 1;
	p.regions[0] = (struct plan_region){ "text", 0x1000, 0, 0x1000,
					     STUB_PROT_R | STUB_PROT_X };
	a.h.syms = 12 * 1000;
	a.str_size = 100000;
	CU_ASSERT_EQUAL(elfw_check(&a, &p, stub, 64, &d), 0);

	/* the strings go in twice (.strtab, .stabstr): 2 GiB of them pass 4 GiB */
	a.str_size = 0x7fffff00u;
	CU_ASSERT_EQUAL(elfw_check(&a, &p, stub, 64, &d), -1);
	CHECK_MSG(&d, "its symbol and string tables are too large: the ELF file "
		      "would pass 4 GiB, which ELF32 cannot address");
	a.str_size = 100000;
	a.h.syms = 12 * 0x0c000000u; /* 2.25 GiB of nlists, 28 bytes each out */
	CU_ASSERT_EQUAL(elfw_check(&a, &p, stub, 64, &d), -1);

	/* -s: the tables are not read, and not written either */
	a.str_size = 0x7fffff00u;
	a.no_symbols = 1;
	CU_ASSERT_EQUAL(elfw_check(&a, &p, stub, 64, &d), 0);

	/* the staging is checked there too */
	p.regions[0].size = STAGE_LIMIT - STUB_BASE;
	CU_ASSERT_EQUAL(elfw_check(&a, &p, stub, 64, &d), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "too large to stage"));
	free(stub);
}

/* ==== the stub check ==== */

static void expect_damaged(const uint8_t *stub, size_t size, const char *want,
			   unsigned line)
{
	struct plan p;
	struct elfw_layout l;
	struct diag d = { "" };

	memset(&p, 0, sizeof p);
	p.nregions = 1;
	p.regions[0] = (struct plan_region){ "text", 0, 1024, 0x1000,
					     STUB_PROT_R | STUB_PROT_X };
	unit_check_u64((uint64_t)(int64_t)elfw_layout(&p, stub, size, &l, &d),
		       (uint64_t)(int64_t)-1, "elfw_layout refuses the stub",
		       line, __FILE__, "expect_damaged");
	unit_check_str(d.msg, want, "diag message", line, __FILE__,
		       "expect_damaged");
}
#define EXPECT_DAMAGED(stub, size) \
	expect_damaged((stub), (size), "internal error: runtime stub is damaged", \
		       __LINE__)

static void test_damaged_stub(void)
{
	size_t n = stub_image_size;
	uint8_t *s = malloc(n + 1);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	memcpy(s, stub_image, n);
	s[n] = 0;

	expect_damaged(s, 23, "internal error: runtime stub too small", __LINE__);
	expect_damaged(s, 0, "internal error: runtime stub too small", __LINE__);

	wr32(s, STUB_PLAN_MAGIC); /* the wrong magic */
	EXPECT_DAMAGED(s, n);
	wr32(s, STUB_MAGIC);
	wr32(s + 4, STUB_ABI_VERSION + 1);
	EXPECT_DAMAGED(s, n);
	wr32(s + 4, 0);
	EXPECT_DAMAGED(s, n);
	wr32(s + 4, STUB_ABI_VERSION);

	/* filesz must be the size of the image */
	EXPECT_DAMAGED(s, n - 1);
	EXPECT_DAMAGED(s, n + 1);
	wr32(s + 16, (uint32_t)n + 1);
	EXPECT_DAMAGED(s, n);
	wr32(s + 16, (uint32_t)n);

	/* the stub's variables: at most STUB_MAX_BSS bytes */
	uint32_t bss_size = rd32(s + 20);
	wr32(s + 20, STUB_MAX_BSS + 1);
	EXPECT_DAMAGED(s, n);
	wr32(s + 20, 0xffffffff);
	EXPECT_DAMAGED(s, n);
	wr32(s + 20, bss_size);

	/* the entry point at or past the end of the file part */
	uint32_t entry = rd32(s + 8);
	wr32(s + 8, (uint32_t)n);
	EXPECT_DAMAGED(s, n);
	wr32(s + 8, 0xffffffff);
	EXPECT_DAMAGED(s, n);
	wr32(s + 8, (uint32_t)n - 1); /* the last byte is still inside */
	{
		struct plan p;
		struct elfw_layout l;
		struct diag d = { "" };

		memset(&p, 0, sizeof p);
		CU_ASSERT_EQUAL(elfw_layout(&p, s, n, &l, &d), 0);
	}
	wr32(s + 8, entry);

	/* and the untouched copy is fine */
	struct plan p;
	struct elfw_layout l;
	struct diag d = { "" };
	memset(&p, 0, sizeof p);
	CU_ASSERT_EQUAL(elfw_layout(&p, s, n, &l, &d), 0);
	free(s);
}

/*
 * Once a SRC BUG (src/elfwrite.c, elfw_layout / check_stub): the size that
 * the plan's offset is computed from (memsz then, filesz now) was not
 * bounded, and plan_off = (size + 15) & ~15u wrapped in 32 bits: elfw_write
 * then memcpy()d the whole stub image into a short buffer.  A bss_size that
 * does not wrap but is large (0x40000000) would put the stub's variables
 * past the end of the 32-bit address space.  Either stub is damaged and
 * must be refused like the others.
 */
static void test_stub_size_overflow_rejected(void)
{
	uint8_t *s = fake_stub(64, 0x40000000);
	struct plan p;
	struct elfw_layout l;
	struct diag d = { "" };
	int rc;

	memset(&p, 0, sizeof p);
	rc = elfw_layout(&p, s, 64, &l, &d);
	CU_ASSERT_EQUAL(rc, -1);
	if (rc == 0) {
		CU_ASSERT((uint64_t)STUB_BSS + l.stub_bss_size <= 0x100000000ull);
	} else {
		CHECK_MSG(&d, "internal error: runtime stub is damaged");
	}

	/* a filesz of 0xfffffff1 would wrap plan_off to 0 (it must be the
	 * size of the image as well, so the header alone says so here) */
	wr32(s + 20, 0x100);
	wr32(s + 16, 0xfffffff1);
	rc = elfw_layout(&p, s, 64, &l, &d);
	CU_ASSERT_EQUAL(rc, -1);
	free(s);
}

/* ==== elfw_stub_plan ==== */

static void check_stub_plan(const struct plan *p, const struct elfw_layout *l,
			    const struct stub_plan *sp)
{
	CHECK_U(sp->magic, STUB_PLAN_MAGIC);
	CHECK_U(sp->flags & STUB_F_NOEXEC, p->noexec ? STUB_F_NOEXEC : 0);
	CHECK_U(sp->entry, p->entry);
	CHECK_U(sp->start_code, p->start_code);
	CHECK_U(sp->end_code, p->end_code);
	CHECK_U(sp->start_data, p->start_data);
	CHECK_U(sp->end_data, p->end_data);
	CHECK_U(sp->start_brk, p->bss_addr);
	CHECK_U(sp->brk, p->brk);
	CHECK_U(sp->min_addr, p->min_addr);
	CHECK_U(sp->trap_lo, p->min_addr);
	CHECK_U(sp->trap_hi, p->image_end);
	/* with direct, the kernel maps the regions in place: nothing to move */
	size_t nmoves = p->direct ? 0 : p->nregions;
	CHECK_U(sp->nmaps, nmoves + p->nzero);
	CU_ASSERT(sp->nmaps <= STUB_MAX_MAPS);
	/* the moves first, in region order, then the zero pages */
	for (size_t i = 0; i < nmoves; i++) {
		const struct stub_map *m = &sp->maps[i];

		CHECK_U(m->kind, STUB_MAP_MOVE);
		CHECK_U(m->dst, p->regions[i].vaddr & ~(PAGE - 1));
		CHECK_U(m->src, l->region[i].stage);
		CHECK_U(m->len, l->region[i].len);
		CHECK_U(m->prot, p->regions[i].prot);
		CHECK_U(m->dst % PAGE, 0);
		CHECK_U(m->len % PAGE, 0);
	}
	for (size_t i = 0; i < p->nzero; i++) {
		const struct stub_map *m = &sp->maps[nmoves + i];

		CHECK_U(m->kind, STUB_MAP_ZERO);
		CHECK_U(m->dst, p->zero[i].vaddr);
		CHECK_U(m->src, 0);
		CHECK_U(m->len, p->zero[i].size);
		CHECK_U(m->prot, p->zero[i].prot);
	}
	for (size_t i = sp->nmaps; i < STUB_MAX_MAPS; i++)
		CU_ASSERT(all_zero((const uint8_t *)&sp->maps[i],
				   sizeof sp->maps[i]));
	/* the maps are in address order, do not overlap and end by image_end
	 * (before it only when set_brk mapped nothing for a bss that starts
	 * past the last file page, as with an NMAGIC text of odd size) */
	for (size_t i = 0; i + 1 < sp->nmaps; i++)
		CU_ASSERT((uint64_t)sp->maps[i].dst + sp->maps[i].len <=
			  sp->maps[i + 1].dst);
	if (sp->nmaps)
		CU_ASSERT((uint64_t)sp->maps[sp->nmaps - 1].dst +
			  sp->maps[sp->nmaps - 1].len <= p->image_end);
	/* the libraries: where the embedded ones are staged */
	CHECK_U(sp->flags, (p->noexec ? STUB_F_NOEXEC : 0) |
				   (p->dynamic ? STUB_F_DYNAMIC : 0) |
				   (p->norandom ? STUB_F_NORANDOM : 0));
	CHECK_U(sp->nlibs, p->nlibs);
	CHECK_U(sp->lib_lo, p->lib_lo);
	CHECK_U(sp->lib_hi, p->lib_hi);
	for (size_t i = 0; i < p->nlibs && i < STUB_MAX_LIBS; i++) {
		const struct plan_lib *pl = &p->libs[i];
		const struct stub_lib *sl = &sp->libs[i];

		CHECK_STR(sl->name, pl->name);
		CU_ASSERT(all_zero((const uint8_t *)sl->name + strlen(pl->name),
				   sizeof sl->name - strlen(pl->name)));
		CHECK_U(sl->mapped, 0);
		if (pl->same_as) {
			/* another name of an earlier entry: its staging */
			const struct stub_lib *first = &sp->libs[pl->same_as - 1];

			CU_ASSERT(pl->same_as <= i);
			CU_ASSERT(!pl->embedded);
			CHECK_U(sl->start, first->start);
			CHECK_U(sl->len, first->len);
			CHECK_U(sl->bss_len, first->bss_len);
			CHECK_U(sl->stage, first->stage);
		} else if (pl->embedded) {
			CHECK_U(sl->start, pl->start);
			CHECK_U(sl->len, pl->len);
			CHECK_U(sl->bss_len, pl->bss_len);
			CHECK_U(sl->stage, l->region[p->nregions + i].stage);
			CU_ASSERT(sl->stage >= l->stage_base);
			CU_ASSERT((uint64_t)sl->stage + sl->len <= STAGE_LIMIT);
			CHECK_U(sl->stage % PAGE, 0);
		} else {
			/* found at run time, by name */
			CHECK_U(sl->start, 0);
			CHECK_U(sl->len, 0);
			CHECK_U(sl->bss_len, 0);
			CHECK_U(sl->stage, 0);
		}
	}
	for (size_t i = p->nlibs; i < STUB_MAX_LIBS; i++)
		CU_ASSERT(all_zero((const uint8_t *)&sp->libs[i],
				   sizeof sp->libs[i]));
	CU_ASSERT(memcmp(sp->paths, p->paths, sizeof sp->paths) == 0);
}

static void test_stub_plan_every_magic(void)
{
	for (size_t m = 0; m < 4; m++) {
		for (int noexec = 0; noexec < 2; noexec++) {
			struct aoutgen_spec s;
			struct aoutgen g;
			struct aout a;
			struct plan p;
			struct elfw_layout l;
			struct stub_plan sp;
			struct diag d = { "" };

			aoutgen_default(&s, magics[m]);
			s.bss = 0x5000;
			if (parse_and_plan(&s, noexec, &g, &a, &p))
				continue;
			CU_ASSERT_EQUAL(elfw_layout(&p, stub_image, stub_image_size,
						    &l, &d), 0);
			memset(&sp, 0xa5, sizeof sp);
			elfw_stub_plan(&p, &l, &sp);
			check_stub_plan(&p, &l, &sp);
			CHECK_U(p.nzero, 1);
			aout_free(&a);
			aoutgen_free(&g);
		}
	}
}

static void test_stub_plan_qmagic_values(void)
{
	struct aoutgen_spec s;
	struct aoutgen g;
	struct aout a;
	struct plan p;
	struct elfw_layout l;
	struct stub_plan sp;
	struct diag d = { "" };
	uint8_t *stub = fake_stub(64, 64);

	aoutgen_default(&s, AOUT_QMAGIC); /* 0x2000 text, 0x1000 data, 0x2345 bss */
	if (parse_and_plan(&s, 1, &g, &a, &p)) {
		free(stub);
		return;
	}
	CU_ASSERT_EQUAL(elfw_layout(&p, stub, 64, &l, &d), 0);
	elfw_stub_plan(&p, &l, &sp);
	CHECK_U(sp.flags, STUB_F_NOEXEC);
	CHECK_U(sp.entry, 0x1020);
	CHECK_U(sp.start_code, 0x1000);
	CHECK_U(sp.end_code, 0x3000);
	CHECK_U(sp.start_data, 0x3000);
	CHECK_U(sp.end_data, 0x4000);
	CHECK_U(sp.start_brk, 0x4000);
	CHECK_U(sp.brk, 0x6345);
	CHECK_U(sp.min_addr, 0x1000);
	CHECK_U(sp.trap_lo, 0x1000);
	CHECK_U(sp.trap_hi, 0x7000);
	CHECK_U(sp.nmaps, 3);
	CHECK_U(sp.maps[0].kind, STUB_MAP_MOVE);
	CHECK_U(sp.maps[0].dst, 0x1000);
	CHECK_U(sp.maps[0].src, l.stage_base);
	CHECK_U(sp.maps[0].len, 0x2000);
	CHECK_U(sp.maps[0].prot, STUB_PROT_R | STUB_PROT_X);
	CHECK_U(sp.maps[1].kind, STUB_MAP_MOVE);
	CHECK_U(sp.maps[1].dst, 0x3000);
	CHECK_U(sp.maps[1].src, l.stage_base + 0x2000);
	CHECK_U(sp.maps[1].len, 0x1000);
	CHECK_U(sp.maps[1].prot, STUB_PROT_R | STUB_PROT_W);
	CHECK_U(sp.maps[2].kind, STUB_MAP_ZERO);
	CHECK_U(sp.maps[2].dst, 0x4000);
	CHECK_U(sp.maps[2].len, 0x3000);
	CHECK_U(sp.maps[2].prot, STUB_PROT_R | STUB_PROT_W);
	aout_free(&a);
	aoutgen_free(&g);
	free(stub);
}

/*
 * --no-randomize is one bit for the stub: the plan it reads is otherwise
 * the same, for every kind.
 */
static void test_stub_plan_norandom(void)
{
	static const unsigned magics[] = { AOUT_OMAGIC, AOUT_NMAGIC, AOUT_ZMAGIC,
					   AOUT_QMAGIC };
	uint8_t *stub = fake_stub(64, 64);

	for (size_t i = 0; i < 4; i++) {
		struct plan_options plain = { 0 }, norandom = { .norandom = 1 };
		struct aoutgen_spec s;
		struct aoutgen g;
		struct aout a;
		struct plan p, q;
		struct elfw_layout l, m;
		struct stub_plan sp, sq;
		struct diag d = { "" };

		aoutgen_default(&s, magics[i]);
		if (parse_and_plan_opts(&s, &plain, &g, &a, &p))
			break;
		CU_ASSERT_EQUAL(plan_build(&a, &norandom, &q, &d), 0);
		CHECK_U(p.norandom, 0);
		CHECK_U(q.norandom, 1);
		CU_ASSERT_EQUAL(elfw_layout(&p, stub, 64, &l, &d), 0);
		CU_ASSERT_EQUAL(elfw_layout(&q, stub, 64, &m, &d), 0);
		elfw_stub_plan(&p, &l, &sp);
		elfw_stub_plan(&q, &m, &sq);
		CHECK_U(sp.flags & STUB_F_NORANDOM, 0);
		CHECK_U(sq.flags & STUB_F_NORANDOM, STUB_F_NORANDOM);
		sq.flags &= ~STUB_F_NORANDOM;
		CU_ASSERT(memcmp(&sp, &sq, sizeof sp) == 0);
		aout_free(&a);
		aoutgen_free(&g);
	}
	free(stub);
}

/* ==== whole conversions ==== */

enum { W_ELF, W_STAB, W_SKIP };

struct wsym {
	struct aoutgen_sym s;
	int kind;
	unsigned bind, stt;
	const char *sec; /* ".text", ".data", ".bss", "ABS", "UND" */
	uint32_t elf_value;
};

struct conv {
	struct aoutgen g;
	struct aout a;
	struct plan p;
	struct elfw_layout l;
	struct stub_plan sp;
	struct wsym ws[24];
	struct aoutgen_sym syms[24];
	size_t nws;
	char *dir, *path;
	uint8_t *file;
	size_t file_size;
	int parsed;
};

enum { SYMS_NONE, SYMS_ALL, SYMS_STABS_ONLY };

static void add_wsym(struct conv *c, const char *name, uint8_t type,
		     uint16_t desc, uint32_t value, int kind, unsigned bind,
		     unsigned stt, const char *sec, uint32_t elf_value)
{
	struct wsym *w = &c->ws[c->nws++];

	w->s = (struct aoutgen_sym){ name, type, 0, desc, value };
	w->kind = kind;
	w->bind = bind;
	w->stt = stt;
	w->sec = sec;
	w->elf_value = elf_value;
}

/* The symbols of a realistic a.out, at the addresses of plan p. */
static void make_syms(struct conv *c, const struct plan *p, int which)
{
	uint32_t t = p->text_addr, dt = p->data_addr, b = p->bss_addr;
	const char *ds = p->data_size ? ".data" : "ABS";
	const char *bs = p->bss_size ? ".bss" : "ABS";

	c->nws = 0;
	if (which == SYMS_STABS_ONLY) {
		add_wsym(c, "only.c", 0x64, 0, t, W_STAB, 0, 0, NULL, 0);
		add_wsym(c, NULL, 0x44, 9, 4, W_STAB, 0, 0, NULL, 0);
		return;
	}
	add_wsym(c, "crt0.o", N_FN, 0, t, W_ELF, STB_LOCAL, STT_FILE, "ABS", 0);
	add_wsym(c, "_start", N_TEXT | N_EXT, 0, p->entry, W_ELF, STB_GLOBAL,
		 STT_FUNC, ".text", p->entry);
	add_wsym(c, "local_fn", N_TEXT, 0, t + 0x10, W_ELF, STB_LOCAL, STT_FUNC,
		 ".text", t + 0x10);
	add_wsym(c, "hello.c", 0x64 /* N_SO */, 0, t, W_STAB, 0, 0, NULL, 0);
	add_wsym(c, "main:F1", 0x24 /* N_FUN */, 0, t + 0x10, W_STAB, 0, 0, NULL, 0);
	add_wsym(c, NULL, 0x44 /* N_SLINE */, 3, 0x10, W_STAB, 0, 0, NULL, 0);
	add_wsym(c, "data_var", N_DATA | N_EXT, 0, dt + 4, W_ELF, STB_GLOBAL,
		 STT_OBJECT, ds, dt + 4);
	add_wsym(c, "static_data", N_DATA, 0, dt, W_ELF, STB_LOCAL, STT_OBJECT,
		 ds, dt);
	add_wsym(c, "bss_var", N_BSS | N_EXT, 0, b + 8, W_ELF, STB_GLOBAL,
		 STT_OBJECT, bs, b + 8);
	add_wsym(c, "bss_local", N_BSS, 0, b, W_ELF, STB_LOCAL, STT_OBJECT, bs, b);
	add_wsym(c, "abs_sym", N_ABS | N_EXT, 0, 0x12345678, W_ELF, STB_GLOBAL,
		 STT_NOTYPE, "ABS", 0x12345678);
	add_wsym(c, "abs_local", N_ABS, 0, 42, W_ELF, STB_LOCAL, STT_NOTYPE,
		 "ABS", 42);
	add_wsym(c, "undef_sym", N_UNDF | N_EXT, 0, 0, W_ELF, STB_GLOBAL,
		 STT_NOTYPE, "UND", 0);
	add_wsym(c, "warned_about", N_WARNING, 0, 0, W_SKIP, 0, 0, NULL, 0);
	add_wsym(c, "indirect", N_INDR | N_EXT, 0, 0, W_SKIP, 0, 0, NULL, 0);
	add_wsym(c, NULL, N_TEXT, 0, t, W_SKIP, 0, 0, NULL, 0);
	add_wsym(c, "gcc2_compiled.", N_TEXT, 0, t, W_ELF, STB_LOCAL, STT_FUNC,
		 ".text", t);
}

static void conv_free(struct conv *c)
{
	if (c->parsed)
		aout_free(&c->a);
	aoutgen_free(&c->g);
	free(c->file);
	if (c->path)
		unlink(c->path);
	free(c->path);
	unit_rmtree(c->dir);
	memset(c, 0, sizeof *c);
}

/*
 * elfw_write gathers the file into one pwritev; libelf's own writer
 * (elf_update with ELF_C_WRITE) must have written the same bytes.
 */
static int same_as_libelf_writes(struct conv *c)
{
	struct diag d = { "" };
	char *path = unit_path(c->dir, "by-libelf");
	int fd = path ? open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
	size_t size = 0;
	unsigned char *bytes = NULL;

	if (fd >= 0) {
		elfw_libelf_io = 1;
		int rc = elfw_write(fd, &c->a, &c->p, stub_image, stub_image_size, &d);
		elfw_libelf_io = 0;
		close(fd);
		CU_ASSERT_EQUAL(rc, 0);
		bytes = rc ? NULL : unit_slurp(path, &size);
		unlink(path);
	}
	CU_ASSERT_PTR_NOT_NULL(bytes);
	int same = bytes && size == c->file_size && !memcmp(bytes, c->file, size);

	CU_ASSERT(same);
	if (bytes && !same)
		fprintf(stderr, "elfw_write and libelf wrote different files (%zu and %zu bytes)\n",
			c->file_size, size);
	free(bytes);
	free(path);
	return same ? 0 : -1;
}

/*
 * Builds, parses, plans (with the libraries of set, if any, and the -L
 * folders) and writes; 0 when there is a file to check.
 */
static int conv_run_opts(struct conv *c, const struct aoutgen_spec *spec0,
			 const struct plan_options *o, int which,
			 const struct libset *set, const char *const *dirs,
			 size_t ndirs)
{
	struct aoutgen_spec s = *spec0;
	struct diag d = { "" };

	memset(c, 0, sizeof *c);
	if (which != SYMS_NONE) {
		/* a first pass without symbols gives their addresses */
		struct aoutgen g0;
		struct aout a0;
		struct plan p0;

		s.syms = NULL;
		s.nsyms = 0;
		if (parse_and_plan_opts(&s, o, &g0, &a0, &p0))
			return -1;
		make_syms(c, &p0, which);
		aout_free(&a0);
		aoutgen_free(&g0);
		for (size_t i = 0; i < c->nws; i++)
			c->syms[i] = c->ws[i].s;
		s.syms = c->syms;
		s.nsyms = c->nws;
	}
	if (parse_and_plan_opts(&s, o, &c->g, &c->a, &c->p))
		return -1;
	c->parsed = 1;
	if (set && plan_add_libs(&c->p, set, o, dirs, ndirs, &d)) {
		CU_FAIL("plan_add_libs failed");
		fprintf(stderr, "plan_add_libs: %s\n", d.msg);
		return -1;
	}
	if (elfw_layout(&c->p, stub_image, stub_image_size, &c->l, &d)) {
		CU_FAIL("elfw_layout failed");
		fprintf(stderr, "elfw_layout: %s\n", d.msg);
		return -1;
	}
	elfw_stub_plan(&c->p, &c->l, &c->sp);
	c->dir = unit_tmpdir();
	c->path = c->dir ? unit_path(c->dir, "converted") : NULL;
	if (!c->path) {
		CU_FAIL("no temporary directory");
		return -1;
	}
	int fd = open(c->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		CU_FAIL("cannot create the output file");
		return -1;
	}
	int rc = elfw_write(fd, &c->a, &c->p, stub_image, stub_image_size, &d);
	close(fd);
	if (rc) {
		CU_FAIL("elfw_write failed");
		fprintf(stderr, "elfw_write: %s\n", d.msg);
		return -1;
	}
	c->file = unit_slurp(c->path, &c->file_size);
	if (!c->file) {
		CU_FAIL("cannot read the converted file back");
		return -1;
	}
	return same_as_libelf_writes(c);
}

static int conv_run(struct conv *c, const struct aoutgen_spec *spec0,
		    int noexec, int which)
{
	struct plan_options o = { .noexec = noexec };

	return conv_run_opts(c, spec0, &o, which, NULL, NULL, 0);
}

static size_t count_kind(const struct conv *c, int kind)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nws; i++)
		n += c->ws[i].kind == kind;
	return n;
}

/* ---- read back with libelf ---- */

struct escn {
	const char *name;
	size_t idx;
	GElf_Shdr sh;
};

static struct escn *find_escn(struct escn *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

/* The bytes of a section in the file, or NULL when outside it. */
static const uint8_t *file_bytes(const struct conv *c, uint64_t off,
				 uint64_t size)
{
	if (off > c->file_size || size > c->file_size - off)
		return NULL;
	return c->file + off;
}

static void check_alloc_section(const struct conv *c, const struct escn *e,
				const char *name, uint32_t type, uint64_t flags,
				uint64_t addr, uint64_t size,
				const uint8_t *want)
{
	char what[128];

	if (!e) {
		snprintf(what, sizeof what, "section %s is missing", name);
		CU_FAIL(what);
		fprintf(stderr, "%s\n", what);
		return;
	}
	CHECK_U(e->sh.sh_type, type);
	CHECK_U(e->sh.sh_flags, flags);
	CHECK_U(e->sh.sh_addr, addr);
	CHECK_U(e->sh.sh_size, size);
	if (want) {
		const uint8_t *got = file_bytes(c, e->sh.sh_offset, size);

		CU_ASSERT_PTR_NOT_NULL(got);
		if (got)
			CU_ASSERT(memcmp(got, want, size) == 0);
	}
}

static void check_region_bytes(const struct conv *c)
{
	for (size_t i = 0; i < c->p.nregions; i++) {
		const struct plan_region *r = &c->p.regions[i];
		uint32_t in_page = r->vaddr % PAGE;
		const uint8_t *page = file_bytes(c, c->l.region[i].page_off,
						 c->l.region[i].len);

		CU_ASSERT_PTR_NOT_NULL(page);
		if (!page)
			continue;
		CU_ASSERT(all_zero(page, in_page));
		CU_ASSERT(memcmp(page + in_page, c->a.buf + r->aout_off,
				 r->size) == 0);
		/* the rest of the last page reads as zeros (bss) */
		CU_ASSERT(all_zero(page + in_page + r->size,
				   c->l.region[i].len - in_page - r->size));
	}
}

static void check_program_headers(const struct conv *c, Elf *e,
				  const GElf_Ehdr *eh)
{
	size_t nph = 0;

	size_t nemb = 0, emb[STUB_MAX_LIBS];

	for (size_t i = 0; i < c->p.nlibs; i++)
		if (c->p.libs[i].embedded)
			emb[nemb++] = i;
	/* staged, the first region continues the stub: one PT_LOAD for both */
	size_t joined = !c->p.direct && c->p.nregions > 0 &&
			(pflags_of(c->p.regions[0].prot) & (PF_R | PF_X)) ==
				(PF_R | PF_X);

	CU_ASSERT_EQUAL(elf_getphdrnum(e, &nph), 0);
	CHECK_U(nph, c->p.nregions + nemb + 2 + (c->p.noexec ? 1 : 0) - joined);
	CHECK_U(eh->e_phoff, sizeof(Elf32_Ehdr));
	CHECK_U(eh->e_phentsize, sizeof(Elf32_Phdr));

	/* in address order: [regions where they belong,] the stub's code, the
	 * staged regions (the first maybe in the stub's), the embedded
	 * libraries, the stub's variables */
	size_t stub_at = c->p.direct ? c->p.nregions : 0;
	size_t regions_at = c->p.direct ? 0 : 1;
	size_t nregions = c->p.nregions - joined;
	size_t nload = 0, nstack = 0;
	uint64_t last_vaddr = 0;
	for (size_t k = 0; k < nph; k++) {
		GElf_Phdr ph;
		size_t i; /* as before: regions, libraries, then the stub */

		if (!gelf_getphdr(e, (int)k, &ph)) {
			CU_FAIL("gelf_getphdr");
			continue;
		}
		if (k == stub_at)
			i = c->p.nregions + nemb;
		else if (k >= regions_at && k < regions_at + nregions)
			i = k - regions_at + joined;
		else if (k < 1 + nregions + nemb)
			i = k - 1 + joined;
		else
			i = c->p.nregions + nemb + 1; /* the variables */
		if (ph.p_type == PT_LOAD) {
			CU_ASSERT(ph.p_vaddr >= last_vaddr);
			last_vaddr = ph.p_vaddr + ph.p_memsz;
		}
		if (ph.p_type == PT_GNU_STACK) {
			nstack++;
			CHECK_U(ph.p_flags, PF_R | PF_W);
			continue;
		}
		CHECK_U(ph.p_type, PT_LOAD);
		if (ph.p_type != PT_LOAD)
			continue;
		nload++;
		/* what the kernel's ELF loader requires */
		CHECK_U(ph.p_offset % PAGE, ph.p_vaddr % PAGE);
		CHECK_U(ph.p_align, PAGE);
		CU_ASSERT(ph.p_filesz <= ph.p_memsz);
		CU_ASSERT(ph.p_offset + ph.p_filesz <= c->file_size);
		if (i < c->p.nregions) {
			const struct plan_region *r = &c->p.regions[i];
			uint32_t in_page = r->vaddr % PAGE;

			CHECK_U(ph.p_offset, c->l.region[i].page_off + in_page);
			CHECK_U(ph.p_vaddr, c->l.region[i].stage + in_page);
			CHECK_U(ph.p_paddr, ph.p_vaddr);
			CHECK_U(ph.p_filesz, r->size);
			CHECK_U(ph.p_memsz, r->size);
			CHECK_U(ph.p_flags, pflags_of(r->prot));
			if (c->p.direct) {
				/* mapped by the kernel where the a.out wants it */
				CHECK_U(ph.p_vaddr, r->vaddr);
				CU_ASSERT(ph.p_vaddr + ph.p_memsz <= IMAGE_LIMIT);
			} else {
				CU_ASSERT(ph.p_vaddr >= c->l.stage_base);
				CU_ASSERT(ph.p_vaddr + ph.p_memsz <= STAGE_LIMIT);
			}
		} else if (i < c->p.nregions + nemb) {
			/* an embedded library, staged as uselib mapped it */
			size_t li = emb[i - c->p.nregions];
			const struct plan_lib *pl = &c->p.libs[li];
			size_t ri = c->p.nregions + li;

			CHECK_U(ph.p_offset, c->l.region[ri].page_off);
			CHECK_U(ph.p_vaddr, c->l.region[ri].stage);
			CHECK_U(ph.p_paddr, ph.p_vaddr);
			CHECK_U(ph.p_filesz, pl->filesz);
			CHECK_U(ph.p_memsz, pl->filesz);
			CHECK_U(ph.p_flags, PF_R | PF_W | PF_X);
			CU_ASSERT(ph.p_vaddr >= c->l.stage_base);
			CU_ASSERT(ph.p_vaddr + c->l.region[ri].len <= STAGE_LIMIT);
			CHECK_U(c->l.region[ri].len, pl->len);
			const uint8_t *b = file_bytes(c, ph.p_offset,
						      c->l.region[ri].len);
			CU_ASSERT_PTR_NOT_NULL(b);
			if (b) {
				CU_ASSERT(memcmp(b, pl->bytes, pl->filesz) == 0);
				CU_ASSERT(all_zero(b + pl->filesz,
						   c->l.region[ri].len - pl->filesz));
			}
		} else if (i == c->p.nregions + nemb) {
			uint32_t end = c->l.stub_filesz;

			if (joined)
				end = c->l.region[0].stage + c->p.regions[0].vaddr % PAGE +
				      c->p.regions[0].size - STUB_BASE;
			CHECK_U(ph.p_offset, ELFW_STUB_OFFSET);
			CHECK_U(ph.p_vaddr, STUB_BASE);
			CHECK_U(ph.p_filesz, end);
			CHECK_U(ph.p_memsz, end);
			/* one mapping with the region staged behind it */
			CHECK_U(ph.p_flags, PF_R | PF_X |
					    (c->p.direct ? 0 :
					     pflags_of(c->p.regions[0].prot)));
			CHECK_U(c->l.stage_base, STUB_BASE + PAGE_UP(c->l.stub_filesz));
			if (!c->p.direct)
				CHECK_U(c->l.region[0].page_off,
					ELFW_STUB_OFFSET + c->l.stage_base - STUB_BASE);
		} else {
			CHECK_U(ph.p_vaddr, STUB_BSS);
			CHECK_U(ph.p_filesz, 0);
			CHECK_U(ph.p_memsz, c->l.stub_bss_size);
			CU_ASSERT(ph.p_memsz > 0);
			CHECK_U(ph.p_flags, PF_R | PF_W);
		}
	}
	CHECK_U(nload, nregions + nemb + 2);
	CHECK_U(nstack, c->p.noexec ? 1 : 0);
}

static void check_stub_section(const struct conv *c, const struct escn *st)
{
	CU_ASSERT_PTR_NOT_NULL(st);
	if (!st)
		return;
	CHECK_U(st->sh.sh_type, SHT_PROGBITS);
	CHECK_U(st->sh.sh_flags, SHF_ALLOC | SHF_EXECINSTR);
	CHECK_U(st->sh.sh_addr, STUB_BASE);
	CHECK_U(st->sh.sh_offset, ELFW_STUB_OFFSET);
	CHECK_U(st->sh.sh_size, c->l.stub_filesz);

	const uint8_t *b = file_bytes(c, ELFW_STUB_OFFSET, c->l.stub_filesz);
	CU_ASSERT_PTR_NOT_NULL(b);
	if (!b)
		return;
	/* the image, with plan_off filled in */
	CU_ASSERT(memcmp(b, stub_image, 12) == 0);
	CHECK_U(rd32(b + 12), c->l.plan_off);
	CU_ASSERT(memcmp(b + 16, stub_image + 16, stub_image_size - 16) == 0);
	/* zeros up to 16 bytes, then the plan the stub will read */
	CU_ASSERT(c->l.plan_off - stub_image_size < 16);
	CU_ASSERT(all_zero(b + stub_image_size, c->l.plan_off - stub_image_size));
	CU_ASSERT(memcmp(b + c->l.plan_off, &c->sp, sizeof c->sp) == 0);
	struct stub_plan sp;
	memcpy(&sp, b + c->l.plan_off, sizeof sp);
	check_stub_plan(&c->p, &c->l, &sp);
}

/*
 * A table and its string section: both absent when the table would have
 * no entries, else both present.  1 when both are there to look at.
 */
static int table_pair(struct escn *v, size_t n, const char *table,
		      const char *strings, size_t entries, struct escn **t,
		      struct escn **str)
{
	*t = find_escn(v, n, table);
	*str = find_escn(v, n, strings);
	if (entries == 0) {
		CU_ASSERT_PTR_NULL(*t);
		CU_ASSERT_PTR_NULL(*str);
		return 0;
	}
	CU_ASSERT_PTR_NOT_NULL(*t);
	CU_ASSERT_PTR_NOT_NULL(*str);
	return *t && *str;
}

/*
 * A function or object reaches to the next higher symbol of its section,
 * or to the section's end; any other symbol has no size.
 */
static uint32_t expected_size(Elf_Data *data, size_t nsym, const GElf_Sym *s,
			      struct escn *v, size_t n)
{
	int type = GELF_ST_TYPE(s->st_info);
	uint64_t end = 0;

	if ((type != STT_FUNC && type != STT_OBJECT) || s->st_shndx == SHN_ABS ||
	    s->st_shndx == SHN_UNDEF)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].idx == s->st_shndx)
			end = v[i].sh.sh_addr + v[i].sh.sh_size;
	for (size_t i = 1; i < nsym; i++) {
		GElf_Sym o;

		if (gelf_getsym(data, (int)i, &o) && o.st_shndx == s->st_shndx &&
		    o.st_value > s->st_value && o.st_value < end)
			end = o.st_value;
	}
	return end > s->st_value ? (uint32_t)(end - s->st_value) : 0;
}

static void check_symtab(const struct conv *c, Elf *e, struct escn *v, size_t n)
{
	struct escn *sym, *str;
	size_t nelf = count_kind(c, W_ELF);

	if (!table_pair(v, n, ".symtab", ".strtab", nelf, &sym, &str))
		return;
	CHECK_U(sym->sh.sh_type, SHT_SYMTAB);
	CHECK_U(str->sh.sh_type, SHT_STRTAB);
	CHECK_U(sym->sh.sh_entsize, sizeof(Elf32_Sym));
	CHECK_U(sym->sh.sh_link, str->idx);
	CHECK_U(sym->sh.sh_size, (nelf + 1) * sizeof(Elf32_Sym));
	CHECK_U(sym->sh.sh_flags, 0);

	Elf_Data *data = elf_getdata(elf_getscn(e, sym->idx), NULL);
	CU_ASSERT_PTR_NOT_NULL(data);
	if (!data)
		return;
	size_t nsym = sym->sh.sh_size / sizeof(Elf32_Sym);
	GElf_Sym s0;
	CU_ASSERT_PTR_NOT_NULL(gelf_getsym(data, 0, &s0));
	CU_ASSERT(s0.st_name == 0 && s0.st_value == 0 && s0.st_info == 0 &&
		  s0.st_shndx == SHN_UNDEF);

	/* locals first; sh_info is the index of the first global */
	size_t nlocal = 1;
	for (size_t i = 0; i < c->nws; i++)
		nlocal += c->ws[i].kind == W_ELF && c->ws[i].bind == STB_LOCAL;
	CHECK_U(sym->sh.sh_info, nlocal);
	for (size_t i = 1; i < nsym; i++) {
		GElf_Sym s;

		if (!gelf_getsym(data, (int)i, &s))
			continue;
		CHECK_U(GELF_ST_BIND(s.st_info), i < nlocal ? STB_LOCAL : STB_GLOBAL);
	}

	for (size_t k = 0; k < c->nws; k++) {
		const struct wsym *w = &c->ws[k];
		int found = 0;

		for (size_t i = 1; i < nsym; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)i, &s))
				continue;
			name = elf_strptr(e, str->idx, s.st_name);
			if (!name || !w->s.name || strcmp(name, w->s.name))
				continue;
			found++;
			if (w->kind != W_ELF)
				continue;
			CHECK_U(s.st_value, w->elf_value);
			CHECK_U(GELF_ST_BIND(s.st_info), w->bind);
			CHECK_U(GELF_ST_TYPE(s.st_info), w->stt);
			CHECK_U(s.st_size, expected_size(data, nsym, &s, v, n));
			if (strcmp(w->sec, "ABS") == 0) {
				CHECK_U(s.st_shndx, SHN_ABS);
			} else if (strcmp(w->sec, "UND") == 0) {
				CHECK_U(s.st_shndx, SHN_UNDEF);
			} else {
				struct escn *t = find_escn(v, n, w->sec);

				CU_ASSERT_PTR_NOT_NULL(t);
				if (t)
					CHECK_U(s.st_shndx, t->idx);
			}
		}
		if (w->kind == W_ELF)
			CHECK_U(found, 1);
		else
			CHECK_U(found, 0); /* stabs and skipped kinds stay out */
	}
}

static void check_stabs(const struct conv *c, struct escn *v, size_t n)
{
	struct escn *stab, *stabstr;
	size_t nstab = count_kind(c, W_STAB);

	if (!table_pair(v, n, ".stab", ".stabstr", nstab, &stab, &stabstr))
		return;
	CHECK_U(stab->sh.sh_type, SHT_PROGBITS);
	CHECK_U(stab->sh.sh_flags, 0);
	CHECK_U(stab->sh.sh_entsize, 12);
	CHECK_U(stab->sh.sh_link, stabstr->idx);
	CHECK_U(stab->sh.sh_size, 12 * (nstab + 1));
	CHECK_U(stabstr->sh.sh_type, SHT_STRTAB);
	CHECK_U(stabstr->sh.sh_size, c->a.str_size);

	const uint8_t *b = file_bytes(c, stab->sh.sh_offset, stab->sh.sh_size);
	const uint8_t *sb = file_bytes(c, stabstr->sh.sh_offset,
				       stabstr->sh.sh_size);
	CU_ASSERT_PTR_NOT_NULL(b);
	CU_ASSERT_PTR_NOT_NULL(sb);
	if (!b || !sb)
		return;
	/* header entry: n_desc = number of stabs, n_value = string bytes */
	CHECK_U(rd32(b), 0);
	CHECK_U(b[4], 0);
	CHECK_U(b[5], 0);
	CHECK_U(b[6] | b[7] << 8, nstab);
	CHECK_U(rd32(b + 8), c->a.str_size);
	/* then the a.out stabs, byte for byte, in their order */
	size_t j = 1;
	for (size_t i = 0; i < c->a.nsyms; i++) {
		if (!(c->a.syms[i].type & N_STAB))
			continue;
		CU_ASSERT(memcmp(b + 12 * j, c->a.buf + c->a.sym_off + 12 * i,
				 12) == 0);
		j++;
	}
	/* the string table whole, so that the n_strx still point right */
	CU_ASSERT(memcmp(sb, c->a.buf + c->a.str_off, c->a.str_size) == 0);
}

static void check_with_libelf(const struct conv *c)
{
	int fd = open(c->path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	GElf_Ehdr eh;
	size_t shstrndx = 0, shnum = 0;
	struct escn v[32];
	size_t n = 0;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(elf_version(EV_CURRENT) != EV_NONE);
	e = elf_begin(fd, ELF_C_READ, NULL);
	CU_ASSERT_PTR_NOT_NULL(e);
	if (!e) {
		close(fd);
		return;
	}
	CHECK_U(elf_kind(e), ELF_K_ELF);
	CHECK_U(gelf_getclass(e), ELFCLASS32);
	if (!gelf_getehdr(e, &eh)) {
		CU_FAIL("gelf_getehdr");
		goto out;
	}
	CHECK_U(eh.e_ident[EI_DATA], ELFDATA2LSB);
	CHECK_U(eh.e_ident[EI_VERSION], EV_CURRENT);
	CHECK_U(eh.e_ident[EI_OSABI], ELFOSABI_SYSV);
	CHECK_U(eh.e_type, ET_EXEC);
	CHECK_U(eh.e_machine, EM_386);
	CHECK_U(eh.e_version, EV_CURRENT);
	CHECK_U(eh.e_entry, STUB_BASE + rd32(stub_image + 8));
	CHECK_U(eh.e_shoff % 4, 0);
	CU_ASSERT(eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize <=
		  c->file_size);

	check_program_headers(c, e, &eh);
	check_region_bytes(c);

	CU_ASSERT_EQUAL(elf_getshdrstrndx(e, &shstrndx), 0);
	CU_ASSERT_EQUAL(elf_getshdrnum(e, &shnum), 0);
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s)) && n < 32; n++) {
		v[n].idx = elf_ndxscn(s);
		if (!gelf_getshdr(s, &v[n].sh)) {
			CU_FAIL("gelf_getshdr");
			goto out;
		}
		v[n].name = elf_strptr(e, shstrndx, v[n].sh.sh_name);
		if (!v[n].name)
			v[n].name = "(no name)";
	}
	CHECK_U(shnum, n + 1);

	/* exactly the sections this input calls for */
	const char *want[12 + STUB_MAX_LIBS];
	char libsec[STUB_MAX_LIBS][STUB_LIB_NAME + 8];
	size_t nwant = 0;
	int q = c->p.magic == AOUT_QMAGIC;
	if (q)
		want[nwant++] = ".aout.header";
	want[nwant++] = ".text";
	if (c->p.data_size)
		want[nwant++] = ".data";
	if (c->p.bss_size)
		want[nwant++] = ".bss";
	want[nwant++] = ".aout2elf.stub";
	want[nwant++] = ".aout2elf.bss";
	for (size_t i = 0; i < c->p.nlibs; i++) {
		if (!c->p.libs[i].embedded)
			continue;
		snprintf(libsec[i], sizeof libsec[i], ".lib.%s", c->p.libs[i].name);
		want[nwant++] = libsec[i];
	}
	if (count_kind(c, W_ELF)) {
		want[nwant++] = ".symtab";
		want[nwant++] = ".strtab";
	}
	if (count_kind(c, W_STAB)) {
		want[nwant++] = ".stab";
		want[nwant++] = ".stabstr";
	}
	want[nwant++] = ".shstrtab";
	CHECK_U(n, nwant);
	for (size_t i = 0; i < nwant; i++) {
		if (!find_escn(v, n, want[i])) {
			char what[64];

			snprintf(what, sizeof what, "section %s is missing", want[i]);
			CU_FAIL(what);
			fprintf(stderr, "%s\n", what);
		}
	}
	struct escn *shs = find_escn(v, n, ".shstrtab");
	if (shs) {
		CHECK_U(shs->idx, shstrndx);
		CHECK_U(shs->sh.sh_type, SHT_STRTAB);
	}

	/* the a.out parts at their a.out addresses */
	/* only QMAGIC maps its text read-only; ZMAGIC, NMAGIC and OMAGIC
	 * text is copied into one writable region with the data */
	uint64_t wx = q ? 0 : SHF_WRITE;
	if (q)
		check_alloc_section(c, find_escn(v, n, ".aout.header"),
				    ".aout.header", SHT_PROGBITS, SHF_ALLOC,
				    0x1000, 32, c->a.buf);
	check_alloc_section(c, find_escn(v, n, ".text"), ".text", SHT_PROGBITS,
			    SHF_ALLOC | SHF_EXECINSTR | wx, c->p.text_addr,
			    c->p.text_size,
			    c->a.buf + c->a.text_off + (q ? 32 : 0));
	if (c->p.data_size)
		check_alloc_section(c, find_escn(v, n, ".data"), ".data",
				    SHT_PROGBITS, SHF_ALLOC | SHF_WRITE,
				    c->p.data_addr, c->p.data_size,
				    c->a.buf + c->a.data_off);
	if (c->p.bss_size)
		check_alloc_section(c, find_escn(v, n, ".bss"), ".bss", SHT_NOBITS,
				    SHF_ALLOC | SHF_WRITE, c->p.bss_addr,
				    c->p.bss_size, NULL);

	/* the embedded libraries, at their staging addresses */
	for (size_t i = 0; i < c->p.nlibs; i++) {
		const struct plan_lib *pl = &c->p.libs[i];
		const struct escn *ls;

		if (!pl->embedded)
			continue;
		ls = find_escn(v, n, libsec[i]);
		check_alloc_section(c, ls, libsec[i], SHT_PROGBITS,
				    SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR,
				    c->l.region[c->p.nregions + i].stage,
				    pl->filesz, pl->bytes);
		if (ls) {
			CHECK_U(ls->sh.sh_offset,
				c->l.region[c->p.nregions + i].page_off);
			CHECK_U(ls->sh.sh_addralign, PAGE);
		}
	}

	/* each loaded section lies in its region's segment, at the offset its
	 * address has in the region */
	for (size_t i = 0; i < n; i++) {
		const GElf_Shdr *sh = &v[i].sh;
		int in = 0;

		if (!(sh->sh_flags & SHF_ALLOC) || sh->sh_type != SHT_PROGBITS ||
		    sh->sh_addr >= STUB_BASE || strncmp(v[i].name, ".lib.", 5) == 0)
			continue;
		for (size_t r = 0; r < c->p.nregions; r++) {
			const struct plan_region *pr = &c->p.regions[r];
			uint64_t off = c->l.region[r].page_off + pr->vaddr % PAGE;

			if (sh->sh_addr >= pr->vaddr &&
			    sh->sh_addr + sh->sh_size <= (uint64_t)pr->vaddr + pr->size) {
				in++;
				CHECK_U(sh->sh_offset - off, sh->sh_addr - pr->vaddr);
			}
		}
		CHECK_U(in, 1);
	}

	check_stub_section(c, find_escn(v, n, ".aout2elf.stub"));
	check_symtab(c, e, v, n);
	check_stabs(c, v, n);
out:
	elf_end(e);
	close(fd);
}

/* ---- read back with BFD ---- */

static void check_bfd_section(bfd *abfd, const char *name, uint64_t vma,
			      uint64_t size, flagword must, flagword mustnot,
			      const uint8_t *want)
{
	asection *s = bfd_get_section_by_name(abfd, name);

	if (!s) {
		char what[64];

		snprintf(what, sizeof what, "BFD sees no section %s", name);
		CU_FAIL(what);
		fprintf(stderr, "%s\n", what);
		return;
	}
	CHECK_U(bfd_section_vma(s), vma);
	CHECK_U(bfd_section_size(s), size);
	CHECK_U(bfd_section_flags(s) & must, must);
	CHECK_U(bfd_section_flags(s) & mustnot, 0);
	if (want && size) {
		uint8_t *buf = malloc(size);

		if (buf && bfd_get_section_contents(abfd, s, buf, 0, size)) {
			CU_ASSERT(memcmp(buf, want, size) == 0);
		} else {
			CU_FAIL("bfd_get_section_contents");
		}
		free(buf);
	}
}

static void check_with_bfd(const struct conv *c)
{
	bfd *abfd = bfd_openr(c->path, NULL);
	int q = c->p.magic == AOUT_QMAGIC;

	if (!abfd) {
		CU_FAIL("bfd_openr");
		fprintf(stderr, "bfd_openr: %s\n", bfd_errmsg(bfd_get_error()));
		return;
	}
	if (!bfd_check_format(abfd, bfd_object)) {
		CU_FAIL("bfd_check_format(bfd_object)");
		fprintf(stderr, "bfd_check_format: %s\n",
			bfd_errmsg(bfd_get_error()));
		bfd_close(abfd);
		return;
	}
	CU_ASSERT(bfd_get_flavour(abfd) == bfd_target_elf_flavour);
	CHECK_STR(bfd_get_target(abfd), "elf32-i386");
	CU_ASSERT(bfd_get_arch(abfd) == bfd_arch_i386);
	CHECK_U(bfd_get_start_address(abfd), STUB_BASE + rd32(stub_image + 8));
	CU_ASSERT(bfd_get_file_flags(abfd) & EXEC_P);

	check_bfd_section(abfd, ".text", c->p.text_addr, c->p.text_size,
			  SEC_ALLOC | SEC_LOAD | SEC_CODE | SEC_HAS_CONTENTS, 0,
			  c->a.buf + c->a.text_off + (q ? 32 : 0));
	if (c->p.data_size)
		check_bfd_section(abfd, ".data", c->p.data_addr, c->p.data_size,
				  SEC_ALLOC | SEC_LOAD | SEC_DATA, SEC_READONLY,
				  c->a.buf + c->a.data_off);
	else
		CU_ASSERT_PTR_NULL(bfd_get_section_by_name(abfd, ".data"));
	if (c->p.bss_size)
		check_bfd_section(abfd, ".bss", c->p.bss_addr, c->p.bss_size,
				  SEC_ALLOC, SEC_LOAD | SEC_HAS_CONTENTS, NULL);
	else
		CU_ASSERT_PTR_NULL(bfd_get_section_by_name(abfd, ".bss"));
	if (q)
		check_bfd_section(abfd, ".aout.header", 0x1000, 32,
				  SEC_ALLOC | SEC_LOAD, SEC_CODE, c->a.buf);
	check_bfd_section(abfd, ".aout2elf.stub", STUB_BASE, c->l.stub_filesz,
			  SEC_ALLOC | SEC_LOAD | SEC_CODE | SEC_READONLY, 0, NULL);
	check_bfd_section(abfd, ".aout2elf.bss", STUB_BSS, c->l.stub_bss_size,
			  SEC_ALLOC, SEC_LOAD | SEC_HAS_CONTENTS, NULL);
	for (size_t i = 0; i < c->p.nlibs; i++) {
		char name[STUB_LIB_NAME + 8];

		snprintf(name, sizeof name, ".lib.%s", c->p.libs[i].name);
		if (c->p.libs[i].embedded)
			check_bfd_section(abfd, name,
					  c->l.region[c->p.nregions + i].stage,
					  c->p.libs[i].filesz,
					  SEC_ALLOC | SEC_LOAD | SEC_CODE, SEC_READONLY,
					  c->p.libs[i].bytes);
		else
			CU_ASSERT_PTR_NULL(bfd_get_section_by_name(abfd, name));
	}

	/* stabs: in .stab/.stabstr, not in the symbol table */
	size_t nstab = count_kind(c, W_STAB);
	if (nstab) {
		asection *st = bfd_get_section_by_name(abfd, ".stab");
		asection *ss = bfd_get_section_by_name(abfd, ".stabstr");

		CU_ASSERT_PTR_NOT_NULL(st);
		CU_ASSERT_PTR_NOT_NULL(ss);
		if (st)
			CHECK_U(bfd_section_size(st), 12 * (nstab + 1));
		if (ss)
			CHECK_U(bfd_section_size(ss), c->a.str_size);
	} else {
		CU_ASSERT_PTR_NULL(bfd_get_section_by_name(abfd, ".stab"));
	}

	long ub = bfd_get_symtab_upper_bound(abfd);
	CU_ASSERT(ub >= 0);
	asymbol **syms = ub > 0 ? malloc((size_t)ub) : NULL;
	long nsyms = syms ? bfd_canonicalize_symtab(abfd, syms) : 0;
	CU_ASSERT(nsyms >= 0);
	if (nsyms < 0)
		nsyms = 0;
	CHECK_U(nsyms, count_kind(c, W_ELF));
	if (count_kind(c, W_ELF) == 0)
		CU_ASSERT((bfd_get_file_flags(abfd) & HAS_SYMS) == 0);

	for (size_t k = 0; k < c->nws; k++) {
		const struct wsym *w = &c->ws[k];
		const asymbol *hit = NULL;
		int found = 0;

		if (!w->s.name)
			continue;
		for (long i = 0; i < nsyms; i++) {
			if (strcmp(bfd_asymbol_name(syms[i]), w->s.name) == 0) {
				hit = syms[i];
				found++;
			}
		}
		if (w->kind != W_ELF) {
			CHECK_U(found, 0);
			continue;
		}
		CHECK_U(found, 1);
		if (!hit)
			continue;
		asection *sec = bfd_asymbol_section(hit);
		uint8_t t = w->s.type & ~N_EXT;

		if (w->s.type == N_FN) {
			CU_ASSERT(hit->flags & BSF_FILE);
			continue;
		}
		if (t == N_UNDF) {
			CU_ASSERT(bfd_is_und_section(sec));
			continue;
		}
		/* N_TEXT, N_DATA, N_BSS, N_ABS: same name, same value */
		CHECK_U(bfd_asymbol_value(hit), w->s.value);
		if (w->s.type & N_EXT) {
			CU_ASSERT(hit->flags & BSF_GLOBAL);
			CU_ASSERT(!(hit->flags & BSF_LOCAL));
		} else {
			CU_ASSERT(hit->flags & BSF_LOCAL);
			CU_ASSERT(!(hit->flags & BSF_GLOBAL));
		}
		if (strcmp(w->sec, "ABS") == 0) {
			CU_ASSERT(bfd_is_abs_section(sec));
		} else {
			CHECK_STR(bfd_section_name(sec), w->sec);
		}
		if (t == N_TEXT)
			CU_ASSERT(hit->flags & BSF_FUNCTION);
		if (t == N_DATA || t == N_BSS)
			CU_ASSERT(hit->flags & BSF_OBJECT);
	}
	free(syms);
	bfd_close(abfd);
}

static void convert_and_check(const struct aoutgen_spec *s, int noexec,
			      int which)
{
	struct conv c;

	if (conv_run(&c, s, noexec, which) == 0) {
		check_with_libelf(&c);
		check_with_bfd(&c);
	}
	conv_free(&c);
}

static void test_write_qmagic(void)
{
	struct aoutgen_spec s;

	aoutgen_default(&s, AOUT_QMAGIC);
	convert_and_check(&s, 0, SYMS_ALL);
}

/* ---- reading single headers back, for exact values ---- */

struct readback {
	int fd;
	Elf *e;
	size_t nph;
};

static int rb_open(const struct conv *c, struct readback *r)
{
	r->fd = open(c->path, O_RDONLY | O_CLOEXEC);
	r->e = r->fd >= 0 ? elf_begin(r->fd, ELF_C_READ, NULL) : NULL;
	r->nph = 0;
	if (!r->e || elf_getphdrnum(r->e, &r->nph)) {
		CU_FAIL("cannot read the converted file with libelf");
		if (r->e)
			elf_end(r->e);
		if (r->fd >= 0)
			close(r->fd);
		return -1;
	}
	return 0;
}

static void rb_close(struct readback *r)
{
	elf_end(r->e);
	close(r->fd);
}

static GElf_Phdr rb_phdr(struct readback *r, size_t i)
{
	GElf_Phdr ph;

	memset(&ph, 0, sizeof ph);
	if (i >= r->nph || !gelf_getphdr(r->e, (int)i, &ph))
		CU_FAIL("no such program header");
	return ph;
}

/* The section header of that name; sh_type SHT_NULL when there is none. */
static GElf_Shdr rb_shdr(struct readback *r, const char *name)
{
	GElf_Shdr sh;
	size_t shstrndx = 0;

	memset(&sh, 0, sizeof sh);
	if (elf_getshdrstrndx(r->e, &shstrndx))
		return sh;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(r->e, s));) {
		const char *n;

		if (!gelf_getshdr(s, &sh))
			break;
		n = elf_strptr(r->e, shstrndx, sh.sh_name);
		if (n && strcmp(n, name) == 0)
			return sh;
	}
	memset(&sh, 0, sizeof sh);
	return sh;
}

/* The stub plan as written into the file. */
static int rb_plan(const struct conv *c, struct stub_plan *sp)
{
	const uint8_t *b = file_bytes(c, ELFW_STUB_OFFSET + c->l.plan_off,
				      sizeof *sp);

	CU_ASSERT_PTR_NOT_NULL(b);
	if (!b)
		return -1;
	memcpy(sp, b, sizeof *sp);
	return 0;
}

#define CHECK_PH(ph, type, off, vaddr, filesz, memsz, flags) do { \
	CHECK_U((ph).p_type, type); \
	CHECK_U((ph).p_offset, off); \
	CHECK_U((ph).p_vaddr, vaddr); \
	CHECK_U((ph).p_filesz, filesz); \
	CHECK_U((ph).p_memsz, memsz); \
	CHECK_U((ph).p_flags, flags); \
} while (0)

#define CHECK_SH(sh, type, flags, addr, size) do { \
	CHECK_U((sh).sh_type, type); \
	CHECK_U((sh).sh_flags, flags); \
	CHECK_U((sh).sh_addr, addr); \
	CHECK_U((sh).sh_size, size); \
} while (0)

#define CHECK_MAP(m, k, d, s, l, pr) do { \
	CHECK_U((m).kind, k); \
	CHECK_U((m).dst, d); \
	CHECK_U((m).src, s); \
	CHECK_U((m).len, l); \
	CHECK_U((m).prot, pr); \
} while (0)

#define RWX (STUB_PROT_R | STUB_PROT_W | STUB_PROT_X)

/*
 * ZMAGIC: one text+data PT_LOAD, writable and executable, its .text
 * writable too, .data right behind the text, and one move in the plan.
 */
static void test_write_zmagic(void)
{
	struct aoutgen_spec s;
	struct conv c;
	struct readback r;
	struct stub_plan sp;

	aoutgen_default(&s, AOUT_ZMAGIC); /* 0x2000 + 0x1000, bss 0x3000 */
	convert_and_check(&s, 0, SYMS_ALL);

	if (conv_run(&c, &s, 0, SYMS_NONE) == 0 && rb_open(&c, &r) == 0) {
		uint32_t off = c.l.region[0].page_off;

		CHECK_U(c.l.nregions, 1);
		CHECK_U(c.l.region[0].stage, c.l.stage_base);
		CHECK_U(c.l.region[0].len, 0x3000);
		CHECK_U(r.nph, 2);
		/* the stub's code and the region behind it, with the region's access */
		CHECK_U(off, ELFW_STUB_OFFSET + c.l.stage_base - STUB_BASE);
		CHECK_PH(rb_phdr(&r, 0), PT_LOAD, ELFW_STUB_OFFSET, STUB_BASE,
			 c.l.stage_base + 0x3000 - STUB_BASE,
			 c.l.stage_base + 0x3000 - STUB_BASE, PF_R | PF_W | PF_X);
		CHECK_PH(rb_phdr(&r, 1), PT_LOAD, 0, STUB_BSS, 0,
			 c.l.stub_bss_size, PF_R | PF_W);
		CHECK_SH(rb_shdr(&r, ".aout2elf.bss"), SHT_NOBITS,
			 SHF_ALLOC | SHF_WRITE, STUB_BSS, c.l.stub_bss_size);
		GElf_Shdr t = rb_shdr(&r, ".text"), d = rb_shdr(&r, ".data");
		GElf_Shdr b = rb_shdr(&r, ".bss");
		CHECK_SH(t, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR, 0,
			 0x2000);
		CHECK_U(t.sh_offset, off);
		CHECK_SH(d, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x2000, 0x1000);
		CHECK_U(d.sh_offset, off + 0x2000);
		CHECK_SH(b, SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0x3000, 0x3000);
		CHECK_U(rb_shdr(&r, ".aout.header").sh_type, SHT_NULL);
		if (rb_plan(&c, &sp) == 0) {
			CHECK_U(sp.nmaps, 2);
			CHECK_MAP(sp.maps[0], STUB_MAP_MOVE, 0, c.l.stage_base, 0x3000,
				  RWX);
			CHECK_MAP(sp.maps[1], STUB_MAP_ZERO, 0x3000, 0, 0x3000, RWX);
			CHECK_U(sp.start_data, 0x2000);
			CHECK_U(sp.end_data, 0x3000);
			CHECK_U(sp.start_brk, 0x3000);
			CHECK_U(sp.brk, 0x6000);
		}
		rb_close(&r);
	}
	conv_free(&c);

	/* an odd text: .data at 0x1235, right behind it, not at N_DATADDR */
	s.text = 0x1235;
	s.data = 0x77;
	s.bss = 0x3333;
	if (conv_run(&c, &s, 1, SYMS_NONE) == 0 && rb_open(&c, &r) == 0) {
		uint32_t off = c.l.region[0].page_off;

		CHECK_U(r.nph, 3); /* with PT_GNU_STACK */
		/* text and data share a mapping, which the code needs executable */
		CHECK_U(off, ELFW_STUB_OFFSET + c.l.stage_base - STUB_BASE);
		CHECK_PH(rb_phdr(&r, 0), PT_LOAD, ELFW_STUB_OFFSET, STUB_BASE,
			 c.l.stage_base + 0x12ac - STUB_BASE,
			 c.l.stage_base + 0x12ac - STUB_BASE, PF_R | PF_W | PF_X);
		CHECK_U(rb_phdr(&r, 2).p_type, PT_GNU_STACK);
		GElf_Shdr t = rb_shdr(&r, ".text"), d = rb_shdr(&r, ".data");
		GElf_Shdr b = rb_shdr(&r, ".bss");
		CHECK_SH(t, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR, 0,
			 0x1235);
		CHECK_SH(d, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x1235, 0x77);
		CHECK_U(d.sh_offset, off + 0x1235);
		CHECK_SH(b, SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0x2077, 0x3333);
		if (rb_plan(&c, &sp) == 0) {
			CHECK_U(sp.nmaps, 2);
			CHECK_MAP(sp.maps[0], STUB_MAP_MOVE, 0, c.l.stage_base, 0x2000,
				  STUB_PROT_R | STUB_PROT_W | STUB_PROT_X);
			/* bss: PAGE_ALIGN(0x2077) .. PAGE_ALIGN(0x53aa), not executable */
			CHECK_MAP(sp.maps[1], STUB_MAP_ZERO, 0x3000, 0, 0x3000,
				  STUB_PROT_R | STUB_PROT_W);
			CHECK_U(sp.start_data, 0x2000);
			CHECK_U(sp.brk, 0x53aa);
		}
		rb_close(&r);
	}
	conv_free(&c);
}

static void test_write_nmagic(void)
{
	struct aoutgen_spec s;

	aoutgen_default(&s, AOUT_NMAGIC);
	convert_and_check(&s, 0, SYMS_ALL);
}

static void test_write_omagic(void)
{
	struct aoutgen_spec s;

	aoutgen_default(&s, AOUT_OMAGIC);
	convert_and_check(&s, 0, SYMS_ALL);
}

static void test_write_noexec_every_magic(void)
{
	for (size_t m = 0; m < 4; m++) {
		struct aoutgen_spec s;

		aoutgen_default(&s, magics[m]);
		convert_and_check(&s, 1, SYMS_ALL);
	}
}

static void test_write_stripped(void)
{
	for (size_t m = 0; m < 4; m++) {
		struct aoutgen_spec s;

		aoutgen_default(&s, magics[m]);
		convert_and_check(&s, m & 1, SYMS_NONE);
	}
}

static void test_write_stabs_only(void)
{
	struct aoutgen_spec s;

	aoutgen_default(&s, AOUT_ZMAGIC);
	convert_and_check(&s, 0, SYMS_STABS_ONLY);
}

/*
 * More stabs than the header entry's 16-bit n_desc can count: it says
 * 0xffff, and the section still holds every one (gdb goes by its size).
 */
static void test_write_many_stabs(void)
{
	enum { NSTABS = 70000 };
	struct aoutgen_sym *syms = calloc(NSTABS, sizeof *syms);
	struct aoutgen_spec s;
	struct conv c;
	struct readback r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(syms);
	for (size_t i = 0; i < NSTABS; i++) /* N_SLINE: line i at 0x1000 + i */
		syms[i] = (struct aoutgen_sym){ NULL, 0x44, 0, (uint16_t)i,
						0x1000 + (uint32_t)i % 0x2000 };
	aoutgen_default(&s, AOUT_QMAGIC);
	s.syms = syms;
	s.nsyms = NSTABS;
	if (conv_run(&c, &s, 0, SYMS_NONE) == 0 && rb_open(&c, &r) == 0) {
		GElf_Shdr sh = rb_shdr(&r, ".stab");
		const uint8_t *b = file_bytes(&c, sh.sh_offset, 24);

		CHECK_U(sh.sh_size, 12u * (NSTABS + 1));
		CU_ASSERT_PTR_NOT_NULL(b);
		if (b) {
			CHECK_U(b[6] | b[7] << 8, 0xffff);
			CHECK_U(b[12 + 4], 0x44); /* the first stab follows */
		}
		rb_close(&r);
	}
	conv_free(&c);
	free(syms);
}

/* No data, no bss: no .data/.bss, and N_DATA/N_BSS symbols become absolute. */
static void test_write_text_only(void)
{
	struct aoutgen_spec s;

	aoutgen_default(&s, AOUT_QMAGIC);
	s.text = 0x1800;
	s.data = 0;
	s.bss = 0;
	convert_and_check(&s, 0, SYMS_ALL);
	aoutgen_default(&s, AOUT_OMAGIC);
	s.data = 0;
	s.bss = 0;
	convert_and_check(&s, 0, SYMS_ALL);
}

/* Odd sizes everywhere: nothing is page aligned but the layout. */
static void test_write_odd_sizes(void)
{
	struct aoutgen_spec s;

	aoutgen_default(&s, AOUT_ZMAGIC);
	s.text = 0x1235;
	s.data = 0x77;
	s.bss = 0x3333;
	s.entry = 0x1234;
	convert_and_check(&s, 0, SYMS_ALL);
	aoutgen_default(&s, AOUT_NMAGIC);
	s.text = 0x1001;
	s.data = 0xfff;
	s.bss = 1;
	convert_and_check(&s, 1, SYMS_ALL);
}

/* ---- embedded libraries and --direct ---- */

#define W_LIB_A 0x61000000u
#define W_LIB_B 0x62000000u

/* libunita.so.4 (found), libunitz.so.9 (not found), libunitb.so.1 (found) */
struct wlibs {
	struct aoutgen g[3];
	char path[3][64];
	struct libset set;
};

static struct wlibs *wlibs_new(void)
{
	struct wlibs *w = calloc(1, sizeof *w);
	struct aoutgen_spec s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	aoutgen_library(&s, W_LIB_A); /* text 0x2000, data 0x1000, bss 0x2345 */
	aoutgen_build(&s, &w->g[0]);
	aoutgen_library(&s, W_LIB_B);
	s.text = 0x1000;
	s.data = 0x234;
	s.bss = 0x10;
	aoutgen_build(&s, &w->g[2]);
	snprintf(w->path[0], sizeof w->path[0], "/opt/aout/lib/libunita.so.4");
	snprintf(w->path[2], sizeof w->path[2], "/opt/aout/lib/libunitb.so.1");
	CU_ASSERT_EQUAL_FATAL(unit_lib_fill(&w->set.libs[0], "libunita.so.4",
					    w->path[0], &w->g[0]), 0);
	CU_ASSERT_EQUAL_FATAL(unit_lib_fill(&w->set.libs[1], "libunitz.so.9",
					    NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(unit_lib_fill(&w->set.libs[2], "libunitb.so.1",
					    w->path[2], &w->g[2]), 0);
	w->set.n = 3;
	return w;
}

static void wlibs_free(struct wlibs *w)
{
	unit_lib_release(&w->set.libs[0]);
	unit_lib_release(&w->set.libs[2]);
	aoutgen_free(&w->g[0]);
	aoutgen_free(&w->g[2]);
	free(w);
}

#define CHECK_SLIB(l, nm, st, ln, bl, sg) do { \
	CHECK_STR((l).name, nm); \
	CHECK_U((l).start, st); \
	CHECK_U((l).len, ln); \
	CHECK_U((l).bss_len, bl); \
	CHECK_U((l).stage, sg); \
	CHECK_U((l).mapped, 0); \
} while (0)

/*
 * Embedded libraries: each found one gets a PT_LOAD RWX at a staging
 * address after the program's regions and a section .lib.NAME there with
 * its text and data; the stub plan lists all of them by name.
 */
static void test_write_embedded_libs(void)
{
	static const char *const dirs[] = { "/opt/aout/lib", "/usr/local/aout" };

	for (int noexec = 0; noexec < 2; noexec++) {
		struct wlibs *w = wlibs_new();
		struct plan_options o = { .noexec = noexec };
		struct aoutgen_spec s;
		struct conv c;
		struct readback r;
		struct stub_plan sp;

		aoutgen_default(&s, AOUT_QMAGIC); /* regions 0x2000 and 0x1000 */
		if (conv_run_opts(&c, &s, &o, SYMS_ALL, &w->set, dirs, 2) == 0) {
			check_with_libelf(&c);
			check_with_bfd(&c);

			CHECK_U(c.l.nregions, 5);
			uint32_t base = c.l.region[0].page_off;
			CHECK_U(c.l.region[2].stage, c.l.stage_base + 0x3000);
			CHECK_U(c.l.region[2].page_off, base + 0x3000);
			CHECK_U(c.l.region[2].len, 0x3000);
			CHECK_U(c.l.region[3].stage, 0); /* not embedded */
			CHECK_U(c.l.region[3].len, 0);
			CHECK_U(c.l.region[4].stage, c.l.stage_base + 0x6000);
			CHECK_U(c.l.region[4].page_off, base + 0x6000);
			CHECK_U(c.l.region[4].len, 0x2000);
			CHECK_U(c.l.end, base + 0x8000);
		}
		if (c.file && rb_open(&c, &r) == 0) {
			uint32_t base = c.l.region[0].page_off;

			uint32_t sb = c.l.stage_base;

			CHECK_U(r.nph, 5 + noexec);
			/* the text staged right behind the stub, in its PT_LOAD */
			CHECK_U(base, ELFW_STUB_OFFSET + sb - STUB_BASE);
			CHECK_PH(rb_phdr(&r, 0), PT_LOAD, ELFW_STUB_OFFSET, STUB_BASE,
				 sb + 0x2000 - STUB_BASE, sb + 0x2000 - STUB_BASE,
				 PF_R | PF_X);
			CHECK_PH(rb_phdr(&r, 1), PT_LOAD, base + 0x2000,
				 sb + 0x2000, 0x1000, 0x1000,
				 PF_R | PF_W | (noexec ? 0 : PF_X));
			CHECK_PH(rb_phdr(&r, 2), PT_LOAD, base + 0x3000,
				 sb + 0x3000, 0x3000, 0x3000,
				 PF_R | PF_W | PF_X);
			CHECK_PH(rb_phdr(&r, 3), PT_LOAD, base + 0x6000,
				 sb + 0x6000, 0x1234, 0x1234,
				 PF_R | PF_W | PF_X);
			CHECK_PH(rb_phdr(&r, 4), PT_LOAD, 0, STUB_BSS, 0,
				 c.l.stub_bss_size, PF_R | PF_W);
			if (noexec)
				CHECK_U(rb_phdr(&r, 5).p_type, PT_GNU_STACK);

			GElf_Shdr la = rb_shdr(&r, ".lib.libunita.so.4");
			GElf_Shdr lb = rb_shdr(&r, ".lib.libunitb.so.1");
			CHECK_SH(la, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR,
				 sb + 0x3000, 0x3000);
			CHECK_U(la.sh_offset, base + 0x3000);
			CHECK_SH(lb, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR,
				 sb + 0x6000, 0x1234);
			CHECK_U(lb.sh_offset, base + 0x6000);
			CHECK_U(rb_shdr(&r, ".lib.libunitz.so.9").sh_type, SHT_NULL);
			/* the library's bytes, header included (QMAGIC) */
			const uint8_t *fa = file_bytes(&c, base + 0x3000, 0x3000);
			const uint8_t *fb = file_bytes(&c, base + 0x6000, 0x2000);
			CU_ASSERT(fa && memcmp(fa, w->g[0].buf, 0x3000) == 0);
			CU_ASSERT(fb && memcmp(fb, w->g[2].buf, 0x1234) == 0);
			CU_ASSERT(fb && all_zero(fb + 0x1234, 0x2000 - 0x1234));

			if (rb_plan(&c, &sp) == 0) {
				CHECK_U(sp.flags, STUB_F_DYNAMIC |
						  (noexec ? STUB_F_NOEXEC : 0));
				CHECK_U(sp.nlibs, 3);
				CHECK_SLIB(sp.libs[0], "libunita.so.4", W_LIB_A, 0x3000,
					   0x3000, sb + 0x3000);
				CHECK_SLIB(sp.libs[1], "libunitz.so.9", 0, 0, 0, 0);
				CHECK_SLIB(sp.libs[2], "libunitb.so.1", W_LIB_B, 0x2000,
					   0, sb + 0x6000);
				/* one of them is looked for at run time: the window */
				CHECK_U(sp.lib_lo, 0x5f000000);
				CHECK_U(sp.lib_hi, 0x70000000);
				CHECK_STR(sp.paths, "/opt/aout/lib:/usr/local/aout");
				/* the program is moved as without libraries */
				CHECK_U(sp.nmaps, 3);
				CHECK_MAP(sp.maps[0], STUB_MAP_MOVE, 0x1000, sb,
					  0x2000, STUB_PROT_R | STUB_PROT_X);
			}
			rb_close(&r);
		}
		conv_free(&c);
		wlibs_free(w);
	}
}

/*
 * A library the program names twice: one segment and one section, and in
 * the stub plan a second entry, under the other name, with the same
 * staging.
 */
static void test_write_library_two_names(void)
{
	struct wlibs *w = wlibs_new();
	struct aoutgen_spec s;
	struct conv c;
	struct readback r;
	struct stub_plan sp;

	strcpy(w->set.libs[0].name, "/lib/libunita.so.4");
	strcpy(w->set.libs[0].aliases[0], "/usr/lib/libunita.so.4.1");
	w->set.libs[0].naliases = 1;
	aoutgen_default(&s, AOUT_QMAGIC);
	if (conv_run_opts(&c, &s, NULL, SYMS_ALL, &w->set, NULL, 0) == 0) {
		check_with_libelf(&c);
		CHECK_U(c.p.nlibs, 4);
		CHECK_U(c.l.nregions, 6);
		CHECK_U(c.l.region[5].len, 0);
		CHECK_U(c.l.end, c.l.region[0].page_off + 0x8000);
	}
	if (c.file && rb_open(&c, &r) == 0) {
		uint32_t sb = c.l.stage_base;

		CHECK_U(r.nph, 5);
		CHECK_U(rb_shdr(&r, ".lib.libunita.so.4").sh_addr, sb + 0x3000);
		CHECK_U(rb_shdr(&r, ".lib.libunita.so.4.1").sh_type, SHT_NULL);
		if (rb_plan(&c, &sp) == 0) {
			CHECK_U(sp.nlibs, 4);
			CHECK_SLIB(sp.libs[0], "libunita.so.4", W_LIB_A, 0x3000,
				   0x3000, sb + 0x3000);
			CHECK_SLIB(sp.libs[3], "libunita.so.4.1", W_LIB_A, 0x3000,
				   0x3000, sb + 0x3000);
		}
		rb_close(&r);
	}
	conv_free(&c);
	wlibs_free(w);
}

/* --no-embed-libs: no library segment or section, looked up by name. */
static void test_write_libs_not_embedded(void)
{
	struct wlibs *w = wlibs_new();
	struct plan_options o = { .no_embed_libs = 1 };
	struct aoutgen_spec s;
	struct conv c;
	struct readback r;
	struct stub_plan sp;

	aoutgen_default(&s, AOUT_QMAGIC);
	if (conv_run_opts(&c, &s, &o, SYMS_ALL, &w->set, NULL, 0) == 0) {
		check_with_libelf(&c);
		check_with_bfd(&c);
		CHECK_U(c.l.nregions, 5);
		for (size_t i = 2; i < 5; i++) {
			CHECK_U(c.l.region[i].stage, 0);
			CHECK_U(c.l.region[i].len, 0);
		}
		CHECK_U(c.l.end, c.l.region[0].page_off + 0x3000);
	}
	if (c.file && rb_open(&c, &r) == 0) {
		CHECK_U(r.nph, 3);
		CHECK_U(rb_phdr(&r, 0).p_vaddr, STUB_BASE);
		CHECK_U(rb_phdr(&r, 2).p_vaddr, STUB_BSS);
		CHECK_U(rb_shdr(&r, ".lib.libunita.so.4").sh_type, SHT_NULL);
		CHECK_U(rb_shdr(&r, ".lib.libunitb.so.1").sh_type, SHT_NULL);
		if (rb_plan(&c, &sp) == 0) {
			CHECK_U(sp.flags, STUB_F_DYNAMIC);
			CHECK_U(sp.nlibs, 3);
			CHECK_SLIB(sp.libs[0], "libunita.so.4", 0, 0, 0, 0);
			CHECK_SLIB(sp.libs[1], "libunitz.so.9", 0, 0, 0, 0);
			CHECK_SLIB(sp.libs[2], "libunitb.so.1", 0, 0, 0, 0);
			CHECK_U(sp.lib_lo, 0x5f000000);
			CHECK_U(sp.lib_hi, 0x70000000);
			CHECK_U((unsigned char)sp.paths[0], 0);
		}
		rb_close(&r);
	}
	conv_free(&c);
	wlibs_free(w);

	/* no library at all: not dynamic, nothing listed */
	struct libset *none = calloc(1, sizeof *none);
	CU_ASSERT_PTR_NOT_NULL_FATAL(none);
	if (conv_run_opts(&c, &s, &o, SYMS_NONE, none, NULL, 0) == 0) {
		check_with_libelf(&c);
		if (rb_plan(&c, &sp) == 0) {
			CHECK_U(sp.flags, 0);
			CHECK_U(sp.nlibs, 0);
			CHECK_U(sp.lib_lo, 0);
			CHECK_U(sp.lib_hi, 0);
		}
	}
	conv_free(&c);
	free(none);
}

/*
 * --direct: the program's PT_LOADs are at the a.out addresses, so the
 * kernel maps them in place and the stub moves nothing (it still maps
 * the zero pages); embedded libraries are staged behind the stub.
 */
static void test_write_direct(void)
{
	struct plan_options o = { .direct = 1 };
	struct aoutgen_spec s;
	struct conv c;
	struct readback r;
	struct stub_plan sp;

	aoutgen_default(&s, AOUT_QMAGIC); /* text at 0x1000, data at 0x3000 */
	if (conv_run_opts(&c, &s, &o, SYMS_ALL, NULL, NULL, 0) == 0) {
		check_with_libelf(&c);
		check_with_bfd(&c);
		CHECK_U(c.p.direct, 1);
		CHECK_U(c.l.region[0].stage, 0x1000);
		CHECK_U(c.l.region[1].stage, 0x3000);
	}
	if (c.file && rb_open(&c, &r) == 0) {
		uint32_t base = c.l.region[0].page_off;

		CHECK_U(r.nph, 4);
		CHECK_PH(rb_phdr(&r, 0), PT_LOAD, base, 0x1000, 0x2000, 0x2000,
			 PF_R | PF_X);
		CHECK_PH(rb_phdr(&r, 1), PT_LOAD, base + 0x2000, 0x3000, 0x1000,
			 0x1000, PF_R | PF_W | PF_X);
		CHECK_PH(rb_phdr(&r, 2), PT_LOAD, ELFW_STUB_OFFSET, STUB_BASE,
			 c.l.stub_filesz, c.l.stub_filesz, PF_R | PF_X);
		/* --direct: the bss's offset is a writable page's the file maps (valgrind) */
		CHECK_PH(rb_phdr(&r, 3), PT_LOAD, base + 0x2000, STUB_BSS, 0,
			 c.l.stub_bss_size, PF_R | PF_W);
		if (rb_plan(&c, &sp) == 0) {
			CHECK_U(sp.nmaps, 1);
			CHECK_MAP(sp.maps[0], STUB_MAP_ZERO, 0x4000, 0, 0x3000, RWX);
			for (size_t i = 0; i < STUB_MAX_MAPS; i++)
				CU_ASSERT(sp.maps[i].kind != STUB_MAP_MOVE);
			CHECK_U(sp.min_addr, 0x1000);
			CHECK_U(sp.brk, 0x6345);
		}
		rb_close(&r);
	}
	conv_free(&c);

	/* every magic, and with --noexecstack */
	for (size_t m = 0; m < 4; m++) {
		struct plan_options od = { .direct = 1, .noexec = (int)(m & 1) };

		aoutgen_default(&s, magics[m]);
		if (conv_run_opts(&c, &s, &od, SYMS_ALL, NULL, NULL, 0) == 0) {
			check_with_libelf(&c);
			check_with_bfd(&c);
			if (rb_open(&c, &r) == 0) {
				CHECK_U(rb_phdr(&r, 0).p_vaddr,
					aoutgen_text_addr(magics[m]));
				rb_close(&r);
			}
		}
		conv_free(&c);
	}

	/* with embedded libraries: staged behind the stub, the program not */
	struct wlibs *w = wlibs_new();
	aoutgen_default(&s, AOUT_QMAGIC);
	if (conv_run_opts(&c, &s, &o, SYMS_NONE, &w->set, NULL, 0) == 0) {
		check_with_libelf(&c);
		check_with_bfd(&c);
	}
	if (c.file && rb_open(&c, &r) == 0) {
		uint32_t base = c.l.region[0].page_off;

		uint32_t sb = c.l.stage_base;

		CHECK_U(r.nph, 6);
		CHECK_U(rb_phdr(&r, 0).p_vaddr, 0x1000);
		CHECK_U(rb_phdr(&r, 1).p_vaddr, 0x3000);
		CHECK_U(rb_phdr(&r, 2).p_vaddr, STUB_BASE);
		CHECK_PH(rb_phdr(&r, 3), PT_LOAD, base + 0x3000, sb, 0x3000,
			 0x3000, PF_R | PF_W | PF_X);
		CHECK_PH(rb_phdr(&r, 4), PT_LOAD, base + 0x6000, sb + 0x3000,
			 0x1234, 0x1234, PF_R | PF_W | PF_X);
		CHECK_U(rb_phdr(&r, 5).p_vaddr, STUB_BSS);
		CHECK_SH(rb_shdr(&r, ".lib.libunita.so.4"), SHT_PROGBITS,
			 SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR, sb, 0x3000);
		if (rb_plan(&c, &sp) == 0) {
			CHECK_U(sp.nmaps, 1);
			CHECK_U(sp.maps[0].kind, STUB_MAP_ZERO);
			CHECK_U(sp.flags, STUB_F_DYNAMIC);
			CHECK_SLIB(sp.libs[0], "libunita.so.4", W_LIB_A, 0x3000,
				   0x3000, sb);
			CHECK_SLIB(sp.libs[2], "libunitb.so.1", W_LIB_B, 0x2000, 0,
				   sb + 0x3000);
		}
		rb_close(&r);
	}
	conv_free(&c);
	wlibs_free(w);
}

static void test_write_errors(void)
{
	struct aoutgen_spec s;
	struct aoutgen g;
	struct aout a;
	struct plan p;
	struct diag d = { "" };

	aoutgen_default(&s, AOUT_OMAGIC);
	if (parse_and_plan(&s, 0, &g, &a, &p))
		return;

	/* no file descriptor */
	CU_ASSERT_EQUAL(elfw_write(-1, &a, &p, stub_image, stub_image_size, &d), -1);
	CHECK_MSG_HAS(&d, "libelf: ");

	char *dir = unit_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *path = unit_path(dir, "out");

	/* a read-only descriptor: the write fails, and the system says why
	 * (EBADF, a descriptor not open for writing) */
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CU_ASSERT(fd >= 0);
	close(fd);
	fd = open(path, O_RDONLY);
	strcpy(d.msg, "");
	CU_ASSERT_EQUAL(elfw_write(fd, &a, &p, stub_image, stub_image_size, &d), -1);
	char want[256];
	errno = 0;
	CU_ASSERT_EQUAL(pwrite(fd, "x", 1, 0), -1);
	snprintf(want, sizeof want, "write error: %s", strerror(errno));
	CHECK_MSG(&d, want);
	CHECK_MSG(&d, "write error: Bad file descriptor");

	/* libelf's own writer sizes the file first: ftruncate says EINVAL */
	strcpy(d.msg, "");
	elfw_libelf_io = 1;
	CU_ASSERT_EQUAL(elfw_write(fd, &a, &p, stub_image, stub_image_size, &d), -1);
	elfw_libelf_io = 0;
	CHECK_MSG(&d, "write error: Invalid argument");
	close(fd);

	/* a damaged stub: refused before anything is written */
	uint8_t *bad = malloc(stub_image_size);
	memcpy(bad, stub_image, stub_image_size);
	bad[0] ^= 1;
	fd = open(path, O_RDWR | O_TRUNC);
	CU_ASSERT_EQUAL(elfw_write(fd, &a, &p, bad, stub_image_size, &d), -1);
	CHECK_MSG(&d, "internal error: runtime stub is damaged");
	struct stat st;
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	CHECK_U(st.st_size, 0);
	close(fd);
	free(bad);

	free(path);
	unit_rmtree(dir);
	aout_free(&a);
	aoutgen_free(&g);
}

/*
 * The .comment a batch rerun compares: written whole, all its strings,
 * read back with libelf; none without a comment.
 */
static void test_comment(void)
{
	static const char comment[] = "aout2elf 9.9 (-L /a b --strip)\0embeds /a b/x";
	struct aoutgen_spec s;
	struct aoutgen g;
	struct aout a;
	struct plan p;
	struct diag d = { "" };
	size_t size = 0;
	char *got;
	FILE *with = tmpfile(), *without = tmpfile();

	CU_ASSERT_FATAL(with && without);
	aoutgen_default(&s, AOUT_ZMAGIC);
	aoutgen_build(&s, &g);
	CU_ASSERT_EQUAL_FATAL(aout_parse(g.buf, g.size, &a, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&a, NULL, &p, &d), 0);
	CU_ASSERT_EQUAL(elfw_write_with_comment(fileno(with), &a, &p, stub_image,
					   stub_image_size, comment, sizeof comment,
					   &d), 0);
	CU_ASSERT_EQUAL(elfw_write(fileno(without), &a, &p, stub_image,
				   stub_image_size, &d), 0);
	got = elfw_read_comment(fileno(with), &size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(size, sizeof comment);
	CU_ASSERT(memcmp(got, comment, sizeof comment) == 0);
	free(got);
	CU_ASSERT_PTR_NULL(elfw_read_comment(fileno(without), &size));
	/* BFD, the independent reader, sees it too */
	bfd *b = bfd_fdopenr("with", "elf32-i386", dup(fileno(with)));
	asection *sec = b && bfd_check_format(b, bfd_object) ?
				bfd_get_section_by_name(b, ".comment") : NULL;
	CU_ASSERT(sec && bfd_section_size(sec) == sizeof comment);
	if (b)
		bfd_close(b);
	/* an a.out, and no file at all */
	fseek(without, 0, SEEK_SET);
	CU_ASSERT_EQUAL(ftruncate(fileno(without), 0), 0);
	CU_ASSERT_EQUAL(pwrite(fileno(without), g.buf, g.size, 0), (ssize_t)g.size);
	CU_ASSERT_PTR_NULL(elfw_read_comment(fileno(without), &size));
	CU_ASSERT_PTR_NULL(elfw_read_comment(-1, &size));
	fclose(with);
	fclose(without);
	aout_free(&a);
	aoutgen_free(&g);
}

/* elfw_write's last step: pieces in file order, zeros between, one write */
static void test_write_pieces(void)
{
	struct diag d = { "" };
	int fd = memfd_create("pieces", MFD_CLOEXEC);
	unsigned char got[64];

	CU_ASSERT_FATAL(fd >= 0);

	/* given out of order, with gaps and a zero-length piece */
	struct elfw_piece pc[] = {
		{ 20, "TAIL", 4 }, { 0, "HEAD", 4 }, { 8, "", 0 }, { 10, "MID", 3 },
	};
	CU_ASSERT_EQUAL(elfw_write_pieces(fd, pc, 4, 30, &d), 0);
	CU_ASSERT_EQUAL(pread(fd, got, sizeof got, 0), 30);
	CU_ASSERT(!memcmp(got, "HEAD\0\0\0\0\0\0MID\0\0\0\0\0\0\0TAIL\0\0\0\0\0\0", 30));

	/* a gap longer than the page of zeros it is written from */
	CU_ASSERT_EQUAL(ftruncate(fd, 0), 0);
	struct elfw_piece far[] = { { 0, "A", 1 }, { 3 * STUB_PAGE + 5, "B", 1 } };
	CU_ASSERT_EQUAL(elfw_write_pieces(fd, far, 2, 3 * STUB_PAGE + 6, &d), 0);
	unsigned char *big = calloc(1, 3 * STUB_PAGE + 6);
	CU_ASSERT_FATAL(big != NULL);
	CU_ASSERT_EQUAL(pread(fd, big, 3 * STUB_PAGE + 6, 0), 3 * STUB_PAGE + 6);
	int zeros = 1;
	for (size_t i = 1; i < 3 * STUB_PAGE + 5; i++)
		zeros &= big[i] == 0;
	CU_ASSERT(big[0] == 'A' && zeros && big[3 * STUB_PAGE + 5] == 'B');
	free(big);

	/* overlapping pieces, or one past the end: refused, nothing written */
	CU_ASSERT_EQUAL(ftruncate(fd, 0), 0);
	struct elfw_piece clash[] = { { 0, "HEAD", 4 }, { 2, "XY", 2 } };
	CU_ASSERT_EQUAL(elfw_write_pieces(fd, clash, 2, 16, &d), -1);
	CHECK_MSG(&d, "internal error: the ELF pieces overlap or pass its end");
	struct elfw_piece past[] = { { 14, "TAIL", 4 } };
	strcpy(d.msg, "");
	CU_ASSERT_EQUAL(elfw_write_pieces(fd, past, 1, 16, &d), -1);
	CHECK_MSG(&d, "internal error: the ELF pieces overlap or pass its end");
	struct stat st;
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	CHECK_U(st.st_size, 0);

	/* a short write (the file size limit cuts it at 12 bytes, in the
	 * middle of a piece): the rest is tried, and the refusal reported */
	struct rlimit old, cut = { 12, 0 };
	void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
	CU_ASSERT_EQUAL(getrlimit(RLIMIT_FSIZE, &old), 0);
	cut.rlim_max = old.rlim_max;
	CU_ASSERT_EQUAL(setrlimit(RLIMIT_FSIZE, &cut), 0);
	strcpy(d.msg, "");
	int rc = elfw_write_pieces(fd, pc, 4, 30, &d);
	CU_ASSERT_EQUAL(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, was);
	CU_ASSERT_EQUAL(rc, -1);
	CHECK_MSG(&d, "write error: File too large");
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	CHECK_U(st.st_size, 12);
	CU_ASSERT_EQUAL(pread(fd, got, 12, 0), 12);
	CU_ASSERT(!memcmp(got, "HEAD\0\0\0\0\0\0MI", 12));
	CU_ASSERT_EQUAL(ftruncate(fd, 0), 0);

	/* nothing at all to write */
	strcpy(d.msg, "");
	CU_ASSERT_EQUAL(elfw_write_pieces(fd, NULL, 0, 0, &d), -1);
	CHECK_MSG(&d, "internal error: an empty ELF file");

	/* the system's refusal, with its reason */
	close(fd);
	strcpy(d.msg, "");
	CU_ASSERT_EQUAL(elfw_write_pieces(fd, pc, 4, 30, &d), -1);
	CHECK_MSG(&d, "write error: Bad file descriptor");
}

static int writer_init(void)
{
	if (bfd_init() != BFD_INIT_MAGIC)
		return -1;
	return elf_version(EV_CURRENT) == EV_NONE ? -1 : 0;
}

int unit_elfwrite_register(void)
{
	static const struct unit_test pure[] = {
		UNIT_TEST(test_layout_fake_stub),
		UNIT_TEST(test_layout_real_stub_every_magic),
		UNIT_TEST(test_layout_unaligned_regions),
		UNIT_TEST(test_layout_too_large_to_stage),
		UNIT_TEST(test_check_elf32_limit),
		UNIT_TEST(test_damaged_stub),
		UNIT_TEST(test_stub_size_overflow_rejected),
		UNIT_TEST(test_stub_plan_every_magic),
		UNIT_TEST(test_stub_plan_qmagic_values),
		UNIT_TEST(test_stub_plan_norandom),
		UNIT_END
	};
	static const struct unit_test files[] = {
		UNIT_TEST(test_write_qmagic),
		UNIT_TEST(test_write_zmagic),
		UNIT_TEST(test_write_nmagic),
		UNIT_TEST(test_write_omagic),
		UNIT_TEST(test_write_noexec_every_magic),
		UNIT_TEST(test_write_stripped),
		UNIT_TEST(test_write_stabs_only),
		UNIT_TEST(test_write_many_stabs),
		UNIT_TEST(test_write_text_only),
		UNIT_TEST(test_write_odd_sizes),
		UNIT_TEST(test_write_embedded_libs),
		UNIT_TEST(test_write_library_two_names),
		UNIT_TEST(test_write_libs_not_embedded),
		UNIT_TEST(test_write_direct),
		UNIT_TEST(test_write_errors),
		UNIT_TEST(test_write_pieces),
		UNIT_TEST(test_comment),
		UNIT_END
	};

	if (unit_add_suite("writer layout (src/elfwrite.c, pure)", NULL, NULL,
			   pure) ||
	    unit_add_suite("writer files (src/elfwrite.c, libelf + BFD)",
			   writer_init, NULL, files))
		return -1;
	return 0;
}
