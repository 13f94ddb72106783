/*
 * The runtime stub of a converted program: freestanding i386 C, no libc.
 * stub_main is called by _start (stub_start.S) and returns the a.out %esp.
 *
 * The kernel loads a converted program as an ordinary static ELF: the stub
 * at STUB_BASE and the a.out segments at staging addresses.  Before the
 * a.out code runs, the stub recreates what the kernel's a.out loader
 * (load_aout_binary in ia32_aout.c) would have set up:
 *
 *   0. under --no-randomize, a start without address randomisation
 *      (start_unrandomized, here);
 *   1. the segments, moved from staging to their a.out addresses, and
 *      bss as zero pages (map_image, image.c);
 *   2. brk exactly at N_BSSADDR + a_bss (set_brk, brk.c); the
 *      capabilities a file capability gave, given up (caps.c); then, if
 *      anything is to be trapped, the SIGSYS handler (sigsys.c) and the
 *      filter or dispatch (trap.c);
 *   3. the stack frame of create_aout_tables: argc, argv, envp, the two
 *      pointer arrays, the strings right after them, no auxiliary vector
 *      (build_aout_frame, here).
 *
 * Every failure ends the program with one line on stderr and status 127,
 * like a loader that could not start it; never with a bare signal.
 */
#include "../aout_format.h"
#include "stub.h"

/* what _start clears below the deepest %esp of a system call (stack_dirty) */
#define STACK_MARGIN 256u

long start_call(const struct start *s, long nr, long a1, long a2, long a3,
		long a4, long a5, long a6)
{
	note_sp(s->sp_low);
	return stub_syscall_via(s->gate, nr, a1, a2, a3, a4, a5, a6);
}

/*
 * The vDSO lies below IMAGE_LIMIT where the mmap layout is the legacy one
 * (ulimit -s unlimited, setarch -L): calls the stub made through it would
 * come from the program's range, which dispatch and the filter trap.  The
 * stub then makes its calls with int $0x80, from its own code.
 */
void commit(const struct start *s)
{
	stub_sysinfo = s->gate >= IMAGE_LIMIT ? s->gate : 0;
	prog_name = s->name;
	env_libpath = s->libpath;
	env_ldpath = s->ldpath;
	lib_debug = s->lib_debug;
	exec_fn = s->execfn;
}

/*
 * ---- step 0, under --no-randomize ----
 *
 * The a.out loader left the stack at the top of the address space (at
 * most 8 KiB lower) and mmap's base fixed; the ELF loader puts both at
 * random, and only exec decides that.  So the stub execs the same file
 * again, by the name it was started by and with the same strings (the
 * new frame is then laid out the same), under ADDR_NO_RANDOMIZE, as
 * setarch -R would.  The second start finds the mark and takes both bits
 * off again, so that what the program starts is randomised as usual.
 * Where that exec cannot be made (the name no longer leads to this file,
 * an fd that exec closed) the program runs as it was started.
 */

/* 1 if path is the file that runs; where /proc is missing, taken as it. */
static int runs_from(const struct start *s, const char *path)
{
	uint32_t a[STAT64_WORDS], b[STAT64_WORDS];

	if (start_call(s, NR_stat64, (long)path, (long)a, 0, 0, 0, 0) < 0)
		return 0;
	if (start_call(s, NR_stat64, (long)"/proc/self/exe", (long)b, 0, 0, 0, 0) < 0)
		return 1;
	return a[STAT64_DEV] == b[STAT64_DEV] &&
	       a[STAT64_DEV + 1] == b[STAT64_DEV + 1] &&
	       a[STAT64_INO] == b[STAT64_INO] &&
	       a[STAT64_INO + 1] == b[STAT64_INO + 1];
}

