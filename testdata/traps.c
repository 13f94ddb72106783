/*
 * traps: the stub's two ways of trapping brk in a program whose brk is
 * below 64 KiB.  It starts with syscall user dispatch (every call of the
 * program is a SIGSYS the stub answers) and attaches a seccomp filter
 * after a few calls, or at the first call it cannot make from its signal
 * handler.  Each mode checks that the program cannot tell: brk stays
 * exact, calls happen once, children and signal handlers work.  It reads
 * "Seccomp:" from /proc/self/status to see which way is in force.
 *
 * With TRAPS_NO_DISPATCH=1 in its environment (a kernel before 5.11, which
 * has no syscall user dispatch), the modes that run there expect the
 * filter from the start where they would expect dispatch.
 *
 *	traps probe	prints "brk: exact" (the kernel took the exact brk:
 *			nothing is trapped, the rest is moot) or "brk: trapped,
 *			dispatch" or "brk: trapped, filter" (no syscall user
 *			dispatch: the filter from the start)
 *	traps maps	prints /proc/self/maps (the test compares it with
 *			aout2elf --info)
 *	traps budget	Seccomp 0 at start, 2 after 20 getpid calls; brk
 *	traps brkonly	Seccomp 0 at start, 2 after 10 brk calls past 64 KiB
 *			(and back) where brk is hybrid: such calls use up
 *			dispatch's budget too; still 0 where every brk is
 *			emulated
 *	traps refused	a grow past 64 KiB that the kernel refuses (run it
 *			under ulimit -d 1024) leaves brk where it was, under
 *			dispatch (the filter lets such a call through, and the
 *			kernel answers 64 KiB: see Limitations in docs/design.md);
 *			then a heap grown past 64 KiB, given back and grown
 *			past it again is zero above the brk page, as the
 *			kernel's fresh pages were, under dispatch and under
 *			the filter; needs syscall user dispatch (Linux 5.11+)
 *	traps fork	fork as the first call: brk in the child and parent
 *	traps nested	a SIGALRM handler that calls brk and write interrupts
 *			a read the stub is making for the program; still
 *			Seccomp 0 afterwards
 *	traps registers	a trapped brk and a dispatched call keep every register
 *			but eax, eflags and the FPU and SSE state, under dispatch
 *			and under the filter
 *	traps mask	rt_sigprocmask as the first call: its effect stays
 *	traps blockall	every signal blocked (sigprocmask, a handler's
 *			sa_mask, sigsuspend): brk still works, the masks read
 *			back hold SIGSYS, a SIGSYS sent meanwhile waits until
 *			it is unblocked or a sigsuspend lets it in, bad
 *			pointers give EFAULT (an unwritable old set after the
 *			mask has changed); under dispatch and under the filter
 *	traps inherited	started with SIGSYS blocked (env --block-signal=SYS):
 *			the mask says so, and brk works
 *	traps sigsys	its own SIGSYS handler, set, read back, raised with
 *			kill (seen in the program's context), ignored and
 *			reset; an old-style one (int, struct sigcontext) whose
 *			change to eax sigreturn restores; its sa_mask and
 *			SIGSYS blocked while it runs; under dispatch and the
 *			filter
 *	traps sigsys-default	kill(SIGSYS) with SIG_DFL: dies of it
 *	traps exec PATH [ARG]...   execve as the first call
 *	traps exec-ignoring PATH [ARG]...   SIGSYS ignored, then execve under
 *			the filter: PATH starts with SIGSYS ignored
 *	traps exec-blocking PATH [ARG]...   SIGSYS blocked, then execve under
 *			dispatch: PATH starts with SIGSYS blocked
 *
 * Prints "traps: ok" and exits 0, or one line on stderr and the status:
 * 1 usage, 2 /proc/self/status unreadable, 3 wrong Seccomp value,
 * 4 brk(0) not aout_expected_brk, 5 brk did not grow or shrink, 6 the new
 * heap was not zero, 7 fork or the child failed, 8 the signal handler
 * failed or did not run, 9 the signal mask did not stay, 10 execve failed,
 * 11 a SIGSYS disposition was not what was set, 12 a sent SIGSYS did not
 * do what the disposition says, 13 a mask read back is not what was set,
 * 14 a bad pointer did not give EFAULT, 15 a trapped call changed a register
 * other than eax, eflags or the FPU or SSE state.
 */
#include "fixture.h"

#define SYS_pipe 42
#define SYS_setitimer 104
#define SIGUSR1 10
#define SIGUSR2 12
#define SIGALRM 14
#define SA_RESTART 0x10000000u

/* N_BSSADDR + a_bss: written into the file by mkaout */
uint32_t aout_expected_brk = 0xdeadbeefu;

static int fail(int status, const char *why)
{
	fx_puts(2, "traps: FAILED: ");
	fx_puts(2, why);
	fx_puts(2, "\n");
	return status;
}

/*
 * Seccomp: before the dispatch budget is used up: 0 under dispatch, 2
 * where the kernel has none and the filter is there from the start.
 */
static int seccomp_at_first;

