/*
 * What the stub traps, and how.  At start, a static program whose brk is
 * trapped gets syscall user dispatch (start_dispatch); any other program
 * that needs traps gets the seccomp filter (start_filter: trap_rules
 * says what it traps, install_traps writes the BPF).  Later, dispatch
 * hands over to the filter (dispatch_takes, stop_dispatch), and a few
 * events add filters of their own: the program ignores SIGSYS
 * (trap_exec_from_now), ld.so is mapped (install_ldso_traps).
 */
#include "stub.h"

/* calls made for the program under dispatch before the filter takes over */
#define DISPATCH_BUDGET 8
/* uselib, and for the a.out's code and the libraries': brk, signal, 8 mask calls, execve */
#define MAX_RULES (1 + 2 * 11)
/* header, one test per call, a block of at most 6 per rule and 2 per call */
#define MAX_INSNS (4 + MAX_RULES * (1 + 6 + 2))

/* ---- the seccomp filter ---- */

/*
 * A seccomp filter that traps system call nr only when it is made from
 * [ip_lo, ip_hi), so that children which are not converted a.out programs
 * never see it act (filters are inherited across fork and exec).
 */
struct trap_rule {
	uint32_t nr, ip_lo, ip_hi;
	uint32_t arg_min, arg_max; /* trapped only for args[0] in [min, max] */
};

static int any_arg(const struct trap_rule *r)
{
	return r->arg_min == 0 && r->arg_max == 0xffffffffu;
}

/* Rules for one call come one after another: the end of those from i. */
static unsigned call_end(const struct trap_rule *r, unsigned n, unsigned i)
{
	unsigned e = i + 1;

	while (e < n && r[e].nr == r[i].nr)
		e++;
	return e;
}

static int same_tests(const struct trap_rule *a, unsigned alen,
		      const struct trap_rule *b, unsigned blen)
{
	if (alen != blen)
		return 0;
	for (unsigned i = 0; i < alen; i++)
		if (a[i].ip_lo != b[i].ip_lo || a[i].ip_hi != b[i].ip_hi ||
		    a[i].arg_min != b[i].arg_min || a[i].arg_max != b[i].arg_max)
			return 0;
	return 1;
}

static unsigned rule_insns(const struct trap_rule *r)
{
	return any_arg(r) ? 3 : 6;
}

static uint8_t jump(unsigned from, unsigned to)
{
	return (uint8_t)(to - from - 1);
}

/* One call's tests at f[at]: an IP range, then maybe args[0], per rule. */
static unsigned emit_tests(struct sock_filter *f, unsigned at,
			   const struct trap_rule *r, unsigned len)
{
	unsigned trap = at + 1, k = at;

	for (unsigned i = 0; i < len; i++)
		trap += rule_insns(&r[i]);
	for (unsigned i = 0; i < len; i++, at = k) {
		unsigned next = at + rule_insns(&r[i]);

		f[k++] = (struct sock_filter){ BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_IP };
		f[k] = (struct sock_filter){ BPF_JGE_K, 0, jump(k, next), r[i].ip_lo };
		k++;
		if (any_arg(&r[i])) {
			f[k] = (struct sock_filter){ BPF_JGE_K, jump(k, next), jump(k, trap),
						     r[i].ip_hi };
			k++;
			continue;
		}
		f[k] = (struct sock_filter){ BPF_JGE_K, jump(k, next), 0, r[i].ip_hi };
		k++;
		f[k++] = (struct sock_filter){ BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_ARG0 };
		f[k] = (struct sock_filter){ BPF_JGT_K, jump(k, next), 0, r[i].arg_max };
		k++;
		f[k] = (struct sock_filter){ BPF_JGE_K, jump(k, trap), jump(k, next),
					     r[i].arg_min };
		k++;
	}
	f[k++] = (struct sock_filter){ BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW };
	f[k++] = (struct sock_filter){ BPF_RET_K, 0, 0, SECCOMP_RET_TRAP };
	return k;
}

