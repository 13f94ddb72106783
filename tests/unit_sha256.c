/*
 * Unit tests for src/sha256.c: FIPS 180-4's examples, and every way the
 * last block can end (the length in it, or in one more block).
 */
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "sha256.h"
#include "unit.h"

static void check(const void *buf, size_t size, const char *want)
{
	char hex[SHA256_HEX];

	sha256_hex(buf, size, hex);
	CHECK_STR(hex, want);
}

static void test_fips_examples(void)
{
	uint8_t *a = malloc(1000000);

	check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	if (!a) {
		CU_FAIL("out of memory");
		return;
	}
	memset(a, 'a', 1000000);
	check(a, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

/* 55 bytes: the length fits the block; 56 to 63: one block more; 64: whole */
static void test_block_ends(void)
{
	static const struct {
		size_t n;
		const char *want;
	} t[] = {
		{ 55, "8af594de0e003fdee5c8bb088216c824349b4137070f559574f4a4bddd27b714" },
		{ 63, "bd535b38bf0d0d1a09d370b7e34b2696cea3767801a45d5611a4aaa6954e8527" },
		{ 64, "292be91abe8c0909fe3d26575af5755eee74d23816dc68c3ba41765136967654" },
		{ 65, "ba65aedf7884642499a59ae124894611d986cf429e69f569488048af3a99e25a" },
		{ 119, "d367ab298e74477421127b0b448667c37c006c636f5738f081c39388756e5fad" },
		{ 120, "be7beb9c82089eb08da8fe6eb30c13b9d56869014e228a8c3eb0fdfe832efab2" },
	};
	uint8_t buf[120];

	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 7 % 251);
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		check(buf, t[i].n, t[i].want);
}

int unit_sha256_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_fips_examples),
		UNIT_TEST(test_block_ends),
		UNIT_END
	};

	return unit_add_suite("SHA-256 (src/sha256.c)", NULL, NULL, tests);
}
