/*
 * benchprog: the program `make bench` times, built the way the a.out test
 * fixtures are (testdata/fixture.h, testdata/fixture_start.S: freestanding
 * i386, no libc, int $0x80 system calls), from this one source
 *
 *   - as a native static ELF (the default `ld -m elf_i386` layout at
 *     0x08048000), and
 *   - for each a.out kind with testdata/aout-M.ld and testdata/mkaout, then
 *     converted by aout2elf,
 *
 * so that the only difference between what is compared is the format.
 *
 *	benchprog                 exits 0 at once (start-up)
 *	benchprog heap N          N times: grows the heap by 16 pages, one brk
 *	                          call per page, writing to each new page, and
 *	                          shrinks it again, one brk call per page
 *	                          (32 brk calls a round, 1 + 32 N in all);
 *	                          exits 0 when every brk did what it should
 *	benchprog vdso            (native only) one getpid through the vDSO,
 *	                          then exits: the first use of the vDSO,
 *	                          which the stub makes at every start
 *	benchprog dispatch        (native only) traps its own exit as the
 *	                          stub traps a program's calls where brk is
 *	                          trapped: a SIGSYS handler, SIGSYS
 *	                          unblocked, syscall user dispatch on, then
 *	                          exit, which the handler makes, each of
 *	                          those calls through the vDSO as the stub's:
 *	                          what trapping costs a start, whatever else
 *	                          the stub does
 *	benchprog filter          (native only) attaches a seccomp filter
 *	                          like the stub's where brk is trapped, then
 *	                          exits (not trapped): what the filter would
 *	                          cost a start, were it used from the start
 *	                          instead of dispatch
 *	benchprog libc4 LIB N     uselib(LIB), LIB being libc.so.4 4.7.2 of
 *	                          ../shared/corpus, or where the kernel has
 *	                          no uselib (a native build) the same by mmap;
 *	                          sets libc's ___brk_addr from brk(0) as libc
 *	                          4's crt0 did; then N times malloc(200000)
 *	                          and free() through its jump table: a heap
 *	                          that grows and shrinks by libc.so.4's sbrk.
 *	                          Built with BENCH_LIBC4, the a.out names
 *	                          libc.so.4 as ld.so's programs did, so that
 *	                          aout2elf embeds it and the stub traps brk
 *	                          in its code too
 *	benchprog pause           reads every page of TEXT_TABLE (16 KiB of
 *	                          read-only data in the text) and of the data,
 *	                          writes "R" on stdout and waits for EOF on
 *	                          stdin: the driver reads /proc/PID/smaps_rollup
 *	                          meanwhile
 *
 * BENCH_DATA and BENCH_BSS (bytes of initialised data and of bss, from the
 * build) decide which way the converted program's brk goes.  The stub sets
 * brk exactly with prctl(PR_SET_MM_MAP) where brk is at or above 64 KiB
 * (the kernel refuses smaller values in the map); below, the program's
 * brk calls are trapped (syscall user dispatch, then a seccomp filter: a
 * SIGSYS for each).  The builds:
 *
 *   small    4 KiB data, 4 KiB bss: brk below 64 KiB, trapped
 *   bigbss   4 KiB data, 128 KiB bss: brk above 64 KiB, prctl (the data
 *            fields below 64 KiB raised)
 *   bigdata  64 KiB data, 4 KiB bss: data and brk above 64 KiB, prctl
 *
 * The entry stack differs by format (the a.out frame is argc, argv, envp;
 * the ELF one argc, argv[0], ...); the program tells them apart at run time
 * (in the a.out frame [esp+4] is esp+12), so the code is the same in both.
 *
 * Exit status: 0 done; 2 a brk that grew the heap failed, 3 one that shrank
 * it, 4 bad arguments, 5 the tables read back wrong, 6 dispatch or the
 * filter could not be set up, 7 LIB could not be mapped or is not that
 * libc.so.4, 8 a malloc failed.
 */
#include "fixture.h"

#ifndef BENCH_DATA
#define BENCH_DATA 4096
#endif
#ifndef BENCH_BSS
#define BENCH_BSS 4096
#endif

#define PAGE 4096u
#define STEPS 16u
#define TEXT_TABLE (16u * 1024)

/* 16 KiB in .rodata, which the a.out linker scripts put in the text */
static const uint32_t text_table[TEXT_TABLE / 4] = {
	[0] = 1, [TEXT_TABLE / 4 - 1] = 2,
};

/* initialised data */
static uint32_t data_table[BENCH_DATA / 4] = { [0] = 3, [BENCH_DATA / 4 - 1] = 4 };