/* The number after "Seccomp:" in /proc/self/status, or -1. */
static int seccomp_mode(void)
{
	static char buf[4096];

	if (fx_read_file("/proc/self/status", buf, sizeof buf) <= 0)
		return -1;
	for (char *p = buf; *p; p++)
		if ((p == buf || p[-1] == '\n') && fx_starts_with(p, "Seccomp:\t"))
			return p[9] - '0';
	return -1;
}

static int expect_seccomp(int want)
{
	int got = seccomp_mode();

	if (got < 0)
		return fail(2, "cannot read Seccomp: from /proc/self/status");
	if (got != want) {
		fx_puts(2, "traps: FAILED: Seccomp: is ");
		fx_putdec(2, (uint32_t)got);
		fx_puts(2, ", expected ");
		fx_putdec(2, (uint32_t)want);
		fx_puts(2, "\n");
		return 3;
	}
	return 0;
}

/* brk(0) exact, a grow of three pages that reads zero, a shrink back. */
static int check_brk(void)
{
	uint32_t cur = (uint32_t)sys_brk(0), want = cur + 3 * 4096 + 100;

	if (cur != aout_expected_brk)
		return fail(4, "brk(0) is not N_BSSADDR + a_bss");
	if ((uint32_t)sys_brk(want) != want)
		return fail(5, "brk did not grow");
	for (volatile char *p = (char *)cur; p < (char *)want; p++)
		if (*p)
			return fail(6, "the new heap is not zero");
	((volatile char *)want)[-1] = 1;
	if ((uint32_t)sys_brk(cur) != cur || (uint32_t)sys_brk(0) != cur)
		return fail(5, "brk did not shrink back");
	/* pages given back come back zero; the brk page keeps its bytes */
	((volatile char *)cur)[-1] = 2;
	if ((uint32_t)sys_brk(want) != want)
		return fail(5, "brk did not grow again");
	if (((volatile char *)want)[-1] != 0)
		return fail(6, "a heap page given back and grown again is not zero");
	if (((volatile char *)cur)[-1] != 2)
		return fail(6, "the brk page lost its contents");
	if ((uint32_t)sys_brk(cur) != cur)
		return fail(5, "brk did not shrink back");
	return 0;
}

/*
 * Whether brk is trapped here at all: where the kernel took the exact brk
 * with prctl, start_brk (field 47 of /proc/self/stat) is N_BSSADDR, at or
 * below the a.out brk (this program's is below 64 KiB); where brk is
 * trapped it is 64 KiB (hybrid) or the kernel's own, above.
 */
/* start_brk, field 47 of /proc/self/stat; 0 if it cannot be read */
static uint32_t stat_start_brk(void)
{
	static char buf[2048];
	long n = fx_read_file("/proc/self/stat", buf, sizeof buf);
	uint32_t field = 0, v = 0;
	char *p;

	if (n <= 0)
		return 0;
	for (p = buf + n; p > buf && p[-1] != ')'; p--)
		; /* past the command name, which may hold anything */
	for (field = 2; *p && field < 47; p++)
		if (*p == ' ')
			field++;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (uint32_t)(*p++ - '0');
	return v;
}

static int probe(void)
{
	uint32_t v = stat_start_brk();

	if (!v)
		return fail(2, "cannot read /proc/self/stat");
	if (v <= aout_expected_brk) {
		fx_puts(1, "brk: exact\n");
		return 0;
	}
	/* 4 calls so far: still within the dispatch budget, if there is one */
	int mode = seccomp_mode();
	fx_puts(1, mode == 0 ? "brk: trapped, dispatch\n" :
		   mode == 2 ? "brk: trapped, filter\n" : "brk: trapped, ?\n");
	return 0;
}

/* More calls than dispatch takes: the filter must be in place after them. */
static int past_the_budget(void)
{
	for (int i = 0; i < 20; i++)
		sys_getpid();
	return expect_seccomp(2);
}

static int budget(void)
{
	int r;

	if ((r = expect_seccomp(0)) || (r = past_the_budget()) || (r = check_brk()))
		return r;
	return 0;
}

/*
 * Everything a trapped call must leave as the kernel would: every general
 * register but eax, eflags (CF and DF set going in), the x87 stack and
 * control word, the SSE registers and MXCSR, and where there is AVX, the
 * upper half of a ymm register.  The kernel hands the stub's
 * handler a clean FPU; only a correct return gives the program its own
 * back.  One call, made with these registers, and fxsave images of before
 * and after.
 */
/* global: the asm below names them */
uint8_t fx_before[512] __attribute__((aligned(16)));
uint8_t fx_after[512] __attribute__((aligned(16)));
uint32_t regs_after[8]; /* eax ebx ecx edx esi edi ebp eflags */
const uint32_t pattern[16] __attribute__((aligned(16))) = {
	0x01234567, 0x89abcdef, 0xdeadbeef, 0x0badf00d, 0x11111111, 0x22222222,
	0x33333333, 0x44444444, 0x55555555, 0x66666666, 0x77777777, 0x88888888,
	0x99999999, 0xaaaaaaaa, 0xbbbbbbbb, 0xcccccccc,
};
const uint16_t odd_fcw = 0x0c7f;   /* round toward zero, 24-bit */
const uint32_t odd_mxcsr = 0x7f80; /* round toward zero */
uint32_t saved_ebp, saved_esp;
/* AVX: ymm5's upper half too (the kernel saves it past the fxsave image) */
uint8_t use_avx;
uint8_t ymm_after[32];