/* Bytes of the vDSO's own mapping: its one PT_LOAD, from 0, page-rounded. */
static uint32_t vdso_size(uint32_t ehdr)
{
	const uint8_t *e = (const uint8_t *)ehdr;
	uint32_t phoff = le32_at(e + ELF_E_PHOFF), phnum = le16_at(e + ELF_E_PHNUM);

	if (le32_at(e) != ELF_MAGIC || e[ELF_EI_CLASS] != ELF_CLASS32 || phnum > 16)
		return 0;
	for (uint32_t i = 0; i < phnum; i++) {
		const uint8_t *ph = e + phoff + ELF_PHDR_SIZE * i;
		if (le32_at(ph + ELF_P_TYPE) == ELF_PT_LOAD)
			return PAGE_UP(le32_at(ph + ELF_P_VADDR) +
				       le32_at(ph + ELF_P_MEMSZ));
	}
	return 0;
}

/*
 * The a.out loader mapped no vDSO, so an unrandomised program's first
 * mmap got the pages right below mmap's base; the ELF loader has put the
 * vDSO and its data pages (vvar) there, and every address mmap gives
 * would be lower by their size.  Where nothing is randomised
 * (--no-randomize), the vDSO moves to STUB_VDSO (by mremap, which the
 * kernel follows: signals still return through it) and its data pages,
 * which only its clock functions read and the stub does not call, are
 * unmapped: they are the mapped pages right below it, as nothing else is
 * mapped in that area yet.  mmap then gives the program the addresses the
 * a.out loader gave it (tests/aout-kernel.sh compares them).
 */
static void vdso_out_of_the_way(struct start *s)
{
	uint32_t base = s->vdso, size, below = 0;
	unsigned char in_core;

	if (!base || base == STUB_VDSO || !(size = vdso_size(base)))
		return;
	if ((uint32_t)start_call(s, NR_mremap, (long)base, (long)size, (long)size,
				 MREMAP_MAYMOVE | MREMAP_FIXED, STUB_VDSO, 0) != STUB_VDSO)
		return;
	if (s->gate >= base && s->gate < base + size)
		s->gate += STUB_VDSO - base;
	s->vdso = STUB_VDSO;
	while (below < 16 * STUB_PAGE &&
	       start_call(s, NR_mincore, (long)(base - below - STUB_PAGE),
			  STUB_PAGE, (long)&in_core, 0, 0, 0) == 0)
		below += STUB_PAGE;
	if (below)
		start_call(s, NR_munmap, (long)(base - below), (long)below, 0, 0, 0, 0);
}

static void start_unrandomized(struct start *s, uint32_t *elf_sp,
			       uint32_t execfn)
{
	const uint32_t bits = STUB_PER_ADDR_NO_RANDOMIZE | STUB_PER_NORANDOM_MARK;
	long per = start_call(s, NR_personality, 0xffffffffL, 0, 0, 0, 0, 0);

	if (per < 0)
		return;
	if (per & STUB_PER_NORANDOM_MARK) {
		start_call(s, NR_personality, per & ~(long)bits, 0, 0, 0, 0, 0);
		vdso_out_of_the_way(s);
		return;
	}
	if (per & STUB_PER_ADDR_NO_RANDOMIZE) {
		vdso_out_of_the_way(s);
		return;
	}
	if (!execfn || !runs_from(s, (const char *)execfn))
		return;
	/*
	 * Exec only with the mark really set: a start without it would exec
	 * again, for ever, where personality() is refused (Docker's seccomp
	 * profile allows only a few values) or has no effect.
	 */
	start_call(s, NR_personality, per | (long)bits, 0, 0, 0, 0, 0);
	long now = start_call(s, NR_personality, 0xffffffffL, 0, 0, 0, 0, 0);

	if (now < 0 || (now & (long)bits) != (long)bits)
		return;
	start_call(s, NR_execve, (long)execfn, (long)(elf_sp + 1),
		   (long)(elf_sp + 1 + elf_sp[0] + 1), 0, 0, 0);
	start_call(s, NR_personality, per, 0, 0, 0, 0, 0);
}

