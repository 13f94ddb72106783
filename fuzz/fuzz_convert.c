/*
 * libFuzzer target: the whole in-memory conversion path.
 *
 *   aout_parse -> plan_build -> libs_scan -> plan_add_libs -> elfw_write
 *
 * into a memfd, with the real runtime stub (and again through libelf's own
 * writer, which must give the same bytes), then reads the ELF back and
 * checks what the kernel and the stub rely on.  The options (--noexecstack,
 * --direct, --no-embed-libs, --no-randomize, and whether the input doubles as an embedded
 * library, see fuzz_model.h) come from a hash of the input, so each input
 * always takes the same path.  The input is also read as a shared library
 * and scanned, as libs_resolve does with every library it finds.
 *
 * Anything that is not a clean "converted" or "refused with a reason"
 * aborts: a sanitizer report, a leak, or a broken invariant below.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aout.h"
#include "elfwrite.h"
#include "libs.h"
#include "plan.h"
#include "stub_image.h"

#include "fuzz_model.h"

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "fuzz_convert: invariant broken: " \
					__VA_ARGS__);                         \
			fprintf(stderr, " [%s]\n", #cond);                  \
			abort();                                              \
		}                                                             \
	} while (0)

static int memfd(void)
{
	int fd = memfd_create("fuzz_convert", MFD_CLOEXEC);

	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	return fd;
}

static uint8_t *read_back(int fd, size_t *size)
{
	struct stat st;
	uint8_t *buf;

	if (fstat(fd, &st) < 0)
		abort();
	*size = (size_t)st.st_size;
	buf = malloc(*size ? *size : 1);
	if (!buf || pread(fd, buf, *size, 0) != (ssize_t)*size)
		abort();
	return buf;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The stub plan, as elfw_write embeds it. */
static void check_stub_plan(const struct plan *p, const struct elfw_layout *l)
{
	struct stub_plan sp;

	elfw_stub_plan(p, l, &sp);
	CHECK(sp.nmaps <= STUB_MAX_MAPS, "%u maps", sp.nmaps);
	CHECK(sp.nlibs <= STUB_MAX_LIBS, "%u libraries", sp.nlibs);
	for (uint32_t i = 0; i < sp.nmaps; i++) {
		const struct stub_map *m = &sp.maps[i];

		CHECK(m->dst % STUB_PAGE == 0 && m->len % STUB_PAGE == 0,
		      "map %u not page aligned (0x%x+0x%x)", i, m->dst, m->len);
		CHECK((uint64_t)m->dst + m->len <= IMAGE_LIMIT,
		      "map %u ends above IMAGE_LIMIT (0x%x+0x%x)", i, m->dst,
		      m->len);
		if (m->kind == STUB_MAP_MOVE)
			CHECK(m->src >= STUB_BASE &&
				      (uint64_t)m->src + m->len <= STAGE_LIMIT,
			      "map %u source 0x%x+0x%x outside staging", i,
			      m->src, m->len);
		for (uint32_t j = 0; j < i; j++) {
			const struct stub_map *o = &sp.maps[j];

			CHECK(!m->len || !o->len || m->dst >= o->dst + o->len ||
				      o->dst >= m->dst + m->len,
			      "maps %u and %u overlap (0x%x+0x%x, 0x%x+0x%x)", j,
			      i, o->dst, o->len, m->dst, m->len);
		}
	}
	CHECK(sp.brk >= sp.start_brk, "brk 0x%x below start_brk 0x%x", sp.brk,
	      sp.start_brk);
	CHECK(sp.flags == ((p->noexec ? STUB_F_NOEXEC : 0) |
			   (p->dynamic ? STUB_F_DYNAMIC : 0) |
			   (p->norandom ? STUB_F_NORANDOM : 0)),
	      "stub flags 0x%x", sp.flags);
	CHECK(sp.entry >= sp.start_code && sp.entry < sp.end_code,
	      "entry 0x%x outside code 0x%x-0x%x", sp.entry, sp.start_code,
	      sp.end_code);
}

