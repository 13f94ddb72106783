/*
 * The ELF writer.  Layout first (pure, testable), then libelf with
 * ELF_F_LAYOUT, because the staging segments need file offsets congruent
 * to their addresses modulo the page size and libelf would not choose them.
 *
 *   0x0000  ELF header, program headers
 *   0x1000  runtime stub (code), struct stub_plan              -> STUB_BASE
 *   page    a.out region 1 (text, or text+data), zero padded  -> staging,
 *           right behind the stub in the file and in memory
 *   page    a.out region 2 (data)                              -> staging
 *   page    embedded libraries                                 -> staging
 *   ...     .symtab .strtab .stab .stabstr .shstrtab, section headers
 *
 * plus the stub's variables, zero pages at STUB_BSS (no file bytes).
 */
#include <errno.h>
#include <limits.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "elfwrite.h"

int elfw_libelf_io;

#define PAGE_UP32(x) (((x) + STUB_PAGE - 1) & ~(STUB_PAGE - 1))

int elfw_stub_header(const unsigned char *stub, size_t size,
		     struct stub_header *h, struct diag *d)
{
	if (size < sizeof *h) {
		diag_set(d, "internal error: runtime stub too small");
		return -1;
	}
	h->magic = le32_at(stub + offsetof(struct stub_header, magic));
	h->version = le32_at(stub + offsetof(struct stub_header, version));
	h->entry_off = le32_at(stub + offsetof(struct stub_header, entry_off));
	h->plan_off = le32_at(stub + offsetof(struct stub_header, plan_off));
	h->filesz = le32_at(stub + offsetof(struct stub_header, filesz));
	h->bss_size = le32_at(stub + offsetof(struct stub_header, bss_size));
	h->uselib_thunk_off = le32_at(stub + offsetof(struct stub_header,
						      uselib_thunk_off));
	h->open_thunk_off = le32_at(stub + offsetof(struct stub_header, open_thunk_off));
	h->readdir_thunk_off = le32_at(stub + offsetof(struct stub_header,
						       readdir_thunk_off));
	/* bounded so that neither the plan nor the bss can wrap around */
	if (h->magic != STUB_MAGIC || h->version != STUB_ABI_VERSION ||
	    h->filesz != size || h->filesz > STUB_MAX_FILESZ ||
	    h->bss_size > STUB_MAX_BSS || h->entry_off >= h->filesz ||
	    h->uselib_thunk_off >= h->filesz || h->open_thunk_off >= h->filesz ||
	    h->readdir_thunk_off >= h->filesz) {
		diag_set(d, "internal error: runtime stub is damaged");
		return -1;
	}
	return 0;
}

int elfw_layout(const struct plan *p, const unsigned char *stub,
		size_t stub_size, struct elfw_layout *l, struct diag *d)
{
	struct stub_header h;

	memset(l, 0, sizeof *l);
	if (elfw_stub_header(stub, stub_size, &h, d))
		return -1;
	l->plan_off = (h.filesz + 15) & ~15u;
	l->stub_filesz = l->plan_off + (uint32_t)sizeof(struct stub_plan);
	l->stub_bss_size = h.bss_size;
	l->stage_base = STUB_BASE + PAGE_UP32(l->stub_filesz);

	/* staging continues the stub, at the same distance in file and memory */
	uint64_t off = ELFW_STUB_OFFSET + (l->stage_base - STUB_BASE);
	uint64_t stage = l->stage_base;

	for (size_t i = 0; i < p->nregions + p->nlibs; i++) {
		uint64_t len;

		if (i < p->nregions) {
			const struct plan_region *r = &p->regions[i];
			len = PAGE_UP32((uint64_t)(r->vaddr % STUB_PAGE) + r->size);
		} else if (p->libs[i - p->nregions].embedded) {
			len = p->libs[i - p->nregions].len;
		} else {
			len = 0;
		}
		if (stage + len > STAGE_LIMIT)
			return diag_set(d, "the a.out image is too large to stage "
					   "(%llu bytes, at most %u)",
					(unsigned long long)(stage + len - l->stage_base),
					STAGE_LIMIT - l->stage_base);
		l->region[i].page_off = (uint32_t)off;
		l->region[i].stage = len ? (uint32_t)stage : 0;
		l->region[i].len = (uint32_t)len;
		if (i < p->nregions && p->direct)
			l->region[i].stage = p->regions[i].vaddr & ~(STUB_PAGE - 1);
		else
			stage += len;
		off += len;
		if (off > UINT32_MAX)
			return diag_set(d, "the converted file would exceed 4 GiB");
	}
	l->nregions = p->nregions + p->nlibs;
	l->end = (uint32_t)off;
	return 0;
}