/*
 * The filter tests nr first, one comparison per call, so that the kernel
 * finds every other call always allowed and caches that (it then runs no
 * filter for them at all).  Calls trapped under the same tests (the mask
 * calls: any argument from the a.out's or the libraries' code) share them:
 * the kernel's cost of attaching a filter grows with its length.
 */
static long install_traps(const struct trap_rule *rules, unsigned n)
{
	struct sock_filter f[MAX_INSNS];
	unsigned tests_at[MAX_RULES], ncalls = 0, k;

	_Static_assert(MAX_INSNS <= 256, "a BPF jump reaches 255 insns at most");
	if (n > MAX_RULES)
		die("too many seccomp rules", -EINVAL);
	for (unsigned i = 0; i < n; i = call_end(rules, n, i))
		ncalls++;
	k = 3 + ncalls + 1;
	for (unsigned i = 0, c = 0; i < n; i = call_end(rules, n, i), c++) {
		unsigned len = call_end(rules, n, i) - i;

		tests_at[c] = 0;
		for (unsigned j = 0, d = 0; j < i; j = call_end(rules, n, j), d++)
			if (same_tests(&rules[j], call_end(rules, n, j) - j, &rules[i], len)) {
				tests_at[c] = tests_at[d];
				break;
			}
		if (!tests_at[c]) {
			tests_at[c] = k;
			k = emit_tests(f, k, &rules[i], len);
		}
	}
	f[0] = (struct sock_filter){ BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_ARCH };
	f[1] = (struct sock_filter){ BPF_JEQ_K, 0, jump(1, 3 + ncalls), AUDIT_ARCH_I386 };
	f[2] = (struct sock_filter){ BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_NR };
	for (unsigned i = 0, c = 0; i < n; i = call_end(rules, n, i), c++)
		f[3 + c] = (struct sock_filter){ BPF_JEQ_K, jump(3 + c, tests_at[c]), 0,
						 rules[i].nr };
	f[3 + ncalls] = (struct sock_filter){ BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW };

	struct sock_fprog prog = { (uint16_t)k, f };
	/*
	 * Refused by a sandbox that allows no prctl(), no_new_privs may well
	 * be set already (systemd and container runtimes set it): the
	 * kernel's answer to seccomp() tells.
	 */
	stub_syscall(NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
	long r;
	/*
	 * SPEC_ALLOW: this filter is no sandbox, so the program must not pay
	 * for the speculative-store-bypass mitigation a filter otherwise turns
	 * on; kernels before 4.17 do not know the flag.
	 */
	r = stub_syscall(NR_seccomp, SECCOMP_SET_MODE_FILTER,
			 SECCOMP_FILTER_FLAG_SPEC_ALLOW, (long)&prog, 0, 0, 0);
	if (r == -EINVAL)
		r = stub_syscall(NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, (long)&prog,
				 0, 0, 0);
	return r < 0 ? r : 0;
}

/* ---- what it traps ---- */

/* Rules trapping nr, args[0] in [arg_min, arg_max], from the a.out code and the libraries'. */
static unsigned add_image_rules(struct trap_rule *r, unsigned n, uint32_t nr,
				uint32_t arg_min, uint32_t arg_max)
{
	const struct stub_plan *plan = the_plan();

	r[n++] = (struct trap_rule){ nr, plan->trap_lo, plan->trap_hi, arg_min, arg_max };
	if (plan->lib_hi > plan->lib_lo)
		r[n++] = (struct trap_rule){ nr, plan->lib_lo, plan->lib_hi, arg_min,
					     arg_max };
	return n;
}

/*
 * What the filter traps, from the plan and the way brk was set: built
 * when the stub attaches the filter, at start or when dispatch hands over.
 */
static unsigned trap_rules(struct trap_rule *rules)
{
	unsigned nrules = 0;

	/* where the program's uselib calls the stub, nothing traps it */
	if ((the_plan()->flags & (STUB_F_DYNAMIC | STUB_F_USELIB_PATCHED)) ==
	    STUB_F_DYNAMIC)
		rules[nrules++] = (struct trap_rule){ NR_uselib, 0, IMAGE_LIMIT,
						      0, 0xffffffffu };
	if (emulating_brk)
		nrules = add_image_rules(rules, nrules, NR_brk, 0,
					 hybrid_brk ? PRCTL_MIN : 0xffffffffu);
	if (nrules) {
		/*
		 * Where brk is trapped, a trap can come at any time, so SIGSYS
		 * must never be blocked: every handler and mask call is the
		 * stub's.  Otherwise (a dynamic program with an exact brk) the
		 * traps come while ld.so maps the libraries, before the
		 * program's own code runs, and only what concerns SIGSYS itself
		 * is: programs set a handler for every signal at start, and
		 * each would cost a trap (make bench, row "what a trap adds to
		 * int $0x80, by the stub").
		 */
		static const uint8_t mask_calls[] = {
			NR_sgetmask, NR_ssetmask, NR_sigsuspend, NR_sigprocmask,
			NR_rt_sigprocmask, NR_rt_sigsuspend,
		};
		uint32_t sig_min = emulating_brk ? 0 : SIGSYS;
		uint32_t sig_max = emulating_brk ? 0xffffffffu : SIGSYS;

		nrules = add_image_rules(rules, nrules, NR_signal, SIGSYS, SIGSYS);
		nrules = add_image_rules(rules, nrules, NR_sigaction, sig_min, sig_max);
		nrules = add_image_rules(rules, nrules, NR_rt_sigaction, sig_min, sig_max);
		/*
		 * execve, to hand an ignored or blocked SIGSYS on (exec_call):
		 * here only where the mask calls are trapped too.  Elsewhere
		 * the program may really block SIGSYS, and a trapped execve
		 * would then kill it; there execve is trapped only once the
		 * program ignores SIGSYS (trap_exec_from_now).
		 */
		if (emulating_brk)
			nrules = add_image_rules(rules, nrules, NR_execve, 0, 0xffffffffu);
		for (size_t i = 0; emulating_brk && i < sizeof mask_calls; i++)
			nrules = add_image_rules(rules, nrules, mask_calls[i], 0,
						 0xffffffffu);
	}
	return nrules;
}

/*
 * Once the program ignores SIGSYS (the stub's handler stays SIGSYS's
 * real one), its execve is trapped from then on, so that exec_call can
 * hand SIG_IGN on to the new program, as the kernel would.  Where brk is
 * trapped, execve always is (trap_rules).
 */
static int exec_trapped;

void trap_exec_from_now(void)
{
	struct trap_rule r[2];

	if (emulating_brk || exec_trapped || prog_sigsys.handler != SIG_IGN)
		return;
	/* without it, an exec hands SIGSYS on as the default action */
	if (install_traps(r, add_image_rules(r, 0, NR_execve, 0, 0xffffffffu)) == 0)
		exec_trapped = 1;
}

/*
 * The filter from the start.  Its rules live in this frame, not in
 * stub_main's: every start would otherwise reach 460 bytes further down
 * the stack, and the deeper the stub reaches below the ELF frame, the
 * more often it crosses into a page exec never touched (a fault, and a
 * page, each time).
 */
static long start_filter(void)
{
	struct trap_rule rules[MAX_RULES];
	unsigned n = trap_rules(rules);
	/* none: no filter at all, as cheap as a start can be */
	long r = n ? install_traps(rules, n) : 0;

	/* started with SIGSYS ignored: exec hands that on too */
	if (r == 0)
		trap_exec_from_now();
	return r;
}

int ldso_trapped;

/* ld.so's open, for do_open_from_ldso. */
void install_ldso_traps(const struct stub_lib *l)
{
	struct trap_rule r = { NR_open, l->start, l->start + l->len, 0, 0xffffffffu };

	/* without the filter, ld.so opens them as they are */
	if (install_traps(&r, 1) == 0)
		ldso_trapped = 1;
}

/*
 * ---- trapping brk cheaply: syscall user dispatch, then the filter ----
 *
 * Attaching a seccomp filter costs more than a trivial program takes to
 * run (make bench, row "what attaching the filter costs": the BPF JIT,
 * and the kernel's table of the filter's verdict for every system call).
 * Syscall user dispatch (Linux 5.11) costs one prctl: from then on every
 * system call made from the image, below trap_hi as the filter would trap
 * it, is a SIGSYS instead, which the stub makes itself from the handler.
 * Everything above is let through: the stub, the vDSO, and code that is
 * not the program's, such as valgrind's own (it makes the client's calls
 * from its code at 0x58000000).  That is paid per call, so the stub stops
 * after DISPATCH_BUDGET calls, or at the first call it cannot make for the
 * program from inside a signal handler: it attaches the filter, turns
 * dispatch off and sends the program back onto its int $0x80, which the
 * kernel now runs under the filter.  A program that makes few system
 * calls never pays for a filter; one that makes many pays for both, the
 * dispatched calls costing about as much as the filter.
 */
static int dispatching;
static unsigned dispatch_left;

/* 1 if dispatch now stands in for the filter (trap_rules builds it later). */
static int start_dispatch(void)
{
	uint32_t hi = the_plan()->trap_hi;

	/* The stub's own calls, through the vDSO or its own int $0x80, must be
	 * let through (commit() gives up a vDSO below IMAGE_LIMIT). */
	if (stub_sysinfo != 0 && stub_sysinfo < hi)
		return 0;
	dispatch_left = DISPATCH_BUDGET;
	dispatching = 1;
	if (stub_syscall(NR_prctl, PR_SET_SYSCALL_USER_DISPATCH,
			 PR_SYS_DISPATCH_ON, hi, 0xffffffffu - hi, 0, 0) == 0)
		return 1;
	dispatching = 0;
	return 0;
}

/*
 * Calls that do the same made from the handler as from the program: none
 * that reads or changes the signal mask, the signal stack or the handlers
 * (sigreturn would undo or confuse it), creates a process or thread
 * (dispatch is not inherited; the filter is), or works on the registers.
 */
static const uint8_t plain_calls[] = {
	1 /* exit */, 3 /* read */, 4 /* write */, 5 /* open */, 6 /* close */,
	7 /* waitpid */, 8 /* creat */, 9 /* link */, 10 /* unlink */,
	11 /* execve */, 12 /* chdir */, 13 /* time */, 14 /* mknod */,
	15 /* chmod */, 16 /* lchown */, 18 /* oldstat */, 19 /* lseek */,
	20 /* getpid */, 24 /* getuid */, 27 /* alarm */, 28 /* oldfstat */,
	29 /* pause */, 30 /* utime */, 33 /* access */, 36 /* sync */,
	37 /* kill */, 38 /* rename */, 39 /* mkdir */, 40 /* rmdir */,
	41 /* dup */, 42 /* pipe */, 43 /* times */, 47 /* getgid */,
	49 /* geteuid */, 50 /* getegid */, 54 /* ioctl */, 55 /* fcntl */,
	57 /* setpgid */, 60 /* umask */, 63 /* dup2 */, 64 /* getppid */,
	65 /* getpgrp */, 66 /* setsid */, 76 /* getrlimit */,
	77 /* getrusage */, 78 /* gettimeofday */, 83 /* symlink */,
	84 /* oldlstat */, 85 /* readlink */, 89 /* readdir */, 90 /* mmap */,
	91 /* munmap */, 92 /* truncate */, 93 /* ftruncate */, 94 /* fchmod */,
	99 /* statfs */, 100 /* fstatfs */, 102 /* socketcall */,
	104 /* setitimer */, 105 /* getitimer */, 106 /* stat */,
	107 /* lstat */, 108 /* fstat */, 109 /* olduname */, 114 /* wait4 */,
	122 /* uname */, 125 /* mprotect */, 133 /* fchdir */,
	140 /* _llseek */, 141 /* getdents */, 142 /* _newselect */,
	143 /* flock */, 144 /* msync */, 145 /* readv */, 146 /* writev */,
	162 /* nanosleep */, 163 /* mremap */, 168 /* poll */, 183 /* getcwd */,
	191 /* ugetrlimit */, 192 /* mmap2 */, 195 /* stat64 */,
	196 /* lstat64 */, 197 /* fstat64 */, 199 /* getuid32 */,
	200 /* getgid32 */, 201 /* geteuid32 */, 202 /* getegid32 */,
	220 /* getdents64 */, 221 /* fcntl64 */, 252 /* exit_group */,
};

/*
 * Handlers of other signals are also set from the handler: sigreturn does
 * not restore them, and programs commonly set a few right at start.
 */
static int plain_call(int nr, uint32_t arg0)
{
	if (nr == NR_signal || nr == NR_sigaction || nr == NR_rt_sigaction)
		return arg0 != SIGSYS; /* for SIGSYS: is_sigsys_action */
	for (size_t i = 0; i < sizeof plain_calls; i++)
		if (plain_calls[i] == nr)
			return 1;
	return 0;
}

/* No traps: SIGSYS back to the program as exec left it, brk the kernel's. */
static void untrapped(void)
{
	restore_sigsys();
	brk_untrapped();
}

/*
 * Where the filter is refused (a sandbox may allow prctl but not
 * seccomp), brk is the kernel's from then on, as if nothing could be
 * trapped at start (see start_traps).
 */
static void stop_dispatch(void)
{
	if (!dispatching)
		return;
	struct trap_rule rules[MAX_RULES];
	int filtered = install_traps(rules, trap_rules(rules)) == 0;
	long r = stub_syscall(NR_prctl, PR_SET_SYSCALL_USER_DISPATCH,
			      PR_SYS_DISPATCH_OFF, 0, 0, 0, 0);

	if (r < 0)
		die("turning syscall user dispatch off", r);
	dispatching = 0;
	if (!filtered)
		untrapped();
}

/*
 * At start: dispatch for a static program (only brk is trapped), else the
 * filter.  Where the host has neither (qemu-user, valgrind, kernels
 * before 3.5, a sandbox), the program runs untrapped: brk is the host's
 * own from where it lies, and uselib() calls not turned into calls of the
 * stub at conversion reach the host as they are.  Nothing is said: the
 * program works the same, and the man page says what differs.
 */
void start_traps(void)
{
	if (under_valgrind())
		untrapped();
	else if ((the_plan()->flags & STUB_F_DYNAMIC) || !start_dispatch())
		if (start_filter() < 0)
			untrapped();
}

/*
 * A dispatched call: 1 if the handler is to make it, 0 if it is to be
 * rerun.  A brk past 64 KiB (hybrid) is the kernel's own under the filter
 * and counts against the budget like any call: a program that makes
 * nothing but brk calls (a malloc loop) would otherwise stay under
 * dispatch for good, each of its brk calls a SIGSYS however high its heap.
 */
int dispatch_takes(int nr, uint32_t arg0)
{
	int brk_trapped = nr == NR_brk && (!hybrid_brk || arg0 <= PRCTL_MIN);

	if (brk_trapped || is_sigsys_action(nr, arg0) || is_mask_call(nr, arg0))
		return 1; /* what the filter would trap anyway */
	if (dispatch_left > 0 && (nr == NR_brk || plain_call(nr, arg0))) {
		dispatch_left--;
		return 1;
	}
	stop_dispatch();
	return 0;
}
