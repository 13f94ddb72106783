/*
 * The program's own SIGSYS, and its signal masks, as the stub keeps them.
 *
 * The stub's handler must stay SIGSYS's while anything is trapped, and a
 * trap that finds SIGSYS blocked kills the program.  So SIGSYS is
 * unblocked at start (unblock_sigsys); the program's signal(),
 * sigaction() and rt_sigaction() for SIGSYS are trapped and kept here
 * (sigsys_action); where brk is trapped, every call that sets a mask is
 * made without SIGSYS (mask_call), and what the program asked for is kept
 * here and shown back to it; an execve hands an ignored or blocked SIGSYS
 * on (exec_call).  A SIGSYS that is not a trap (kill, raise) goes to what
 * the program asked for (pass_on_sigsys), or waits while it is blocked
 * (deliver_released_sigsys).
 */
#include "stub.h"

/* a how no mask call takes (see unreadable_set) */
#define BAD_HOW 0x7fffffff

struct k_sigaction prog_sigsys;
uint32_t prog_blocks_sigsys;
static uint32_t exec_blocked_sigsys;       /* SIGSYS_BIT if it came blocked */
static int sigsys_waiting;                 /* sent while the program had it blocked */
static int32_t waiting_info[SIGINFO_WORDS]; /* the siginfo it came with */
static int release_waiting;                /* unblocked: deliver it on the way back */

/*
 * A trap that finds SIGSYS blocked kills the program (the kernel resets a
 * forced signal that is blocked to its default action), and a blocked
 * mask is inherited across exec: a program started with SIGSYS blocked
 * would die at its first trapped call.  So SIGSYS is let through, and the
 * calls that report the mask show the program what it inherited.
 */
void unblock_sigsys(void)
{
	uint32_t set[2] = { SIGSYS_BIT, 0 }, was[2] = { 0, 0 };
	long r = stub_syscall(NR_rt_sigprocmask, SIG_UNBLOCK, (long)set, (long)was, 8,
			      0, 0);

	if (r < 0)
		die("unblocking SIGSYS", r);
	exec_blocked_sigsys = was[0] & SIGSYS_BIT;
	if (emulating_brk) /* the mask calls are the stub's: they report it */
		prog_blocks_sigsys = exec_blocked_sigsys;
}

/* Where nothing could be trapped after all: SIGSYS as exec left it. */
void restore_sigsys(void)
{
	uint32_t set[2] = { SIGSYS_BIT, 0 };

	stub_syscall(NR_rt_sigaction, SIGSYS, (long)&prog_sigsys, 0, 8, 0, 0);
	if (exec_blocked_sigsys)
		stub_syscall(NR_rt_sigprocmask, SIG_BLOCK, (long)set, 0, 8, 0, 0);
	prog_blocks_sigsys = 0;
}

/* ---- SIGSYS's own handler, as the program sets it ---- */

int is_sigsys_action(int nr, uint32_t arg0)
{
	return (nr == NR_signal || nr == NR_sigaction || nr == NR_rt_sigaction) &&
	       arg0 == SIGSYS;
}

/*
 * The kernel's sys_signal, sys_sigaction, sys_rt_sigaction, on prog_sigsys,
 * in its order: act is read (-EFAULT before anything changes), the action
 * set, oact written (-EFAULT after).  The same call for signal 0 checks
 * act without changing anything (refused after act is read); the same
 * call for SIGSYS with no act checks oact by writing the real action, the
 * stub's, into it, which is then overwritten.
 */