void elfw_stub_plan(const struct plan *p, const struct elfw_layout *l,
		    struct stub_plan *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->magic = STUB_PLAN_MAGIC;
	sp->flags = (p->noexec ? STUB_F_NOEXEC : 0) |
		    (p->dynamic ? STUB_F_DYNAMIC : 0) |
		    (p->norandom ? STUB_F_NORANDOM : 0) |
		    (p->uselib_sites ? STUB_F_USELIB_PATCHED : 0) |
		    (p->ldso_open_sites ? STUB_F_LDSO_PATCHED : 0) |
		    (p->keep_rawio ? STUB_F_KEEP_RAWIO : 0);
	sp->entry = p->entry;
	sp->start_code = p->start_code;
	sp->end_code = p->end_code;
	sp->start_data = p->start_data;
	sp->end_data = p->end_data;
	sp->start_brk = p->bss_addr;
	sp->brk = p->brk;
	sp->min_addr = p->min_addr;
	sp->trap_lo = p->min_addr;
	sp->trap_hi = p->image_end;
	for (size_t i = 0; i < p->nregions && !p->direct; i++) {
		struct stub_map *m = &sp->maps[sp->nmaps++];

		m->kind = STUB_MAP_MOVE;
		m->dst = p->regions[i].vaddr & ~(STUB_PAGE - 1);
		m->src = l->region[i].stage;
		m->len = l->region[i].len;
		m->prot = p->regions[i].prot;
	}
	for (size_t i = 0; i < p->nzero; i++) {
		struct stub_map *m = &sp->maps[sp->nmaps++];

		m->kind = STUB_MAP_ZERO;
		m->dst = p->zero[i].vaddr;
		m->len = p->zero[i].size;
		m->prot = p->zero[i].prot;
	}
	sp->lib_lo = p->lib_lo;
	sp->lib_hi = p->lib_hi;
	sp->nlibs = (uint32_t)p->nlibs;
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct plan_lib *pl = &p->libs[i];
		struct stub_lib *sl = &sp->libs[i];

		memcpy(sl->name, pl->name, sizeof sl->name);
		sl->name[sizeof sl->name - 1] = 0;
		if (pl->same_as) { /* another name: the same staging */
			const struct stub_lib *first = &sp->libs[pl->same_as - 1];

			sl->start = first->start;
			sl->len = first->len;
			sl->bss_len = first->bss_len;
			sl->stage = first->stage;
		}
		if (!pl->embedded)
			continue;
		sl->start = pl->start;
		sl->len = pl->len;
		sl->bss_len = pl->bss_len;
		sl->stage = l->region[p->nregions + i].stage;
	}
	memcpy(sp->paths, p->paths, sizeof sp->paths);
}

static uint32_t pflags(uint32_t prot)
{
	return (prot & STUB_PROT_R ? PF_R : 0) | (prot & STUB_PROT_W ? PF_W : 0) |
	       (prot & STUB_PROT_X ? PF_X : 0);
}

/* ---- symbols: a.out nlist to ELF ---- */

struct symbols {
	Elf32_Sym *sym;
	size_t nsym, nlocal;
	char *str;
	size_t strlen;
	unsigned char *stab; /* .stab: a header entry, then the a.out stabs */
	size_t nstab;
};

struct sections {
	unsigned text, data, bss;
	uint32_t text_end, data_end, bss_end;
};

static int elf_symbol(const struct aout_symbol *s, const struct sections *sec,
		      Elf32_Sym *out)
{
	unsigned type = s->type & ~N_EXT;
	unsigned bind = s->type & N_EXT ? STB_GLOBAL : STB_LOCAL;
	unsigned stt = STT_NOTYPE, shndx = SHN_ABS;

	/* N_FN (0x1f) would read as N_WARNING|N_EXT: test the whole byte. */
	if (s->type == N_FN) {
		out->st_info = ELF32_ST_INFO(STB_LOCAL, STT_FILE);
		out->st_shndx = SHN_ABS;
		out->st_value = 0;
		return 1;
	}
	if (s->type == N_WARNING || type == N_INDR)
		return 0; /* link-time notions with no ELF counterpart */
	switch (type) {
	case N_TEXT:
		stt = STT_FUNC;
		shndx = sec->text;
		break;
	case N_DATA:
		stt = STT_OBJECT;
		shndx = sec->data ? sec->data : SHN_ABS;
		break;
	case N_BSS:
		stt = STT_OBJECT;
		shndx = sec->bss ? sec->bss : SHN_ABS;
		break;
	case N_UNDF:
		shndx = s->value ? SHN_ABS : SHN_UNDEF;
		break;
	}
	out->st_info = ELF32_ST_INFO(bind, stt);
	out->st_shndx = (Elf32_Half)shndx;
	out->st_value = s->value;
	return 1;
}

static void free_symbols(struct symbols *y)
{
	free(y->sym);
	free(y->str);
	free(y->stab);
	memset(y, 0, sizeof *y);
}

