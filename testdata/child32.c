/*
 * child32: an ordinary glibc program for forkexec to run from a converted
 * a.out process.  Built with "gcc -m32" as testdata/child32 and with "gcc"
 * as testdata/child64; prints "child32 ok" or "child64 ok".
 *
 * It moves brk by hand and through malloc, so a seccomp filter or brk
 * emulation that the converted parent left behind would show here.
 * Statuses: 0 ok, 2 = brk cannot move, 3 = malloc failed, 4 = heap memory
 * corrupted, 5 = malloc did not use brk.
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NBLOCKS 200

int main(void)
{
	char *b0 = sbrk(0);
	if (b0 == (char *)-1 || brk(b0 + 100000) != 0 || sbrk(0) != b0 + 100000) {
		fprintf(stderr, "child: brk cannot grow\n");
		return 2;
	}
	memset(b0, 0x5a, 100000);
	if (brk(b0) != 0 || sbrk(0) != b0) {
		fprintf(stderr, "child: brk cannot shrink\n");
		return 2;
	}

	char *p[NBLOCKS];
	for (int i = 0; i < NBLOCKS; i++) {
		size_t n = 100 + (size_t)i * 37;
		p[i] = malloc(n);
		if (!p[i]) {
			fprintf(stderr, "child: malloc failed\n");
			return 3;
		}
		memset(p[i], i & 0xff, n);
	}
	char *big = malloc(4 << 20);
	if (!big) {
		fprintf(stderr, "child: malloc failed\n");
		return 3;
	}
	memset(big, 1, 4 << 20);
	for (int i = 0; i < NBLOCKS; i++) {
		size_t n = 100 + (size_t)i * 37;
		for (size_t k = 0; k < n; k++) {
			if ((unsigned char)p[i][k] != (i & 0xff)) {
				fprintf(stderr, "child: heap corrupted\n");
				return 4;
			}
		}
	}
	if ((char *)sbrk(0) <= b0 || (uintptr_t)p[0] < (uintptr_t)b0 ||
	    (uintptr_t)p[0] >= (uintptr_t)sbrk(0)) {
		fprintf(stderr, "child: malloc did not take its memory from brk\n");
		return 5;
	}
	for (int i = 0; i < NBLOCKS; i++)
		free(p[i]);
	free(big);
	printf("child%d ok\n", (int)(sizeof(void *) * 8));
	return 0;
}