static void cpuid(uint32_t leaf, uint32_t *ecx)
{
	uint32_t a = leaf, b, c = 0, d;

	__asm__ volatile(".arch i686\n\tcpuid\n\t.arch i386"
			 : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	*ecx = c;
}

static int has_avx(void)
{
	uint32_t ecx, lo, hi;

	cpuid(1, &ecx);
	if (!(ecx & (1u << 27)) || !(ecx & (1u << 28))) /* OSXSAVE, AVX */
		return 0;
	__asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0)); /* xgetbv */
	(void)hi;
	return (lo & 6) == 6; /* the OS saves SSE and AVX state */
}

static void call_with_registers(uint32_t nr, uint32_t arg)
{
	__asm__ volatile(
		".arch corei7\n\t"
		".arch .avx\n\t"
		"movl %%ebp, saved_ebp\n\t"
		"movl %%esp, saved_esp\n\t"
		"fninit\n\t"
		"fldcw odd_fcw\n\t"
		"fldpi\n\tfld1\n\tfldl2e\n\tfldln2\n\t"
		"ldmxcsr odd_mxcsr\n\t"
		"movdqa pattern, %%xmm0\n\t"
		"movdqa pattern+16, %%xmm1\n\t"
		"movdqa pattern+32, %%xmm2\n\t"
		"movdqa pattern+48, %%xmm7\n\t"
		"cmpb $0, use_avx\n\t"
		"je 1f\n\t"
		"vmovdqu pattern+16, %%ymm5\n"
		"1:\n\t"
		"fxsave fx_before\n\t"
		"movl $0x5a5a0001, %%ecx\n\t"
		"movl $0x5a5a0002, %%edx\n\t"
		"movl $0x5a5a0003, %%esi\n\t"
		"movl $0x5a5a0004, %%edi\n\t"
		"movl $0x5a5a0005, %%ebp\n\t"
		"stc\n\tstd\n\t"
		".globl trapped_call\n"
		"trapped_call: int $0x80\n\t" /* for a breakpoint (stress.sh) */
		"pushfl\n\t"
		"cld\n\t"
		"popl regs_after+28\n\t"
		"movl %%eax, regs_after\n\t"
		"movl %%ebx, regs_after+4\n\t"
		"movl %%ecx, regs_after+8\n\t"
		"movl %%edx, regs_after+12\n\t"
		"movl %%esi, regs_after+16\n\t"
		"movl %%edi, regs_after+20\n\t"
		"movl %%ebp, regs_after+24\n\t"
		"fxsave fx_after\n\t"
		"cmpb $0, use_avx\n\t"
		"je 2f\n\t"
		"vmovdqu %%ymm5, ymm_after\n\t"
		"vzeroupper\n"
		"2:\n\t"
		"fninit\n\t"
		"movl saved_ebp, %%ebp\n\t"
		"movl saved_esp, %%esp\n\t"
		".arch i386\n\t"
		: "+a"(nr), "+b"(arg)
		:
		: "ecx", "edx", "esi", "edi", "memory", "cc");
}

/* fxsave's bytes that the call must keep: FCW FSW FTW, MXCSR, ST0-7, XMM0-7 */
static int fx_kept(void)
{
	static const struct { uint16_t from, to; } kept[] = {
		{ 0, 5 }, { 24, 28 }, { 32, 288 },
	};

	for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++)
		for (uint32_t i = kept[k].from; i < kept[k].to; i++)
			if (fx_before[i] != fx_after[i])
				return 0;
	return 1;
}

static int registers_kept(uint32_t nr, uint32_t arg, uint32_t want_eax, const char *what)
{
	static const uint32_t want[6] = { 0x5a5a0001, 0x5a5a0002, 0x5a5a0003,
					  0x5a5a0004, 0x5a5a0005, 0 };

	call_with_registers(nr, arg);
	if (regs_after[0] != want_eax || regs_after[1] != arg)
		return fail(15, what);
	for (int i = 0; i < 5; i++)
		if (regs_after[2 + i] != want[i])
			return fail(15, what);
	if ((regs_after[7] & 0x401u) != 0x401u) /* DF, CF */
		return fail(15, what);
	if (!fx_kept())
		return fail(15, what);
	for (int i = 0; use_avx && i < 32; i++)
		if (ymm_after[i] != ((const uint8_t *)pattern)[16 + i])
			return fail(15, what);
	return 0;
}

