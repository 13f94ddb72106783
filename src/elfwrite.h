/*
 * Writing the converted program as an ELF32 i386 executable with libelf.
 *
 * The file holds these PT_LOADs, in address order: the runtime stub's
 * code and its plan; one per a.out region and one per embedded library,
 * staged right behind the stub, where the kernel can always map them; the
 * stub's variables (zero pages).  The section headers describe the a.out
 * parts at their real addresses, so readelf, objdump, nm and gdb see the
 * a.out program.
 */
#ifndef AOUT2ELF_ELFWRITE_H
#define AOUT2ELF_ELFWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "aout.h"
#include "diag.h"
#include "plan.h"
#include "stub_abi.h"

#define ELFW_STUB_OFFSET 0x1000u /* file offset of the stub segment */

/* Where each region goes in the file and in the staging area. */
struct elfw_layout {
	uint32_t stub_filesz;   /* stub image + the plan */
	uint32_t plan_off;      /* offset of struct stub_plan in the stub */
	uint32_t stub_bss_size; /* the stub's variables, at STUB_BSS */
	uint32_t stage_base;    /* the first page after the stub: staging */
	size_t nregions; /* the program's regions, then embedded libraries */
	struct {
		uint32_t page_off; /* file offset of the region's first page */
		uint32_t stage;    /* staging address of that page */
		uint32_t len;      /* page multiple */
	} region[2 + STUB_MAX_LIBS];
	uint32_t end; /* first file offset after the loaded parts */
};

/* The stub image's header, checked: 0, or -1 with *d where it is damaged. */
int elfw_stub_header(const unsigned char *stub, size_t size,
		     struct stub_header *h, struct diag *d);
/* Pure: the file layout and the plan the stub will read. */
int elfw_layout(const struct plan *p, const unsigned char *stub,
		size_t stub_size, struct elfw_layout *l, struct diag *d);
/*
 * What the input alone decides, checked before OUTPUT is opened: the
 * a.out image fits the staging area, and the ELF file, at its largest,
 * within the 4 GiB that ELF32 offsets reach.  0, or -1 with the reason.
 */
int elfw_check(const struct aout *a, const struct plan *p,
	       const unsigned char *stub, size_t stub_size, struct diag *d);
void elfw_stub_plan(const struct plan *p, const struct elfw_layout *l,
		    struct stub_plan *sp);
/* The access of the stub's code (STUB_PROT_*), as its PT_LOAD gives it. */
uint32_t elfw_stub_prot(const struct plan *p);

/* 1 if the file at fd is one elfw_write wrote: ELF, the stub where it goes. */
int elfw_is_converted(int fd);

/*
 * Writes the whole ELF file to fd (positioned at 0, empty): libelf lays it
 * out and converts the headers, one pwritev writes it.  With
 * elfw_libelf_io set (the unit tests do, to compare), libelf writes it.
 */
extern int elfw_libelf_io;

/*
 * The last step of elfw_write, on its own for the unit tests: writes the
 * pieces (sorted here by offset) and zeros between them and up to size,
 * in one pwritev; refuses pieces that overlap or pass size.
 */
struct elfw_piece {
	uint64_t off;
	const void *buf;
	size_t len;
};
int elfw_write_pieces(int fd, struct elfw_piece *pc, size_t npc, uint64_t size,
		      struct diag *d);

int elfw_write(int fd, const struct aout *a, const struct plan *p,
	       const unsigned char *stub, size_t stub_size, struct diag *d);

/*
 * elfw_write, and a .comment section of comment_size bytes, if comment is
 * not NULL: NUL-terminated strings (aout2elf's version and the options
 * that shaped the file, then the libraries it carries: conv_file_comment).
 */
int elfw_write_with_comment(int fd, const struct aout *a, const struct plan *p,
			    const unsigned char *stub, size_t stub_size,
			    const char *comment, size_t comment_size,
			    struct diag *d);

/*
 * The .comment of the ELF file fd (malloc'ed, ending in NUL) and its size;
 * NULL if it has none, or no memory.
 */
char *elfw_read_comment(int fd, size_t *size);

#endif
