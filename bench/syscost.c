/*
 * syscost: what one i386 system call costs on this machine, made the way
 * a.out programs and the aout2elf stub make them (int $0x80) and the way
 * i386 glibc makes them (through the vDSO's __kernel_vsyscall: sysenter or
 * syscall).  A 32-bit glibc program, for `make bench`; it prints
 *
 *	int80_ns VDSO_NS
 *
 * the medians over 21 blocks of 20000 getpid() calls each, the two ways
 * taking turns block by block.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BLOCKS 21
#define CALLS 20000

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
	printf("%.1f %.1f\n", t80[BLOCKS / 2] * 1e9, tv[BLOCKS / 2] * 1e9);
	return 0;
}