static int registers(void)
{
	int r;
	uint32_t pid = (uint32_t)sys_getpid();

	use_avx = (uint8_t)has_avx();

	if ((r = registers_kept(SYS_brk, 0, aout_expected_brk,
				"registers changed by a brk call before the budget")) ||
	    (r = registers_kept(SYS_getpid, 0, pid,
				"registers changed by a call before the budget")) ||
	    (r = expect_seccomp(seccomp_at_first)) || (r = past_the_budget()) ||
	    (r = registers_kept(SYS_brk, 0, aout_expected_brk,
				"registers changed by a brk call under the filter")) ||
	    (r = registers_kept(SYS_getpid, 0, pid,
				"registers changed by a call under the filter")))
		return r;
	return 0;
}

/*
 * Nothing but brk calls, past 64 KiB and back.  Where brk is hybrid (the
 * kernel's start_brk is 64 KiB) the grows past 64 KiB are the kernel's
 * under the filter, so under dispatch they use up its budget like any
 * other call, and the filter takes over.  Where every brk is emulated
 * (the kernel took no brk of the stub's: Debian's i386 kernel in the VM
 * of tools/run-in-vm) they are trapped either way, and dispatch stays.
 */
static int brk_only(void)
{
	uint32_t cur = (uint32_t)sys_brk(0), high = 0x10000u + 2 * 4096;
	int r, after;

	if ((r = expect_seccomp(0)))
		return r;
	for (int i = 0; i < 10; i++)
		if ((uint32_t)sys_brk(high) != high || (uint32_t)sys_brk(cur) != cur)
			return fail(5, "brk did not grow past 64 KiB and back");
	after = seccomp_mode(); /* before the calls of stat_start_brk */
	if (after != (stat_start_brk() == 0x10000u ? 2 : 0))
		return fail(3, "brk calls past 64 KiB did not use up dispatch's budget "
			       "(hybrid brk), or did (every brk emulated)");
	return check_brk();
}

/* brk(cur + 64 MiB) refused: brk is where it was, and still works. */
static int refused_grow(void)
{
	uint32_t cur = (uint32_t)sys_brk(0);

	if (cur != aout_expected_brk)
		return fail(4, "brk(0) is not N_BSSADDR + a_bss");
	if ((uint32_t)sys_brk(cur + 0x4000000u) != cur)
		return fail(5, "a refused grow did not return the old brk");
	if ((uint32_t)sys_brk(0) != cur)
		return fail(5, "brk moved after a refused grow");
	return check_brk();
}

/* Written, given back, grown again in one call from below 64 KiB to past it. */
static int regrow_past_64k(void)
{
	uint32_t cur = (uint32_t)sys_brk(0), want = 0x10000u + 3 * 4096;
	uint32_t page_end = (cur + 4095u) & ~4095u;

	if (cur >= 0x10000u)
		return 0;
	if ((uint32_t)sys_brk(want) != want)
		return fail(5, "brk did not grow past 64 KiB");
	for (volatile char *p = (char *)cur; p < (char *)want; p++)
		*p = 1;
	if ((uint32_t)sys_brk(cur) != cur)
		return fail(5, "brk did not shrink back");
	if ((uint32_t)sys_brk(want) != want)
		return fail(5, "brk did not grow past 64 KiB again");
	for (volatile char *p = (char *)cur; p < (char *)page_end; p++)
		if (*p != 1)
			return fail(6, "the brk page lost its contents");
	for (volatile char *p = (char *)page_end; p < (char *)want; p++)
		if (*p)
			return fail(6, "a heap page given back and grown again is not zero");
	if ((uint32_t)sys_brk(cur) != cur)
		return fail(5, "brk did not shrink back");
	return 0;
}

static int refused(void)
{
	int r;

	if ((r = refused_grow()) || (r = regrow_past_64k()) || (r = past_the_budget()) ||
	    (r = regrow_past_64k()))
		return r;
	return 0;
}

static int forked(void)
{
	long pid = sys_fork();
	int status = 0;

	if (pid < 0)
		return fail(7, "fork failed");
	if (pid == 0)
		sys_exit(check_brk() ? 1 : 0);
	if (sys_wait4(pid, &status, 0, NULL) != pid || !FX_WIFEXITED(status) ||
	    FX_WEXITSTATUS(status) != 0)
		return fail(7, "the child's brk was wrong");
	return check_brk();
}

static int alarm_pipe[2];
static volatile int alarm_ok;

static void on_alarm(int sig, void *info, void *uctx)
{
	(void)info;
	(void)uctx;
	alarm_ok = sig == SIGALRM && (uint32_t)sys_brk(0) == aout_expected_brk;
	sys_write(alarm_pipe[1], "x", 1);
}

static int nested(void)
{
	struct k_sigaction sa;
	struct { uint32_t interval[2], value[2]; } timer = { { 0, 0 }, { 0, 20000 } };
	char c;
	long r;

	memset(&sa, 0, sizeof sa);
	sa.handler = on_alarm;
	sa.flags = SA_RESTART; /* no restorer: the kernel's, in the vDSO */
	if (sys_rt_sigaction(SIGALRM, &sa, NULL) != 0 ||
	    sys1(SYS_pipe, (long)alarm_pipe) != 0 ||
	    sys3(SYS_setitimer, 0, (long)&timer, 0) != 0)
		return fail(8, "cannot set up the alarm");
	while ((r = sys3(SYS_read, alarm_pipe[0], (long)&c, 1)) == -4 /* EINTR */)
		;
	if (r != 1 || !alarm_ok)
		return fail(8, "the SIGALRM handler did not run, or its brk was wrong");
	return expect_seccomp(seccomp_at_first);
}

