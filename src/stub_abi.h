/*
 * The contract between the converter and the runtime stub.
 *
 * The converter copies the stub image into the ELF it writes and appends a
 * struct stub_plan; the stub reads that plan at run time to rebuild the
 * process the kernel's a.out loader would have built.  Both sides include
 * this header, so every field has a fixed width and the layout never
 * depends on the compiler that builds either side.
 */
#ifndef AOUT2ELF_STUB_ABI_H
#define AOUT2ELF_STUB_ABI_H

#include <stdint.h>

/*
 * Address-space layout of a converted program.  a.out programs and their
 * "jump table" libraries live below 0x70000000; the a.out era stack sat
 * at 0xC0000000, where an i386 kernel's own address space still begins
 * (an x86-64 kernel gives i386 programs up to 0xFFFFE000): everything of
 * the stub's must lie below it.  The stub's code and the plan start at STUB_BASE, and
 * right behind them, in the file as in memory, the a.out segments are
 * staged (mapped by the kernel where no page-0 restriction can stop
 * exec) until the stub moves them down.  Because the stub's code and the
 * first segment are one mapping of one file, the page fault that brings
 * in the stub's first page also maps the pages around it that are in the
 * page cache (fault-around), the a.out text's among them, and the move
 * takes them along: the a.out code then starts without a fault of its
 * own.  The stub's variables are zero pages at STUB_BSS, above the
 * staging area and clear of an i386 kernel's stack (just below 3 GiB)
 * and of where its mmap starts allocating (128 MiB or more below that).
 */
#define STUB_BASE   0x80000000u
#define STUB_BSS    0xB0000000u
/* where --no-randomize moves the vDSO, out of mmap's way (see the stub) */
#define STUB_VDSO   (STUB_BSS + STUB_MAX_BSS)
#define STAGE_LIMIT STUB_BSS
#define IMAGE_LIMIT 0x80000000u /* a.out images and libraries end below */

#define STUB_PAGE 4096u

/*
 * The lowest brk the kernel takes in PR_SET_MM_MAP on most kernels
 * (CONFIG_LSM_MMAP_MIN_ADDR): a brk below it is "hybrid" (see the stub's
 * set_brk), with zero pages mapped from the brk page up to it.
 */
#define STUB_BRK_FLOOR 0x10000u

#define STUB_MAGIC      0x53453241u /* "A2ES" */
#define STUB_PLAN_MAGIC 0x50453241u /* "A2EP" */
#define STUB_ABI_VERSION 5u

#define STUB_MAX_FILESZ 0x100000u /* far more than the stub will ever need */
#define STUB_MAX_BSS    0x100000u

/*
 * At offset 0 of the stub image; plan_off is filled in by the converter.
 * The image is code and constants only; its variables are bss_size zero
 * bytes at STUB_BSS.
 */
struct stub_header {
	uint32_t magic;
	uint32_t version;
	uint32_t entry_off; /* offset of the stub's entry point */
	uint32_t plan_off;  /* offset of struct stub_plan (converter writes) */
	uint32_t filesz;    /* bytes of the image */
	uint32_t bss_size;  /* bytes of the stub's variables, at STUB_BSS */
	/* what rewritten call sites call (syscall_sites.h): uselib, ld.so's
	 * open, and readdir (answered where the host has none) */
	uint32_t uselib_thunk_off;
	uint32_t open_thunk_off;
	uint32_t readdir_thunk_off;
};

enum stub_map_kind {
	STUB_MAP_MOVE = 1, /* mremap [src, src+len) from staging to dst */
	STUB_MAP_ZERO = 2, /* anonymous zero pages at [dst, dst+len) */
};

/* PROT_* values, repeated so the converter needs no <sys/mman.h> here. */
#define STUB_PROT_R 1u
#define STUB_PROT_W 2u
#define STUB_PROT_X 4u

struct stub_map {
	uint32_t kind;
	uint32_t dst;
	uint32_t src;
	uint32_t len;
	uint32_t prot;
};

#define STUB_MAX_MAPS 16
#define STUB_MAX_LIBS 16
#define STUB_LIB_NAME 32
#define STUB_PATHS 1024

/* Where a.out systems kept ld.so and the libraries, searched last. */
#define STUB_CUSTOMARY_DIRS \
	"/usr/i486-linuxaout/lib:/usr/i486-linux/lib:/lib:/usr/lib"

/*
 * An a.out shared library the program may uselib().  Embedded ones are
 * staged like the program's segments; the others are looked up at run
 * time by name in AOUT_LIBRARY_PATH, then at the path given to uselib(),
 * then in paths[], then in the customary folders.
 */
struct stub_lib {
	char name[STUB_LIB_NAME]; /* basename, as uselib() callers pass it */
	uint32_t start;           /* a_entry & 0xfffff000 */
	uint32_t len;             /* page multiple: text + data */
	uint32_t bss_len;         /* page multiple: the rest of bss */
	uint32_t stage;           /* staging address, 0 if not embedded */
	uint32_t mapped;          /* set by the stub */
};

/* stub_plan.flags */
#define STUB_F_NOEXEC 1u  /* heap pages emulated by the stub are not PROT_EXEC */
#define STUB_F_DYNAMIC 2u /* trap uselib(): the program uses a.out libraries */
#define STUB_F_NORANDOM 4u /* start over without address randomisation */
/* the program's own uselib calls call the stub (syscall_sites.h): none to trap */
#define STUB_F_USELIB_PATCHED 8u
/* the embedded ld.so's open calls the stub: none to trap */
#define STUB_F_LDSO_PATCHED 16u
/* keep a CAP_SYS_RAWIO that exec gave (setcap), instead of giving it up */
#define STUB_F_KEEP_RAWIO 32u

/*
 * personality(2) bits for STUB_F_NORANDOM: ADDR_NO_RANDOMIZE, and as the
 * mark of a start the stub (or aout2elf --exec) made so, a bit that no
 * flag of <linux/personality.h> uses (WHOLE_SECONDS, no longer acted on,
 * is what `setarch -S` sets, so it cannot be the mark).  The kernel keeps
 * any value, across exec too.
 */
#define STUB_PER_ADDR_NO_RANDOMIZE 0x0040000u
#define STUB_PER_NORANDOM_MARK     0x10000000u

struct stub_plan {
	uint32_t magic;
	uint32_t flags;
	uint32_t entry;      /* a_entry */
	uint32_t start_code; /* mm values the a.out loader set */
	uint32_t end_code;
	uint32_t start_data;
	uint32_t end_data;
	uint32_t start_brk;  /* N_BSSADDR */
	uint32_t brk;        /* N_BSSADDR + a_bss, not rounded */
	uint32_t min_addr;   /* lowest address the image needs mapped */
	uint32_t trap_lo;    /* a.out text: system calls made from here may */
	uint32_t trap_hi;    /* be trapped by the stub's seccomp filter */
	uint32_t lib_lo;     /* where the libraries' text is: their brk */
	uint32_t lib_hi;     /* calls are trapped too when brk is emulated */
	uint32_t nmaps;
	struct stub_map maps[STUB_MAX_MAPS];
	uint32_t nlibs;
	struct stub_lib libs[STUB_MAX_LIBS];
	char paths[STUB_PATHS]; /* -L folders given at conversion, ':' separated */
};

#endif
