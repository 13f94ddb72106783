/*
 * The load map of load_aout_binary (ia32_aout.c), step by step:
 *
 *   QMAGIC  file offset 0 (header included) mmapped at 0x1000, text r-x,
 *           data rwx at N_DATADDR;
 *   ZMAGIC  file offset 1024 is not page aligned, so the kernel took its
 *           copying path: text and data read contiguously to 0 into one
 *           writable region;
 *   OMAGIC, NMAGIC  the same from offset 32;
 *
 * then set_brk: zero pages from PAGE_ALIGN(N_BSSADDR) to
 * PAGE_ALIGN(N_BSSADDR + a_bss), and mm->brk = N_BSSADDR + a_bss exactly.
 */
#include <stdio.h>
#include <string.h>

#include "libs.h"
#include "plan.h"

#define PAGE_DOWN(x) ((x) & ~(uint64_t)(AOUT_PAGE - 1))
#define PAGE_UP(x) PAGE_DOWN((uint64_t)(x) + AOUT_PAGE - 1)

static void add_region(struct plan *p, const char *name, uint64_t vaddr,
		       uint32_t off, uint32_t size, uint32_t prot)
{
	struct plan_region *r = &p->regions[p->nregions++];

	r->name = name;
	r->vaddr = (uint32_t)vaddr;
	r->aout_off = off;
	r->size = size;
	r->prot = prot;
}

int plan_build(const struct aout *a, const struct plan_options *opt,
	       struct plan *p, struct diag *d)
{
	const struct aout_header *h = &a->h;
	uint32_t rx = STUB_PROT_R | STUB_PROT_X;
	uint32_t rwx = STUB_PROT_R | STUB_PROT_W | STUB_PROT_X;

	memset(p, 0, sizeof *p);
	p->magic = a->magic;
	p->noexec = opt && opt->noexec;
	p->direct = opt && opt->direct;
	p->norandom = opt && opt->norandom;
	p->keep_rawio = opt && opt->keep_rawio;
	if (p->noexec)
		rwx &= ~STUB_PROT_X;

	uint64_t txt = aout_txtaddr(a), dat = aout_dataddr(a);
	uint64_t bss = aout_bssaddr(a), brk = bss + h->bss;

	if (brk > IMAGE_LIMIT)
		return diag_set(d, "text, data and bss end at 0x%llx, beyond "
				   "0x%x where the runtime stub and the stack "
				   "of the converted program live",
				(unsigned long long)brk, IMAGE_LIMIT);

	p->entry = h->entry;
	p->start_code = (uint32_t)txt;
	p->end_code = (uint32_t)(txt + h->text);
	p->start_data = (uint32_t)dat;
	p->end_data = (uint32_t)(dat + h->data);
	p->bss_addr = (uint32_t)bss;
	p->bss_size = h->bss;
	p->brk = (uint32_t)brk;

	if (a->magic == AOUT_QMAGIC) {
		add_region(p, "text", txt, a->text_off, h->text, rx);
		if (h->data)
			add_region(p, "data", dat, a->data_off, h->data, rwx);
		p->data_addr = (uint32_t)dat;
	} else {
		/*
		 * read_code put data right behind text, whatever N_DATADDR
		 * says: one mapping, which holds code and so stays executable
		 * under --noexecstack too.
		 */
		add_region(p, "text+data", txt, a->text_off, h->text + h->data,
			   STUB_PROT_R | STUB_PROT_W | STUB_PROT_X);
		p->data_addr = (uint32_t)(txt + h->text);
	}
	p->data_size = h->data;
	p->text_addr = (uint32_t)txt;
	p->text_size = h->text;
	if (a->magic == AOUT_QMAGIC) {
		p->text_addr += AOUT_HEADER_SIZE;
		p->text_size -= AOUT_HEADER_SIZE;
	}

	const struct plan_region *last = &p->regions[p->nregions - 1];
	uint64_t file_end = PAGE_UP((uint64_t)last->vaddr + last->size);
	uint64_t zero_lo = PAGE_UP(bss), zero_hi = PAGE_UP(brk);

