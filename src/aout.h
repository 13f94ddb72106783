/*
 * Reading Linux i386 a.out files from a buffer.
 *
 * aout_parse checks everything the header claims against the bytes it was
 * given before anything else looks at them: afterwards every offset and
 * size in struct aout lies inside the buffer.
 */
#ifndef AOUT2ELF_AOUT_H
#define AOUT2ELF_AOUT_H

#include <stddef.h>
#include <stdint.h>

#include "aout_format.h"
#include "diag.h"

struct aout_symbol {
	uint32_t strx;
	uint8_t type;
	uint8_t other;
	uint16_t desc;
	uint32_t value;
	const char *name; /* "" when strx is 0 */
};

enum aout_kind {
	AOUT_EXEC,  /* an executable: load_aout_binary's rules */
	AOUT_SHLIB, /* a shared library: load_aout_library's rules */
};

struct aout {
	const uint8_t *buf;
	size_t size;
	struct aout_header h;
	unsigned magic;
	unsigned machine;
	unsigned flags;
	uint32_t text_off; /* N_TXTOFF */
	uint32_t data_off; /* N_DATOFF */
	uint32_t sym_off;  /* N_SYMOFF */
	uint32_t str_off;  /* N_STROFF */
	uint32_t str_size; /* 0 when the file has no string table */
	size_t nsyms;
	struct aout_symbol *syms;
	enum aout_kind kind;
	int no_symbols; /* AOUT_PARSE_NO_SYMBOLS: the tables were left unread */
};

/*
 * The first AOUT_HEADER_SIZE bytes alone: 0 if they could begin an a.out
 * file, else -1 with the reason aout_parse would give.
 */
int aout_check_header(const uint8_t *buf, size_t size, struct diag *d);

/* 0 on success; -1 with the reason in *d.  buf must outlive *a. */
int aout_parse(const uint8_t *buf, size_t size, struct aout *a, struct diag *d);
int aout_parse_kind(const uint8_t *buf, size_t size, enum aout_kind kind,
		    struct aout *a, struct diag *d);
/*
 * The symbol and string tables are left unread: nsyms is 0 and neither
 * table can make the file fail (the kernel never read them either).  The
 * file must still hold the a_syms bytes the header claims.
 */
#define AOUT_PARSE_NO_SYMBOLS 1u
int aout_parse_opts(const uint8_t *buf, size_t size, enum aout_kind kind,
		    unsigned flags, struct aout *a, struct diag *d);

/* Where a shared library's image starts (a_entry & 0xfffff000). */
uint32_t aout_lib_start(const struct aout *a);

/*
 * The bytes at address addr of the loaded image, with *avail bytes of
 * them in the file; NULL when addr is not in text or data.
 */
const uint8_t *aout_at(const struct aout *a, uint32_t addr, size_t *avail);
void aout_free(struct aout *a);

const char *aout_magic_name(unsigned magic);

/* The kernel's macros from <linux/a.out.h>, as the x86-64 loader used them. */
uint64_t aout_txtaddr(const struct aout *a); /* N_TXTADDR */
uint64_t aout_dataddr(const struct aout *a); /* N_DATADDR */
uint64_t aout_bssaddr(const struct aout *a); /* N_BSSADDR */

#endif