static void check_elf(const uint8_t *f, size_t size, const struct aout *a,
		      const struct plan *p, const struct elfw_layout *l)
{
	const Elf32_Ehdr *eh = (const Elf32_Ehdr *)f;
	/*
	 * The first staged region continues the stub's code in file and
	 * memory; where it has the stub's access (readable and executable),
	 * one PT_LOAD maps both.
	 */
	int merged = !p->direct && l->region[0].stage == l->stage_base &&
		     (p->regions[0].prot & (STUB_PROT_R | STUB_PROT_X)) ==
			     (STUB_PROT_R | STUB_PROT_X);
	size_t nph_want = p->nregions + 2 + (p->noexec ? 1 : 0) - (size_t)merged;

	for (size_t i = 0; i < p->nlibs; i++)
		nph_want += p->libs[i].embedded;
	CHECK(size >= sizeof *eh && !memcmp(f, ELFMAG, SELFMAG), "no ELF header");
	CHECK(eh->e_ident[EI_CLASS] == ELFCLASS32 && eh->e_machine == EM_386 &&
		      eh->e_type == ET_EXEC,
	      "not an ELF32 i386 executable");
	CHECK(eh->e_phnum == nph_want, "%u program headers, want %zu",
	      eh->e_phnum, nph_want);
	CHECK(eh->e_phentsize == sizeof(Elf32_Phdr) &&
		      (uint64_t)eh->e_phoff + eh->e_phnum * sizeof(Elf32_Phdr) <=
			      ELFW_STUB_OFFSET,
	      "program headers do not fit before the stub");
	CHECK(eh->e_entry >= STUB_BASE && eh->e_entry < STUB_BASE + stub_image_size,
	      "entry 0x%x not in the stub", eh->e_entry);

	const Elf32_Phdr *ph = (const Elf32_Phdr *)(f + eh->e_phoff);
	uint64_t prev_end = 0;
	size_t nload = 0, nreg = (size_t)merged, nlib = 0;

	for (size_t i = 0; i < eh->e_phnum; i++) {
		const Elf32_Phdr *h = &ph[i];

		if (h->p_type != PT_LOAD)
			continue;
		CHECK(h->p_offset % STUB_PAGE == h->p_vaddr % STUB_PAGE,
		      "PT_LOAD %zu: offset 0x%x and address 0x%x not congruent",
		      i, h->p_offset, h->p_vaddr);
		CHECK((uint64_t)h->p_offset + h->p_filesz <= size,
		      "PT_LOAD %zu: 0x%x+0x%x past the end of the file (%zu)", i,
		      h->p_offset, h->p_filesz, size);
		CHECK(h->p_memsz >= h->p_filesz, "PT_LOAD %zu: memsz < filesz", i);
		if (h->p_memsz) {
			uint64_t lo = h->p_vaddr & ~(uint64_t)(STUB_PAGE - 1);

			CHECK(lo >= prev_end,
			      "PT_LOAD %zu at 0x%x overlaps or precedes the "
			      "previous one (ends 0x%llx)",
			      i, h->p_vaddr, (unsigned long long)prev_end);
			prev_end = ((uint64_t)h->p_vaddr + h->p_memsz +
				    STUB_PAGE - 1) & ~(uint64_t)(STUB_PAGE - 1);
		}
		if (h->p_vaddr == STUB_BSS) {
			CHECK(h->p_filesz == 0 && h->p_memsz == l->stub_bss_size,
			      "the stub's variables: filesz 0x%x, memsz 0x%x",
			      h->p_filesz, h->p_memsz);
		} else if (h->p_vaddr != STUB_BASE && nreg < p->nregions) {
			size_t ri = nreg++; /* the region's index */
			const struct plan_region *r = &p->regions[ri];
			uint64_t page_end = (uint64_t)l->region[ri].page_off +
					    l->region[ri].len;

			CHECK(h->p_filesz == r->size,
			      "region %zu: filesz 0x%x, want 0x%x", ri,
			      h->p_filesz, r->size);
			CHECK(!memcmp(f + h->p_offset, a->buf + r->aout_off,
				      r->size),
			      "region %zu (%s): bytes differ from the a.out",
			      ri, r->name);
			CHECK(page_end <= size &&
				      page_end >= (uint64_t)h->p_offset + h->p_filesz,
			      "region %zu: page end 0x%llx", ri,
			      (unsigned long long)page_end);
			/* bss starts right after the last region: must be zero */
			if (ri == p->nregions - 1)
				CHECK(all_zero(f + h->p_offset + h->p_filesz,
					       page_end - h->p_offset -
						       h->p_filesz),
				      "region %zu: the page tail (start of bss) "
				      "is not zero", ri);
		} else if (h->p_vaddr != STUB_BASE) {
			while (nlib < p->nlibs && !p->libs[nlib].embedded)
				nlib++;
			CHECK(nlib < p->nlibs, "a PT_LOAD too many");
			CHECK(h->p_filesz == p->libs[nlib].filesz &&
				      !memcmp(f + h->p_offset, p->libs[nlib].bytes,
					      h->p_filesz),
			      "library %zu: bytes differ", nlib);
			nlib++;
		} else {
			const struct plan_region *r0 = &p->regions[0];
			uint32_t r0_at = l->stage_base - STUB_BASE +
					 r0->vaddr % STUB_PAGE;

			CHECK(h->p_offset == ELFW_STUB_OFFSET &&
				      h->p_filesz == (merged ? r0_at + r0->size :
							       l->stub_filesz) &&
				      l->stub_filesz >= stub_image_size,
			      "stub segment: filesz 0x%x (merged %d)", h->p_filesz,
			      merged);
			CHECK(!merged || !memcmp(f + h->p_offset + r0_at,
						 a->buf + r0->aout_off, r0->size),
			      "region 0 (%s), staged with the stub: bytes differ "
			      "from the a.out",
			      r0->name);
			if (merged) {
				uint64_t start = (uint64_t)l->region[0].page_off +
						 r0->vaddr % STUB_PAGE;
				uint64_t page_end = (uint64_t)l->region[0].page_off +
						    l->region[0].len;

				CHECK(start == (uint64_t)h->p_offset + r0_at &&
					      page_end <= size &&
					      page_end >= start + r0->size,
				      "region 0: file offset 0x%llx, page end 0x%llx",
				      (unsigned long long)start,
				      (unsigned long long)page_end);
				if (p->nregions == 1)
					CHECK(all_zero(f + start + r0->size,
						       page_end - start - r0->size),
					      "region 0: the page tail (start of "
					      "bss) is not zero");
			}
			/* the image, its plan_off word filled in, then zeros */
			CHECK(!memcmp(f + h->p_offset, stub_image, 12) &&
				      !memcmp(f + h->p_offset + 16, stub_image + 16,
					      stub_image_size - 16),
			      "stub bytes differ");
			uint32_t plan_magic;
			memcpy(&plan_magic, f + h->p_offset + l->plan_off, 4);
			CHECK(plan_magic == STUB_PLAN_MAGIC, "no plan in the stub");
		}
		nload++;
	}

	/* section headers and what they point at */
	CHECK(eh->e_shentsize == sizeof(Elf32_Shdr) && eh->e_shnum > 0 &&
		      (uint64_t)eh->e_shoff + eh->e_shnum * sizeof(Elf32_Shdr) <=
			      size,
	      "section headers 0x%x x %u past the end of the file (%zu)",
	      eh->e_shoff, eh->e_shnum, size);
	CHECK(eh->e_shoff % 4 == 0, "e_shoff 0x%x not aligned", eh->e_shoff);
	const Elf32_Shdr *sh = (const Elf32_Shdr *)(f + eh->e_shoff);

	CHECK(eh->e_shstrndx < eh->e_shnum, "e_shstrndx");
	const Elf32_Shdr *ss = &sh[eh->e_shstrndx];

	CHECK((uint64_t)ss->sh_offset + ss->sh_size <= size && ss->sh_size &&
		      f[ss->sh_offset + ss->sh_size - 1] == 0,
	      ".shstrtab");
	for (size_t i = 1; i < eh->e_shnum; i++) {
		CHECK(sh[i].sh_name < ss->sh_size, "section %zu name", i);
		if (sh[i].sh_type != SHT_NOBITS)
			CHECK((uint64_t)sh[i].sh_offset + sh[i].sh_size <= size,
			      "section %zu (%s): 0x%x+0x%x past the end (%zu)",
			      i, (const char *)f + ss->sh_offset + sh[i].sh_name,
			      sh[i].sh_offset, sh[i].sh_size, size);
		if (sh[i].sh_type == SHT_SYMTAB) {
			CHECK(sh[i].sh_link < eh->e_shnum &&
				      sh[sh[i].sh_link].sh_type == SHT_STRTAB,
			      ".symtab link");
			const Elf32_Shdr *st = &sh[sh[i].sh_link];
			const Elf32_Sym *sym =
				(const Elf32_Sym *)(f + sh[i].sh_offset);
			size_t n = sh[i].sh_size / sizeof *sym;

			CHECK(sh[i].sh_info <= n, ".symtab sh_info");
			for (size_t k = 0; k < n; k++) {
				CHECK(sym[k].st_name < st->sh_size,
				      "symbol %zu name 0x%x", k, sym[k].st_name);
				CHECK(sym[k].st_shndx < eh->e_shnum ||
					      sym[k].st_shndx >= SHN_LORESERVE,
				      "symbol %zu section %u", k,
				      sym[k].st_shndx);
				CHECK((k < sh[i].sh_info) ==
					      (ELF32_ST_BIND(sym[k].st_info) ==
					       STB_LOCAL),
				      "symbol %zu: locals not first", k);
			}
		}
	}
}

