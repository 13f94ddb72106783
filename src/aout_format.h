/*
 * The Linux i386 a.out file format, as <linux/a.out.h> defined it: the one
 * place that says where each field of the header lies and what the magics
 * are.  Freestanding (no libc), so that the converter, the runtime stub and
 * the benchmark all include it; testdata/mkaout.c keeps its own copy on
 * purpose (a fixture builder that shares the reader's definitions would
 * share its mistakes).
 */
#ifndef AOUT2ELF_AOUT_FORMAT_H
#define AOUT2ELF_AOUT_FORMAT_H

#include <stdint.h>

#define AOUT_OMAGIC 0407
#define AOUT_NMAGIC 0410
#define AOUT_ZMAGIC 0413
#define AOUT_QMAGIC 0314

#define AOUT_M_OLD 0
#define AOUT_M_386 100

#define AOUT_HEADER_SIZE 32u
#define AOUT_NLIST_SIZE 12u
#define AOUT_PAGE 4096u
#define AOUT_ZMAGIC_TXTOFF 1024u

/* n_type bits of struct nlist */
#define N_UNDF 0x00
#define N_EXT 0x01
#define N_ABS 0x02
#define N_TEXT 0x04
#define N_DATA 0x06
#define N_BSS 0x08
#define N_INDR 0x0a
#define N_COMM 0x12
#define N_SETA 0x14
#define N_SETT 0x16
#define N_SETD 0x18
#define N_SETB 0x1a
#define N_SETV 0x1c
#define N_WARNING 0x1e
#define N_FN 0x1f
#define N_TYPE 0x1e
#define N_STAB 0xe0

/* struct exec: eight little-endian words, in this order. */
struct aout_header {
	uint32_t info; /* magic | machine << 16 | flags << 24 */
	uint32_t text;
	uint32_t data;
	uint32_t bss;
	uint32_t syms;
	uint32_t entry;
	uint32_t trsize;
	uint32_t drsize;
};

#define AOUT_INFO_MAGIC(info) ((info) & 0xffffu)
#define AOUT_INFO_MACHINE(info) (((info) >> 16) & 0xffu)
#define AOUT_INFO_FLAGS(info) ((info) >> 24)

/* Every multi-byte field of the format (and of ELF32 i386) is little-endian. */
static inline uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint16_t le16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* The header in the first AOUT_HEADER_SIZE bytes at p. */
static inline struct aout_header aout_header_at(const uint8_t *p)
{
	struct aout_header h = {
		.info = le32_at(p),
		.text = le32_at(p + 4),
		.data = le32_at(p + 8),
		.bss = le32_at(p + 12),
		.syms = le32_at(p + 16),
		.entry = le32_at(p + 20),
		.trsize = le32_at(p + 24),
		.drsize = le32_at(p + 28),
	};
	return h;
}

/* N_TXTOFF: where the text begins in the file (QMAGIC's includes the header). */
static inline uint32_t aout_text_offset(unsigned magic)
{
	return magic == AOUT_ZMAGIC ? AOUT_ZMAGIC_TXTOFF
	       : magic == AOUT_QMAGIC ? 0
				      : AOUT_HEADER_SIZE;
}

/* A jump-table shared library is mapped at its entry's page (load_aout_library). */
static inline uint32_t aout_library_base(uint32_t entry)
{
	return entry & 0xfffff000u;
}

#endif
