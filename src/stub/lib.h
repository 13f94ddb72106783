/*
 * The stub's small library, in place of a libc: the system call gate,
 * memory and string helpers, and the one-line messages it dies with.
 */
#ifndef AOUT2ELF_STUB_LIB_H
#define AOUT2ELF_STUB_LIB_H

#include <stddef.h>
#include <stdint.h>

#include "../stub_abi.h"

#define PAGE_UP(x) (((x) + STUB_PAGE - 1) & ~(STUB_PAGE - 1))

/* stub_start.S: one system call, through gate (__kernel_vsyscall) or, with
 * gate 0, int $0x80; -errno on error */
long stub_syscall_via(uint32_t gate, long nr, long a1, long a2, long a3, long a4,
		      long a5, long a6);

extern uint32_t stub_sysinfo; /* __kernel_vsyscall: sysenter/syscall, not int $0x80 */

/* *low = the lowest %esp seen so far (0: none yet); see stack_dirty. */
static inline void note_sp(uint32_t *low)
{
	uint32_t sp;

	__asm__ volatile("movl %%esp, %0" : "=r"(sp));
	if (sp < *low || !*low)
		*low = sp;
}

/* Lowest %esp of a stub_syscall; a variable, so read only once committed. */
extern uint32_t syscall_sp_low;

/* A system call once committed (see struct start in stub.h). */
long stub_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6);

/* 1 under valgrind (its client request RUNNING_ON_VALGRIND) */
int under_valgrind(void);

/* gcc may emit calls to these even in freestanding code */
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

size_t str_len(const char *s);
int str_eq(const char *a, const char *b);
int str_prefix(const char *s, const char *prefix);

/* A one-line message assembled in a fixed buffer: no allocation here. */
struct line {
	char buf[512];
	size_t len;
};

void put_str(struct line *l, const char *s);
void put_hex(struct line *l, uint32_t v);
void put_dec(struct line *l, uint32_t v);
/* Writes the line to stderr and ends the program with status 127. */
__attribute__((noreturn)) void die_line(struct line *l);

extern const char *prog_name; /* set by commit(), before any message */
#define PROG_NAME (prog_name ? prog_name : "a.out program")

/* The error's name and what it most likely means here. */
void put_error(struct line *l, long err);
/* "PROG: WHAT failed: ENAME, meaning", then die_line; die_at names ADDR too. */
__attribute__((noreturn)) void die(const char *what, long err);
__attribute__((noreturn)) void die_at(const char *what, uint32_t addr, long err);

/*
 * An mmap's result r for a fixed address want (len bytes): want, or
 * -errno.  Where MAP_FIXED_NOREPLACE is taken as a hint (kernels before
 * 4.17, qemu-user), the pages may land elsewhere: they are given back,
 * and the address was taken (-EEXIST).
 */
long placed(long r, uint32_t want, uint32_t len);

#endif
