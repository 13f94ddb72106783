/*
 * startup: checks that the process looks the way the kernel's a.out loader
 * (ia32_aout.c) left it.  Prints "startup: ok" and exits 0 when all checks
 * pass; otherwise prints one line "startup: FAILED [status]: reason" on
 * stderr and exits with the status of the first check that failed:
 *
 *  status  check
 *  ------  -----------------------------------------------------------------
 *   1x     1. the stack frame of create_aout_tables
 *   11        %esp at entry is not 4-byte aligned
 *   12        [esp+4] (argv) is not esp+12
 *   13        [esp+8] (envp) is not argv+argc+1
 *   14        argv[argc] is not NULL
 *   15        something (an ELF auxiliary vector?) lies between the NULL that
 *             ends envp and the strings: the first string does not start in
 *             the word right after it
 *   16        the argument and environment strings are not contiguous
 *   17        a word below the entry %esp (from esp-8 down, 16 KiB) is not
 *             zero: below the frame the a.out loader's stack was fresh pages
 *   2x     2. "startup args 'b b' ''" run with AOUT_TEST=yes
 *   21        argc is not 4
 *   22        argv[2] is not "b b"
 *   23        argv[3] is not ""
 *   24        AOUT_TEST=yes is not in the environment
 *   3x     3. registers at entry
 *   31        one of eax, ebx, ecx, edx, esi, edi, ebp was not 0
 *   32        one of CF, PF, AF, ZF, SF, DF, OF was set in eflags
 *   4x     4. brk
 *   41        brk(0) is not aout_expected_brk (N_BSSADDR + a_bss, unrounded)
 *   42        brk(cur + 100000) did not grow the heap
 *   43        the new heap memory (from the old brk on) is not zero
 *   44        what was written to the new heap did not read back
 *   45        brk(cur) did not shrink the heap back to cur
 *   46        growing the heap again, the rest of brk's page (from cur to
 *             the page end) lost what was written there: the kernel gave
 *             back whole pages only
 *   47        growing the heap again, the pages above brk's page were not
 *             zero: the kernel handed out fresh pages
 *   5x     5. bss
 *   51        the 20000-byte bss array is not all zero
 *   52        bss_last, the last bss variable, is not zero
 *   6x     6. initialised data
 *   61        the table in .data is not intact
 *   62        a data variable cannot be changed
 *   7x     7. text at the a.out address
 *   71        the code runs outside [FIXTURE_CODE_START, _etext)
 *   72        the first byte of the text (FIXTURE_CODE_START) is not the
 *             first opcode of _start
 *   73        (QMAGIC) the a.out header is not mapped at 0x1000
 *   74        (QMAGIC) text or data are not where the header at 0x1000 says
 *   8x     8. segment registers at entry
 *   81        %fs or %gs was not 0 (the loader loaded 0 into both)
 *   82        %ds, %es and %ss were not the same selector
 *   9x     9. what ps and /proc show (where /proc is mounted)
 *   91        /proc/self/cmdline is not the argument strings
 *   92        /proc/self/environ is not the environment strings
 *   93        ("startup privs") /proc/self/status cannot be read
 *
 * Exit status 0 comes with "startup: ok" on stdout.  Run as "startup
 * stacktop", it checks the frame (1x) only and prints "stack top: 0x..."
 * (the end of the page that holds the end of the strings).  "startup
 * layout" prints that line, then "personality: 0x..." (personality(2))
 * and "mmap: 0x..." (where a one-page mmap with no address goes).
 * "startup privs" makes 12 system calls, then prints the NoNewPrivs: and
 * Seccomp: lines of /proc/self/status (0 and 0 where nothing is trapped).
 */
#include "fixture.h"

/* N_BSSADDR + a_bss: written into the file by mkaout */
uint32_t aout_expected_brk = 0xdeadbeefu;

#define T1(i) ((uint32_t)((i) * 2654435761u))
#define T4(i) T1(i), T1(i + 1), T1(i + 2), T1(i + 3)
#define T16(i) T4(i), T4(i + 4), T4(i + 8), T4(i + 12)
uint32_t data_table[64] = { T16(0), T16(16), T16(32), T16(48) };
volatile uint32_t data_var = 0x12345678u;

