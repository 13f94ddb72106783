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
 *	benchprog moves N         maps a page and moves it N times with
 *	                          mremap, none of it touched: what address-
 *	                          space changes like the stub's cost here
 *	benchprog pause           reads every page of TEXT_TABLE (16 KiB of
 *	                          read-only data in the text) and of the data,
 *	                          writes "R" on stdout and waits for EOF on
 *	                          stdin: the driver reads /proc/PID/smaps_rollup
 *	                          meanwhile
 *
 * BENCH_DATA and BENCH_BSS (bytes of initialised data and of bss, from the
 * build) decide which way the converted program's brk goes.  The stub sets
 * brk exactly with prctl(PR_SET_MM_MAP) only when the a.out data ends at
 * or above 64 KiB (the kernel refuses smaller values in the map, and the
 * stub tests end_data); otherwise it emulates brk through a seccomp trap, a
 * SIGSYS per brk call.  The builds:
 *
 *   small    4 KiB data, 4 KiB bss: brk below 64 KiB, trapped
 *   bigbss   4 KiB data, 128 KiB bss: brk above 64 KiB, but the data ends
 *            below it, so brk is still trapped
 *   bigdata  64 KiB data, 4 KiB bss: data and brk above 64 KiB, prctl
 *
 * The entry stack differs by format (the a.out frame is argc, argv, envp;
 * the ELF one argc, argv[0], ...); the program tells them apart at run time
 * (in the a.out frame [esp+4] is esp+12), so the code is the same in both.
 *
 * Exit status: 0 done; 2 a brk that grew the heap failed, 3 one that shrank
 * it, 4 bad arguments, 5 the tables read back wrong, 6 a map or move failed.
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

#define SYS_old_mmap 90
#define SYS_mremap 163
#define MOVES_AT 0x50000000u /* far from the program, the stack and the vDSO */

static int moves(uint32_t n)
{
	/* old_mmap: addr, len, PROT_READ|WRITE, MAP_PRIVATE|ANONYMOUS|FIXED, fd, off */
	uint32_t args[6] = { MOVES_AT, PAGE, 3, 0x32, (uint32_t)-1, 0 };
	uint32_t at = MOVES_AT;

	if ((uint32_t)sys1(SYS_old_mmap, (long)args) != at)
		return 6;
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t to = MOVES_AT + (i % 64) * 0x100000u;

		if (to == at)
			to += PAGE;
		/* MREMAP_MAYMOVE | MREMAP_FIXED */
		if ((uint32_t)sys5(SYS_mremap, (long)at, PAGE, PAGE, 3, (long)to) != to)
			return 6;
		at = to;
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
	if (fx_streq(argv[1], "pause") && argc == 2)
		return pause_for_driver();
	if (fx_streq(argv[1], "moves") && argc == 3 && parse_u32(argv[2], &n) == 0)
		return moves(n);
	return 4;
}