#define SIGSYS 31
#define SYS_signal 48
#define SYS_sigaction 67
#define EFAULT 14
#define BAD_POINTER 0x7ff00010L /* nothing is mapped there */

static volatile int sigsys_seen;

/* i386 ucontext: uc_mcontext (struct sigcontext) starts at byte 20 */
enum { SC_EAX = 11, SC_EIP = 14, SC_WORDS = 22 };

static void on_sigsys(int sig, void *info, void *uctx)
{
	const struct k_siginfo *si = info;
	const uint32_t *sc = (const uint32_t *)((const char *)uctx + 20);

	/* sent by kill(): SI_USER, and the program's own context, not the stub's */
	if (sig == SIGSYS && si->si_signo == SIGSYS && si->si_code == 0 /* SI_USER */ &&
	    sc[SC_EIP] < 0x80000000u)
		sigsys_seen++;
}

/*
 * An old-style handler: the kernel's old i386 frame holds struct
 * sigcontext itself after the signal number, and what the handler
 * changes there is what sigreturn restores.
 */
struct sigcontext_words {
	uint32_t w[SC_WORDS];
};

static volatile uint32_t old_style_sig, old_style_eip;

static void on_sigsys_old_style(int sig, struct sigcontext_words sc)
{
	volatile uint32_t *w = sc.w; /* the frame on the stack, not a copy */

	old_style_sig = (uint32_t)sig;
	old_style_eip = w[SC_EIP];
	w[SC_EAX] = 0x5a5a; /* what kill() returns once sigreturn restores it */
}

static int old_style_round(long pid)
{
	if (sys2(SYS_signal, SIGSYS, (long)on_sigsys_old_style) != 0)
		return fail(11, "signal(SIGSYS) did not report SIG_DFL");
	old_style_sig = 0;
	long k = sys_kill(pid, SIGSYS);
	if (old_style_sig != SIGSYS || old_style_eip >= 0x80000000u)
		return fail(12, "an old-style SIGSYS handler did not get the program's sigcontext");
	if (k != 0x5a5a)
		return fail(12, "what an old-style handler changed in its sigcontext was not restored");
	/* signal() handlers are one-shot: SIG_DFL again */
	if (sys2(SYS_signal, SIGSYS, 0) != 0)
		return fail(11, "signal(SIGSYS) handler was not reset after one delivery");
	return 0;
}

/*
 * The program's own SIGSYS handler, set and read back, raised with kill,
 * ignored, reset; first under dispatch, then under the filter: the stub's
 * handler stays in place underneath (brk stays exact throughout).
 */
static int sigsys_round(void)
{
	struct k_sigaction sa, old, now;
	struct { uint32_t handler, mask, flags, restorer; } osa;
	long pid = sys_getpid();

	memset(&sa, 0, sizeof sa);
	sa.handler = on_sigsys;
	sa.flags = SA_SIGINFO;
	if (sys_rt_sigaction(SIGSYS, &sa, &old) != 0 || old.handler != NULL)
		return fail(11, "rt_sigaction(SIGSYS) did not report SIG_DFL");
	if (sys_rt_sigaction(SIGSYS, NULL, &now) != 0 || now.handler != on_sigsys ||
	    now.flags != SA_SIGINFO)
		return fail(11, "rt_sigaction(SIGSYS) did not read back the handler");
	int r = check_brk();
	if (r)
		return r;
	sigsys_seen = 0;
	sys_kill(pid, SIGSYS);
	if (sigsys_seen != 1)
		return fail(12, "kill(SIGSYS) did not reach the program's handler");
	if (sys2(SYS_signal, SIGSYS, 1 /* SIG_IGN */) != (long)on_sigsys)
		return fail(11, "signal(SIGSYS) did not return the old handler");
	sys_kill(pid, SIGSYS);
	if (sigsys_seen != 1)
		return fail(12, "an ignored SIGSYS reached the handler");
	memset(&osa, 0, sizeof osa); /* SIG_DFL */
	if (sys3(SYS_sigaction, SIGSYS, (long)&osa, (long)&osa) != 0 ||
	    osa.handler != 1)
		return fail(11, "sigaction(SIGSYS) did not report SIG_IGN");
	/* what the kernel could not read or write: EFAULT, and no change */
	if (sys4(SYS_rt_sigaction, SIGSYS, BAD_POINTER, 0, 8) != -EFAULT ||
	    sys3(SYS_sigaction, SIGSYS, BAD_POINTER, 0) != -EFAULT ||
	    sys4(SYS_rt_sigaction, SIGSYS, 0, BAD_POINTER, 8) != -EFAULT ||
	    sys3(SYS_sigaction, SIGSYS, 0, BAD_POINTER) != -EFAULT)
		return fail(11, "sigaction(SIGSYS) with an unreadable act or unwritable oact: not EFAULT");
	if ((r = old_style_round(pid)))
		return r;
	return check_brk();
}