/* the bss that puts brk where the build wants it */
static volatile uint8_t bench_bss[BENCH_BSS];

static char **entry_argv(uint32_t *sp)
{
	if (sp[1] == (uint32_t)(sp + 3))
		return (char **)sp[1]; /* a.out: argc, argv, envp */
	return (char **)(sp + 1);      /* ELF: argc, argv[0], ... */
}

static int parse_u32(const char *s, uint32_t *v)
{
	uint32_t n = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > 100000000u)
			return -1;
		n = n * 10 + (uint32_t)(*s - '0');
	}
	*v = n;
	return 0;
}

static int heap(uint32_t rounds)
{
	uint32_t base = (uint32_t)sys_brk(0);

	for (uint32_t r = 0; r < rounds; r++) {
		for (uint32_t k = 1; k <= STEPS; k++) {
			uint32_t want = base + k * PAGE;

			if ((uint32_t)sys_brk(want) != want)
				return 2;
			((volatile char *)want)[-1] = (char)k;
		}
		for (uint32_t k = STEPS; k-- > 0;) {
			uint32_t want = base + k * PAGE;

			if ((uint32_t)sys_brk(want) != want)
				return 3;
		}
	}
	return 0;
}

#define AT_NULL 0
#define AT_SYSINFO 32
#define SYS_getpid 20
#define SYS_prctl 172
#define SYS_rt_sigaction 174
#define SYS_rt_sigprocmask 175
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define SIGSYS 31

static uint32_t vsyscall;         /* __kernel_vsyscall, from AT_SYSINFO */
static volatile uint8_t selector; /* 0: calls go through, 1: dispatched */