static int by_strx(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * Whether names share bytes: symbols with one string-table offset, or one
 * offset inside another's name.  A name copied per symbol would then let
 * a small file ask for gigabytes (70000 symbols naming one 64 KiB
 * string); 1 if so, 0 if not, -1 out of memory.
 */
static int names_share(const struct aout *a)
{
	const char *strtab = (const char *)a->buf + a->str_off;
	uint32_t *x = malloc((a->nsyms ? a->nsyms : 1) * sizeof *x);
	size_t n = 0;
	int shared = 0;

	if (!x)
		return -1;
	for (size_t i = 0; i < a->nsyms; i++)
		if (a->syms[i].strx && !(a->syms[i].type & N_STAB))
			x[n++] = a->syms[i].strx;
	qsort(x, n, sizeof *x, by_strx);
	for (size_t i = 1; i < n && !shared; i++)
		shared = x[i] < x[i - 1] + strlen(strtab + x[i - 1]) + 1;
	free(x);
	return shared;
}

static uint32_t section_end(const struct sections *sec, unsigned shndx)
{
	return shndx == sec->text ? sec->text_end :
	       shndx == sec->data ? sec->data_end : sec->bss_end;
}

static const Elf32_Sym *sorted_syms;

static int by_section_and_value(const void *a, const void *b)
{
	const Elf32_Sym *x = &sorted_syms[*(const uint32_t *)a];
	const Elf32_Sym *y = &sorted_syms[*(const uint32_t *)b];

	if (x->st_shndx != y->st_shndx)
		return (x->st_shndx > y->st_shndx) - (x->st_shndx < y->st_shndx);
	return (x->st_value > y->st_value) - (x->st_value < y->st_value);
}

/*
 * a.out symbols have no size.  valgrind takes no symbol without one (its
 * reports would name no function), and gdb and objdump read it as the
 * function's extent: each function or object reaches to the next higher
 * symbol of its section, or to the section's end.  0 if out of memory.
 */
static int size_symbols(struct symbols *y, const struct sections *sec)
{
	uint32_t *order = malloc(y->nsym * sizeof *order), n = 0;

	if (!order)
		return 0;
	for (uint32_t i = 1; i < y->nsym; i++)
		if (y->sym[i].st_shndx != SHN_ABS && y->sym[i].st_shndx != SHN_UNDEF)
			order[n++] = i;
	sorted_syms = y->sym;
	qsort(order, n, sizeof *order, by_section_and_value);
	/* from the highest down: next is the lowest value above the current
	 * one in its section (symbols often share one value) */
	for (uint32_t k = n, shndx = 0, sec_end = 0, next = 0, cur = 0; k-- > 0;) {
		Elf32_Sym *s = &y->sym[order[k]];
		unsigned type = ELF32_ST_TYPE(s->st_info);
		uint32_t end;

		if (s->st_shndx != shndx) { /* SHN_UNDEF (0) is never among them */
			shndx = s->st_shndx;
			next = cur = sec_end = section_end(sec, shndx);
		}
		if (s->st_value != cur) { /* a new, lower value */
			next = cur;
			cur = s->st_value;
		}
		end = next < sec_end ? next : sec_end;
		if ((type == STT_FUNC || type == STT_OBJECT) && end > s->st_value)
			s->st_size = end - s->st_value;
	}
	free(order);
	return 1;
}

static int build_symbols(const struct aout *a, const struct sections *sec,
			 struct symbols *y, struct diag *d)
{
	size_t strcap = 1;
	int shared = names_share(a);

	memset(y, 0, sizeof *y);
	/*
	 * Names that share bytes are all taken as they lie in the a.out
	 * string table (behind a NUL, in place of its size word): a name's
	 * offset is then its a.out offset less 3, and the table never grows.
	 */
	if (shared > 0)
		strcap = a->str_size - 3;
	else /* stabs keep their names in .stabstr */
		for (size_t i = 0; i < a->nsyms; i++)
			if (!(a->syms[i].type & N_STAB))
				strcap += strlen(a->syms[i].name) + 1;
	y->sym = calloc(a->nsyms + 1, sizeof *y->sym);
	y->str = shared < 0 ? NULL : malloc(strcap);
	y->stab = malloc((a->nsyms + 1) * AOUT_NLIST_SIZE);
	if (!y->sym || !y->str || !y->stab) {
		free_symbols(y);
		return diag_set(d, "out of memory for the symbol table");
	}
	y->str[0] = 0;
	y->strlen = 1;
	if (shared) {
		memcpy(y->str + 1, a->buf + a->str_off + 4, a->str_size - 4);
		y->strlen = strcap;
	}
	y->nsym = 1;
	y->nstab = 1;
	/* ELF wants the locals first: two passes over the nlist. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < a->nsyms; i++) {
			const struct aout_symbol *s = &a->syms[i];
			int global = (s->type & N_EXT) && s->type != N_FN;
			Elf32_Sym e = { 0 };

			if (s->type & N_STAB) {
				if (pass == 0)
					memcpy(y->stab + AOUT_NLIST_SIZE * y->nstab++,
					       a->buf + a->sym_off + i * AOUT_NLIST_SIZE,
					       AOUT_NLIST_SIZE);
				continue;
			}
			if (global != pass || !s->name[0] || !elf_symbol(s, sec, &e))
				continue;
			if (shared) {
				e.st_name = s->strx - 3;
			} else {
				size_t n = strlen(s->name) + 1;

				e.st_name = (Elf32_Word)y->strlen;
				memcpy(y->str + y->strlen, s->name, n);
				y->strlen += n;
			}
			y->sym[y->nsym++] = e;
		}
		if (pass == 0)
			y->nlocal = y->nsym;
	}
	if (!size_symbols(y, sec)) {
		free_symbols(y);
		return diag_set(d, "out of memory for the symbol table");
	}
	/*
	 * The ELF .stab header entry: n_desc = count, n_value = string bytes.
	 * n_desc has 16 bits; readers (gdb) go by the section size, so a count
	 * beyond that is written as 0xffff.
	 */
	unsigned char *h = y->stab;
	uint32_t count = (uint32_t)(y->nstab - 1), strsz = a->str_size;

	if (count > 0xffff)
		count = 0xffff;
	memset(h, 0, AOUT_NLIST_SIZE);
	h[6] = count & 0xff;
	h[7] = (count >> 8) & 0xff;
	memcpy(h + 8, &strsz, 4);
	return 0;
}

/* ---- the ELF file ---- */

struct writer {
	Elf *e;
	unsigned nscn;
	char shstr[256 + STUB_MAX_LIBS * (STUB_LIB_NAME + 8)];
	size_t shstrlen;
	uint64_t next_off; /* for the sections that are not loaded */
	int err;           /* libelf's error where add_section failed */
};

/*
 * The most .comment can hold: the options line, and a line per library
 * naming its path (conv_file_comment).
 */
#define COMMENT_MAX ((uint64_t)(STUB_MAX_LIBS + 1) * (4096 + 256))

int elfw_check(const struct aout *a, const struct plan *p,
	       const unsigned char *stub, size_t stub_size, struct diag *d)
{
	struct elfw_layout l;

	if (elfw_layout(p, stub, stub_size, &l, d))
		return -1;
	/* the symbols as ELF symbols and as stabs, the strings twice */
	uint64_t nsym = a->no_symbols ? 0 : (uint64_t)a->h.syms / AOUT_NLIST_SIZE + 1;
	uint64_t strs = a->no_symbols ? 0 : (uint64_t)a->str_size + 1;
	uint64_t end = (uint64_t)l.end + nsym * (sizeof(Elf32_Sym) + AOUT_NLIST_SIZE) +
		       2 * strs + COMMENT_MAX + sizeof(((struct writer *)0)->shstr) +
		       (16 + STUB_MAX_LIBS) * (sizeof(Elf32_Shdr) + 16);

	if (end > UINT32_MAX)
		return diag_set(d, "its symbol and string tables are too large: the "
				   "ELF file would pass 4 GiB, which ELF32 cannot "
				   "address");
	return 0;
}

static unsigned add_section(struct writer *w, const char *name, uint32_t type,
			    uint32_t flags, uint32_t addr, uint32_t off,
			    const void *buf, size_t size, Elf_Type dtype,
			    uint32_t align, uint32_t entsize)
{
	Elf32_Shdr *sh = NULL;
	Elf_Data *dd = NULL;
	size_t n = strlen(name) + 1;

	/*
	 * Out of memory for the section header, elf_newscn (elfutils 0.188)
	 * still returns the section, without one: only the error it sets
	 * tells, and elf32_getshdr of that section would crash.
	 */
	(void)elf_errno();
	Elf_Scn *s = elf_newscn(w->e);

	w->err = elf_errno();
	if (s && !w->err) {
		sh = elf32_getshdr(s);
		dd = sh ? elf_newdata(s) : NULL;
		w->err = elf_errno();
	}
	if (!sh || !dd)
		return 0;
	dd->d_buf = (void *)buf;
	dd->d_size = size;
	dd->d_type = dtype;
	dd->d_align = align;
	dd->d_off = 0;
	dd->d_version = EV_CURRENT;
	sh->sh_name = (Elf32_Word)w->shstrlen;
	memcpy(w->shstr + w->shstrlen, name, n);
	w->shstrlen += n;
	sh->sh_type = type;
	sh->sh_flags = flags;
	sh->sh_addr = addr;
	sh->sh_addralign = align;
	sh->sh_entsize = entsize;
	sh->sh_size = (Elf32_Word)size;
	if (off == 0) { /* not loaded: placed after everything else */
		uint64_t at = (w->next_off + align - 1) & ~(uint64_t)(align - 1);

		if (type != SHT_NOBITS)
			w->next_off = at + size;
		/* past 4 GiB: elfw_check let no such input through */
		off = at > UINT32_MAX ? UINT32_MAX : (uint32_t)at;
	}
	sh->sh_offset = off;
	return ++w->nscn;
}

static Elf32_Shdr *shdr(struct writer *w, unsigned idx)
{
	return elf32_getshdr(elf_getscn(w->e, idx));
}

static int elf_failed(struct diag *d, const char *what)
{
	return diag_set(d, "libelf: %s: %s", what, elf_errmsg(-1));
}

/* The same where add_section failed (it took the error from libelf). */
static int section_failed(const struct writer *w, struct diag *d,
			  const char *what)
{
	return diag_set(d, "libelf: %s: %s", what,
			elf_errmsg(w->err ? w->err : -1));
}

/* The a.out parts, at their real addresses, pointing into the staged bytes. */
static int add_aout_sections(struct writer *w, const struct aout *a,
			     const struct plan *p, const struct elfw_layout *l,
			     struct sections *sec)
{
	const struct plan_region *r0 = &p->regions[0];
	uint32_t off0 = l->region[0].page_off + r0->vaddr % STUB_PAGE;
	uint32_t wx = p->magic == AOUT_QMAGIC ? 0 : SHF_WRITE;
	uint32_t text_off = off0, data_off;

	if (p->magic == AOUT_QMAGIC) {
		if (!add_section(w, ".aout.header", SHT_PROGBITS, SHF_ALLOC,
				 r0->vaddr, off0, a->buf, AOUT_HEADER_SIZE,
				 ELF_T_BYTE, 1, 0))
			return -1;
		text_off += AOUT_HEADER_SIZE;
	}
	sec->text = add_section(w, ".text", SHT_PROGBITS,
				SHF_ALLOC | SHF_EXECINSTR | wx, p->text_addr,
				text_off, a->buf + a->text_off +
					  (text_off - off0),
				p->text_size, ELF_T_BYTE, 1, 0);
	if (!sec->text)
		return -1;
	sec->text_end = p->text_addr + p->text_size;
	sec->data_end = p->data_addr + p->data_size;
	sec->bss_end = p->bss_addr + p->bss_size;
	if (p->nregions == 2)
		data_off = l->region[1].page_off + p->regions[1].vaddr % STUB_PAGE;
	else
		data_off = off0 + a->h.text;
	if (p->data_size) {
		sec->data = add_section(w, ".data", SHT_PROGBITS,
					SHF_ALLOC | SHF_WRITE, p->data_addr,
					data_off, a->buf + a->data_off,
					p->data_size, ELF_T_BYTE, 1, 0);
		if (!sec->data)
			return -1;
	}
	if (p->bss_size) {
		sec->bss = add_section(w, ".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE,
				       p->bss_addr, l->end, NULL, p->bss_size,
				       ELF_T_BYTE, 1, 0);
		if (!sec->bss)
			return -1;
	}
	return 0;
}

static int add_symbol_sections(struct writer *w, const struct aout *a,
			       const struct symbols *y)
{
	if (y->nsym > 1) {
		unsigned symtab = add_section(w, ".symtab", SHT_SYMTAB, 0, 0, 0,
					      y->sym, y->nsym * sizeof(Elf32_Sym),
					      ELF_T_SYM, 4, sizeof(Elf32_Sym));
		unsigned strtab = symtab ? add_section(w, ".strtab", SHT_STRTAB, 0,
						       0, 0, y->str, y->strlen,
						       ELF_T_BYTE, 1, 0) :
					   0;
		if (!strtab) /* w->err is the failed call's */
			return -1;
		shdr(w, symtab)->sh_link = strtab;
		shdr(w, symtab)->sh_info = (Elf32_Word)y->nlocal;
	}
	if (y->nstab > 1) {
		unsigned stab = add_section(w, ".stab", SHT_PROGBITS, 0, 0, 0,
					    y->stab, y->nstab * AOUT_NLIST_SIZE,
					    ELF_T_BYTE, 4, AOUT_NLIST_SIZE);
		unsigned stabstr = stab ? add_section(w, ".stabstr", SHT_STRTAB, 0,
						      0, 0, a->buf + a->str_off,
						      a->str_size, ELF_T_BYTE, 1,
						      0) :
					  0;
		if (!stabstr)
			return -1;
		shdr(w, stab)->sh_link = stabstr;
	}
	return 0;
}

/*
 * The stub's code takes the access of the a.out region staged behind it,
 * so that the kernel maps the two as one (see STUB_BASE).  That region
 * holds the a.out text, so it is executable like the stub's code.
 */
uint32_t elfw_stub_prot(const struct plan *p)
{
	return STUB_PROT_R | STUB_PROT_X | (p->direct ? 0 : p->regions[0].prot);
}

/*
 * The first staged region continues the stub in file and memory with the
 * same access: one PT_LOAD maps both, which saves exec a mapping call
 * (about a microsecond of every start).
 */
static int stub_takes_region0(const struct plan *p, const struct elfw_layout *l)
{
	return !p->direct && p->nregions > 0 && l->region[0].stage == l->stage_base &&
	       pflags(elfw_stub_prot(p)) == pflags(p->regions[0].prot);
}

static size_t region_headers(Elf32_Phdr *ph, size_t n, const struct plan *p,
			     const struct elfw_layout *l)
{
	for (size_t i = stub_takes_region0(p, l); i < p->nregions; i++, n++) {
		uint32_t in_page = p->regions[i].vaddr % STUB_PAGE;

		ph[n].p_type = PT_LOAD;
		ph[n].p_offset = l->region[i].page_off + in_page;
		ph[n].p_vaddr = ph[n].p_paddr = l->region[i].stage + in_page;
		ph[n].p_filesz = ph[n].p_memsz = p->regions[i].size;
		ph[n].p_flags = pflags(p->regions[i].prot);
		ph[n].p_align = STUB_PAGE;
	}
	return n;
}

/* In address order: the kernel maps PT_LOADs as they come. */
static void fill_program_headers(Elf32_Phdr *ph, const struct plan *p,
				 const struct elfw_layout *l)
{
	size_t n = 0;

	if (p->direct)
		n = region_headers(ph, n, p, l);
	ph[n].p_type = PT_LOAD;
	ph[n].p_offset = ELFW_STUB_OFFSET;
	ph[n].p_vaddr = ph[n].p_paddr = STUB_BASE;
	ph[n].p_filesz = ph[n].p_memsz = l->stub_filesz;
	if (stub_takes_region0(p, l))
		ph[n].p_filesz = ph[n].p_memsz = l->stage_base - STUB_BASE +
						 p->regions[0].vaddr % STUB_PAGE +
						 p->regions[0].size;
	ph[n].p_flags = pflags(elfw_stub_prot(p));
	ph[n].p_align = STUB_PAGE;
	n++;
	if (!p->direct)
		n = region_headers(ph, n, p, l);
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct plan_lib *pl = &p->libs[i];

		if (!pl->embedded)
			continue;
		ph[n].p_type = PT_LOAD;
		ph[n].p_offset = l->region[p->nregions + i].page_off;
		ph[n].p_vaddr = ph[n].p_paddr = l->region[p->nregions + i].stage;
		ph[n].p_filesz = ph[n].p_memsz = pl->filesz;
		ph[n].p_flags = PF_R | PF_W | PF_X; /* as uselib mapped it */
		ph[n].p_align = STUB_PAGE;
		n++;
	}
	/*
	 * the stub's variables: zero pages, nothing from the file.  Under
	 * --direct its offset is that of a writable page the file maps:
	 * valgrind reads no symbol of a file whose PT_LOAD lies where nothing
	 * of it is mapped.  Staged, the a.out sections are not where the
	 * segments put them at exec, which valgrind would call a serious
	 * error: there it finds none and says nothing.
	 */
	ph[n].p_type = PT_LOAD;
	ph[n].p_offset = 0;
	for (size_t i = 0; i < n && p->direct; i++)
		if ((ph[i].p_flags & PF_W) && ph[i].p_filesz)
			ph[n].p_offset = ph[i].p_offset & ~(STUB_PAGE - 1);
	ph[n].p_vaddr = ph[n].p_paddr = STUB_BSS;
	ph[n].p_filesz = 0;
	ph[n].p_memsz = l->stub_bss_size;
	ph[n].p_flags = PF_R | PF_W;
	ph[n].p_align = STUB_PAGE;
	/*
	 * Without PT_GNU_STACK the kernel gives a 32-bit program
	 * READ_IMPLIES_EXEC, as every a.out program had on pre-NX hardware.
	 */
	if (p->noexec) {
		n++;
		memset(&ph[n], 0, sizeof ph[n]);
		ph[n].p_type = PT_GNU_STACK;
		ph[n].p_flags = PF_R | PF_W;
		ph[n].p_align = 16;
	}
}