long sigsys_action(int nr, const uint32_t *g)
{
	struct k_sigaction old = prog_sigsys, act;
	uint32_t pact = g[REG_ECX], poact = g[REG_EDX], size = g[REG_ESI];

	if (nr == NR_signal) {
		prog_sigsys = (struct k_sigaction){ g[REG_ECX],
						    SA_RESETHAND | SA_NODEFER, 0,
						    { 0, 0 } };
		trap_exec_from_now();
		return (long)old.handler;
	}
	if (nr == NR_rt_sigaction && size != 8) /* sigsetsize */
		return -EINVAL;
	if (pact && stub_syscall(nr, 0, (long)pact, 0, (long)size, 0, 0) == -EFAULT)
		return -EFAULT;
	if (pact && nr == NR_sigaction) {
		const struct k_old_sigaction *o = (const void *)pact;

		act = (struct k_sigaction){ o->handler, o->flags, o->restorer,
					    { o->mask, 0 } };
	} else if (pact) {
		act = *(const struct k_sigaction *)pact;
	}
	if (pact) {
		prog_sigsys = act;
		trap_exec_from_now();
	}
	if (!poact)
		return 0;
	if (stub_syscall(nr, SIGSYS, 0, (long)poact, (long)size, 0, 0) == -EFAULT)
		return -EFAULT;
	if (nr == NR_sigaction)
		*(struct k_old_sigaction *)poact =
			(struct k_old_sigaction){ old.handler, old.mask[0], old.flags,
						  old.restorer };
	else
		*(struct k_sigaction *)poact = old;
	return 0;
}

/*
 * ---- SIGSYS stays unblocked ----
 *
 * Programs block every signal for good reasons (sigfillset() and then
 * sigprocmask(), a handler's sa_mask, sigsuspend()), and a malloc() that
 * calls brk would then die.  So wherever brk is trapped, every call that
 * sets the signal mask or a handler's mask is trapped as well and made
 * without SIGSYS in the mask.  What the program asked for is kept here
 * and shown back to it by the calls that report a mask; a SIGSYS sent
 * meanwhile waits here until the program unblocks it.
 */
static uint32_t sa_mask_sigsys[2]; /* bit sig-1: that handler's mask held SIGSYS */

int is_mask_call(int nr, uint32_t arg0)
{
	if (nr == NR_sigaction || nr == NR_rt_sigaction)
		return arg0 != SIGSYS; /* SIGSYS's own: is_sigsys_action */
	return nr == NR_sgetmask || nr == NR_ssetmask || nr == NR_sigsuspend ||
	       nr == NR_sigprocmask || nr == NR_rt_sigprocmask ||
	       nr == NR_rt_sigsuspend;
}

/*
 * -EFAULT if the program's sigset at p cannot be read.  sigprocmask and
 * rt_sigprocmask read the set before they look at how, so a call with a
 * bad how checks the pointer and changes nothing; the stub then reads the
 * set itself without faulting in its handler.
 */
static long unreadable_set(int nr, uint32_t p)
{
	return stub_syscall(nr, BAD_HOW, (long)p, 0, 8, 0, 0) == -EFAULT ? -EFAULT : 0;
}

/*
 * rt_sigreturn sets the mask from the frame of the trap, which would undo
 * a change made from the handler: put the mask now in force there.
 */
static void keep_mask(void *ucontext)
{
	uint32_t now[2] = { 0, 0 };
	uint32_t *uc_sigmask = (uint32_t *)((char *)ucontext + UC_SIGMASK);

	stub_syscall(NR_rt_sigprocmask, SIG_BLOCK, 0, (long)now, 8, 0, 0);
	uc_sigmask[0] = now[0] & ~SIGSYS_BIT;
	uc_sigmask[1] = now[1];
}

/* sigprocmask, rt_sigprocmask, ssetmask: what the program blocks now. */
static void set_blocks_sigsys(uint32_t how, uint32_t asked)
{
	if (how == SIG_BLOCK)
		prog_blocks_sigsys |= asked;
	else if (how == SIG_UNBLOCK)
		prog_blocks_sigsys &= ~asked;
	else
		prog_blocks_sigsys = asked;
}

/*
 * The kernel delivers a signal that waited as the call that unblocks it
 * returns, in the program's context: on_sigsys does, once the call's
 * result is in place.
 */
static void release_waiting_sigsys(void)
{
	if (sigsys_waiting && !prog_blocks_sigsys)
		release_waiting = 1;
}

