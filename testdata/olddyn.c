/*
 * olddyn: a dynamically linked a.out program of 1993, from before ld.so:
 * its crt0 (oldcrt0.h, with crt0_sls.h or crt0_slack.h included first)
 * loads its a.out shared libraries itself, then main calls them through
 * their jump tables (tiny.h, two.h) and prints, for slsdyn,
 *
 *	slsdyn: hello from libtiny
 *	slsdyn: hello from libtwo
 *
 * (each line's end written by the library from its own data), then
 * exits 0; a wrong result is one line on stderr and exit 1.
 *
 * The file including this one defines OLDDYN_NAME (the program's name in
 * what it prints) and which libraries it needs besides libtiny.so.1
 * (1.2.0 or later), by libentries named by full path ("/lib/...", SLS's
 * crt0) or bare name (Slackware's):
 *   OLDDYN_TWO      libtwo.so.1 (two.h), which uses libtiny itself
 *   OLDDYN_LOW      liblow.so.1, libtiny's code at LOW_BASE (tiny.h),
 *                   where libraries were not put but /lib/libemu was
 *   OLDDYN_MISSING  libmissing.so.1, which nobody has
 *   OLDDYN_EXACT    libtiny exactly 1.2.3 (the CLASSIC bit), for which
 *                   classic/libtiny.so.1 carries that very version word
 */
#include "tiny.h"
#include "two.h"

#if CRT0_NAMES_BY_PATH
#define LIBDIR "/lib/"
#define TOOLS "Jump table 1.2"
#else
#define LIBDIR ""
#define TOOLS "DLL Jump 1.2pl0"
#endif

#ifdef OLDDYN_EXACT
#define TINY_NEEDS TINY_VERSION_1_2_3_CLASSIC
#else
#define TINY_NEEDS TINY_VERSION_1_2_0
#endif

/* the library needed besides libtiny: file name, base, oldest version */
#if defined OLDDYN_TWO
#define SECOND_LIB "libtwo.so.1", TWO_BASE, TWO_VERSION_1_0_0
#elif defined OLDDYN_LOW
#define SECOND_LIB "liblow.so.1", LOW_BASE, TINY_VERSION_1_2_0
#elif defined OLDDYN_MISSING
#define SECOND_LIB "libmissing.so.1", 0x6f000000u, 0x10000u
#endif

#define LIBENTRY(file, base, vers) { LIBDIR file, TOOLS, TINY_JUMP_TABLE(base), vers }
#define LIBENTRY_OF(...) LIBENTRY(__VA_ARGS__)

/* in .data, each pointed to by the set below */
struct libentry olddyn_libentries[] = {
	LIBENTRY("libtiny.so.1", TINY_BASE, TINY_NEEDS),
#ifdef SECOND_LIB
	LIBENTRY_OF(SECOND_LIB),
#endif
};
#define N_LIBENTRIES (sizeof olddyn_libentries / sizeof olddyn_libentries[0])

/* as the linker laid the set out: N, crt0's element, the libentries, 0 */
struct libentry *__SHARED_LIBRARIES__[] = {
	(struct libentry *)(1 + N_LIBENTRIES), (struct libentry *)crt0_set_dummy,
	&olddyn_libentries[0],
#ifdef SECOND_LIB
	&olddyn_libentries[1],
#endif
	NULL
};

/* the slots of a library built from libtiny's sources, at base */
#define TINY_FN(base, type, k) ((type)TINY_SLOT(base, k))
#define greet_at(base) TINY_FN(base, int (*)(int), TINY_SLOT_GREET)
#define count_at(base) TINY_FN(base, int (*)(void), TINY_SLOT_COUNT)
#define message_at(base) TINY_FN(base, const char *(*)(void), TINY_SLOT_MESSAGE)

static int bad(const char *what, uint32_t got)
{
	fx_puts(2, OLDDYN_NAME ": ");
	fx_puts(2, what);
	fx_puts(2, ": got ");
	fx_puthex(2, got);
	fx_puts(2, "\n");
	return 1;
}

/* "NAME: " and the greeting of the library at base: 0, or the exit status */
static int greet_from(uint32_t base, const char *label)
{
	uint32_t r;
	const char *msg;

	fx_puts(1, OLDDYN_NAME ": ");
	fx_puts(1, label);
	if ((r = (uint32_t)greet_at(base)(1)) != sizeof TINY_GREETING - 1)
		return bad("tiny_greet did not write its line", r);
	/* its initialised data: in its own data page, as the file has it */
	msg = message_at(base)();
	if ((uint32_t)msg < base + 0x1000u || (uint32_t)msg >= base + 0x2000u)
		return bad("tiny_message is not in the library's data page", (uint32_t)msg);
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	uint32_t r;
	int st;

	(void)argc, (void)argv, (void)envp;
	if ((st = greet_from(TINY_BASE, "")))
		return st;
	if ((r = (uint32_t)count_at(TINY_BASE)()) != TINY_COUNTER_START + 1)
		return bad("first tiny_count", r);
#ifdef OLDDYN_TWO
	fx_puts(1, OLDDYN_NAME ": ");
	if ((r = (uint32_t)((int (*)(int))TINY_SLOT(TWO_BASE, TWO_SLOT_GREET))(1)) !=
	    sizeof TWO_GREETING - 1)
		return bad("two_greet did not write its line", r);
	/* libtwo reaches the very libtiny the program mapped */
	if ((r = (uint32_t)((int (*)(void))TINY_SLOT(TWO_BASE, TWO_SLOT_COUNT))()) !=
	    TINY_COUNTER_START + 2)
		return bad("libtiny's count through libtwo", r);
#endif
#ifdef OLDDYN_LOW
	if ((st = greet_from(LOW_BASE, "liblow.so.1 at 0x10000000: ")))
		return st;
	/* a library of its own: its counter is not libtiny's */
	if ((r = (uint32_t)count_at(LOW_BASE)()) != TINY_COUNTER_START + 1)
		return bad("liblow's first tiny_count", r);
#endif
	return 0;
}
