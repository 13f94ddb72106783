/*
 * syscost: what one i386 system call costs on this machine, made the way
 * a.out programs and the aout2elf stub make them (int $0x80) and the way
 * i386 glibc makes them (through the vDSO's __kernel_vsyscall: sysenter or
 * syscall).  A 32-bit glibc program, for `make bench`; it prints
 *
 *	int80_ns VDSO_NS
 *
 * the medians over 21 blocks of 20000 getpid() calls each, the two ways
 * taking turns block by block; then, from a child that traps getppid()
 * with a seccomp filter (RET_TRAP) and answers it from a SIGSYS handler
 * as the stub does,
 *
 *	TRAP_SIGRETURN_NS TRAP_RESUME_NS
 *
 * on the same line: one trapped call whose handler returns by
 * rt_sigreturn through the vDSO, and one whose handler returns by
 * restoring the registers itself, with the stub's own code for both
 * (src/stub/sigreturn.S), 21 blocks of 5000 calls taking turns.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define BLOCKS 21
#define CALLS 20000
#define TRAPPED_CALLS 5000

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long int80_getpid(void)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "0"((long)SYS_getpid) : "memory");
	return r;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* src/stub/sigreturn.S */
uint32_t stub_sysinfo;
void stub_sigreturn_vdso(void);
void stub_resume(void *ucontext) __attribute__((noreturn));

#define ANSWER 4242
static volatile int resume_directly;

static void on_sigsys(int sig, siginfo_t *info, void *ucontext)
{
	(void)sig;
	(void)info;
	((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_EAX] = ANSWER;
	if (resume_directly)
		stub_resume(ucontext);
}

static long int80_getppid(void)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "0"((long)SYS_getppid) : "memory");
	return r;
}

/* SIGSYS as the stub installs it (glibc's sigaction would set its own restorer) */
static int trap_getppid(void)
{
	struct {
		void *handler;
		unsigned long flags;
		void (*restorer)(void);
		uint32_t mask[2];
	} sa = { (void *)on_sigsys, SA_SIGINFO | SA_NODEFER | 0x04000000 /* SA_RESTORER */,
		 stub_sigreturn_vdso, { 0, 0 } };
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0), /* seccomp_data.nr */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };

	stub_sysinfo = (uint32_t)getauxval(AT_SYSINFO);
	if (!stub_sysinfo || syscall(SYS_rt_sigaction, SIGSYS, &sa, NULL, 8) != 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
		return -1;
	return 0;
}

/* In a child, since the filter stays: the two ways of returning, in turns. */
static int time_traps(double *by_sigreturn, double *by_resume)
{
	double t[2][BLOCKS];

	if (trap_getppid() != 0)
		return -1;
	for (int b = 0; b < BLOCKS; b++)
		for (int way = 0; way < 2; way++) {
			double t0 = now();

			resume_directly = way;
			for (int i = 0; i < TRAPPED_CALLS; i++)
				if (int80_getppid() != ANSWER)
					return -1;
			t[way][b] = (now() - t0) / TRAPPED_CALLS;
		}
	qsort(t[0], BLOCKS, sizeof t[0][0], cmp);
	qsort(t[1], BLOCKS, sizeof t[1][0], cmp);
	*by_sigreturn = t[0][BLOCKS / 2];
	*by_resume = t[1][BLOCKS / 2];
	return 0;
}

int main(void)
{
	double t80[BLOCKS], tv[BLOCKS];
	long pid = getpid();

	for (int b = 0; b < BLOCKS; b++) {
		double t0 = now();

		for (int i = 0; i < CALLS; i++)
			if (int80_getpid() != pid)
				return 1;
		t80[b] = (now() - t0) / CALLS;
		t0 = now();
		for (int i = 0; i < CALLS; i++)
			if (syscall(SYS_getpid) != pid)
				return 1;
		tv[b] = (now() - t0) / CALLS;
	}
	qsort(t80, BLOCKS, sizeof t80[0], cmp);
	qsort(tv, BLOCKS, sizeof tv[0], cmp);
	printf("%.1f %.1f ", t80[BLOCKS / 2] * 1e9, tv[BLOCKS / 2] * 1e9);
	fflush(stdout);

	int status;
	pid_t child = fork();

	if (child == 0) {
		double by_sigreturn, by_resume;

		if (time_traps(&by_sigreturn, &by_resume) != 0)
			_exit(1);
		printf("%.1f %.1f\n", by_sigreturn * 1e9, by_resume * 1e9);
		exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || status != 0)
		return 1;
	return 0;
}