/*
 * ---- step 3: the a.out frame ----
 *
 * Built in place.  The strings stay where exec put them; the pointer
 * tables are moved up against them, over the auxiliary vector, exactly
 * as create_aout_tables laid them out.
 */
static uint32_t *aout_frame_sp(uint32_t argc, uint32_t envc, uint32_t strings)
{
	uint32_t nptr = argc + 1 + envc + 1;
	uint32_t *top = (uint32_t *)(strings & ~3u);

	return top - nptr - 3;
}

static void build_aout_frame(const uint32_t *elf_sp, uint32_t *sp)
{
	uint32_t argc = elf_sp[0];
	const uint32_t *old_tab = elf_sp + 1;
	uint32_t *new_tab = sp + 3;
	uint32_t envc = 0;

	while (old_tab[argc + 1 + envc])
		envc++;
	/* new_tab lies above old_tab: copied from the top down */
	for (uint32_t i = argc + 1 + envc + 1; i-- > 0;)
		new_tab[i] = old_tab[i];
	sp[0] = argc;
	sp[1] = (uint32_t)new_tab;
	sp[2] = (uint32_t)(new_tab + argc + 1);
}

/*
 * Below its frame, the a.out loader's stack was fresh pages: zero.  Here
 * the rest of the ELF frame (argc, the pointer arrays, the auxiliary
 * vector, AT_RANDOM's bytes, the platform string) and the stub's own
 * calls lie there, and a program that reads a local it never set would
 * find them.  _start clears them once the stub has returned: from below
 * the deepest %esp a system call was made from (STACK_MARGIN covers the
 * gate's frames and the leaf functions that make none) up to the highest
 * byte exec wrote under the strings, or the a.out frame if that is lower.
 * Between those items and the strings lies the gap by which exec
 * randomizes the stack, up to 8 KiB never written: clearing it too would
 * cost a page fault for each fresh page, as asking which pages are there
 * (mincore) costs a call.
 */
struct stack_dirty {
	uint32_t low, high; /* [low, high): what _start clears */
};

static struct stack_dirty stack_dirty(const uint32_t *auxv, uint32_t sp_low,
				      uint32_t aout_sp)
{
	const uint32_t *av = auxv;
	uint32_t top;

	while (av[0] != AT_NULL)
		av += 2;
	top = (uint32_t)(av + 2);
	for (av = auxv; av[0] != AT_NULL; av += 2) {
		uint32_t end = 0;

		/* these lie under the strings (AT_EXECFN points into them) */
		if (av[0] == AT_RANDOM)
			end = av[1] + 16;
		else if (av[0] == AT_PLATFORM || av[0] == AT_BASE_PLATFORM)
			end = av[1] + (uint32_t)str_len((const char *)av[1]) + 1;
		if (end > top)
			top = end;
	}
	/* what reaches into the a.out frame is overwritten by it; the word
	 * under the frame is a_entry, for _start's ret */
	if (top > aout_sp - 4)
		top = aout_sp - 4;
	return (struct stack_dirty){ (sp_low - STACK_MARGIN) & ~3u, (top + 3) & ~3u };
}

