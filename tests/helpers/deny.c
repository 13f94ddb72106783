/*
 * deny [--kill] NR[,NR]... PROGRAM [ARG]...: runs PROGRAM under a seccomp
 * filter that refuses its i386 system calls NR with EPERM, as a sandbox's
 * profile would (Docker's refuses most personality() values); with
 * --kill, the calls kill the process instead, as systemd's
 * SystemCallFilter= does.  The filter is inherited, as a sandbox's is.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define MAX_CALLS 16

int main(int argc, char **argv)
{
	int kill = argc > 1 && strcmp(argv[1], "--kill") == 0;

	argv += kill;
	argc -= kill;
	if (argc < 3) {
		fprintf(stderr, "usage: deny [--kill] NR[,NR]... PROGRAM [ARG]...\n");
		return 2;
	}
	unsigned nr[MAX_CALLS], n = 0;
	for (char *p = argv[1]; *p && n < MAX_CALLS; p += *p == ',')
		nr[n++] = (unsigned)strtoul(p, &p, 0);

	struct sock_filter f[3 + 2 * MAX_CALLS + 2];
	unsigned k = 0;
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386,
					      0, (unsigned char)(2 * n + 1));
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (unsigned i = 0; i < n; i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr[i], 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						      kill ? SECCOMP_RET_KILL_PROCESS :
							     SECCOMP_RET_ERRNO | EPERM);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { (unsigned short)k, f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("deny: seccomp");
		return 126;
	}
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