static int sigsys_handler_mask(long pid);

static int sigsys(void)
{
	int r;
	long pid = sys_getpid();

	if ((r = sigsys_round()) || (r = sigsys_handler_mask(pid)) ||
	    (r = expect_seccomp(seccomp_at_first)) || (r = past_the_budget()) ||
	    (r = sigsys_round()) || (r = sigsys_handler_mask(pid)))
		return r;
	return 0;
}

/* SIGSYS left at SIG_DFL and sent: the program dies of it, as it would. */
static int sigsys_default(void)
{
	sys_kill(sys_getpid(), SIGSYS);
	return fail(12, "still alive after kill(SIGSYS) with SIG_DFL");
}

#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

static uint32_t blocked_now(void)
{
	uint32_t now[2] = { 0, 0 };

	sys4(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)now, 8);
	return now[0];
}

static volatile uint32_t mask_in_handler;

static void on_sigsys_mask(int sig, void *info, void *uctx)
{
	(void)sig, (void)info, (void)uctx;
	mask_in_handler = blocked_now();
}

/* While the program's SIGSYS handler runs: its sa_mask and SIGSYS blocked. */
static int sigsys_handler_mask(long pid)
{
	struct k_sigaction sa;
	uint32_t usr1 = 1u << (SIGUSR1 - 1), sys = 1u << (SIGSYS - 1);

	memset(&sa, 0, sizeof sa);
	sa.handler = on_sigsys_mask;
	sa.flags = SA_SIGINFO;
	sa.mask[0] = usr1;
	if (sys_rt_sigaction(SIGSYS, &sa, NULL) != 0)
		return fail(11, "rt_sigaction(SIGSYS) with an sa_mask failed");
	uint32_t before = blocked_now();
	mask_in_handler = 0;
	sys_kill(pid, SIGSYS);
	if (mask_in_handler != (before | usr1 | sys))
		return fail(12, "the SIGSYS handler did not run with its sa_mask and SIGSYS blocked");
	if (blocked_now() != before)
		return fail(12, "the mask after the SIGSYS handler is not the one before it");
	memset(&sa, 0, sizeof sa); /* SIG_DFL */
	if (sys_rt_sigaction(SIGSYS, &sa, NULL) != 0)
		return fail(11, "rt_sigaction(SIGSYS) back to SIG_DFL failed");
	return 0;
}

static int mask(void)
{
	uint32_t set[2] = { 1u << (SIGUSR1 - 1), 0 };
	int r;

	if (sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)set, 0, 8) != 0 ||
	    !(blocked_now() & set[0]))
		return fail(9, "SIGUSR1 did not stay blocked");
	if ((r = check_brk()))
		return r;
	if (!(blocked_now() & set[0]))
		return fail(9, "SIGUSR1 did not stay blocked");
	return 0;
}

#define SYS_sgetmask 68
#define SYS_sigsuspend 72
#define SYS_sigprocmask 126
#define SYS_rt_sigsuspend 179
#define SIGSYS_BIT (1u << (SIGSYS - 1))
#define EINTR 4

static volatile int handler_brk_ok, handler_runs;

/* run with every signal blocked: brk must still work */
static void brk_in_handler(int sig, void *info, void *uctx)
{
	(void)sig;
	(void)info;
	(void)uctx;
	handler_runs++;
	handler_brk_ok = check_brk() == 0;
}

static int set_handler(int sig, void (*h)(int, void *, void *))
{
	struct k_sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.handler = h;
	sa.flags = SA_SIGINFO;
	sa.mask[0] = sa.mask[1] = 0xffffffffu;
	return sys_rt_sigaction(sig, &sa, NULL) == 0 ? 0 : -1;
}

static int handler_mask_round(void)
{
	struct k_sigaction back;
	struct { uint32_t handler, mask, flags, restorer; } oback;

	if (set_handler(SIGUSR1, brk_in_handler))
		return fail(8, "cannot set the SIGUSR1 handler");
	handler_runs = 0;
	sys_kill(sys_getpid(), SIGUSR1);
	if (handler_runs != 1 || !handler_brk_ok)
		return fail(8, "brk failed in a handler whose sa_mask blocks everything");
	if (sys_rt_sigaction(SIGUSR1, NULL, &back) != 0 || !(back.mask[0] & SIGSYS_BIT) ||
	    sys3(SYS_sigaction, SIGUSR1, 0, (long)&oback) != 0 || !(oback.mask & SIGSYS_BIT))
		return fail(13, "the handler's sa_mask read back lost SIGSYS");
	return 0;
}