/*
 * Read with libelf, as any ELF file: the output of another tool (or of an
 * older aout2elf, without one) only has no comment of aout2elf's.
 */
char *elfw_read_comment(int fd, size_t *size)
{
	Elf *e;
	Elf_Scn *s = NULL;
	size_t shstrndx;
	char *copy = NULL;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return NULL;
	if (elf_kind(e) == ELF_K_ELF && elf_getshdrstrndx(e, &shstrndx) == 0)
		while ((s = elf_nextscn(e, s)) != NULL) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *dd;

			if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS)
				continue;
			name = elf_strptr(e, shstrndx, sh.sh_name);
			if (!name || strcmp(name, ".comment") != 0)
				continue;
			dd = elf_getdata(s, NULL);
			if (dd && dd->d_buf && dd->d_size > 0 &&
			    ((const char *)dd->d_buf)[dd->d_size - 1] == 0 &&
			    (copy = malloc(dd->d_size)) != NULL) {
				memcpy(copy, dd->d_buf, dd->d_size);
				*size = dd->d_size;
			}
			break;
		}
	elf_end(e);
	return copy;
}

int elfw_is_converted(int fd)
{
	unsigned char elf[4], stub[4];

	return pread(fd, elf, 4, 0) == 4 && !memcmp(elf, ELFMAG, 4) &&
	       pread(fd, stub, 4, ELFW_STUB_OFFSET) == 4 && le32_at(stub) == STUB_MAGIC;
}

