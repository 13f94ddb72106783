/*
 * libtiny.so.1: the functions behind the jump table (libtiny_jump.S,
 * tiny.h).  Freestanding i386, no libc: the library makes its own system
 * calls (write, and brk as libc's sbrk made it).  It uses all three kinds
 * of library memory that load_aout_library set up: initialised data (the
 * greeting, the counter), and bss past the last file page (the array,
 * which must read as zero and be writable).
 */
#include <stddef.h>
#include <stdint.h>

#include "tiny.h"

/* writable, in .data: the library's data pages are its own copy */
static char greeting[] = TINY_GREETING;
static int counter = TINY_COUNTER_START;
static uint32_t bss_words[TINY_BSS_WORDS];

static long sys_write3(int fd, const void *buf, size_t n)
{
	long r;
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "0"(4L), "b"((long)fd), "c"((long)buf), "d"((long)n)
			 : "memory");
	return r;
}

int tiny_greet(int fd)
{
	return (int)sys_write3(fd, greeting, sizeof greeting - 1);
}

int tiny_count(void)
{
	return ++counter;
}

uint32_t tiny_bss_sum(void)
{
	uint32_t sum = 0;

	for (uint32_t i = 0; i < TINY_BSS_WORDS; i++)
		sum += bss_words[i];
	return sum;
}

uint32_t tiny_bss_poke(uint32_t i, uint32_t v)
{
	uint32_t old;

	if (i >= TINY_BSS_WORDS)
		return 0xffffffffu;
	old = bss_words[i];
	bss_words[i] = v;
	return old;
}

const char *tiny_message(void)
{
	return greeting;
}

/* from the library's own code, as libc 4's sbrk called it */
long tiny_brk(uint32_t addr)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "0"(45L), "b"((long)addr) : "memory");
	return r;
}