static int suspend_round(void)
{
	struct { uint32_t interval[2], value[2]; } timer = { { 0, 0 }, { 0, 10000 } };
	uint32_t all_but_alarm[2] = { ~(1u << (SIGALRM - 1)), 0xffffffffu };
	uint32_t alarm[2] = { 1u << (SIGALRM - 1), 0 }, before[2] = { 0, 0 };
	long r;

	if (set_handler(SIGALRM, brk_in_handler))
		return fail(8, "cannot set the SIGALRM handler");
	/* blocked until sigsuspend lets it in: on a loaded machine the 10 ms
	 * can pass before sigsuspend is reached, which would then wait for good */
	if (sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)alarm, (long)before, 8) != 0)
		return fail(9, "rt_sigprocmask failed");
	for (int old_call = 0; old_call < 2; old_call++) {
		handler_runs = 0;
		if (sys3(SYS_setitimer, 0, (long)&timer, 0) != 0)
			return fail(8, "cannot set the timer");
		r = old_call ? sys3(SYS_sigsuspend, 0, 0, (long)all_but_alarm[0]) :
			       sys2(SYS_rt_sigsuspend, (long)all_but_alarm, 8);
		if (r != -EINTR || handler_runs != 1 || !handler_brk_ok)
			return fail(8, "brk failed in a handler run from sigsuspend");
	}
	if (sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)before, 0, 8) != 0)
		return fail(9, "the mask could not be set back");
	return 0;
}

/* A SIGSYS held while blocked ends a sigsuspend whose mask lets it in. */
static int suspend_releases(void)
{
	struct { uint32_t interval[2], value[2]; } way_out = { { 0, 0 }, { 2, 0 } },
						   off = { { 0, 0 }, { 0, 0 } };
	uint32_t sysbit[2] = { SIGSYS_BIT, 0 }, none[2] = { 0, 0 };
	long r;

	if (set_handler(SIGALRM, brk_in_handler))
		return fail(8, "cannot set the SIGALRM handler");
	for (int old_call = 0; old_call < 2; old_call++) {
		sigsys_seen = 0;
		handler_runs = 0;
		if (sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)sysbit, 0, 8) != 0)
			return fail(9, "rt_sigprocmask failed");
		sys_kill(sys_getpid(), SIGSYS);
		if (sigsys_seen != 0)
			return fail(12, "a SIGSYS sent while blocked was not held");
		/* SIGALRM in 2 s: the way out where the held SIGSYS is not let in */
		sys3(SYS_setitimer, 0, (long)&way_out, 0);
		r = old_call ? sys3(SYS_sigsuspend, 0, 0, 0) :
			       sys2(SYS_rt_sigsuspend, (long)none, 8);
		sys3(SYS_setitimer, 0, (long)&off, 0);
		if (r != -EINTR || sigsys_seen != 1 || handler_runs != 0)
			return fail(12, "a held SIGSYS did not end sigsuspend at once");
		if (!(blocked_now() & SIGSYS_BIT))
			return fail(13, "sigsuspend did not put SIGSYS's blocking back");
		sys4(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)sysbit, 0, 8);
	}
	return 0;
}

/* An old set it cannot write is EFAULT, after the mask has changed. */
static int efault_keeps_change(void)
{
	uint32_t usr2[2] = { 1u << (SIGUSR2 - 1), 0 };

	for (int old_call = 0; old_call < 2; old_call++) {
		if (!(blocked_now() & usr2[0]))
			return fail(9, "SIGUSR2 is not blocked to begin with");
		long r = old_call ? sys3(SYS_sigprocmask, SIG_UNBLOCK, (long)usr2, BAD_POINTER) :
				    sys4(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)usr2,
					 BAD_POINTER, 8);
		if (r != -EFAULT || (blocked_now() & usr2[0]))
			return fail(14, "an old set it cannot write: not EFAULT, or the "
					"mask change undone");
		sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)usr2, 0, 8);
	}
	return 0;
}

static int bad_pointers(void)
{
	struct { uint32_t o; } o;

	if (sys4(SYS_rt_sigprocmask, SIG_BLOCK, BAD_POINTER, 0, 8) != -EFAULT ||
	    sys3(SYS_sigprocmask, SIG_BLOCK, BAD_POINTER, (long)&o) != -EFAULT ||
	    sys2(SYS_rt_sigsuspend, BAD_POINTER, 8) != -EFAULT ||
	    sys4(SYS_rt_sigaction, SIGUSR1, BAD_POINTER, 0, 8) != -EFAULT ||
	    sys3(SYS_sigaction, SIGUSR1, BAD_POINTER, 0) != -EFAULT)
		return fail(14, "a bad sigset or sigaction pointer did not give EFAULT");
	return 0;
}

