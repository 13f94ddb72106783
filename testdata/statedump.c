/*
 * statedump: prints what a program can see of the process it was started
 * in, one fact a line, so that the same program run by the kernel's own
 * a.out loader and converted by aout2elf can be compared line by line
 * (tests/aout-kernel.sh does, under a kernel built with CONFIG_IA32_AOUT).
 *
 * Addresses on the stack are printed relative to the top of the stack (the
 * end of the page that holds the end of the strings exec copied), so that
 * where exec put the stack does not show; everything else is printed as it
 * is.  Where the process is randomised (personality without
 * ADDR_NO_RANDOMIZE under the ELF loader) the absolute "stack top" and
 * "mmap address" lines differ from run to run; the test compares them only
 * where nothing is randomised.  Exit status 0.
 *
 * Its bss is small enough for brk to lie below 64 KiB, where the stub traps
 * brk calls (see docs/design.md, "How a converted program starts");
 * statedump-big.c is the same program with brk above 64 KiB, set by prctl.
 */
#include "fixture.h"

/* fixture_start.S: scan this many words below the entry %esp (32 KiB) */
__asm__(".globl fixture_stack_scan_words\n\t.set fixture_stack_scan_words, 8192");

#define SYS_personality 136
#define SYS_ugetrlimit 191
#define SYS_mmap2 192
#define SYS_munmap 91
#define SYS_get_thread_area 244
#define SYS_modify_ldt 123

static char out[16384];

#ifdef STATEDUMP_BSS_PAD
static char pad[STATEDUMP_BSS_PAD] __attribute__((used));
#endif
static uint32_t out_len;

static void put(const char *s)
{
	while (*s && out_len < sizeof out)
		out[out_len++] = *s++;
}

static void put_hex(uint32_t v)
{
	char b[11];

	put(fx_hex(b, v));
}

static void put_dec(uint32_t v)
{
	char b[11];

	put(fx_dec(b, v));
}

/* "top-N" for an address on the stack */
static uint32_t stack_top;

static void put_stack(uint32_t a)
{
	if (a <= stack_top && stack_top - a < 0x1000000u) {
		put("top-");
		put_dec(stack_top - a);
	} else {
		put_hex(a);
	}
}

static void put_escaped(const char *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			char b[2] = { (char)c, 0 };
			put(b);
		} else {
			char b[5] = { '\\', (char)('0' + (c >> 6)),
				      (char)('0' + ((c >> 3) & 7)), (char)('0' + (c & 7)), 0 };
			put(b);
		}
	}
}

/* NAME[i]: each pointer of the array v[0..n], and the string it points to */
static void put_strings(const char *name, char **v, uint32_t n)
{
	for (uint32_t i = 0; i <= n; i++) {
		put(name);
		put("[");
		put_dec(i);
		put("]: ");
		put_stack((uint32_t)v[i]);
		if (v[i]) {
			put(" \"");
			put_escaped(v[i], fx_strlen(v[i]));
			put("\"");
		}
		put("\n");
	}
}

static void frame(uint32_t *sp)
{
	uint32_t argc = sp[0];
	char **argv = (char **)sp[1], **envp = (char **)sp[2];
	uint32_t envc = 0;

	while (envp[envc])
		envc++;
	const char *last = envc ? envp[envc - 1] : argc ? argv[argc - 1] : 0;
	uint32_t strings_end = last ? (uint32_t)last + fx_strlen(last) + 1 :
				      (uint32_t)(envp + envc + 1);
	stack_top = (strings_end + 0xfffu) & ~0xfffu;

	put("stack top: ");
	put_hex(stack_top);
	put("\nesp: ");
	put_stack((uint32_t)sp);
	put("\nargc: ");
	put_dec(argc);
	put("\nargv: ");
	put_stack((uint32_t)argv);
	put("\nenvp: ");
	put_stack((uint32_t)envp);
	put("\n");
	put_strings("argv", argv, argc);
	put_strings("envp", envp, envc);
	put("after strings: \"");
	put_escaped((const char *)strings_end, stack_top - strings_end);
	put("\"\nbelow esp: ");
	if (entry_stack_dirty) {
		put("first non-zero word at ");
		put_stack(entry_stack_dirty);
	} else {
		put("zero for 32 KiB");
	}
	put("\n");
}