uint32_t *stub_main(uint32_t *elf_sp)
{
	const struct stub_plan *plan = the_plan();
	uint32_t argc = elf_sp[0];
	char **argv = (char **)(elf_sp + 1);
	char **envp = argv + argc + 1;
	uint32_t envc = 0, execfn = 0, secure = 0;
	uint32_t sp_low = (uint32_t)elf_sp;
	struct start s = { .gate = 0, .vdso = 0, .name = 0, .libpath = 0, .ldpath = 0,
			   .lib_debug = 0, .execfn = 0, .sp_low = &sp_low };

	while (envp[envc])
		envc++;
	for (uint32_t *av = (uint32_t *)(envp + envc + 1); av[0] != AT_NULL; av += 2)
		if (av[0] == AT_EXECFN)
			execfn = av[1];
		else if (av[0] == AT_SYSINFO)
			s.gate = av[1];
		else if (av[0] == AT_SYSINFO_EHDR)
			s.vdso = av[1];
		else if (av[0] == AT_SECURE)
			secure = av[1];

	/*
	 * Where exec put the strings: the a.out loader's bprm->p.  exec copied
	 * them end to end, the arguments first, so each part ends where its
	 * last string does: two strings are measured, not every one.
	 */
	uint32_t strings = argc ? (uint32_t)argv[0] :
			   envc ? (uint32_t)envp[0] : execfn;
	uint32_t arg_end = argc ? (uint32_t)argv[argc - 1] +
					  str_len(argv[argc - 1]) + 1 :
				  strings;
	uint32_t env_end = envc ? (uint32_t)envp[envc - 1] +
					  str_len(envp[envc - 1]) + 1 :
				  arg_end;

	/*
	 * Read before build_aout_frame moves the pointer arrays over these.
	 * Not in a setuid or setgid program, nor in one a file capability
	 * gave rights (AT_SECURE; see caps.c): whoever runs it would
	 * choose the libraries it maps, as ld.so never let them, or learn
	 * where they are.
	 */
	for (uint32_t i = 0; i < envc && (plan->flags & STUB_F_DYNAMIC) && !secure;
	     i++)
		if (str_prefix(envp[i], "AOUT_LIBRARY_PATH="))
			s.libpath = envp[i] + 18;
		else if (str_prefix(envp[i], "LD_LIBRARY_PATH="))
			s.ldpath = envp[i] + 16;
		else if (str_eq(envp[i], "AOUT_LIBRARY_DEBUG=1"))
			s.lib_debug = 1;
	s.execfn = (const char *)execfn;
	if (argc && argv[0][0])
		s.name = argv[0];
	else if (execfn)
		s.name = (const char *)execfn;

	if (plan->flags & STUB_F_NORANDOM)
		start_unrandomized(&s, elf_sp, execfn);

	int hole_premapped = map_image(&s);
	uint32_t *sp = aout_frame_sp(argc, envc, strings);

	int brk_trapped = set_brk(&s, hole_premapped, (uint32_t)sp, strings,
				  arg_end, env_end);

	/* mapping below vm.mmap_min_addr is done: setcap's right goes (caps.c) */
	drop_gained_capabilities(&s, (uint32_t *)(envp + envc + 1));

	int committed = 0;

	if (brk_trapped || (plan->flags & STUB_F_DYNAMIC)) {
		commit(&s);
		committed = 1;
		install_sigsys_handler(&prog_sigsys);
		unblock_sigsys();
		start_traps();
	} else if (start_call(&s, NR_prctl, PR_GET_SECCOMP, 0, 0, 0, 0, 0) == 2) {
		/*
		 * A converted parent's filter, inherited across exec: it traps
		 * by address, and this program's code lies where the parent's
		 * did, so some of its calls are trapped too.  Without a
		 * handler, SIGSYS would kill it; on_sigsys makes them.
		 */
		commit(&s);
		committed = 1;
		install_sigsys_handler(&prog_sigsys);
		unblock_sigsys();
	}
	/* the stub's variables are only read once written (see struct start) */
	if (committed && syscall_sp_low < sp_low)
		sp_low = syscall_sp_low;
	/* before build_aout_frame moves the pointer arrays over the auxv */
	struct stack_dirty dirty = stack_dirty((uint32_t *)(envp + envc + 1), sp_low,
					       (uint32_t)sp);

	build_aout_frame(elf_sp, sp);
	sp[-1] = plan->entry; /* where _start returns to, below the frame */
	sp[-2] = dirty.low;   /* _start clears from here, */
	sp[-3] = (dirty.high - dirty.low) / 4; /* so many words, then sp[-2..-3] */
	return sp;
}
