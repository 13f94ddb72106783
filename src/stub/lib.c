/*
 * The stub's small library: the system call gate once committed, memcpy
 * and memset, string helpers, and the messages it dies with (one line on
 * stderr, status 127, like a loader that could not start the program).
 */
#include "lib.h"
#include "sys.h"

uint32_t stub_sysinfo;
uint32_t syscall_sp_low;
const char *prog_name;

long stub_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	note_sp(&syscall_sp_low);
	return stub_syscall_via(stub_sysinfo, nr, a1, a2, a3, a4, a5, a6);
}

/*
 * rep movsb and rep stosb, not byte loops: brk_hybrid clears a page per
 * brk call that shrinks the heap, which a byte loop made noticeably
 * dearer (make bench, row "one brk call, brk < 64K").  DF is clear: the
 * ABI, and signal delivery clears it.
 */
void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

size_t str_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

int str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

int str_prefix(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

void put_str(struct line *l, const char *s)
{
	while (*s && l->len < sizeof l->buf - 1)
		l->buf[l->len++] = *s++;
}

void put_hex(struct line *l, uint32_t v)
{
	char tmp[11] = "0x";
	for (int i = 0; i < 8; i++)
		tmp[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 0xf];
	tmp[10] = 0;
	put_str(l, tmp);
}

void put_dec(struct line *l, uint32_t v)
{
	char tmp[11];
	int i = 10;
	tmp[i] = 0;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_str(l, tmp + i);
}

__attribute__((noreturn)) void die_line(struct line *l)
{
	l->buf[l->len++] = '\n';
	stub_syscall(NR_write, 2, (long)l->buf, (long)l->len, 0, 0, 0);
	for (;;)
		stub_syscall(NR_exit_group, 127, 0, 0, 0, 0, 0);
}

/*
 * What an error number means where the stub meets it: most often a host
 * that lacks a feature (qemu-user, an old kernel) or a sandbox's filter.
 */
static const struct {
	uint8_t err;
	const char *text;
} errors[] = {
	{ EPERM, "EPERM, refused (a sandbox's filter, or no privilege)" },
	{ ENOENT, "ENOENT, no such file" },
	{ ENOMEM, "ENOMEM, no memory" },
	{ EACCES, "EACCES, permission denied" },
	{ EFAULT, "EFAULT, bad address" },
	{ EEXIST, "EEXIST, the address is taken" },
	{ EINVAL, "EINVAL, not supported here" },
	{ ENOSYS, "ENOSYS, not implemented by this kernel or emulator" },
};

void put_error(struct line *l, long err)
{
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].err == -err) {
			put_str(l, errors[i].text);
			return;
		}
	put_str(l, "error ");
	put_dec(l, (uint32_t)-err);
}

static __attribute__((noreturn)) void die_what(const char *what, int at,
						 uint32_t addr, long err)
{
	struct line l = { .len = 0 };
	put_str(&l, PROG_NAME);
	put_str(&l, ": ");
	put_str(&l, what);
	if (at) {
		put_str(&l, " at ");
		put_hex(&l, addr);
	}
	put_str(&l, " failed: ");
	put_error(&l, err);
	die_line(&l);
}

__attribute__((noreturn)) void die(const char *what, long err)
{
	die_what(what, 0, 0, err);
}

__attribute__((noreturn)) void die_at(const char *what, uint32_t addr, long err)
{
	die_what(what, 1, addr, err);
}

long placed(long r, uint32_t want, uint32_t len)
{
	if (r < 0 && r > -4096)
		return r;
	if ((uint32_t)r != want) {
		stub_syscall_via(0, NR_munmap, r, (long)len, 0, 0, 0, 0);
		return -EEXIST;
	}
	return r;
}

/*
 * valgrind's client request RUNNING_ON_VALGRIND (valgrind.h): natively the
 * four rotations add up to 64 bits and the xchg does nothing, so %edx
 * keeps its 0.  Under valgrind the program's calls are made from
 * valgrind's own code, where no filter or dispatch by address can find
 * them (trap.c tries none), and calls valgrind does not know (seccomp,
 * readdir) only make it warn.
 */
int under_valgrind(void)
{
	uint32_t args[6] = { 0x1001, 0, 0, 0, 0, 0 }, r = 0;

	__asm__ volatile("roll $3, %%edi; roll $13, %%edi\n\t"
			 "roll $29, %%edi; roll $19, %%edi\n\t"
			 "xchgl %%ebx, %%ebx"
			 : "+d"(r)
			 : "a"(args)
			 : "cc", "memory");
	return r != 0;
}
