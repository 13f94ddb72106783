/*
 * libtwo.so.1: the functions behind its jump table (libtwo_jump.S,
 * two.h), and its own libentries: what it was built against, libtiny
 * named by a second name.  Freestanding i386, no libc.
 */
#include <stddef.h>
#include <stdint.h>

#include "libentry.h"
#include "two.h"

static const char greeting[] = TWO_GREETING;

static struct libentry built_against_tiny = {
	"/libtiny.so.1", "DLL Jump 1.2pl0", TINY_JUMP_TABLE(TINY_BASE), TINY_VERSION_1_2_0
};

/* a library's set: the count, then only libentries (no crt0 dummy), 0 */
__attribute__((used)) struct libentry *__SHARED_LIBRARIES__[] = {
	(struct libentry *)1, &built_against_tiny, NULL
};

int two_greet(int fd)
{
	long r;
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "0"(4L), "b"((long)fd), "c"((long)greeting),
			   "d"((long)(sizeof greeting - 1))
			 : "memory");
	return (int)r;
}

/* libtiny's counter, reached as any user of libtiny reaches it */
int two_count(void)
{
	return ((int (*)(void))TINY_SLOT(TINY_BASE, TINY_SLOT_COUNT))();
}