#define BSS_ARRAY_SIZE 20000
static uint8_t bss_array[BSS_ARRAY_SIZE];

#define HEAP_GROW 100000u

static uint32_t peek32(uint32_t addr)
{
	uint32_t v;
	__asm__ volatile("movl (%1), %0" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

static uint8_t peek8(uint32_t addr)
{
	uint8_t v;
	__asm__ volatile("movb (%1), %0" : "=q"(v) : "r"(addr) : "memory");
	return v;
}

static int failed(int status, const char *what, uint32_t got, uint32_t want)
{
	fx_puts(2, "startup: FAILED [");
	fx_putdec(2, (uint32_t)status);
	fx_puts(2, "]: ");
	fx_puts(2, what);
	fx_puts(2, " (got ");
	fx_puthex(2, got);
	fx_puts(2, ", expected ");
	fx_puthex(2, want);
	fx_puts(2, ")\n");
	return status;
}

#define U(p) ((uint32_t)(uintptr_t)(p))

/* how far below the entry %esp fixture_start.S looks: 16 KiB, in words */
__asm__(".globl fixture_stack_scan_words\n\t.set fixture_stack_scan_words, 4094");

/* the end of the last environment string: above it the kernel put only
 * the program's path and a NULL word, ending at the top of the stack */
static uint32_t strings_end;

static int check_frame(uint32_t *sp, uint32_t *pargc, char ***pargv, char ***penvp)
{
	if (U(sp) & 3)
		return failed(11, "%esp at entry is not 4-byte aligned", U(sp), U(sp) & ~3u);
	uint32_t argc = sp[0];
	char **argv = (char **)sp[1];
	char **envp = (char **)sp[2];
	if (U(argv) != U(sp + 3))
		return failed(12, "[esp+4] (argv) is not esp+12", U(argv), U(sp + 3));
	if (argc > 0x100000 || U(envp) != U(argv + argc + 1))
		return failed(13, "[esp+8] (envp) is not argv+argc+1", U(envp), U(argv + argc + 1));
	if (argv[argc])
		return failed(14, "argv[argc] is not NULL", U(argv[argc]), 0);
	uint32_t envc = 0;
	while (envp[envc])
		envc++;

	const char *first = argc ? argv[0] : envc ? envp[0] : NULL;
	if (first && (U(first) & ~3u) != U(&envp[envc]) + 4)
		return failed(15, "the strings do not start right after envp's NULL (auxv?)",
			      U(first), U(&envp[envc]) + 4);

	const char *next = first;
	for (uint32_t i = 0; i < argc; i++) {
		if (argv[i] != next)
			return failed(16, "argument strings are not contiguous", U(argv[i]), U(next));
		next = argv[i] + fx_strlen(argv[i]) + 1;
	}
	for (uint32_t i = 0; i < envc; i++) {
		if (envp[i] != next)
			return failed(16, "environment strings are not contiguous", U(envp[i]), U(next));
		next = envp[i] + fx_strlen(envp[i]) + 1;
	}
	if (entry_stack_dirty)
		return failed(17, "a word below the entry %esp is not zero (got: bytes below it)",
			      U(sp) - entry_stack_dirty, 0);
	strings_end = U(next);
	*pargc = argc;
	*pargv = argv;
	*penvp = envp;
	return 0;
}

static int check_args(uint32_t argc, char **argv, char **envp)
{
	if (argc < 2 || !fx_streq(argv[1], "args"))
		return 0;
	if (argc != 4)
		return failed(21, "argc is not 4 for 'args \"b b\" \"\"'", argc, 4);
	if (!fx_streq(argv[2], "b b"))
		return failed(22, "argv[2] is not \"b b\"", U(argv[2]), 0);
	if (!fx_streq(argv[3], ""))
		return failed(23, "argv[3] is not \"\"", U(argv[3]), 0);
	for (char **e = envp; *e; e++)
		if (fx_streq(*e, "AOUT_TEST=yes"))
			return 0;
	return failed(24, "AOUT_TEST=yes is not in the environment", 0, 0);
}

/*
 * With STARTUP_ANY_REGS=1 in the environment the general registers are not
 * checked: the kernel's a.out loader left in them what the caller of
 * execve had there (tests/aout-kernel.sh runs the originals so); the stub
 * clears them, as the ELF loader does.
 */
static int in_env(char **envp, const char *var)
{
	for (; *envp; envp++)
		if (fx_streq(*envp, var))
			return 1;
	return 0;
}

static int any_regs(char **envp)
{
	return in_env(envp, "STARTUP_ANY_REGS=1");
}

static int check_regs(char **envp)
{
	static const char *const names[] = { "eax", "ebx", "ecx", "edx", "esi", "edi", "ebp" };
	static char what[] = "%eax was not 0 at entry";

	for (int i = REG_EAX; i <= REG_EBP && !any_regs(envp); i++) {
		if (entry_regs[i] != 0) {
			memcpy(what + 1, names[i], 3);
			return failed(31, what, entry_regs[i], 0);
		}
	}
	if (entry_regs[REG_EFLAGS] & 0xcd5u)
		return failed(32, "CF/PF/AF/ZF/SF/DF/OF set in eflags at entry",
			      entry_regs[REG_EFLAGS], entry_regs[REG_EFLAGS] & ~0xcd5u);
	return 0;
}

/*
 * The heap written, given back and grown again: sys_brk unmapped only
 * the whole pages above the page brk is in, and maps fresh zero pages.
 */
static int check_regrow(uint32_t cur, uint32_t want)
{
	uint32_t page_end = (cur + 4095u) & ~4095u;
	uint32_t got = (uint32_t)sys_brk(want);
	if (got != want)
		return failed(42, "brk(cur + 100000) did not grow the heap again", got, want);
	volatile uint8_t *h = (volatile uint8_t *)(uintptr_t)cur;
	for (uint32_t i = 0; i < page_end - cur; i++)
		if (h[i] != (uint8_t)(i * 7 + 1))
			return failed(46, "the rest of brk's page lost its bytes", h[i],
				      (uint8_t)(i * 7 + 1));
	for (uint32_t i = page_end - cur; i < HEAP_GROW; i++)
		if (h[i] != 0)
			return failed(47, "heap grown again is not zero", h[i], 0);
	got = (uint32_t)sys_brk(cur);
	if (got != cur)
		return failed(45, "brk(cur) did not shrink the heap back", got, cur);
	return 0;
}

/*
 * STARTUP_EMULATED=1 (tests/under.sh): under qemu-user, where nothing can
 * trap brk, brk is the host's own and may start anywhere above bss, and
 * /proc/self/environ is qemu's own environment.
 */
static int emulated(char **envp)
{
	return in_env(envp, "STARTUP_EMULATED=1");
}

static int check_brk(char **envp)
{
	uint32_t cur = (uint32_t)sys_brk(0);
	if (emulated(envp) ? cur < aout_expected_brk : cur != aout_expected_brk)
		return failed(41, "brk(0) is not N_BSSADDR + a_bss", cur, aout_expected_brk);
	uint32_t want = cur + HEAP_GROW;
	uint32_t got = (uint32_t)sys_brk(want);
	if (got != want)
		return failed(42, "brk(cur + 100000) did not grow the heap", got, want);
	volatile uint8_t *h = (volatile uint8_t *)(uintptr_t)cur;
	for (uint32_t i = 0; i < HEAP_GROW; i++)
		if (h[i] != 0)
			return failed(43, "new heap memory is not zero", cur + i, 0);
	for (uint32_t i = 0; i < HEAP_GROW; i++)
		h[i] = (uint8_t)(i * 7 + 1);
	for (uint32_t i = 0; i < HEAP_GROW; i++)
		if (h[i] != (uint8_t)(i * 7 + 1))
			return failed(44, "heap memory does not read back", cur + i, 0);
	got = (uint32_t)sys_brk(cur);
	if (got != cur)
		return failed(45, "brk(cur) did not shrink the heap back", got, cur);
	got = (uint32_t)sys_brk(0);
	if (got != cur)
		return failed(45, "brk(0) after shrinking is not cur", got, cur);
	return check_regrow(cur, want);
}

static int check_bss(void)
{
	volatile uint8_t *b = bss_array;
	for (uint32_t i = 0; i < BSS_ARRAY_SIZE; i++)
		if (b[i] != 0)
			return failed(51, "bss array is not zero", U(&b[i]), 0);
	if (*(volatile uint32_t *)&bss_last != 0)
		return failed(52, "bss_last is not zero", U(&bss_last), 0);
	return 0;
}

static int check_data(void)
{
	volatile uint32_t *t = data_table;
	for (uint32_t i = 0; i < 64; i++)
		if (t[i] != i * 2654435761u)
			return failed(61, "data table is not intact", U(&t[i]), i * 2654435761u);
	if (data_var != 0x12345678u)
		return failed(61, "data variable is not intact", data_var, 0x12345678u);
	data_var = 0x87654321u;
	if (data_var != 0x87654321u)
		return failed(62, "data variable cannot be changed", data_var, 0x87654321u);
	return 0;
}

static int __attribute__((noinline)) check_text(uint32_t ret)
{
#if FIXTURE_CODE_START > 0
	if (ret < FIXTURE_CODE_START)
		return failed(71, "code runs below the a.out text", ret, FIXTURE_CODE_START);
#endif
	if (ret >= U(_etext))
		return failed(71, "code runs outside the a.out text", ret, FIXTURE_CODE_START);
	if (peek8(FIXTURE_CODE_START) != 0xa3)
		return failed(72, "the text does not start with _start", peek8(FIXTURE_CODE_START), 0xa3);
#if FIXTURE_MAGIC == FIXTURE_QMAGIC
	uint32_t info = peek32(0x1000);
	if (info != (FIXTURE_QMAGIC | 100u << 16))
		return failed(73, "no QMAGIC a.out header at 0x1000", info, FIXTURE_QMAGIC | 100u << 16);
	uint32_t a_text = peek32(0x1004);
	if (U(fixture_main) >= 0x1000 + a_text || U(_etext) > 0x1000 + a_text)
		return failed(74, "text reaches past 0x1000 + a_text", U(_etext), 0x1000 + a_text);
	if (U(data_table) < 0x1000 + a_text)
		return failed(74, "data below N_DATADDR = 0x1000 + a_text", U(data_table), 0x1000 + a_text);
	if (peek32(0x1014) != U(_start))
		return failed(74, "a_entry at 0x1014 is not _start", peek32(0x1014), U(_start));
#else
	(void)peek32;
#endif
	return 0;
}

static int check_segments(void)
{
	uint32_t fs = entry_regs[REG_FS] & 0xffff, gs = entry_regs[REG_GS] & 0xffff;
	uint32_t ds = entry_regs[REG_DS] & 0xffff, es = entry_regs[REG_ES] & 0xffff;
	uint32_t ss = entry_regs[REG_SS] & 0xffff;
	if (fs != 0)
		return failed(81, "%fs was not 0 at entry", fs, 0);
	if (gs != 0)
		return failed(81, "%gs was not 0 at entry", gs, 0);
	if (ds != ss || es != ss)
		return failed(82, "%ds/%es were not %ss at entry", ds != ss ? ds : es, ss);
	return 0;
}

/*
 * The kernel reads these files between the bounds the loader gave it
 * (arg_start..arg_end, env_start..env_end); a stub that got them wrong
 * shows ps a wrong or cut command line.
 */
static int check_proc_file(const char *path, const char *start, const char *end,
			   int status, const char *what)
{
	long fd = sys3(SYS_open, (long)path, 0, 0);
	char buf[4096];
	const char *want = start;
	long n;

	if (fd < 0)
		return 0; /* no /proc here: nothing to compare with */
	while ((n = sys3(SYS_read, fd, (long)buf, sizeof buf)) > 0) {
		for (long i = 0; i < n; i++, want++)
			if (want >= end || buf[i] != *want) {
				sys1(SYS_close, fd);
				return failed(status, what, U(want), U(end));
			}
	}
	sys1(SYS_close, fd);
	if (n < 0 || want != end)
		return failed(status, what, U(want), U(end));
	return 0;
}

static int check_proc(uint32_t argc, char **argv, char **envp)
{
	uint32_t envc = 0;
	int r;

	while (envp[envc])
		envc++;
	if (argc &&
	    (r = check_proc_file("/proc/self/cmdline", argv[0],
				 argv[argc - 1] + fx_strlen(argv[argc - 1]) + 1, 91,
				 "/proc/self/cmdline is not the arguments")))
		return r;
	if (envc && !emulated(envp))
		return check_proc_file("/proc/self/environ", envp[0],
				       envp[envc - 1] + fx_strlen(envp[envc - 1]) + 1,
				       92, "/proc/self/environ is not the environment");
	return 0;
}

/* what --no-randomize is about: randomised or not, and what children inherit */
static void print_layout(void)
{
	/* old mmap(2) takes its six arguments in memory */
	uint32_t mmap_args[6] = { 0, 4096, 3 /* PROT_READ|WRITE */,
				  0x22 /* MAP_PRIVATE|ANONYMOUS */, (uint32_t)-1, 0 };

	fx_puts(1, "personality: ");
	fx_puthex(1, (uint32_t)sys1(136 /* personality */, 0xffffffffL));
	fx_puts(1, "\nmmap: ");
	fx_puthex(1, (uint32_t)sys1(90 /* mmap */, (long)mmap_args));
	fx_puts(1, "\n");
}

/*
 * "startup privs": after more system calls than the stub lets syscall user
 * dispatch trap (8), the NoNewPrivs: and Seccomp: lines of
 * /proc/self/status, as grep prints them.  Where the stub set brk by
 * prctl nothing is trapped: both are 0 (a seccomp filter sets
 * no_new_privs, which set-user-ID programs started from here would lose).
 */
static int print_privs(void)
{
	static char buf[4096];

	for (int i = 0; i < 12; i++)
		sys_getpid();
	if (fx_read_file("/proc/self/status", buf, sizeof buf) <= 0)
		return failed(93, "cannot read /proc/self/status", 0, 0);
	for (char *line = buf; *line;) {
		char *end = line;

		while (*end && *end != '\n')
			end++;
		if (*end)
			end++;
		if (fx_starts_with(line, "NoNewPrivs:") || fx_starts_with(line, "Seccomp:"))
			sys_write(1, line, (size_t)(end - line));
		line = end;
	}
	return 0;
}

int fixture_main(uint32_t *entry_sp)
{
	uint32_t argc = 0;
	char **argv = NULL, **envp = NULL;
	int r;

	if ((r = check_frame(entry_sp, &argc, &argv, &envp)))
		return r;
	/* "startup stacktop" prints the top of the stack: the a.out loader
	 * put it at STACK_TOP less at most 8 KiB (arch_align_stack), an ELF's
	 * is randomised over megabytes; without randomisation both are
	 * STACK_TOP exactly */
	if (argc == 2 && (fx_streq(argv[1], "stacktop") || fx_streq(argv[1], "layout"))) {
		fx_puts(1, "stack top: ");
		fx_puthex(1, (strings_end + 4095u) & ~4095u);
		fx_puts(1, "\n");
		if (fx_streq(argv[1], "layout"))
			print_layout();
		return 0;
	}
	if (argc == 2 && fx_streq(argv[1], "privs"))
		return print_privs();
	if ((r = check_args(argc, argv, envp)) ||
	    (r = check_regs(envp)) ||
	    (r = check_brk(envp)) ||
	    (r = check_bss()) ||
	    (r = check_data()) ||
	    (r = check_text(U(__builtin_return_address(0)))) ||
	    (r = check_segments()) ||
	    (r = check_proc(argc, argv, envp)))
		return r;
	fx_puts(1, "startup: ok\n");
	return 0;
}
