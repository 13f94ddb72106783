/*
 * The a.out reader.  Follows the checks of load_aout_binary in the
 * kernel's ia32_aout.c and adds the ones a converter needs because it also
 * reads the symbol table: sizes are summed in 64 bits, and nothing past
 * the header is touched before it is known to be inside the buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "aout.h"

const char *aout_magic_name(unsigned magic)
{
	switch (magic) {
	case AOUT_OMAGIC:
		return "OMAGIC";
	case AOUT_NMAGIC:
		return "NMAGIC";
	case AOUT_ZMAGIC:
		return "ZMAGIC";
	case AOUT_QMAGIC:
		return "QMAGIC";
	}
	return "unknown";
}

static int known_magic(unsigned magic)
{
	return magic == AOUT_OMAGIC || magic == AOUT_NMAGIC ||
	       magic == AOUT_ZMAGIC || magic == AOUT_QMAGIC;
}

uint64_t aout_txtaddr(const struct aout *a)
{
	return a->magic == AOUT_QMAGIC ? AOUT_PAGE : 0;
}

/* SEGMENT_SIZE is PAGE_SIZE for the x86-64 kernel that ran ia32_aout.c. */
uint64_t aout_dataddr(const struct aout *a)
{
	uint64_t end = aout_txtaddr(a) + a->h.text;

	if (a->magic == AOUT_OMAGIC)
		return end;
	return (end + AOUT_PAGE - 1) & ~(uint64_t)(AOUT_PAGE - 1);
}

uint32_t aout_lib_start(const struct aout *a)
{
	return aout_library_base(a->h.entry);
}

const uint8_t *aout_at(const struct aout *a, uint32_t addr, size_t *avail)
{
	uint64_t base, data;

	if (a->kind == AOUT_SHLIB) {
		base = aout_lib_start(a);
		data = base + a->h.text; /* copied or mapped in one piece */
	} else {
		/* as loaded: only QMAGIC was mmapped, the others copied whole */
		base = aout_txtaddr(a);
		data = a->magic == AOUT_QMAGIC ? aout_dataddr(a) : base + a->h.text;
	}
	if (addr >= base && addr < base + a->h.text) {
		*avail = (size_t)(base + a->h.text - addr);
		return a->buf + a->text_off + (addr - base);
	}
	if (addr >= data && addr < data + a->h.data) {
		*avail = (size_t)(data + a->h.data - addr);
		return a->buf + a->data_off + (addr - data);
	}
	return NULL;
}

uint64_t aout_bssaddr(const struct aout *a)
{
	return aout_dataddr(a) + a->h.data;
}

static int parse_header(const uint8_t *buf, size_t size, struct aout *a,
			struct diag *d)
{
	if (size == 0)
		return diag_set(d, "empty file, not an a.out executable");
	if (size >= 4 && memcmp(buf, "\177ELF", 4) == 0)
		return diag_set(d, "already an ELF file, not an a.out executable");
	if (size >= 2 && !known_magic(le16_at(buf)))
		return diag_set(d, "not an a.out executable (unknown magic 0%o)",
				le16_at(buf));
	if (size < AOUT_HEADER_SIZE)
		return diag_set(d, "truncated a.out header (%zu of 32 bytes)", size);

	a->h = aout_header_at(buf);
	a->magic = AOUT_INFO_MAGIC(a->h.info);
	a->machine = AOUT_INFO_MACHINE(a->h.info);
	a->flags = AOUT_INFO_FLAGS(a->h.info);
	if (a->machine != AOUT_M_386 && a->machine != AOUT_M_OLD)
		return diag_set(d, "machine type %u is not i386 (100)", a->machine);
	if (a->h.trsize || a->h.drsize)
		return diag_set(d, "has relocation tables (%u + %u bytes): an "
				   "object file, not an executable",
				a->h.trsize, a->h.drsize);
	return 0;
}

