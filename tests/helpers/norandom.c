/* Runs a program without address-space randomisation, as `setarch -R`
 * does: the i386 VM's busybox has no setarch, so tests/e2e-i386.sh builds
 * this one for it (static, -m32). */
#include <stdio.h>
#include <sys/personality.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int now = personality(0xffffffff);

	if (argc < 2) {
		fprintf(stderr, "usage: norandom PROGRAM [ARG]...\n");
		return 2;
	}
	if (now == -1 || personality((unsigned long)now | ADDR_NO_RANDOMIZE) == -1) {
		perror("norandom: personality");
		return 126;
	}
	execv(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