static long procmask_call(int nr, const uint32_t *g, void *ucontext)
{
	uint32_t how = g[REG_EBX], set = g[REG_ECX], oset = g[REG_EDX];
	uint32_t size = nr == NR_rt_sigprocmask ? g[REG_ESI] : 4;
	uint32_t was = prog_blocks_sigsys, asked = 0, want[2] = { 0, 0 };
	long r;

	if (nr == NR_rt_sigprocmask && size != 8)
		return -EINVAL;
	if (set) {
		if (unreadable_set(nr, set))
			return -EFAULT;
		want[0] = ((const uint32_t *)set)[0];
		if (size == 8)
			want[1] = ((const uint32_t *)set)[1];
		asked = want[0] & SIGSYS_BIT;
		want[0] &= ~SIGSYS_BIT;
	}
	r = stub_syscall(nr, (long)how, set ? (long)want : 0, (long)oset, (long)size, 0, 0);
	/* EFAULT for an old set it cannot write: the kernel changed the mask first */
	if (r < 0 && !(r == -EFAULT && set))
		return r;
	if (oset && r == 0)
		*(uint32_t *)oset |= was;
	if (set) {
		set_blocks_sigsys(how, asked);
		keep_mask(ucontext);
		release_waiting_sigsys();
	}
	return r;
}

/* sigaction and rt_sigaction for any signal but SIGSYS: sa_mask without it. */
static long handler_mask_call(int nr, const uint32_t *g)
{
	uint32_t sig = g[REG_EBX], act = g[REG_ECX], oact = g[REG_EDX];
	uint32_t size = nr == NR_rt_sigaction ? g[REG_ESI] : 0;
	uint32_t word = (sig - 1) / 32, bit = 1u << ((sig - 1) % 32), asked = 0;
	struct k_sigaction rt;
	struct k_old_sigaction old;
	void *copy = 0;
	long r;

	if (sig < 1 || sig > 64 || (nr == NR_rt_sigaction && size != 8))
		return stub_syscall(nr, (long)sig, (long)act, (long)oact, (long)size, 0, 0);
	/* signal 0 is refused after act has been read: a check of the pointer */
	if (act && stub_syscall(nr, 0, (long)act, 0, (long)size, 0, 0) == -EFAULT)
		return -EFAULT;
	if (act && nr == NR_rt_sigaction) {
		rt = *(const struct k_sigaction *)act;
		asked = rt.mask[0] & SIGSYS_BIT;
		rt.mask[0] &= ~SIGSYS_BIT;
		copy = &rt;
	} else if (act) {
		old = *(const struct k_old_sigaction *)act;
		asked = old.mask & SIGSYS_BIT;
		old.mask &= ~SIGSYS_BIT;
		copy = &old;
	}
	r = stub_syscall(nr, (long)sig, (long)copy, (long)oact, (long)size, 0, 0);
	if (r < 0)
		return r;
	if (oact && (sa_mask_sigsys[word] & bit)) {
		if (nr == NR_rt_sigaction)
			((struct k_sigaction *)oact)->mask[0] |= SIGSYS_BIT;
		else
			((struct k_old_sigaction *)oact)->mask |= SIGSYS_BIT;
	}
	if (act)
		sa_mask_sigsys[word] = asked ? sa_mask_sigsys[word] | bit :
					       sa_mask_sigsys[word] & ~bit;
	return r;
}

/*
 * sigsuspend and rt_sigsuspend: the temporary mask is the program's while
 * it waits, SIGSYS in the stub's record.  A SIGSYS waiting in the stub
 * that the mask lets through is delivered at once, and the call returns
 * EINTR, as for any signal that ends the wait.  One sent
 * while the mask blocks it waits, and ends the call all the same (a
 * spurious wake-up, which sigsuspend loops take in their stride).
 */
