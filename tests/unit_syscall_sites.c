/*
 * The call-site scanner and rewriter (src/syscall_sites.h), on the byte
 * patterns of the a.out corpus, and on what must not be taken for a site;
 * and the plan flag the converter sets when it rewrote the program's.
 */
#include <stdio.h>
#include <string.h>

#include "elfwrite.h"
#include "syscall_sites.h"
#include "unit.h"

#define THUNK 0x800035f0u
#define UNTOUCHED 0xf4 /* hlt: what surrounds each pattern */

/* The pattern in a buffer between hlt bytes, rewritten at addr: count found. */
static uint32_t patch(uint8_t *buf, size_t cap, const uint8_t *code, size_t len,
		      uint32_t addr, uint8_t nr)
{
	memset(buf, UNTOUCHED, cap);
	memcpy(buf + 3, code, len);
	return syscall_sites_patch(buf, cap, addr - 3, nr, THUNK);
}

/* code (a site) rewritten: loads, two NOPs, call THUNK ending where it ended. */
static void check_rewritten(const uint8_t *code, size_t len, uint8_t nr,
			    uint32_t addr)
{
	uint8_t buf[48], want[48];
	uint32_t rel = THUNK - (addr + (uint32_t)len);

	CHECK_U(syscall_site_len(code, code + len, nr), len);
	CHECK_U(patch(buf, sizeof buf, code, len, addr, nr), 1);
	memset(want, UNTOUCHED, sizeof want);
	memcpy(want + 3, code + 5, len - 7);
	memcpy(want + 3 + len - 7, "\x90\x90\xe8", 3);
	for (int i = 0; i < 4; i++)
		want[3 + len - 4 + i] = (uint8_t)(rel >> (8 * i));
	CU_ASSERT(memcmp(buf, want, sizeof buf) == 0);
	/* a rewritten site is no site: rewriting again changes nothing */
	memcpy(want, buf, sizeof buf);
	CHECK_U(syscall_sites_patch(buf, sizeof buf, addr - 3, nr, THUNK), 0);
	CU_ASSERT(memcmp(buf, want, sizeof buf) == 0);
}

static void test_sites_of_the_corpus(void)
{
	/* oldlinux/gawk's crt0: mov (%esi),%edi; mov (%edi),%ebx */
	check_rewritten((const uint8_t *)"\xb8\x56\0\0\0\x8b\x3e\x8b\x1f\xcd\x80", 11,
			86, 0x17601);
	/* lib/ld.so, oldlinux/lib/libc.so.4.4.1: mov 8(%esp),%ebx */
	check_rewritten((const uint8_t *)"\xb8\x56\0\0\0\x8b\x5c\x24\x08\xcd\x80", 11,
			86, 0x62f02575);
	/* lib/libc.so.4: mov 8(%ebp),%ebx */
	check_rewritten((const uint8_t *)"\xb8\x56\0\0\0\x8b\x5d\x08\xcd\x80", 10, 86,
			0x60031d5c);
	/* lib/ld.so's open: three loads */
	check_rewritten((const uint8_t *)"\xb8\x05\0\0\0\x8b\x5c\x24\x08\x8b\x4c\x24\x0c"
					 "\x8b\x54\x24\x10\xcd\x80",
			19, 5, 0x62f033f9);
	/* libc.so.4's readdir (lib/ and oldlinux/lib/): mov (%esi),%ebx;
	 * mov 12(%esi),%ecx; mov $1,%edx */
	check_rewritten((const uint8_t *)"\xb8\x59\0\0\0\x8b\x1e\x8b\x4e\x0c"
					 "\xba\x01\0\0\0\xcd\x80",
			17, 89, 0x60029850);
	/* no load at all; at address 0 (ZMAGIC), the call wraps round */
	check_rewritten((const uint8_t *)"\xb8\x56\0\0\0\xcd\x80", 7, 86, 3);
	/* movl $imm32, leal, a store, a disp32 and an SIB without base */
	check_rewritten((const uint8_t *)"\xb8\x56\0\0\0\xbb\x78\x56\x34\x12"
					 "\x8d\x4c\x24\x04\x89\x1d\x00\x10\x00\x00"
					 "\x8b\x14\x8d\x00\x20\x00\x00\xcd\x80",
			29, 86, 0x1000);
}

/* Each is no site: the buffer comes back as it was. */
static void check_left_alone(const char *what, const uint8_t *code, size_t len,
			     uint8_t nr)
{
	uint8_t buf[48], want[48];

	memset(want, UNTOUCHED, sizeof want);
	memcpy(want + 3, code, len);
	CHECK_U(patch(buf, sizeof buf, code, len, 0x1000, nr), 0);
	if (memcmp(buf, want, sizeof buf) != 0) {
		fprintf(stderr, "taken for a site: %s\n", what);
		CU_FAIL("a non-site was rewritten");
	}
	CHECK_U(syscall_site_len(code, code + len, nr), 0);
}

#define ALONE(what, bytes, nr) \
	check_left_alone(what, (const uint8_t *)(bytes), sizeof(bytes) - 1, nr)