static void registers(void)
{
	static const char *const names[] = { "eax", "ebx", "ecx", "edx", "esi",
					     "edi", "ebp", "eflags", "cs", "ds",
					     "es", "fs", "gs", "ss" };

	for (int i = 0; i < 14; i++) {
		put(names[i]);
		put(": ");
		put_hex(entry_regs[i]);
		put("\n");
	}
	uint16_t cw, sw;
	uint32_t mxcsr;

	__asm__ volatile("fnstcw %0; fnstsw %1" : "=m"(cw), "=m"(sw));
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	put("fpu control: ");
	put_hex(cw);
	put("\nfpu status: ");
	put_hex(sw);
	put("\nmxcsr: ");
	put_hex(mxcsr);
	put("\n");
}

/* The fields of a /proc file line that starts with key, or of stat. */
static char buf[8192];

/* /proc/self/NAME into buf: 1, or a line saying it is unreadable and 0 */
static int read_proc(const char *name)
{
	char path[32] = "/proc/self/";

	memcpy(path + 11, name, fx_strlen(name) + 1);
	if (fx_read_file(path, buf, sizeof buf) >= 0)
		return 1;
	put(name);
	put(": unreadable\n");
	return 0;
}

static void status_lines(void)
{
	static const char *const keys[] = { "NoNewPrivs:", "Seccomp:", "SigPnd:",
					     "ShdPnd:", "SigBlk:", "SigIgn:",
					     "SigCgt:", "CapEff:" };
	if (!read_proc("status"))
		return;
	for (const char *l = buf; *l;) {
		const char *e = l;
		while (*e && *e != '\n')
			e++;
		for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (fx_starts_with(l, keys[k])) {
				put("status ");
				put_escaped(l, (uint32_t)(e - l));
				put("\n");
			}
		l = *e ? e + 1 : e;
	}
}

/* /proc/self/stat fields 26-28 and 45-51 (1-based), the ones a.out set */
static void stat_fields(void)
{
	if (!read_proc("stat"))
		return;
	const char *p = buf;
	for (const char *q = buf; *q; q++)
		if (*q == ')')
			p = q + 2; /* field 3 */
	static const char *const names[] = {
		[26] = "startcode", [27] = "endcode", [28] = "startstack",
		[45] = "start_data", [46] = "end_data", [47] = "start_brk",
		[48] = "arg_start", [49] = "arg_end", [50] = "env_start",
		[51] = "env_end",
	};
	for (int field = 3; *p && field <= 51; field++) {
		uint32_t v = 0;
		while (*p >= '0' && *p <= '9')
			v = v * 10 + (uint32_t)(*p++ - '0');
		if (field < (int)(sizeof names / sizeof names[0]) && names[field]) {
			put("stat ");
			put(names[field]);
			put(": ");
			if (field == 28 || field >= 48)
				put_stack(v);
			else
				put_hex(v);
			put("\n");
		}
		while (*p && *p != ' ')
			p++;
		if (*p)
			p++;
	}
}

static uint32_t parse_hex(const char **p)
{
	uint32_t v = 0;

	for (;; (*p)++) {
		char c = **p;
		if (c >= '0' && c <= '9')
			v = v * 16 + (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uint32_t)(c - 'a' + 10);
		else
			return v;
	}
}

/*
 * Each mapping: its range, access and file offset, and what it maps: the
 * program's own file ("program", whichever of the .aout and the .elf it
 * is), another file by name, or the kernel's name ([heap], [stack], ...).
 * Stack ranges are relative to the top.
 */
static void maps(const char *self)
{
	if (!read_proc("maps"))
		return;
	for (const char *l = buf; *l;) {
		const char *p = l;
		uint32_t start = parse_hex(&p);
		p++;
		uint32_t end = parse_hex(&p);
		p++;
		const char *perms = p;
		p += 5;
		uint32_t offset = parse_hex(&p);
		/* then " dev inode", and the name after padding (or none) */
		for (int field = 0; *p && *p != '\n' && field < 2; field++) {
			p++;
			while (*p && *p != ' ' && *p != '\n')
				p++;
		}
		while (*p == ' ')
			p++;
		const char *name = p, *e = p;
		while (*e && *e != '\n')
			e++;
		put("map ");
		if (start <= stack_top && stack_top - start < 0x1000000u && end <= stack_top) {
			put_stack(start);
			put("-");
			put_stack(end);
		} else {
			put_hex(start);
			put("-");
			put_hex(end);
		}
		put(" ");
		put_escaped(perms, 4);
		put(" ");
		put_hex(offset);
		put(" ");
		uint32_t len = (uint32_t)(e - name);
		uint32_t slen = fx_strlen(self);
		if (len && len == slen && fx_starts_with(name, self))
			put("program");
		else if (len)
			put_escaped(name, len);
		else
			put("anonymous");
		put("\n");
		l = *e ? e + 1 : e;
	}
}