static void convert(const struct aout *a, const uint8_t *data, size_t size,
		    uint32_t sel)
{
	struct plan_options opt = {
		.noexec = sel & 1,
		.direct = (sel >> 1) & 1,
		.no_embed_libs = (sel >> 2) & 1,
		.norandom = (sel >> 12) & 1,
	};
	static const char *const dirs[] = { "/fuzz/lib", "/fuzz/more/lib" };
	struct plan *p = calloc(1, sizeof *p);
	struct libset *set = calloc(1, sizeof *set);
	struct diag d;

	if (!p || !set)
		abort();
	if (plan_build(a, &opt, p, &d))
		goto out;
	CHECK(p->nregions >= 1 && p->nregions <= 2, "%zu regions", p->nregions);
	CHECK(p->image_end <= IMAGE_LIMIT && p->min_addr < p->image_end,
	      "image 0x%x-0x%x", p->min_addr, p->image_end);
	fuzz_libset(a, p, data, size, (sel >> 3) & 1,
		    PLAN_LIB_WINDOW_LO + ((sel >> 4) & 0xff) * 0x10000u, set);
	CHECK(!plan_add_libs(p, set, &opt, dirs, 2, &d), "plan_add_libs: %s",
	      d.msg);

	struct elfw_layout l;
	if (elfw_layout(p, stub_image, stub_image_size, &l, &d))
		goto out;
	check_stub_plan(p, &l);

	int fd = memfd();
	if (elfw_write(fd, a, p, stub_image, stub_image_size, &d)) {
		/* layout succeeded: only libelf can have refused */
		CHECK(0, "elfw_write failed after elfw_layout succeeded: %s",
		      d.msg);
	}
	size_t fsize;
	uint8_t *f = read_back(fd, &fsize);

	close(fd);
	check_elf(f, fsize, a, p, &l);

	/* elfw_write's own gathered write against libelf's writer: same bytes */
	int lfd = memfd();
	elfw_libelf_io = 1;
	int lrc = elfw_write(lfd, a, p, stub_image, stub_image_size, &d);
	elfw_libelf_io = 0;
	CHECK(!lrc, "libelf's writer failed where elfw_write did not: %s", d.msg);
	size_t lsize;
	uint8_t *lf = read_back(lfd, &lsize);

	close(lfd);
	CHECK(lsize == fsize && !memcmp(lf, f, fsize),
	      "elfw_write and libelf's writer differ (%zu and %zu bytes)", fsize, lsize);
	free(lf);
	free(f);
out:
	libs_free(set);
	free(set);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aout a;
	struct diag d;
	uint32_t sel = fuzz_hash(data, size);

	/* every library libs_resolve finds is parsed and scanned like this */
	if (aout_parse_kind(data, size, AOUT_SHLIB, &a, &d) == 0) {
		struct lib_need needs[LIBS_MAX_NEEDS];

		(void)libs_scan(&a, needs, LIBS_MAX_NEEDS);
		(void)libs_wants_ldso(&a);
		(void)libs_is_library(&a); /* the batch mode's "skip libraries" */
		aout_free(&a);
	}

	/* -s: the symbol tables unread, so they cannot be why it fails */
	struct aout s;
	struct diag sd;
	int s_rc = aout_parse_opts(data, size, AOUT_EXEC, AOUT_PARSE_NO_SYMBOLS, &s,
				   &sd);

	CHECK(s_rc || (s.nsyms == 0 && !s.syms && s.str_size == 0),
	      "-s parse kept symbols");
	if (aout_parse(data, size, &a, &d)) {
		CHECK(d.msg[0] && strlen(d.msg) < sizeof d.msg && !strchr(d.msg, '\n'),
		      "a refusal without a one-line reason");
		if (s_rc == 0) { /* refused for its symbols alone: -s converts it */
			convert(&s, data, size, sel);
			aout_free(&s);
		}
		return 0;
	}
	CHECK(s_rc == 0, "-s refuses what the plain parse takes: %s", sd.msg);
	CHECK(s.text_off == a.text_off && s.data_off == a.data_off &&
		      s.sym_off == a.sym_off && s.h.entry == a.h.entry,
	      "-s parses the layout differently");
	aout_free(&s);
	CHECK(a.text_off <= size && a.data_off <= size && a.sym_off <= size &&
		      a.str_off <= size && (uint64_t)a.str_off + a.str_size <= size,
	      "parsed offsets outside the buffer");
	CHECK((uint64_t)a.text_off + a.h.text + a.h.data + a.h.syms <= size,
	      "segments outside the buffer");
	CHECK(a.nsyms == a.h.syms / AOUT_NLIST_SIZE, "nsyms");

	/* both option sets through the planner; one of them on to the writer */
	struct plan_options plain = { 0 }, all = { 1, 1, 1, 1, 1 };
	struct plan *p = malloc(sizeof *p);
	if (!p)
		abort();
	int r0 = plan_build(&a, &plain, p, &d);
	int r1 = plan_build(&a, &all, p, &d);
	CHECK(r0 == r1, "plan_build depends on the options");
	free(p);

	convert(&a, data, size, sel);
	aout_free(&a);
	return 0;
}
