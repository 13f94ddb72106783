/* The in-memory a.out builder of the unit tests (see aoutgen.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aoutgen.h"

#define OMAGIC 0407
#define NMAGIC 0410
#define ZMAGIC 0413
#define QMAGIC 0314

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "aoutgen: out of memory (%zu bytes)\n", n);
		abort();
	}
	return p;
}

uint32_t aoutgen_text_off(unsigned magic)
{
	switch (magic) {
	case ZMAGIC:
		return 1024;
	case QMAGIC:
		return 0;
	}
	return 32;
}

uint32_t aoutgen_text_addr(unsigned magic)
{
	return magic == QMAGIC ? 0x1000 : 0;
}

uint8_t aoutgen_text_byte(uint32_t i)
{
	return (uint8_t)(0x90 ^ (i * 13 + (i >> 8)));
}

uint8_t aoutgen_data_byte(uint32_t i)
{
	return (uint8_t)(0x5a + i * 7 + (i >> 8) * 3);
}

void aoutgen_default(struct aoutgen_spec *s, unsigned magic)
{
	memset(s, 0, sizeof *s);
	s->magic = magic;
	s->machine = 100;
	switch (magic) {
	case OMAGIC:
		s->text = 0x123;
		s->data = 0x45;
		s->bss = 0x200;
		s->entry = 0;
		break;
	case NMAGIC:
		s->text = 0x1000;
		s->data = 0x234;
		s->bss = 0x1800;
		s->entry = 0x10;
		break;
	case ZMAGIC:
		s->text = 0x2000;
		s->data = 0x1000;
		s->bss = 0x3000;
		s->entry = 0;
		break;
	default: /* QMAGIC */
		s->text = 0x2000;
		s->data = 0x1000;
		s->bss = 0x2345;
		s->entry = 0x1020;
		break;
	}
}

void aoutgen_library(struct aoutgen_spec *s, uint32_t start)
{
	aoutgen_default(s, QMAGIC);
	s->entry = start + 0x20;
}

void aoutgen_put_bytes(struct aoutgen *g, size_t off, const void *p, size_t n)
{
	if (off > g->size || n > g->size - off) {
		fprintf(stderr, "aoutgen: %zu bytes at %zu past %zu\n", n, off,
			g->size);
		abort();
	}
	memcpy(g->buf + off, p, n);
}

void aoutgen_put32(struct aoutgen *g, size_t off, uint32_t v)
{
	if (off + 4 > g->size) {
		fprintf(stderr, "aoutgen: put32 at %zu past %zu\n", off, g->size);
		abort();
	}
	for (int i = 0; i < 4; i++)
		g->buf[off + i] = (uint8_t)(v >> 8 * i);
}