static int blockall_round(void)
{
	uint32_t all[2] = { 0xffffffffu, 0xffffffffu }, before[2] = { 0, 0 };
	uint32_t sysbit[2] = { SIGSYS_BIT, 0 }, old32 = 0;
	struct k_sigaction sa;
	long got;
	int r;

	if (sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)all, (long)before, 8) != 0)
		return fail(9, "rt_sigprocmask failed");
	if ((r = check_brk()))
		return r;
	got = sys0(SYS_sgetmask); /* -ENOSYS without CONFIG_SGETMASK_SYSCALL */
	if (!(blocked_now() & SIGSYS_BIT) ||
	    sys3(SYS_sigprocmask, SIG_BLOCK, 0, (long)&old32) != 0 ||
	    !(old32 & SIGSYS_BIT) || (got != -38 && !((uint32_t)got & SIGSYS_BIT)))
		return fail(13, "the blocked mask read back lost SIGSYS");
	/* a SIGSYS sent now waits until it is unblocked */
	memset(&sa, 0, sizeof sa);
	sa.handler = on_sigsys;
	sa.flags = SA_SIGINFO;
	sigsys_seen = 0;
	if (sys_rt_sigaction(SIGSYS, &sa, NULL) != 0)
		return fail(11, "cannot set the SIGSYS handler");
	sys_kill(sys_getpid(), SIGSYS);
	if (sigsys_seen != 0)
		return fail(12, "a SIGSYS sent while blocked was not held");
	if (sys4(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)sysbit, 0, 8) != 0 ||
	    sigsys_seen != 1)
		return fail(12, "a held SIGSYS was not delivered when unblocked");
	if ((blocked_now() & SIGSYS_BIT) || !(blocked_now() & (1u << (SIGUSR1 - 1))))
		return fail(13, "SIG_UNBLOCK of SIGSYS changed the wrong bits");
	if ((r = suspend_releases()) || (r = efault_keeps_change()))
		return r;
	memset(&sa, 0, sizeof sa); /* SIG_DFL again */
	if (sys_rt_sigaction(SIGSYS, &sa, NULL) != 0 ||
	    sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)before, 0, 8) != 0 ||
	    blocked_now() != before[0])
		return fail(9, "the mask could not be set back");
	if ((r = handler_mask_round()) || (r = suspend_round()) || (r = bad_pointers()))
		return r;
	return check_brk();
}

static int inherited(void)
{
	if (!(blocked_now() & SIGSYS_BIT))
		return fail(13, "SIGSYS blocked at exec does not show in the mask");
	return check_brk();
}

static int blockall(void)
{
	int r;

	if ((r = blockall_round()) || (r = past_the_budget()) || (r = blockall_round()))
		return r;
	return 0;
}

/* before "traps exec-M PATH...": what the program sets up for the exec */
static int exec_ignoring(void)
{
	int r;

	if (sys2(SYS_signal, SIGSYS, 1 /* SIG_IGN */) != 0)
		return fail(11, "signal(SIGSYS, SIG_IGN) failed");
	if ((r = past_the_budget()))
		return r;
	sys_execve("/nonexistent", NULL, NULL); /* fails: SIGSYS stays the stub's */
	return check_brk();
}

static int exec_blocking(void)
{
	uint32_t set[2] = { SIGSYS_BIT, 0 };

	if (sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)set, 0, 8) != 0)
		return fail(9, "rt_sigprocmask failed");
	return 0;
}

static int nothing(void)
{
	return 0;
}

/* /proc/self/maps on stdout, for comparing with aout2elf --info. */
static int maps(void)
{
	static char buf[16384];

	if (fx_read_file("/proc/self/maps", buf, sizeof buf) <= 0)
		return fail(2, "cannot read /proc/self/maps");
	fx_puts(1, buf);
	return 0;
}

static const struct mode {
	const char *name;
	int (*run)(void);
} modes[] = {
	{ "maps", maps },
	{ "budget", budget }, { "refused", refused }, { "fork", forked },
	{ "nested", nested }, { "registers", registers }, { "brkonly", brk_only },
	{ "mask", mask }, { "blockall", blockall }, { "inherited", inherited },
	{ "sigsys", sigsys }, { "sigsys-default", sigsys_default },
}, exec_modes[] = {
	{ "exec", nothing }, { "exec-ignoring", exec_ignoring },
	{ "exec-blocking", exec_blocking },
};

#define N_OF(a) (sizeof (a) / sizeof (a)[0])

static const struct mode *find_mode(const struct mode *m, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (fx_streq(m[i].name, name))
			return &m[i];
	return NULL;
}

int fixture_main(uint32_t *entry_sp)
{
	uint32_t argc = entry_sp[0];
	char **argv = (char **)entry_sp[1], **envp = (char **)entry_sp[2];
	const struct mode *m;
	int r;

	for (char **e = envp; *e; e++)
		if (fx_streq(*e, "TRAPS_NO_DISPATCH=1"))
			seccomp_at_first = 2;
	if (argc >= 3 && (m = find_mode(exec_modes, N_OF(exec_modes), argv[1]))) {
		if ((r = m->run()))
			return r;
		sys_execve(argv[2], argv + 2, envp);
		return fail(10, "execve failed");
	}
	if (argc == 2 && fx_streq(argv[1], "probe"))
		return probe();
	if (argc != 2 || !(m = find_mode(modes, N_OF(modes), argv[1])))
		return fail(1, "usage: traps probe|maps|budget|brkonly|refused|fork|nested|registers|mask|"
			       "blockall|"
			       "inherited|sigsys|sigsys-default|exec[-ignoring|-blocking] PATH");
	if ((r = m->run()) == 0)
		fx_puts(1, "traps: ok\n");
	return r;
}