static void test_non_sites(void)
{
	ALONE("reads eax as a base", "\xb8\x56\0\0\0\x8b\x18\xcd\x80", 86);
	ALONE("reads eax as an index", "\xb8\x56\0\0\0\x8b\x1c\x04\xcd\x80", 86);
	ALONE("reads eax, register to register", "\xb8\x56\0\0\0\x89\xc3\xcd\x80", 86);
	ALONE("writes eax", "\xb8\x56\0\0\0\x8b\x45\x08\xcd\x80", 86);
	ALONE("stores eax", "\xb8\x56\0\0\0\x89\x03\xcd\x80", 86);
	ALONE("writes esp", "\xb8\x56\0\0\0\x8b\x24\x24\xcd\x80", 86);
	ALONE("movl $imm32, %esp", "\xb8\x56\0\0\0\xbc\x00\x10\0\0\xcd\x80", 86);
	ALONE("leal from a register", "\xb8\x56\0\0\0\x8d\xd8\xcd\x80", 86);
	ALONE("a jump in between", "\xb8\x56\0\0\0\xeb\x00\xcd\x80", 86);
	ALONE("a push in between", "\xb8\x56\0\0\0\x53\xcd\x80", 86);
	ALONE("a 16-bit load", "\xb8\x56\0\0\0\x66\x8b\x1f\xcd\x80", 86);
	ALONE("window exceeded: five loads",
	      "\xb8\x56\0\0\0\x8b\x1f\x8b\x1f\x8b\x1f\x8b\x1f\x8b\x1f\xcd\x80", 86);
	ALONE("another call's number", "\xb8\x05\0\0\0\x8b\x1f\xcd\x80", 86);
	ALONE("a wider number", "\xb8\x56\x01\0\0\x8b\x1f\xcd\x80", 86);
	ALONE("int $0x80 without the mov", "\x8b\x1f\xcd\x80", 86);
	ALONE("int $0x81", "\xb8\x56\0\0\0\xcd\x81", 86);
}

static void test_truncated(void)
{
	static const uint8_t site[] = "\xb8\x56\0\0\0\x8b\x5c\x24\x08\xcd\x80";
	uint8_t buf[16];

	/* cut anywhere short of its end: nothing is found, nothing written */
	for (size_t len = 0; len < sizeof site - 1; len++) {
		memcpy(buf, site, sizeof site - 1);
		CHECK_U(syscall_site_len(buf, buf + len, 86), 0);
		CHECK_U(syscall_sites_patch(buf, len, 0x1000, 86, THUNK), 0);
		CU_ASSERT(memcmp(buf, site, sizeof site - 1) == 0);
	}
	memcpy(buf, site, sizeof site - 1);
	CHECK_U(syscall_sites_patch(buf, sizeof site - 1, 0x1000, 86, THUNK), 1);
}

static void test_every_site_once(void)
{
	static const uint8_t site[] = "\xb8\x56\0\0\0\x8b\x5d\x08\xcd\x80";
	uint8_t buf[64];

	memset(buf, UNTOUCHED, sizeof buf);
	memcpy(buf, site, 10);
	memcpy(buf + 10, site, 10); /* right behind the first */
	memcpy(buf + 40, site, 10);
	CHECK_U(syscall_sites_patch(buf, sizeof buf, 0x1000, 86, THUNK), 3);
	for (size_t at = 0; at < 50; at += at == 10 ? 30 : 10) {
		CHECK_U(buf[at], 0x8b); /* the load, moved up */
		CHECK_U(buf[at + 5], 0xe8);
	}
	CHECK_U(buf[20], UNTOUCHED);
	CHECK_U(buf[39], UNTOUCHED);
	CHECK_U(buf[50], UNTOUCHED);
}

/* The plan tells the stub that it has nothing to trap for the program's uselib. */
static void test_plan_flags(void)
{
	static struct plan p;
	struct elfw_layout l;
	struct stub_plan sp;

	memset(&p, 0, sizeof p);
	memset(&l, 0, sizeof l);
	p.dynamic = 1;
	elfw_stub_plan(&p, &l, &sp);
	CHECK_U(sp.flags & (STUB_F_USELIB_PATCHED | STUB_F_LDSO_PATCHED), 0);
	p.lib_uselib_sites = 2; /* the libraries' alone: still trapped */
	elfw_stub_plan(&p, &l, &sp);
	CHECK_U(sp.flags & (STUB_F_USELIB_PATCHED | STUB_F_LDSO_PATCHED), 0);
	p.uselib_sites = 1;
	p.ldso_open_sites = 1;
	elfw_stub_plan(&p, &l, &sp);
	CHECK_U(sp.flags & (STUB_F_USELIB_PATCHED | STUB_F_LDSO_PATCHED),
		STUB_F_USELIB_PATCHED | STUB_F_LDSO_PATCHED);
}

int unit_syscall_sites_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_sites_of_the_corpus),
		UNIT_TEST(test_non_sites),
		UNIT_TEST(test_truncated),
		UNIT_TEST(test_every_site_once),
		UNIT_TEST(test_plan_flags),
		UNIT_END
	};

	return unit_add_suite("call sites (src/syscall_sites.h)", NULL, NULL, tests);
}
