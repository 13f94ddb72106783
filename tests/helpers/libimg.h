/*
 * a.out images with libentries, for the unit tests of the library code
 * and of allocation failures: programs and jump-table libraries built
 * in memory with aoutgen, and written to files for libs_resolve.
 *
 * A "libentry" is the struct a dynamically linked program (or library)
 * carries in its data for each library it needs: { char *name; char
 * *tools_version; void *jump_table; long version; }, version = major << 16
 * | minor.  A library's own version is the first word of its jump table.
 */
#ifndef AOUT2ELF_TESTS_LIBIMG_H
#define AOUT2ELF_TESTS_LIBIMG_H

#include <stddef.h>
#include <stdint.h>

#include "aout.h"
#include "aoutgen.h"

/* Where the libraries of these tests live, and their jump tables. */
#define LIB_A 0x61000000u /* libunita.so.4 */
#define LIB_B 0x62000000u /* libunitb.so.1 */
#define LIB_C 0x63000000u /* libunitc.so.2 */
#define LIB_LDSO 0x62f00000u
#define JUMP(start) ((start) + 0x40u)

#define TOOLS "gcc 2.7.2, jump table tools 2.17"

struct img {
	struct aoutgen g;
	struct aout a;
	int parsed;
	uint32_t data_size;
	uint32_t data_addr; /* loaded address of the first data byte */
	uint32_t next;      /* next free data offset for strings */
	uint32_t tools;     /* address of the tools string, 0 until written */
};

/*
 * A program of the given magic and sizes, its data zeroed.  data_addr is
 * where the planner puts the data: N_DATADDR for QMAGIC, right behind the
 * text for the others (ZMAGIC, OMAGIC, NMAGIC are copied contiguously).
 */
void img_program(struct img *m, unsigned magic, uint32_t text, uint32_t data);
/* The default QMAGIC program: text 0x2000 at 0x1000, data 0x1000 at 0x3000. */
void img_qprogram(struct img *m);
/* A library at start (aoutgen_library) whose jump table holds version. */
void img_library(struct img *m, uint32_t start, uint32_t version);
/* Zeroes the data again (no libentries, no strings). */
void img_zero_data(struct img *m);
/* A NUL-terminated string in the data; its loaded address. */
uint32_t img_str(struct img *m, const char *s);
/* The four words of a libentry at data offset off. */
void img_entry_at(struct img *m, uint32_t off, uint32_t name, uint32_t tools,
		  uint32_t jump, uint32_t version);
/* The address of the TOOLS string, written on first use. */
uint32_t img_tools(struct img *m);
/* A valid libentry in slot (16 bytes each from the start of the data). */
void img_need(struct img *m, unsigned slot, const char *name, uint32_t jump,
	      uint32_t version);
/* Parses the image as kind into m->a; 0, or -1 after a CUnit failure. */
int img_parse(struct img *m, enum aout_kind kind);
void img_free(struct img *m);

/* Writes the image as dir/name; the path, malloc'ed. */
char *img_write(const struct img *m, const char *dir, const char *name);

#endif