static long vsys(long n, long a, long b, long c, long d, long e)
{
	long r;
	__asm__ volatile("call *%1"
			 : "=a"(r)
			 : "m"(vsyscall), "0"(n), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	return r;
}

static void on_sigsys(int sig)
{
	(void)sig;
	selector = 0;
	for (;;)
		vsys(SYS_exit, 0, 0, 0, 0, 0);
}

/* AT_SYSINFO from the ELF entry stack into vsyscall; 0 if there is none */
static uint32_t find_vsyscall(uint32_t *entry_sp)
{
	uint32_t *p = entry_sp + 1 + entry_sp[0] + 1; /* past argv */

	while (*p++)
		; /* past envp */
	for (; p[0] != AT_NULL; p += 2)
		if (p[0] == AT_SYSINFO)
			vsyscall = p[1];
	return vsyscall;
}

static int dispatch(uint32_t *entry_sp)
{
	/* SA_SIGINFO, as the stub's (its frame is the larger); no return */
	uint32_t act[4] = { (uint32_t)on_sigsys, 4, 0, 0 };
	uint32_t set[2] = { 1u << (SIGSYS - 1), 0 };

	if (!find_vsyscall(entry_sp))
		return 6;
	if (vsys(SYS_rt_sigaction, SIGSYS, (long)act, 0, 8, 0) ||
	    vsys(SYS_rt_sigprocmask, 1 /* SIG_UNBLOCK */, (long)set, 0, 8, 0) ||
	    vsys(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, 1, 0, 0, (long)&selector))
		return 6;
	selector = 1;
	sys_exit(0); /* int $0x80, as the a.out code's: a SIGSYS */
}

/*
 * What the stub would pay to trap brk with a seccomp filter from the start
 * instead of syscall user dispatch: no_new_privs, then a filter of the
 * same shape and length as the one it attaches where brk is trapped (the
 * architecture, the call number against brk, signal, sigaction,
 * rt_sigaction, execve and the six mask calls, then the range of the
 * caller's address and the first argument), through the vDSO as the
 * stub's calls.  Nothing this program calls is trapped: exit is allowed.
 */
#define SYS_seccomp 354
#define PR_SET_NO_NEW_PRIVS 38
#define AUDIT_ARCH_I386 0x40000003u
#define BPF_LD_W_ABS 0x20
#define BPF_JEQ_K 0x15
#define BPF_JGE_K 0x35
#define BPF_JGT_K 0x25
#define BPF_RET_K 0x06
#define RET_ALLOW 0x7fff0000u
#define RET_TRAP 0x00030000u

struct bpf_insn {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};

static int filter(uint32_t *entry_sp)
{
	static const uint16_t nrs[] = { 45 /* brk */, 48 /* signal */,
					67 /* sigaction */, 174, 11 /* execve */,
					68, 69, 72, 126, 175, 179 /* mask calls */ };
	/* classic BPF jumps forward only: the verdicts come last */
	enum { N = sizeof nrs / sizeof nrs[0], OTHER = 3 + N, BRK = OTHER + 1,
	       SIG = BRK + 5, ANY = SIG + 5, ALLOW = ANY + 3, TRAP = ALLOW + 1,
	       LEN = TRAP + 1 };
	struct bpf_insn f[LEN];
	struct {
		uint16_t len;
		struct bpf_insn *insns;
	} prog = { LEN, f };
	uint32_t lo = 0x1000, hi = 0x10000; /* the a.out image's range */

	f[0] = (struct bpf_insn){ BPF_LD_W_ABS, 0, 0, 4 };
	f[1] = (struct bpf_insn){ BPF_JEQ_K, 0, OTHER - 2, AUDIT_ARCH_I386 };
	f[2] = (struct bpf_insn){ BPF_LD_W_ABS, 0, 0, 0 };
	for (unsigned i = 0; i < N; i++) {
		unsigned to = i == 0 ? BRK : i == 1 ? SIG : ANY;

		f[3 + i] = (struct bpf_insn){ BPF_JEQ_K, (uint8_t)(to - (3 + i) - 1), 0, nrs[i] };
	}
	f[OTHER] = (struct bpf_insn){ BPF_RET_K, 0, 0, RET_ALLOW };
	/* brk: from the image, to at most 64 KiB */
	f[BRK + 0] = (struct bpf_insn){ BPF_LD_W_ABS, 0, 0, 8 };
	f[BRK + 1] = (struct bpf_insn){ BPF_JGE_K, 0, (uint8_t)(ALLOW - BRK - 2), lo };
	f[BRK + 2] = (struct bpf_insn){ BPF_JGE_K, (uint8_t)(ALLOW - BRK - 3), 0, hi };
	f[BRK + 3] = (struct bpf_insn){ BPF_LD_W_ABS, 0, 0, 16 };
	f[BRK + 4] = (struct bpf_insn){ BPF_JGT_K, (uint8_t)(ALLOW - BRK - 5),
					(uint8_t)(TRAP - BRK - 5), 0x10000 };
	/* signal: from the image, for SIGSYS */
	f[SIG + 0] = (struct bpf_insn){ BPF_LD_W_ABS, 0, 0, 8 };
	f[SIG + 1] = (struct bpf_insn){ BPF_JGE_K, 0, (uint8_t)(ALLOW - SIG - 2), lo };
	f[SIG + 2] = (struct bpf_insn){ BPF_JGE_K, (uint8_t)(ALLOW - SIG - 3), 0, hi };
	f[SIG + 3] = (struct bpf_insn){ BPF_LD_W_ABS, 0, 0, 16 };
	f[SIG + 4] = (struct bpf_insn){ BPF_JEQ_K, (uint8_t)(TRAP - SIG - 5),
					(uint8_t)(ALLOW - SIG - 5), SIGSYS };
	/* the others: from the image, any argument */
	f[ANY + 0] = (struct bpf_insn){ BPF_LD_W_ABS, 0, 0, 8 };
	f[ANY + 1] = (struct bpf_insn){ BPF_JGE_K, 0, (uint8_t)(ALLOW - ANY - 2), lo };
	f[ANY + 2] = (struct bpf_insn){ BPF_JGE_K, 0, (uint8_t)(TRAP - ANY - 3), hi };
	f[ALLOW] = (struct bpf_insn){ BPF_RET_K, 0, 0, RET_ALLOW };
	f[TRAP] = (struct bpf_insn){ BPF_RET_K, 0, 0, RET_TRAP };
	if (!find_vsyscall(entry_sp))
		return 6;
	if (vsys(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    vsys(SYS_seccomp, 1 /* SET_MODE_FILTER */, 4 /* SPEC_ALLOW */, (long)&prog, 0, 0))
		return 6;
	return 0;
}

/*
 * libc.so.4 4.7.2: QMAGIC, loads at 0x5ffff000; its jump table starts at
 * 0x60000000 with a version word, then one 8-byte slot a function.  The
 * slots of malloc and free were found with gdb on gforth-0.2.1, which
 * calls them for ALLOCATE and FREE.
 */
#define SYS_old_mmap 90 /* one argument: the six in memory */
#define LIBC4_VERSION_WORD 0x000402beu /* at 0x60000000 */
#define LIBC4_MALLOC 0x60000898u       /* slot 274 */
#define LIBC4_FREE 0x600004a8u         /* slot 148 */
#define LIBC4_BLOCK 200000u
/* its sbrk adds to ___brk_addr, which libc 4's crt0 set from brk(0)
 * (ld.so pointed this entry of the library's table at the program's) */
#define LIBC4_BRK_ADDR_PTR 0x6008f214u

/* what uselib() did for a QMAGIC library: text and data from offset 0,
 * read, write and execute, then bss */
static int map_library(const char *path)
{
	uint32_t h[8];
	long fd = sys2(SYS_open, (long)path, 0), r;

	if (fd < 0)
		return -1;
	r = sys3(SYS_read, fd, (long)h, sizeof h);
	if (r == (long)sizeof h && (h[0] & 0xffff) == 0314) {
		uint32_t start = h[5] & ~(PAGE - 1), len = (h[1] + h[2] + PAGE - 1) & ~(PAGE - 1);
		uint32_t end = (h[1] + h[2] + h[3] + PAGE - 1) & ~(PAGE - 1);

		/* PROT_READ|WRITE|EXEC, MAP_PRIVATE|MAP_FIXED; bss anonymous */
		uint32_t text_data[6] = { start, len, 7, 0x12, (uint32_t)fd, 0 };
		uint32_t bss[6] = { start + len, end - len, 7, 0x32, (uint32_t)-1, 0 };

		r = sys1(SYS_old_mmap, (long)text_data);
		if (r == (long)start && end > len)
			r = sys1(SYS_old_mmap, (long)bss);
	} else {
		r = -1;
	}
	sys1(SYS_close, fd);
	return r < 0 ? -1 : 0;
}

#define SYS_uselib 86
#define ENOSYS 38

#ifdef BENCH_LIBC4
/* the record of a needed library that libc 4's programs carry (see
 * testdata/dyn.c), as gforth-0.2.1's: aout2elf finds it */
struct libentry {
	const char *name, *tools;
	uint32_t jump_table, version;
};
__attribute__((used)) struct libentry bench_libentries[] = {
	{ "libc.so.4", "DLL Jump 4.6pl27", 0x60000000u, 0x40000u | 627 },
};
#endif

static int libc4_heap(const char *path, uint32_t rounds)
{
	void *(*lib_malloc)(uint32_t) = (void *(*)(uint32_t))LIBC4_MALLOC;
	void (*lib_free)(void *) = (void (*)(void *))LIBC4_FREE;
	long r = sys1(SYS_uselib, (long)path);

	if (r == -ENOSYS)
		r = map_library(path);
	if (r || *(volatile uint32_t *)0x60000000u != LIBC4_VERSION_WORD)
		return 7;
	**(uint32_t *volatile *)LIBC4_BRK_ADDR_PTR = (uint32_t)sys_brk(0);
	for (uint32_t r = 0; r < rounds; r++) {
		char *p = lib_malloc(LIBC4_BLOCK);

		if (!p)
			return 8;
		p[0] = p[LIBC4_BLOCK - 1] = 1;
		lib_free(p);
	}
	return 0;
}

static int pause_for_driver(void)
{
	uint32_t sum = 0;
	char c;

	for (uint32_t i = 0; i < TEXT_TABLE / 4; i += PAGE / 4)
		sum += ((volatile const uint32_t *)text_table)[i];
	sum += ((volatile const uint32_t *)text_table)[TEXT_TABLE / 4 - 1];
	for (uint32_t i = 0; i < sizeof data_table / 4; i += PAGE / 4)
		sum += ((volatile uint32_t *)data_table)[i];
	sum += ((volatile uint32_t *)data_table)[sizeof data_table / 4 - 1];
	bench_bss[0] = 1;
	sys_write(1, "R", 1);
	while (sys3(SYS_read, 0, (long)&c, 1) > 0)
		;
	return sum == 1 + 2 + 3 + 4 ? 0 : 5;
}

int fixture_main(uint32_t *entry_sp)
{
	uint32_t argc = entry_sp[0], n;
	char **argv = entry_argv(entry_sp);

	if (argc < 2)
		return 0;
	if (fx_streq(argv[1], "heap") && argc == 3 && parse_u32(argv[2], &n) == 0)
		return heap(n);
	if (fx_streq(argv[1], "libc4") && argc == 4 && parse_u32(argv[3], &n) == 0)
		return libc4_heap(argv[2], n);
	if (fx_streq(argv[1], "pause") && argc == 2)
		return pause_for_driver();
	if (fx_streq(argv[1], "dispatch") && argc == 2 && argv == (char **)(entry_sp + 1))
		return dispatch(entry_sp);
	if (fx_streq(argv[1], "filter") && argc == 2 && argv == (char **)(entry_sp + 1))
		return filter(entry_sp);
	if (fx_streq(argv[1], "vdso") && argc == 2 && argv == (char **)(entry_sp + 1))
		return find_vsyscall(entry_sp) && vsys(SYS_getpid, 0, 0, 0, 0, 0) > 0 ? 0 : 6;
	return 4;
}
