/*
 * An in-memory a.out builder for the unit tests: valid Linux i386 a.out
 * images of every kind, built into a malloc'ed buffer of exactly the
 * right size (so that a reader that overruns it is caught by ASan), and
 * helpers that corrupt single fields afterwards.
 *
 * Layout produced (the one src/aout.c expects):
 *
 *   OMAGIC, NMAGIC  header at 0, text at 32
 *   ZMAGIC          header at 0, zeros, text at 1024
 *   QMAGIC          text at 0, its first 32 bytes being the header
 *   then data, the nlist array (12 bytes each), the string table (a
 *   uint32 size including itself, then NUL-terminated names), then pad.
 *
 * Text and data bytes follow a known pattern (aoutgen_text_byte,
 * aoutgen_data_byte) so that a converted file can be compared with them.
 */
#ifndef AOUT2ELF_TESTS_AOUTGEN_H
#define AOUT2ELF_TESTS_AOUTGEN_H

#include <stddef.h>
#include <stdint.h>

struct aoutgen_sym {
	const char *name; /* NULL or "": n_strx 0 */
	uint8_t type;
	uint8_t other;
	uint16_t desc;
	uint32_t value;
};

struct aoutgen_spec {
	unsigned magic;   /* 0407, 0410, 0413, 0314 */
	unsigned machine; /* written as is: use 100 (M_386) or 0 */
	unsigned flags;   /* the top byte of a_info */
	uint32_t text, data, bss, entry;
	const struct aoutgen_sym *syms;
	size_t nsyms;
	int no_strtab;     /* symbols, but the file ends after the nlist array */
	int strtab_if_stripped; /* a string table (size word 4) even without symbols */
	size_t pad;        /* extra bytes (0xee) at the end of the file */
};

/* Field indexes of the eight header words. */
enum aoutgen_field {
	AG_INFO, AG_TEXT, AG_DATA, AG_BSS, AG_SYMS, AG_ENTRY, AG_TRSIZE,
	AG_DRSIZE
};

struct aoutgen {
	uint8_t *buf;
	size_t size;
	unsigned magic;
	uint32_t text_off, data_off, sym_off, str_off, str_size;
	size_t nsyms;
	uint32_t *strx; /* n_strx of each symbol as written */
};

/* Fills a spec with a small valid image of the given magic. */
void aoutgen_default(struct aoutgen_spec *s, unsigned magic);
/*
 * A jump-table shared library as uselib() maps it: QMAGIC (text 0x2000
 * with the header, data 0x1000, bss 0x2345) with a_entry = start + 0x20,
 * so that its image starts at start (page aligned).
 */
void aoutgen_library(struct aoutgen_spec *s, uint32_t start);

/* Builds the image; aborts the test program when out of memory. */
void aoutgen_build(const struct aoutgen_spec *s, struct aoutgen *g);
void aoutgen_free(struct aoutgen *g);

/* N_TXTOFF for a magic, as the builder lays it out. */
uint32_t aoutgen_text_off(unsigned magic);
/* The a.out address of the first text byte: 0x1000 for QMAGIC, else 0. */
uint32_t aoutgen_text_addr(unsigned magic);

/* The pattern of the text and data bytes, by index inside the segment. */
uint8_t aoutgen_text_byte(uint32_t i);
uint8_t aoutgen_data_byte(uint32_t i);

/* Little-endian access to the buffer. */
void aoutgen_put32(struct aoutgen *g, size_t off, uint32_t v);
uint32_t aoutgen_get32(const struct aoutgen *g, size_t off);
void aoutgen_put16(struct aoutgen *g, size_t off, uint16_t v);
/* n bytes at file offset off; aborts when they do not fit. */
void aoutgen_put_bytes(struct aoutgen *g, size_t off, const void *p, size_t n);

/* Corruption helpers. */
void aoutgen_set_field(struct aoutgen *g, enum aoutgen_field f, uint32_t v);
void aoutgen_set_magic(struct aoutgen *g, unsigned magic);
void aoutgen_set_machine(struct aoutgen *g, unsigned machine);
void aoutgen_set_flags(struct aoutgen *g, unsigned flags);
void aoutgen_set_strx(struct aoutgen *g, size_t sym, uint32_t strx);
void aoutgen_set_sym_type(struct aoutgen *g, size_t sym, uint8_t type);
void aoutgen_set_str_size(struct aoutgen *g, uint32_t size);
/* Shrinks (or grows, with 0xee bytes) the buffer to size bytes. */
void aoutgen_resize(struct aoutgen *g, size_t size);

#endif