static long suspend_call(int nr, uint32_t *set, const uint32_t *g, void *ucontext)
{
	uint32_t was = prog_blocks_sigsys;
	long r;

	prog_blocks_sigsys = set[0] & SIGSYS_BIT;
	set[0] &= ~SIGSYS_BIT;
	if (sigsys_waiting && !prog_blocks_sigsys) {
		sigsys_waiting = 0;
		pass_on_sigsys(SIGSYS, waiting_info, ucontext);
		r = -EINTR;
	} else if (nr == NR_sigsuspend) {
		r = stub_syscall(nr, (long)g[REG_EBX], (long)g[REG_ECX], (long)set[0],
				 0, 0, 0);
	} else {
		r = stub_syscall(nr, (long)set, 8, 0, 0, 0, 0);
	}
	prog_blocks_sigsys = was;
	return r;
}

/* The calls of is_mask_call, made for the program from the handler. */
long mask_call(int nr, const uint32_t *g, void *ucontext)
{
	uint32_t set[2];
	long r;

	switch (nr) {
	case NR_sigaction:
	case NR_rt_sigaction:
		return handler_mask_call(nr, g);
	case NR_sigprocmask:
	case NR_rt_sigprocmask:
		return procmask_call(nr, g, ucontext);
	case NR_sgetmask:
		r = stub_syscall(nr, 0, 0, 0, 0, 0, 0);
		return r == -ENOSYS ? r : (long)((uint32_t)r | prog_blocks_sigsys);
	case NR_ssetmask:
		r = stub_syscall(nr, (long)(g[REG_EBX] & ~SIGSYS_BIT), 0, 0, 0, 0, 0);
		if (r == -ENOSYS)
			return r;
		r = (long)((uint32_t)r | prog_blocks_sigsys);
		set_blocks_sigsys(SIG_SETMASK, g[REG_EBX] & SIGSYS_BIT);
		keep_mask(ucontext);
		release_waiting_sigsys();
		return r;
	case NR_sigsuspend: /* i386: (history0, history1, mask) */
		set[0] = g[REG_EDX];
		set[1] = 0;
		return suspend_call(nr, set, g, ucontext);
	default: /* rt_sigsuspend */
		if (g[REG_ECX] != 8)
			return -EINVAL;
		if (unreadable_set(NR_rt_sigprocmask, g[REG_EBX]))
			return -EFAULT;
		set[0] = ((const uint32_t *)g[REG_EBX])[0];
		set[1] = ((const uint32_t *)g[REG_EBX])[1];
		return suspend_call(nr, set, g, ucontext);
	}
}

/*
 * ---- execve ----
 *
 * exec keeps a SIGSYS that is ignored or blocked, but the real SIGSYS is
 * the stub's and never blocked: the program's wish is made real for the
 * exec, and undone if the exec fails.
 */
int exec_keeps_sigsys(int nr)
{
	return nr == NR_execve && (prog_sigsys.handler == SIG_IGN || prog_blocks_sigsys);
}

long exec_call(const uint32_t *g)
{
	struct k_sigaction ign = { SIG_IGN, 0, 0, { 0, 0 } };
	uint32_t set[2] = { SIGSYS_BIT, 0 };
	int ignored = prog_sigsys.handler == SIG_IGN;
	long r;

	if (ignored)
		stub_syscall(NR_rt_sigaction, SIGSYS, (long)&ign, 0, 8, 0, 0);
	if (prog_blocks_sigsys)
		stub_syscall(NR_rt_sigprocmask, SIG_BLOCK, (long)set, 0, 8, 0, 0);
	r = stub_syscall(NR_execve, (long)g[REG_EBX], (long)g[REG_ECX],
			 (long)g[REG_EDX], 0, 0, 0);
	if (prog_blocks_sigsys)
		stub_syscall(NR_rt_sigprocmask, SIG_UNBLOCK, (long)set, 0, 8, 0, 0);
	if (ignored)
		install_sigsys_handler(0);
	return r;
}

/* ---- a SIGSYS somebody sent ---- */

static void raise_sigsys(void)
{
	stub_syscall(NR_kill, stub_syscall(NR_getpid, 0, 0, 0, 0, 0, 0), SIGSYS, 0,
		     0, 0, 0);
}

