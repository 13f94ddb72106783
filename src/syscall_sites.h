/*
 * Call sites of one system call in a.out code, found and rewritten into a
 * call of the stub, so that the call is answered with no kernel feature
 * (no seccomp filter, no syscall user dispatch): under qemu-user, valgrind
 * and sandboxes that kill the call, as on the kernel.  Shared by the
 * converter (the program's text, embedded libraries) and the stub
 * (libraries it maps from disk): freestanding, pure, on a buffer.
 *
 * A site is what the a.out crt0s, ld.so and libc wrappers have:
 *
 *     b8 NR 00 00 00        movl $NR, %eax
 *     LOAD...               up to SITE_MAX_LOADS argument loads
 *     cd 80                 int $0x80
 *
 * where every LOAD is a mov or lea that touches neither %eax nor %esp,
 * and nothing branches.  It becomes, at the same length,
 *
 *     LOAD...               the loads moved up, unchanged
 *     90 90                 two NOPs
 *     e8 REL32              call the thunk, ending where int $0x80 ended
 *
 * so that the thunk returns to the instruction after the old int $0x80
 * with the answer in %eax, every other register as it was.  Anything
 * else is left alone: a missed site still traps, a wrong one would break
 * the program.  A jump into the middle of a site would land inside the
 * call; the wrappers seen enter only at the movl.
 */
#ifndef AOUT2ELF_SYSCALL_SITES_H
#define AOUT2ELF_SYSCALL_SITES_H

#include <stddef.h>
#include <stdint.h>

#define SITE_MAX_LOADS 4
#define SITE_MOV_LEN 5  /* movl $NR, %eax */
#define SITE_MIN_LEN (SITE_MOV_LEN + 2)

#define SITE_EAX 0
#define SITE_ESP 4

/*
 * Length of an argument load at p (before end) that may be moved ahead
 * of the movl and the call, or 0: movl $imm32, %r; movl r/m32, %r;
 * movl %r, r/m32; leal m, %r; none reading or writing %eax, none writing
 * %esp.  Written small: the stub carries it.
 */
static inline size_t site_load_len(const uint8_t *p, const uint8_t *end)
{
	unsigned op = p[0], mod, reg, rm;
	ptrdiff_t len = 2;

	if (op >= 0xb9 && op <= 0xbf && op != 0xb8 + SITE_ESP)
		len = 5;
	else if ((op != 0x8b && op != 0x89 && op != 0x8d) || end - p < 2)
		return 0;
	else {
		mod = p[1] >> 6;
		reg = (p[1] >> 3) & 7;
		rm = p[1] & 7;
		if (reg == SITE_EAX || (reg == SITE_ESP && op != 0x89))
			return 0;
		if (mod == 3) {
			if (op == 0x8d || rm == SITE_EAX || (rm == SITE_ESP && op == 0x89))
				return 0;
		} else {
			if (rm == 4) { /* SIB: its base counts as rm, its index too */
				if (end - p < 3 || ((p[2] >> 3) & 7) == SITE_EAX)
					return 0;
				rm = p[2] & 7;
				len = 3;
			}
			if (mod == 0 && rm == 5)
				len += 4; /* disp32, no base */
			else if (rm == SITE_EAX)
				return 0;
			len += mod == 1 ? 1 : mod == 2 ? 4 : 0;
		}
	}
	return len <= end - p ? (size_t)len : 0;
}

/* The length of the site of call nr at p (before end), or 0 if none. */
static inline size_t syscall_site_len(const uint8_t *p, const uint8_t *end,
				      uint8_t nr)
{
	const uint8_t *q = p + SITE_MOV_LEN;
	size_t n = 1;

	if (end - p < SITE_MIN_LEN || p[0] != 0xb8 || p[1] != nr || p[2] || p[3] || p[4])
		return 0;
	for (int loads = 0; n && end - q >= 2 && !(q[0] == 0xcd && q[1] == 0x80);
	     loads++)
		q += n = loads < SITE_MAX_LOADS ? site_load_len(q, end) : 0;
	return n && end - q >= 2 ? (size_t)(q + 2 - p) : 0;
}

/* Rewrites the site of len bytes at p, at address addr, to call target. */
static inline void syscall_site_rewrite(uint8_t *p, size_t len, uint32_t addr,
					uint32_t target)
{
	uint8_t *call = p + len - 5;
	uint32_t rel = target - (addr + (uint32_t)len);

	for (; p < call - 2; p++) /* forward: the loads move down */
		p[0] = p[SITE_MOV_LEN];
	p[0] = p[1] = 0x90;
	call[0] = 0xe8;
	for (int i = 1; i < 5; i++, rel >>= 8)
		call[i] = (uint8_t)rel;
}

/*
 * Rewrites every site of call nr in the code at text (len bytes, loaded
 * at addr) to call target; returns how many there were.
 */
static inline uint32_t syscall_sites_patch(uint8_t *text, size_t len, uint32_t addr,
					   uint8_t nr, uint32_t target)
{
	const uint8_t *end = text + len;
	uint32_t count = 0;

	for (uint8_t *p = text; end - p >= SITE_MIN_LEN; p++) {
		size_t n = syscall_site_len(p, end, nr);

		if (n) {
			syscall_site_rewrite(p, n, addr + (uint32_t)(p - text), target);
			count++;
			p += n - 1;
		}
	}
	return count;
}

#endif
