/*
 * What the parts of the stub share: the plan, the start-up state, and
 * each part's entry points and variables, in the order they are called.
 */
#ifndef AOUT2ELF_STUB_STUB_H
#define AOUT2ELF_STUB_STUB_H

#include <stdint.h>

#include "../stub_abi.h"
#include "lib.h"
#include "sys.h"

extern const struct stub_header __stub_header; /* stub_start.S */

/*
 * The plan the converter appended to the stub, read where it lies (a
 * pointer to it would be one more variable to write).  The empty asm hides
 * from the compiler that the plan lies beyond __stub_header.
 */
static inline const struct stub_plan *the_plan(void)
{
	uintptr_t p = (uintptr_t)&__stub_header;

	__asm__("" : "+r"(p));
	return (const struct stub_plan *)(p + __stub_header.plan_off);
}

/*
 * A brk below 64 KiB is "hybrid" where the kernel takes no lower brk (see
 * set_brk): the kernel's brk starts here, and the stub answers below it.
 */
#define PRCTL_MIN STUB_BRK_FLOOR

/* ---- start.c: start-up ---- */

/* Called by _start with the ELF frame; returns the a.out frame's %esp. */
uint32_t *stub_main(uint32_t *elf_sp);

/*
 * Start-up writes none of the stub's own variables until it knows that
 * something will be trapped: the first write to a page of the stub costs a
 * page fault (a private copy of the page), and a program with nothing
 * trapped never needs the stub again.  What start-up knows stays on the
 * stack in a struct start, and commit() hands it to the handler's side.
 */
struct start {
	uint32_t gate;       /* __kernel_vsyscall, or 0 for int $0x80 */
	uint32_t vdso;       /* the vDSO's ELF header (AT_SYSINFO_EHDR), or 0 */
	const char *name;    /* the program, for messages (0: PROG_NAME says one) */
	const char *libpath; /* AOUT_LIBRARY_PATH, or 0 */
	const char *ldpath;  /* LD_LIBRARY_PATH, or 0 */
	int lib_debug;       /* AOUT_LIBRARY_DEBUG=1 */
	const char *execfn;  /* AT_EXECFN, or 0 */
	uint32_t *sp_low;    /* lowest %esp of a start_call (see stack_dirty) */
};

/* A system call before commit: through s->gate, noting the stack's depth. */
long start_call(const struct start *s, long nr, long a1, long a2, long a3,
		long a4, long a5, long a6);
/* Before a start-up failure is reported, or the handler is installed. */
void commit(const struct start *s);

/* ---- image.c: the a.out segments in place ---- */

/* 1 if the zero pages from brk up to 64 KiB were mapped with bss. */
int map_image(const struct start *s);

/* ---- brk.c: brk set at start, or answered when trapped ---- */

extern int hybrid_brk;    /* the kernel's brk is PRCTL_MIN, the stub's below */
extern int emulating_brk; /* brk calls are trapped (hybrid or emulated) */

/* 1 if brk calls are to be trapped. */
int set_brk(const struct start *s, int hole_premapped, uint32_t stack,
	    uint32_t arg_start, uint32_t arg_end, uint32_t env_end);
uint32_t brk_hybrid(uint32_t want);
void brk_untrapped(void);
uint32_t brk_emulate(uint32_t want);

/* ---- caps.c: the capabilities exec gave, given up ---- */

/* After the image and brk are in place; auxv: the ELF auxiliary vector. */
void drop_gained_capabilities(const struct start *s, const uint32_t *auxv);

/* ---- uselib.c: a.out shared libraries ---- */

extern const char *env_libpath, *env_ldpath; /* set by commit() */
extern int lib_debug; /* AOUT_LIBRARY_DEBUG=1: say where each uselib looked */
extern const char *exec_fn; /* AT_EXECFN: where $ORIGIN is without /proc */

long do_uselib(const char *path);
/* site_thunks.S: what rewritten call sites call, for the two above */
void stub_uselib_thunk(void);
void stub_open_thunk(void);
void stub_readdir_thunk(void);
long do_open_from_ldso(const char *path, long flags, long mode);

/* ---- readdir.c: the old readdir, where the host has none ---- */

long do_readdir(uint32_t fd, void *dirent, uint32_t count);

/* ---- trap.c: the seccomp filter and syscall user dispatch ---- */

extern int ldso_trapped; /* ld.so's open is trapped (install_ldso_traps) */

void start_traps(void);
int dispatch_takes(int nr, uint32_t arg0);
void trap_exec_from_now(void);
void install_ldso_traps(const struct stub_lib *l);

/* ---- progsig.c: the program's own SIGSYS and signal masks ---- */

extern struct k_sigaction prog_sigsys; /* what exec left: SIG_DFL or SIG_IGN */
extern uint32_t prog_blocks_sigsys;    /* SIGSYS_BIT if the program blocked it */

void unblock_sigsys(void);
void restore_sigsys(void);
int is_sigsys_action(int nr, uint32_t arg0);
long sigsys_action(int nr, const uint32_t *g);
int is_mask_call(int nr, uint32_t arg0);
long mask_call(int nr, const uint32_t *g, void *ucontext);
int exec_keeps_sigsys(int nr);
long exec_call(const uint32_t *g);
void pass_on_sigsys(int sig, void *info, void *ucontext);
int deliver_released_sigsys(void *ucontext);

/* ---- sigsys.c: the stub's SIGSYS handler ---- */

void install_sigsys_handler(struct k_sigaction *was);

#endif