static void signals(void)
{
	uint32_t mask[2] = { 0, 0 };

	sys4(SYS_rt_sigprocmask, 0, 0, (long)mask, 8);
	put("sigmask: ");
	put_hex(mask[1]);
	put(" ");
	put_hex(mask[0]);
	put("\n");
	for (int sig = 1; sig <= 64; sig++) {
		struct k_sigaction old = { 0, 0, 0, { 0, 0 } };
		if (sig == 9 || sig == 19)
			continue;
		if (sys_rt_sigaction(sig, 0, &old) != 0) {
			put("sigaction ");
			put_dec((uint32_t)sig);
			put(": refused\n");
		} else if (old.handler || old.flags || old.mask[0] || old.mask[1]) {
			put("sigaction ");
			put_dec((uint32_t)sig);
			put(": handler ");
			put_hex((uint32_t)old.handler);
			put(" flags ");
			put_hex(old.flags);
			put("\n");
		}
	}
}

int fixture_main(uint32_t *sp)
{
	registers();
	frame(sp);

	uint32_t brk0 = (uint32_t)sys_brk(0);
	put("brk: ");
	put_hex(brk0);
	put("\nbrk +20000: ");
	put_hex((uint32_t)sys_brk(brk0 + 20000));
	put("\nbrk back: ");
	put_hex((uint32_t)sys_brk(brk0));
	put("\nbrk below start: ");
	put_hex((uint32_t)sys_brk(brk0 - 16));
	put("\n");

	uint32_t pers = (uint32_t)sys1(SYS_personality, 0xffffffff);
	put("personality: ");
	put_hex(pers);
	put("\n");

	uint32_t m = (uint32_t)sys5(SYS_mmap2, 0, 4096, 3, 0x22, -1);
	put("mmap: ");
	put(m > 0xfffff000u ? "failed" : m < stack_top ? "below the stack" : "above the stack");
	put("\nmmap address: ");
	put_hex(m);
	put("\n");
	sys2(SYS_munmap, (long)m, 4096);

	uint32_t lim[2];
	for (int r = 0; r < 16; r++) {
		if (sys2(SYS_ugetrlimit, r, (long)lim) != 0)
			continue;
		put("rlimit ");
		put_dec((uint32_t)r);
		put(": ");
		put_hex(lim[0]);
		put(" ");
		put_hex(lim[1]);
		put("\n");
	}

	uint32_t ta[4] = { 12, 0, 0, 0 };
	for (uint32_t e = 12; e <= 14; e++) {
		ta[0] = e;
		long r = sys1(SYS_get_thread_area, (long)ta);
		put("thread area ");
		put_dec(e);
		put(": ");
		put_hex((uint32_t)r);
		put(" base ");
		put_hex(ta[1]);
		put(" limit ");
		put_hex(ta[2]);
		put(" flags ");
		put_hex(ta[3]);
		put("\n");
	}
	static char ldt[64];
	put("ldt bytes: ");
	put_hex((uint32_t)sys3(SYS_modify_ldt, 0, (long)ldt, sizeof ldt));
	put("\n");

	long n = fx_read_file("/proc/self/auxv", buf, sizeof buf);
	uint32_t nonzero = 0;
	for (long i = 0; i < n; i++)
		nonzero += buf[i] != 0;
	put("auxv: ");
	put_dec((uint32_t)n);
	put(" bytes, ");
	put_dec(nonzero);
	put(" not zero\n");

	signals();
	status_lines();
	stat_fields();

	static char self[512];
	long len = sys3(85 /* readlink */, (long)"/proc/self/exe", (long)self,
			sizeof self - 1);
	self[len > 0 ? len : 0] = 0;
	maps(self);

	sys_write(1, out, out_len);
	return 0;
}