	if (zero_lo < file_end)
		zero_lo = file_end;
	if (zero_hi > zero_lo) {
		p->zero[0].vaddr = (uint32_t)zero_lo;
		p->zero[0].size = (uint32_t)(zero_hi - zero_lo);
		p->zero[0].prot = rwx;
		p->nzero = 1;
	}
	p->min_addr = (uint32_t)PAGE_DOWN(p->regions[0].vaddr);
	p->image_end = (uint32_t)(zero_hi > file_end ? zero_hi : file_end);
	return 0;
}

static const char *last_component(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash ? slash + 1 : name;
}

/* The index in set of the library whose name (or other name) p has as
 * name's final component, or -1. */
static long library_named(const struct plan *p, const char *name)
{
	for (size_t i = 0; i < p->nlibs; i++)
		if (!strcmp(p->libs[i].name, last_component(name)))
			return p->libs[i].same_as ? (long)p->libs[i].same_as - 1 :
						    (long)i;
	return -1;
}

static int two_libraries(const struct libset *set, long had, size_t lib,
			 const char *name, struct diag *d)
{
	return diag_set(d, "the a.out libraries %s and %s have one file name, "
			   "%s: the converted program could not tell them apart",
			set->libs[had].path, set->libs[lib].path,
			last_component(name));
}

/* An entry for name's final component: 0, or -1 with *d. */
static int add_entry(struct plan *p, const char *name, size_t same_as,
		     struct diag *d)
{
	struct plan_lib *pl;

	if (p->nlibs == STUB_MAX_LIBS)
		return diag_set(d, "names a.out libraries by more than %d file "
				   "names", STUB_MAX_LIBS);
	pl = &p->libs[p->nlibs];
	memset(pl, 0, sizeof *pl);
	snprintf(pl->name, sizeof pl->name, "%s", last_component(name));
	pl->same_as = same_as;
	p->nlibs++;
	return 0;
}

int plan_add_libs(struct plan *p, const struct libset *set,
		  const struct plan_options *opt, const char *const *dirs,
		  size_t ndirs, struct diag *d)
{
	size_t used = 0;
	int embed = !(opt && opt->no_embed_libs);

	p->dynamic = set->n > 0;
	p->lib_lo = p->lib_hi = 0;
	p->nlibs = 0;
	/* libs[i] is set->libs[i]'s (convert.c counts on it) */
	for (size_t i = 0; i < set->n; i++) {
		const struct lib *l = &set->libs[i];
		struct plan_lib *pl = &p->libs[i];
		long had = library_named(p, l->name);

		/* found at run time, each is looked for by its own name */
		if (embed && had >= 0)
			return two_libraries(set, had, i, l->name, d);
		if (add_entry(p, l->name, 0, d))
			return -1;
		/* Not found here: looked up at run time, somewhere in the window. */
		uint32_t lo = l->path ? l->start : PLAN_LIB_WINDOW_LO;
		uint32_t hi = l->path ? l->start + l->len + l->bss_len :
					PLAN_LIB_WINDOW_HI;

		if (!p->lib_hi || lo < p->lib_lo)
			p->lib_lo = lo;
		if (hi > p->lib_hi)
			p->lib_hi = hi;
		if (!l->path)
			continue;
		pl->start = l->start;
		pl->len = l->len;
		pl->bss_len = l->bss_len;
		pl->bytes = l->a.buf + l->a.text_off;
		pl->filesz = l->a.h.text + l->a.h.data;
		pl->embedded = embed;
	}
	/* an embedded library's other names, staged with the first */
	for (size_t i = 0; embed && i < set->n; i++)
		for (size_t k = 0; k < set->libs[i].naliases; k++) {
			const char *name = set->libs[i].aliases[k];
			long had = library_named(p, name);

			if (had >= 0 && (size_t)had != i)
				return two_libraries(set, had, i, name, d);
			if (had < 0 && add_entry(p, name, i + 1, d))
				return -1;
		}
	p->paths[0] = 0;
	for (size_t i = 0; i < ndirs; i++) {
		size_t n = strlen(dirs[i]);

		if (used + (used ? 1 : 0) + n + 1 > sizeof p->paths)
			return diag_set(d, "the -L directories are longer "
					   "than %u bytes in all", STUB_PATHS);
		if (used)
			p->paths[used++] = ':';
		memcpy(p->paths + used, dirs[i], n + 1);
		used += n;
	}
	return 0;
}
