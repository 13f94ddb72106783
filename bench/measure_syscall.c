/*
 * Part 0, the machine: what one i386 system call costs here.  Runs
 * bench/syscost once (it times its own loops: the median of 21 blocks
 * of calls) and makes rows of its four figures: getpid by int $0x80
 * against the vDSO, and a call trapped by a seccomp filter and answered
 * from a SIGSYS handler, returning by rt_sigreturn against returning by
 * the stub's own way.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

void bench_syscall(void)
{
	struct cmd c = cmd_of(prog("syscost"), NULL);
	double int80, vdso, by_sigreturn, by_resume;
	char *out;
	struct row *r;

	section("0. the machine: one i386 system call (getpid), in-process loop");
	if (run_capture(c.v, &out) != 0 ||
	    sscanf(out, "%lf %lf %lf %lf", &int80, &vdso, &by_sigreturn, &by_resume) != 4)
		die("bench/syscost failed: %s", out);
	r = add_row("int $0x80 (a.out code, stub) / vDSO (glibc)");
	r->a = xasprintf("%.0f ns", int80);
	r->b = xasprintf("%.0f ns", vdso);
	r->ratio = xasprintf("%.3f", int80 / vdso);
	r->runs = xasprintf("21x20000");
	r = add_row("trapped call: back by rt_sigreturn / by the stub");
	r->a = xasprintf("%.0f ns", by_sigreturn);
	r->b = xasprintf("%.0f ns", by_resume);
	r->ratio = xasprintf("%.3f", by_sigreturn / by_resume);
	r->runs = xasprintf("21x5000");
	r = add_row("  what a trap adds to int $0x80, by the stub");
	r->a = xasprintf("%+.0f ns", by_resume - int80);
	r->runs = xasprintf("21x5000");
	free(out);
	cmd_free(&c);
}
