/*
 * runcode: copies a six-byte function (movl $42, %eax; ret) into one kind
 * of its memory and calls it there, to show which memory is executable:
 *
 *	runcode stack       a local array
 *	runcode data        initialised data (.data)
 *	runcode bss         a page of bss that holds no data (the zero pages)
 *	runcode heap        the page brk adds right after the a.out image
 *	runcode heap-high   a page of brk above 192 KiB (the kernel's own brk,
 *	                    where the stub traps brk below 64 KiB)
 *
 * Exits 42 when the code ran, and dies of SIGSEGV where that memory is not
 * executable.  By default every a.out program could run code in all of
 * them; with --noexecstack only the text may, and the data that OMAGIC,
 * NMAGIC and ZMAGIC keep in the text's pages.
 *
 * Other statuses: 2 brk failed, 4 bad arguments.
 */
#include "fixture.h"

#define PAGE 4096u
#define HIGH_BRK 0x30000u

static const uint8_t ret42[] = { 0xb8, 42, 0, 0, 0, 0xc3 };

/* initialised, so in .data */
static uint8_t data_buf[16] = { 1 };
/* two pages, so that one of them lies wholly in bss */
static uint8_t bss_buf[2 * PAGE];

static int call_at(uint8_t *p)
{
	memcpy(p, ret42, sizeof ret42);
	/* the compiler must not see that the bytes are only data */
	__asm__ volatile("" : : "r"(p) : "memory");
	return ((int (*)(void))p)();
}

static uint32_t page_up(uint32_t a)
{
	return (a + PAGE - 1) & ~(PAGE - 1);
}

static int call_on_new_heap_page(uint32_t want)
{
	uint32_t top = page_up(want + sizeof ret42);

	if ((uint32_t)sys_brk(top) != top)
		return 2;
	return call_at((uint8_t *)want);
}

int fixture_main(uint32_t *entry_sp)
{
	char **argv = (char **)entry_sp[1];
	uint8_t stack_buf[16];

	if (entry_sp[0] != 2)
		return 4;
	if (fx_streq(argv[1], "stack"))
		return call_at(stack_buf);
	if (fx_streq(argv[1], "data"))
		return call_at(data_buf);
	if (fx_streq(argv[1], "bss"))
		return call_at((uint8_t *)page_up((uint32_t)bss_buf));
	if (fx_streq(argv[1], "heap"))
		return call_on_new_heap_page(page_up((uint32_t)sys_brk(0)));
	if (fx_streq(argv[1], "heap-high"))
		return call_on_new_heap_page(HIGH_BRK - PAGE);
	return 4;
}