static int parse_layout(size_t size, struct aout *a, struct diag *d)
{
	const struct aout_header *h = &a->h;

	a->text_off = aout_text_offset(a->magic);
	if (a->magic == AOUT_QMAGIC && h->text < AOUT_HEADER_SIZE)
		return diag_set(d, "QMAGIC text size %u is smaller than its own "
				   "header", h->text);

	uint64_t need = (uint64_t)a->text_off + h->text + h->data + h->syms;
	if (need > size)
		return diag_set(d, "truncated: the header claims %llu bytes of "
				   "%stext, data and symbols, the file has %zu",
				(unsigned long long)need,
				a->text_off ? "header, " : "", size);
	if (h->syms % AOUT_NLIST_SIZE && !a->no_symbols)
		return diag_set(d, "symbol table size %u is not a multiple of %u",
				h->syms, AOUT_NLIST_SIZE);
	a->data_off = a->text_off + h->text;
	a->sym_off = a->data_off + h->data;
	a->str_off = a->sym_off + h->syms;

	if (a->kind == AOUT_SHLIB) {
		if (a->magic != AOUT_QMAGIC && a->magic != AOUT_ZMAGIC)
			return diag_set(d, "%s is not a shared library format "
					   "(QMAGIC or ZMAGIC)",
					aout_magic_name(a->magic));
		if (a->magic == AOUT_ZMAGIC && (h->entry & 0xfff))
			return diag_set(d, "ZMAGIC library entry 0x%x is not page "
					   "aligned", h->entry);
		if (a->flags)
			return diag_set(d, "library has flags 0x%x set", a->flags);
		return 0;
	}
	uint64_t text_lo = aout_txtaddr(a), text_hi = text_lo + h->text;
	if (h->entry < text_lo || h->entry >= text_hi)
		return diag_set(d, "entry point 0x%x is outside the text segment "
				   "(0x%llx-0x%llx)", h->entry,
				(unsigned long long)text_lo,
				(unsigned long long)text_hi);
	return 0;
}

static int parse_strings(const uint8_t *buf, size_t size, struct aout *a,
			 struct diag *d)
{
	a->str_size = 0;
	if (a->h.syms == 0 || a->no_symbols)
		return 0; /* stripped: whatever follows is not ours to judge */
	if ((uint64_t)a->str_off + 4 > size)
		return diag_set(d, "truncated: the string table's size word is "
				   "missing");
	a->str_size = le32_at(buf + a->str_off);
	if (a->str_size < 4)
		return diag_set(d, "string table size %u is smaller than its own "
				   "size word", a->str_size);
	if ((uint64_t)a->str_off + a->str_size > size)
		return diag_set(d, "truncated: the string table claims %u bytes, "
				   "%llu are left in the file", a->str_size,
				(unsigned long long)(size - a->str_off));
	return 0;
}

static int parse_symbols(const uint8_t *buf, struct aout *a, struct diag *d)
{
	a->nsyms = a->no_symbols ? 0 : a->h.syms / AOUT_NLIST_SIZE;
	if (a->nsyms == 0)
		return 0;
	a->syms = calloc(a->nsyms, sizeof *a->syms);
	if (!a->syms)
		return diag_set(d, "out of memory for %zu symbols", a->nsyms);

	const char *strtab = (const char *)buf + a->str_off;
	/* a name is terminated if a NUL follows it: one look, not one per symbol */
	const char *last_nul = a->str_size ? memrchr(strtab, 0, a->str_size) : NULL;

	for (size_t i = 0; i < a->nsyms; i++) {
		const uint8_t *n = buf + a->sym_off + i * AOUT_NLIST_SIZE;
		struct aout_symbol *s = &a->syms[i];

		s->strx = le32_at(n);
		s->type = n[4];
		s->other = n[5];
		s->desc = le16_at(n + 6);
		s->value = le32_at(n + 8);
		if (s->strx == 0) {
			s->name = "";
			continue;
		}
		if (s->strx < 4)
			return diag_set(d, "symbol %zu: name offset %u is inside "
					   "the string table's size word", i, s->strx);
		if (s->strx >= a->str_size)
			return diag_set(d, "symbol %zu: name offset %u is outside "
					   "the string table (%u bytes)",
					i, s->strx, a->str_size);
		if (!last_nul || strtab + s->strx > last_nul)
			return diag_set(d, "symbol %zu: name at offset %u is not "
					   "terminated inside the string table",
					i, s->strx);
		s->name = strtab + s->strx;
	}
	return 0;
}

int aout_check_header(const uint8_t *buf, size_t size, struct diag *d)
{
	struct aout a;

	memset(&a, 0, sizeof a);
	return parse_header(buf, size, &a, d);
}

int aout_parse(const uint8_t *buf, size_t size, struct aout *a, struct diag *d)
{
	return aout_parse_kind(buf, size, AOUT_EXEC, a, d);
}

int aout_parse_kind(const uint8_t *buf, size_t size, enum aout_kind kind,
		    struct aout *a, struct diag *d)
{
	return aout_parse_opts(buf, size, kind, 0, a, d);
}

int aout_parse_opts(const uint8_t *buf, size_t size, enum aout_kind kind,
		    unsigned flags, struct aout *a, struct diag *d)
{
	memset(a, 0, sizeof *a);
	a->kind = kind;
	a->no_symbols = (flags & AOUT_PARSE_NO_SYMBOLS) != 0;
	a->buf = buf;
	a->size = size;
	if (parse_header(buf, size, a, d) || parse_layout(size, a, d) ||
	    parse_strings(buf, size, a, d) || parse_symbols(buf, a, d)) {
		aout_free(a);
		return -1;
	}
	return 0;
}

void aout_free(struct aout *a)
{
	free(a->syms);
	a->syms = NULL;
	a->nsyms = 0;
}
