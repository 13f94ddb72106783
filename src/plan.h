/*
 * Planning the process image: what the kernel's a.out loader would have
 * mapped, where, with which access, and where brk and the entry are.
 * A pure function of the parsed header; the writer turns it into ELF.
 */
#ifndef AOUT2ELF_PLAN_H
#define AOUT2ELF_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "aout.h"
#include "diag.h"
#include "stub_abi.h"

/* Bytes of the a.out file that appear in memory. */
struct plan_region {
	const char *name; /* "text", "data" (QMAGIC), or "text+data" */
	uint32_t vaddr;   /* address of the first byte, not page aligned */
	uint32_t aout_off;
	uint32_t size;
	uint32_t prot; /* STUB_PROT_* */
};

/* Anonymous zero pages: the part of bss past the file's last page. */
struct plan_zero {
	uint32_t vaddr; /* page aligned */
	uint32_t size;  /* page multiple */
	uint32_t prot;
};

/*
 * An a.out shared library, mapped the way uselib() maps it, under the
 * final component of the name the program gives it: the stub knows an
 * embedded library by the final component of the path given to uselib.
 * Other names of an embedded library (struct lib's aliases), where
 * their final component differs, are entries of their own, after all the
 * libraries, with same_as set and nothing staged.
 */
struct plan_lib {
	char name[STUB_LIB_NAME];
	size_t same_as;   /* 1 + the index of the entry this names again; 0 */
	uint32_t start;   /* page aligned */
	uint32_t len;     /* page multiple: text + data */
	uint32_t bss_len; /* page multiple */
	const uint8_t *bytes; /* text + data in the library file */
	uint32_t filesz;
	int embedded;     /* carried inside the ELF, else found at run time */
};

struct plan_options {
	int noexec; /* data, bss, heap and stack without PROT_EXEC */
	int no_embed_libs;
	int direct; /* kernel maps the segments at their addresses at exec */
	int norandom; /* the stub starts the program over under ADDR_NO_RANDOMIZE */
	int keep_rawio; /* the stub keeps a CAP_SYS_RAWIO that exec gave */
};

struct plan {
	unsigned magic;
	uint32_t entry;
	/* Where each part is in memory, as the sections will describe it. */
	uint32_t text_addr, text_size; /* QMAGIC: without the 32-byte header */
	uint32_t data_addr, data_size;
	uint32_t bss_addr, bss_size; /* N_BSSADDR, a_bss */
	uint32_t brk;                /* N_BSSADDR + a_bss, unrounded */
	/* The mm fields load_aout_binary set. */
	uint32_t start_code, end_code, start_data, end_data;
	uint32_t min_addr;  /* lowest address mapped */
	uint32_t image_end; /* page-aligned end of the image and its bss */
	size_t nregions;
	struct plan_region regions[2];
	size_t nzero;
	struct plan_zero zero[1];
	int noexec;
	int direct;
	int norandom;
	int keep_rawio;
	int dynamic; /* calls uselib(): the stub must stand in for it */
	/* call sites rewritten to call the stub (uselib_sites.c) */
	uint32_t uselib_sites;     /* uselib, in the program's text */
	uint32_t lib_uselib_sites; /* uselib, in embedded libraries */
	uint32_t ldso_open_sites;  /* open, in an embedded ld.so */
	uint32_t readdir_sites;    /* readdir, in the text and embedded libraries */
	size_t nlibs;
	struct plan_lib libs[STUB_MAX_LIBS];
	uint32_t lib_lo, lib_hi; /* span of the libraries' addresses */
	char paths[STUB_PATHS]; /* -L folders, ':' separated, for run time */
};

/* Where a.out jump-table libraries were registered to live. */
#define PLAN_LIB_WINDOW_LO 0x5f000000u
#define PLAN_LIB_WINDOW_HI 0x70000000u

struct libset;

/*
 * Adds the libraries of set (see libs.h) and the -L folders to p; fails
 * where two libraries have one final component or the names are more
 * than STUB_MAX_LIBS.
 */
int plan_add_libs(struct plan *p, const struct libset *set,
		  const struct plan_options *opt, const char *const *dirs,
		  size_t ndirs, struct diag *d);

int plan_build(const struct aout *a, const struct plan_options *opt,
	       struct plan *p, struct diag *d);

#endif
