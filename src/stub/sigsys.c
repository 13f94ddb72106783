/*
 * The stub's SIGSYS handler, on_sigsys: installed at start
 * (install_sigsys_handler), it takes every trapped call, sends a
 * dispatched one the filter would not trap back to be rerun, makes or
 * answers the others (answer, or progsig.c's calls), passes a SIGSYS
 * somebody sent on to the program, and returns by itself where the
 * registers are all of the answer (can_resume, stub_resume).
 */
#include "stub.h"

/* sigreturn.S */
void stub_sigreturn(void);
void stub_sigreturn_vdso(void);
void stub_resume(void *ucontext) __attribute__((noreturn));

/* int $0x80, sysenter, syscall: what a call can be rerun by stepping back 2 */
static int is_syscall_insn(const uint8_t *p)
{
	return (p[0] == 0xcd && p[1] == 0x80) ||
	       (p[0] == 0x0f && (p[1] == 0x34 || p[1] == 0x05));
}

/*
 * kill(getpid(), SIGSYS) under dispatch: made from this handler, the
 * SIGSYS would arrive in the handler's context, not the program's.  The
 * kernel would return 0 and deliver it on the way back to the program:
 * so does this, with the siginfo kill gives (SI_USER, pid, uid).
 */
static void sigsys_to_itself(uint32_t *g, void *ucontext)
{
	int32_t si[SIGINFO_WORDS] = { SIGSYS, 0, SI_USER, (int32_t)g[REG_EBX],
				      (int32_t)stub_syscall(NR_getuid32, 0, 0, 0, 0,
							    0, 0) };

	g[REG_EAX] = 0;
	pass_on_sigsys(SIGSYS, si, ucontext);
}

/*
 * rt_sigreturn is a system call of its own, and a dear one (make bench,
 * row "trapped call: back by rt_sigreturn / by the stub").
 * For a trap answered by registers alone the stub returns by itself
 * (stub_resume), restoring what rt_sigreturn would: the FPU state, the
 * general registers, eflags and %eip.  Not where rt_sigreturn does more:
 * the signal mask (unchanged by the handler: SA_NODEFER and no sa_mask),
 * a signal stack that delivery disarmed (SS_AUTODISARM), segment
 * registers other than the ones delivery loaded, a frame without FPU
 * state; nor with the trap flag set (a program single-stepping itself:
 * popfl would let it trap one instruction early).
 */
static uint32_t segment(int which)
{
	uint32_t v = 0;

	if (which == REG_DS)
		__asm__("movl %%ds, %0" : "=r"(v));
	else if (which == REG_ES)
		__asm__("movl %%es, %0" : "=r"(v));
	else if (which == REG_CS)
		__asm__("movl %%cs, %0" : "=r"(v));
	else
		__asm__("movl %%ss, %0" : "=r"(v));
	return v & 0xffff;
}

static int can_resume(void *ucontext)
{
	const uint32_t *g = uc_gregs(ucontext);
	const char *uc = ucontext;
	uint32_t ss_flags = *(const uint32_t *)(uc + UC_STACK_FLAGS);
	static const uint8_t segs[] = { REG_DS, REG_ES, REG_CS, REG_SS };

	if (!g[REG_FPSTATE] || (ss_flags & SS_AUTODISARM) || (g[REG_EFL] & EFLAGS_TF))
		return 0;
	for (size_t i = 0; i < sizeof segs; i++)
		if ((g[segs[i]] & 0xffff) != segment(segs[i]))
			return 0;
	return 1;
}

/* A trapped call whose answer is its return value alone. */
static uint32_t answer(int nr, const uint32_t *g)
{
	if (nr == NR_brk && hybrid_brk)
		return brk_hybrid(g[REG_EBX]);
	if (nr == NR_brk && emulating_brk)
		return brk_emulate(g[REG_EBX]);
	if (nr == NR_uselib && (the_plan()->flags & STUB_F_DYNAMIC))
		return (uint32_t)do_uselib((const char *)g[REG_EBX]);
	if (nr == NR_open && ldso_trapped)
		return (uint32_t)do_open_from_ldso((const char *)g[REG_EBX],
						   (long)g[REG_ECX], (long)g[REG_EDX]);
	return (uint32_t)stub_syscall(nr, (long)g[REG_EBX], (long)g[REG_ECX],
				      (long)g[REG_EDX], (long)g[REG_ESI],
				      (long)g[REG_EDI], (long)g[REG_EBP]);
}

/*
 * SIGSYS: a call trapped by syscall user dispatch, by our seccomp filter
 * or by one a converted parent left behind (filters are inherited):
 * emulate what the kernel no longer does, and make any other trapped call
 * from here, where nothing traps it.  Any other SIGSYS was sent by
 * somebody and is the program's.
 */
static void on_sigsys(int sig, void *info, void *ucontext)
{
	uint32_t *g = uc_gregs(ucontext);
	int code = *(int *)((char *)info + SIGINFO_CODE);
	int nr = *(int *)((char *)info + SIGINFO_SYSCALL);

	if (code != SYS_SECCOMP && code != SYS_USER_DISPATCH) {
		pass_on_sigsys(sig, info, ucontext);
		return;
	}
	if (code == SYS_USER_DISPATCH && nr == NR_kill && g[REG_ECX] == SIGSYS &&
	    g[REG_EBX] == (uint32_t)stub_syscall(NR_getpid, 0, 0, 0, 0, 0, 0)) {
		sigsys_to_itself(g, ucontext);
		return;
	}
	if (code == SYS_USER_DISPATCH && !dispatch_takes(nr, g[REG_EBX]) &&
	    is_syscall_insn((const uint8_t *)g[REG_EIP] - 2)) {
		g[REG_EIP] -= 2; /* back onto the int $0x80, now under the filter */
		if (can_resume(ucontext))
			stub_resume(ucontext);
		return;
	}
	int by_registers = 0; /* the answer is in g alone: see can_resume */

	if (is_sigsys_action(nr, g[REG_EBX]))
		g[REG_EAX] = (uint32_t)sigsys_action(nr, g);
	else if (is_mask_call(nr, g[REG_EBX]))
		g[REG_EAX] = (uint32_t)mask_call(nr, g, ucontext);
	else if (exec_keeps_sigsys(nr))
		g[REG_EAX] = (uint32_t)exec_call(g);
	else {
		g[REG_EAX] = answer(nr, g);
		by_registers = 1;
	}
	if (deliver_released_sigsys(ucontext))
		by_registers = 0;
	if (by_registers && can_resume(ucontext))
		stub_resume(ucontext);
}

/*
 * SA_NODEFER: a call the stub makes for the program from this handler may
 * block (read, wait4), and a signal handler of the program that runs
 * meanwhile may make a trapped call of its own; a SIGSYS that arrived
 * blocked would be fatal.  The handler is reentrant for that reason.
 */
void install_sigsys_handler(struct k_sigaction *was)
{
	struct {
		void (*handler)(int, void *, void *);
		uint32_t flags;
		void (*restorer)(void);
		uint32_t mask[2];
	} sa = { on_sigsys, SA_SIGINFO | SA_RESTORER | SA_NODEFER,
		 stub_sysinfo ? stub_sigreturn_vdso : stub_sigreturn, { 0, 0 } };
	long r = stub_syscall(NR_rt_sigaction, SIGSYS, (long)&sa, (long)was, 8, 0, 0);

	if (r < 0)
		die("installing the SIGSYS handler", r);
}