uint32_t aoutgen_get32(const struct aoutgen *g, size_t off)
{
	const uint8_t *p = g->buf + off;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void aoutgen_put16(struct aoutgen *g, size_t off, uint16_t v)
{
	if (off + 2 > g->size) {
		fprintf(stderr, "aoutgen: put16 at %zu past %zu\n", off, g->size);
		abort();
	}
	g->buf[off] = (uint8_t)v;
	g->buf[off + 1] = (uint8_t)(v >> 8);
}

void aoutgen_build(const struct aoutgen_spec *s, struct aoutgen *g)
{
	size_t strsize = 4;
	int have_strtab = s->nsyms ? !s->no_strtab : s->strtab_if_stripped;

	memset(g, 0, sizeof *g);
	g->magic = s->magic;
	g->nsyms = s->nsyms;
	g->strx = xmalloc(s->nsyms * sizeof *g->strx);
	for (size_t i = 0; i < s->nsyms; i++) {
		const char *n = s->syms[i].name;

		if (n && *n) {
			g->strx[i] = (uint32_t)strsize;
			strsize += strlen(n) + 1;
		} else {
			g->strx[i] = 0;
		}
	}
	g->text_off = aoutgen_text_off(s->magic);
	g->data_off = g->text_off + s->text;
	g->sym_off = g->data_off + s->data;
	g->str_off = g->sym_off + (uint32_t)(s->nsyms * 12);
	g->str_size = have_strtab ? (uint32_t)strsize : 0;

	size_t end = (size_t)g->str_off + g->str_size;
	if (end < 32)
		end = 32; /* QMAGIC with a text smaller than its header */
	g->size = end + s->pad;
	g->buf = xmalloc(g->size);
	memset(g->buf, 0, g->size);
	memset(g->buf + end, 0xee, s->pad);

	for (uint32_t i = 0; i < s->text; i++)
		g->buf[g->text_off + i] = aoutgen_text_byte(i);
	for (uint32_t i = 0; i < s->data; i++)
		g->buf[g->data_off + i] = aoutgen_data_byte(i);
	for (size_t i = 0; i < s->nsyms; i++) {
		size_t o = g->sym_off + 12 * i;

		aoutgen_put32(g, o, g->strx[i]);
		g->buf[o + 4] = s->syms[i].type;
		g->buf[o + 5] = s->syms[i].other;
		aoutgen_put16(g, o + 6, s->syms[i].desc);
		aoutgen_put32(g, o + 8, s->syms[i].value);
	}
	if (have_strtab) {
		aoutgen_put32(g, g->str_off, g->str_size);
		for (size_t i = 0; i < s->nsyms; i++)
			if (g->strx[i])
				strcpy((char *)g->buf + g->str_off + g->strx[i],
				       s->syms[i].name);
	}
	/* The header last: for QMAGIC it overwrites the first text bytes. */
	aoutgen_put32(g, 0, (s->magic & 0xffff) | (s->machine & 0xff) << 16 |
				    (s->flags & 0xff) << 24);
	aoutgen_put32(g, 4, s->text);
	aoutgen_put32(g, 8, s->data);
	aoutgen_put32(g, 12, s->bss);
	aoutgen_put32(g, 16, (uint32_t)(s->nsyms * 12));
	aoutgen_put32(g, 20, s->entry);
	aoutgen_put32(g, 24, 0);
	aoutgen_put32(g, 28, 0);
}

void aoutgen_free(struct aoutgen *g)
{
	free(g->buf);
	free(g->strx);
	memset(g, 0, sizeof *g);
}

void aoutgen_set_field(struct aoutgen *g, enum aoutgen_field f, uint32_t v)
{
	aoutgen_put32(g, 4 * (size_t)f, v);
}

static void set_info(struct aoutgen *g, uint32_t mask, uint32_t bits)
{
	aoutgen_put32(g, 0, (aoutgen_get32(g, 0) & ~mask) | (bits & mask));
}

void aoutgen_set_magic(struct aoutgen *g, unsigned magic)
{
	set_info(g, 0xffff, magic);
	g->magic = magic;
}

void aoutgen_set_machine(struct aoutgen *g, unsigned machine)
{
	set_info(g, 0xff0000, (uint32_t)machine << 16);
}

void aoutgen_set_flags(struct aoutgen *g, unsigned flags)
{
	set_info(g, 0xff000000, (uint32_t)flags << 24);
}

void aoutgen_set_strx(struct aoutgen *g, size_t sym, uint32_t strx)
{
	aoutgen_put32(g, g->sym_off + 12 * sym, strx);
	g->strx[sym] = strx;
}

void aoutgen_set_sym_type(struct aoutgen *g, size_t sym, uint8_t type)
{
	g->buf[g->sym_off + 12 * sym + 4] = type;
}

void aoutgen_set_str_size(struct aoutgen *g, uint32_t size)
{
	aoutgen_put32(g, g->str_off, size);
}

void aoutgen_resize(struct aoutgen *g, size_t size)
{
	uint8_t *b = xmalloc(size);

	memcpy(b, g->buf, size < g->size ? size : g->size);
	if (size > g->size)
		memset(b + g->size, 0xee, size - g->size);
	free(g->buf);
	g->buf = b;
	g->size = size;
}