/*
 * ---- the bytes out: one pwritev ----
 *
 * libelf lays the file out (elf_update with ELF_C_NULL) and converts the
 * headers to their file form (elf32_xlatetof); the pieces then go out in
 * file order, gaps as zeros, in one pwritev.  libelf's own ELF_C_WRITE
 * sizes the file with ftruncate and makes a pwrite for every section and
 * gap, eleven for aln, and on ext4 every such call costs about 2.5 us:
 * a sixth of a whole conversion of aln (see bench/README).  The
 * unit tests write every case both ways and compare the bytes.
 */
static int by_offset(const void *a, const void *b)
{
	const struct elfw_piece *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static int to_file_form(void *dst, const void *src, size_t size, Elf_Type t)
{
	Elf_Data mem = { .d_buf = (void *)src, .d_type = t, .d_size = size,
			 .d_version = EV_CURRENT };
	Elf_Data file = { .d_buf = dst, .d_type = t, .d_size = size,
			  .d_version = EV_CURRENT };

	return elf32_xlatetof(&file, &mem, ELFDATA2LSB) ? 0 : -1;
}

static int pwrite_all(int fd, struct iovec *iov, size_t n, off_t off)
{
	while (n > 0) {
		ssize_t w = pwritev(fd, iov, (int)(n < IOV_MAX ? n : IOV_MAX), off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
		off += w;
		for (; n > 0 && (size_t)w >= iov->iov_len; iov++, n--)
			w -= (ssize_t)iov->iov_len;
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* Fills iov (when not NULL) with the pieces in file order and the zeros
 * between them; returns how many entries that takes. */
static size_t gather(const struct elfw_piece *pc, size_t npc, uint64_t size,
		     struct iovec *iov)
{
	static const unsigned char zeros[STUB_PAGE];
	size_t n = 0;
	uint64_t pos = 0;

	for (size_t i = 0; i <= npc; i++) {
		uint64_t to = i < npc ? pc[i].off : size;

		for (; pos < to; n++) {
			size_t z = to - pos < sizeof zeros ? (size_t)(to - pos) : sizeof zeros;

			if (iov)
				iov[n] = (struct iovec){ (void *)zeros, z };
			pos += z;
		}
		if (i < npc && pc[i].len) {
			if (iov)
				iov[n] = (struct iovec){ (void *)pc[i].buf, pc[i].len };
			n++;
			pos += pc[i].len;
		}
	}
	return n;
}

int elfw_write_pieces(int fd, struct elfw_piece *pc, size_t npc, uint64_t size,
		      struct diag *d)
{
	if (npc) /* qsort's pointer must be valid even for no elements */
		qsort(pc, npc, sizeof *pc, by_offset);
	for (size_t i = 0; i < npc; i++)
		if (pc[i].off + pc[i].len > (i + 1 < npc ? pc[i + 1].off : size))
			return diag_set(d, "internal error: the ELF pieces overlap or pass its end");

	size_t n = gather(pc, npc, size, NULL);
	struct iovec *iov = n ? malloc(n * sizeof *iov) : NULL;

	if (!iov)
		return diag_set(d, n ? "out of memory" : "internal error: an empty ELF file");
	gather(pc, npc, size, iov);
	int rc = pwrite_all(fd, iov, n, 0);

	if (rc)
		diag_set(d, "write error: %s", strerror(errno));
	free(iov);
	return rc ? -1 : 0;
}

static int write_image(Elf *e, int fd, struct diag *d)
{
	size_t phnum, shnum;
	int rc = -1;
	off_t size = elf_update(e, ELF_C_NULL);
	Elf32_Ehdr *eh = elf32_getehdr(e);

	if (size < 0 || !eh || elf_getphdrnum(e, &phnum) ||
	    elf_getshdrnum(e, &shnum))
		return elf_failed(d, "laying out the file");

	/* the headers and the section header table, in file form */
	size_t phsize = phnum * sizeof(Elf32_Phdr), shsize = shnum * sizeof(Elf32_Shdr);
	size_t hsize = sizeof(Elf32_Ehdr) + phsize + shsize;
	unsigned char *heads = malloc(hsize);
	Elf32_Shdr *shdrs = malloc(shsize ? shsize : 1);
	/* at most: headers, section table, one piece per section's data */
	size_t cap = 3, npc = 0;
	struct elfw_piece *pc = NULL;
	unsigned char **converted = NULL;
	size_t nconv = 0;

	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));)
		for (Elf_Data *dd = NULL; (dd = elf_getdata(s, dd));)
			cap++;
	pc = malloc(cap * sizeof *pc);
	converted = calloc(cap, sizeof *converted);
	if (!heads || !shdrs || !pc || !converted) {
		diag_set(d, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < shnum; i++) {
		Elf32_Shdr *sh = elf32_getshdr(elf_getscn(e, i));

		if (!sh) {
			elf_failed(d, "reading back a section header");
			goto out;
		}
		shdrs[i] = *sh;
	}
	unsigned char *ph_file = heads + sizeof(Elf32_Ehdr), *sh_file = ph_file + phsize;

	if (to_file_form(heads, eh, sizeof *eh, ELF_T_EHDR) ||
	    (phsize && to_file_form(ph_file, elf32_getphdr(e), phsize, ELF_T_PHDR)) ||
	    (shsize && to_file_form(sh_file, shdrs, shsize, ELF_T_SHDR))) {
		elf_failed(d, "converting the headers");
		goto out;
	}
	pc[npc++] = (struct elfw_piece){ 0, heads, sizeof(Elf32_Ehdr) };
	if (phsize)
		pc[npc++] = (struct elfw_piece){ eh->e_phoff, ph_file, phsize };
	if (shsize)
		pc[npc++] = (struct elfw_piece){ eh->e_shoff, sh_file, shsize };
	for (size_t i = 1; i < shnum; i++) {
		if (shdrs[i].sh_type == SHT_NOBITS)
			continue;
		for (Elf_Data *dd = NULL; (dd = elf_getdata(elf_getscn(e, i), dd));) {
			const void *bytes = dd->d_buf;

			if (!dd->d_size)
				continue;
			if (dd->d_type != ELF_T_BYTE) {
				unsigned char *f = malloc(dd->d_size);

				converted[nconv++] = f;
				if (!f) {
					diag_set(d, "out of memory");
					goto out;
				}
				if (to_file_form(f, dd->d_buf, dd->d_size, dd->d_type)) {
					elf_failed(d, "converting section data");
					goto out;
				}
				bytes = f;
			}
			pc[npc++] = (struct elfw_piece){ (uint64_t)shdrs[i].sh_offset +
							    (uint64_t)dd->d_off,
						    bytes, dd->d_size };
		}
	}
	rc = elfw_write_pieces(fd, pc, npc, (uint64_t)size, d);
out:
	for (size_t i = 0; i < nconv; i++)
		free(converted[i]);
	free(converted);
	free(pc);
	free(shdrs);
	free(heads);
	return rc;
}

/* libelf's own writer: kept for the unit tests, which compare the two. */
static int libelf_write(Elf *e, struct diag *d)
{
	errno = 0;
	if (elf_update(e, ELF_C_WRITE) >= 0)
		return 0;
	/* libelf says only "cannot write"; the system says why */
	if (errno)
		return diag_set(d, "write error: %s", strerror(errno));
	return elf_failed(d, "writing");
}

int elfw_write(int fd, const struct aout *a, const struct plan *p,
	       const unsigned char *stub, size_t stub_size, struct diag *d)
{
	return elfw_write_with_comment(fd, a, p, stub, stub_size, NULL, 0, d);
}

int elfw_write_with_comment(int fd, const struct aout *a, const struct plan *p,
			    const unsigned char *stub, size_t stub_size,
			    const char *comment, size_t comment_size,
			    struct diag *d)
{
	struct elfw_layout l;
	struct stub_plan sp;
	struct symbols y = { 0 };
	struct sections sec = { 0 };
	struct writer w = { .shstrlen = 1 };
	unsigned char *stubseg = NULL;
	int rc = -1;

	if (elfw_layout(p, stub, stub_size, &l, d))
		return -1;
	elfw_stub_plan(p, &l, &sp);
	stubseg = calloc(1, l.stub_filesz);
	if (!stubseg)
		return diag_set(d, "out of memory");
	memcpy(stubseg, stub, stub_size);
	memcpy(stubseg + offsetof(struct stub_header, plan_off), &l.plan_off, 4);
	memcpy(stubseg + l.plan_off, &sp, sizeof sp);

	if (elf_version(EV_CURRENT) == EV_NONE) {
		free(stubseg);
		return elf_failed(d, "initialisation");
	}
	w.e = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!w.e) {
		free(stubseg);
		return elf_failed(d, "elf_begin");
	}
	w.next_off = l.end;

	Elf32_Ehdr *eh = elf32_newehdr(w.e);
	size_t nph = p->nregions + 2 + (p->noexec ? 1 : 0) - stub_takes_region0(p, &l);

	for (size_t i = 0; i < p->nlibs; i++)
		nph += p->libs[i].embedded;
	Elf32_Phdr *ph = eh ? elf32_newphdr(w.e, nph) : NULL;
	if (!ph) {
		elf_failed(d, "creating the headers");
		goto out;
	}
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_OSABI] = ELFOSABI_SYSV;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_386;
	eh->e_version = EV_CURRENT;
	eh->e_entry = STUB_BASE + le32_at(stub + offsetof(struct stub_header, entry_off));
	eh->e_phoff = sizeof(Elf32_Ehdr);
	elf_flagelf(w.e, ELF_C_SET, ELF_F_LAYOUT);
	fill_program_headers(ph, p, &l);

	if (add_aout_sections(&w, a, p, &l, &sec) ||
	    !add_section(&w, ".aout2elf.stub", SHT_PROGBITS,
			 SHF_ALLOC | SHF_EXECINSTR, STUB_BASE, ELFW_STUB_OFFSET,
			 stubseg, l.stub_filesz, ELF_T_BYTE, 16, 0) ||
	    !add_section(&w, ".aout2elf.bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE,
			 STUB_BSS, l.end, NULL, l.stub_bss_size, ELF_T_BYTE, 16,
			 0)) {
		section_failed(&w, d, "adding the a.out sections");
		goto out;
	}
	for (size_t i = 0; i < p->nlibs; i++) {
		const struct plan_lib *pl = &p->libs[i];
		char name[STUB_LIB_NAME + 8];

		if (!pl->embedded)
			continue;
		snprintf(name, sizeof name, ".lib.%s", pl->name);
		if (!add_section(&w, name, SHT_PROGBITS,
				 SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR,
				 l.region[p->nregions + i].stage,
				 l.region[p->nregions + i].page_off, pl->bytes,
				 pl->filesz, ELF_T_BYTE, STUB_PAGE, 0)) {
			section_failed(&w, d, "adding a library");
			goto out;
		}
	}
	if (build_symbols(a, &sec, &y, d))
		goto out;
	if (add_symbol_sections(&w, a, &y)) {
		section_failed(&w, d, "adding the symbol table");
		goto out;
	}
	if (comment && !add_section(&w, ".comment", SHT_PROGBITS,
				    SHF_MERGE | SHF_STRINGS, 0, 0, comment,
				    comment_size, ELF_T_BYTE, 1, 1)) {
		section_failed(&w, d, "adding .comment");
		goto out;
	}
	unsigned shstrndx = add_section(&w, ".shstrtab", SHT_STRTAB, 0, 0, 0,
					w.shstr, 0, ELF_T_BYTE, 1, 0);
	if (!shstrndx) {
		section_failed(&w, d, "adding .shstrtab");
		goto out;
	}
	/* Its own name was added by add_section, so size it afterwards. */
	Elf_Data *sd = elf_getdata(elf_getscn(w.e, shstrndx), NULL);
	sd->d_size = w.shstrlen;
	shdr(&w, shstrndx)->sh_size = (Elf32_Word)w.shstrlen;
	w.next_off += w.shstrlen;
	eh->e_shstrndx = (Elf32_Half)shstrndx;
	if (((w.next_off + 3) & ~(uint64_t)3) + (uint64_t)(w.nscn + 1) * sizeof(Elf32_Shdr) >
	    UINT32_MAX) {
		diag_set(d, "the ELF file would pass 4 GiB, which ELF32 cannot address");
		goto out;
	}
	eh->e_shoff = (Elf32_Off)((w.next_off + 3) & ~(uint64_t)3);

	rc = elfw_libelf_io ? libelf_write(w.e, d) : write_image(w.e, fd, d);
out:
	elf_end(w.e);
	free_symbols(&y);
	free(stubseg);
	return rc;
}