/*
 * A handler without SA_SIGINFO, called as the kernel's old i386 frame called
 * it: the signal number, then struct sigcontext itself, which programs
 * of the a.out era read (void handler(int, struct sigcontext)) and
 * change for sigreturn to restore.  The copy is made at the bottom of
 * the stack, where the handler finds its arguments, and copied back into
 * the ucontext that rt_sigreturn restores.  sc: uc_mcontext.
 */
static void call_old_style(uint32_t handler, uint32_t sig, uint32_t *sc)
{
	uint32_t frame[1 + SIGCONTEXT_WORDS];

	frame[0] = sig;
	memcpy(frame + 1, sc, sizeof frame - 4);
	uint32_t *src = frame;

	__asm__ volatile("subl %[bytes], %%esp\n\t"
			 "movl %%eax, %%esi\n\t"
			 "movl %%esp, %%edi\n\t"
			 "movl %[words], %%ecx\n\t"
			 "cld\n\t"
			 "rep movsl\n\t"
			 "movl %%eax, %%ebx\n\t" /* the handler keeps ebx */
			 "call *%%edx\n\t"
			 "movl %%esp, %%esi\n\t"
			 "movl %%ebx, %%edi\n\t"
			 "movl %[words], %%ecx\n\t"
			 "cld\n\t"
			 "rep movsl\n\t"
			 "addl %[bytes], %%esp"
			 : "+a"(src), "+d"(handler)
			 : [bytes] "i"(sizeof frame), [words] "i"(sizeof frame / 4)
			 : "ebx", "ecx", "esi", "edi", "memory", "cc");
	memcpy(sc, frame + 1, sizeof frame - 4);
}

/* What the program's disposition says. */
void pass_on_sigsys(int sig, void *info, void *ucontext)
{
	uint32_t handler = prog_sigsys.handler;

	if (prog_blocks_sigsys) {
		if (!sigsys_waiting) /* delivered when the program unblocks it */
			memcpy(waiting_info, info, sizeof waiting_info);
		sigsys_waiting = 1;
		return;
	}
	if (handler == SIG_IGN)
		return;
	if (handler == SIG_DFL) {
		/* die of it: SIGSYS is not blocked here (SA_NODEFER) */
		struct k_sigaction dfl = { SIG_DFL, 0, 0, { 0, 0 } };

		stub_syscall(NR_rt_sigaction, SIGSYS, (long)&dfl, 0, 8, 0, 0);
		raise_sigsys();
		return;
	}
	uint32_t flags = prog_sigsys.flags, was = prog_blocks_sigsys;
	uint32_t block[2] = { prog_sigsys.mask[0] & ~SIGSYS_BIT, prog_sigsys.mask[1] };

	if (flags & SA_RESETHAND)
		prog_sigsys.handler = SIG_DFL;
	/*
	 * What the kernel blocks while the handler runs: its sa_mask, and
	 * SIGSYS unless SA_NODEFER (SIGSYS in the stub's record only).  The
	 * stub's own sigreturn puts the mask back; the record, here.
	 */
	if (block[0] | block[1])
		stub_syscall(NR_rt_sigprocmask, SIG_BLOCK, (long)block, 0, 8, 0, 0);
	if (!(flags & SA_NODEFER) || (prog_sigsys.mask[0] & SIGSYS_BIT))
		prog_blocks_sigsys = SIGSYS_BIT;
	if (flags & SA_SIGINFO)
		((void (*)(int, void *, void *))handler)(sig, info, ucontext);
	else
		call_old_style(handler, (uint32_t)sig, uc_gregs(ucontext));
	prog_blocks_sigsys = was;
	if (sigsys_waiting && !was) { /* sent while the handler ran */
		sigsys_waiting = 0;
		pass_on_sigsys(SIGSYS, waiting_info, ucontext);
	}
}

/* 1 if a SIGSYS that waited was delivered now, once a mask call let it. */
int deliver_released_sigsys(void *ucontext)
{
	if (!release_waiting)
		return 0;
	release_waiting = 0;
	sigsys_waiting = 0;
	pass_on_sigsys(SIGSYS, waiting_info, ucontext);
	return 1;
}
