/*
 * Part 2, heap: benchprog growing and shrinking its heap by brk many
 * times, converted against native, for each way the stub gets brk right
 * (trapped below 64K, set by prctl above), and from the same runs with
 * no rounds the cost of one brk call.  With the corpus: libc.so.4's
 * malloc and free in a loop (benchprog libc4), converted against native,
 * brk trapped and by prctl; and gforth's ALLOCATE/FREE (libc.so.4's
 * malloc) against the same loop without them.  Every comparison is of
 * variants taking turns, summed up by medians.
 */
#include <stdio.h>

#include "bench.h"

#define HEAP_ROUNDS 50 /* benchprog heap N: 1 + 32 N brk calls */
#define GFORTH_LOOPS 1000

#define LIBC4_ROUNDS 1000 /* benchprog libc4 LIB N: N malloc+free */
#define LIBC4_NAME_SMALL "libc.so.4 malloc+free, brk < 64K: conv / native"
#define LIBC4_NAME_BIG "same, 128K bss, brk above 64K: conv / native"
#define GFORTH_NAME "gforth ALLOCATE+FREE loop / same loop without"

/* A build of benchprog, native and converted, and its row. */
struct heap_build {
	const char *build; /* benchprog-native-BUILD, benchprog-*BUILD.qmagic.aout */
	const char *row;
	int native, converted; /* its variants */
};

static void set_build(struct variant *v, const struct heap_build *hb,
		      struct cmd native, struct cmd converted)
{
	v[hb->native].name = "native";
	v[hb->native].cmd = native;
	v[hb->converted].name = "converted";
	v[hb->converted].cmd = converted;
}

/* converted / native of each build, measured together */
static void build_rows(const struct heap_build *builds, size_t nbuilds,
		       const struct variant *v, int rounds)
{
	for (size_t b = 0; b < nbuilds; b++)
		ratio_row(builds[b].row, med(&v[builds[b].converted]),
			  med(&v[builds[b].native]), 1.10, rounds);
}

/*
 * The same loop of libc.so.4's malloc(200000) and free() in a native ELF
 * (which maps the library itself: no uselib there) and in the a.out
 * converted with the library embedded, whose brk calls from libc's code
 * the stub traps (below 64K) or the kernel answers (prctl).
 */
static void bench_libc4_heap(void)
{
	enum { NATIVE_SMALL, CONV_SMALL, NATIVE_BIGBSS, CONV_BIGBSS, NLIBC4 };
	static const struct heap_build builds[] = {
		{ "small", LIBC4_NAME_SMALL, NATIVE_SMALL, CONV_SMALL },
		{ "bigbss", LIBC4_NAME_BIG, NATIVE_BIGBSS, CONV_BIGBSS },
	};
	const size_t nbuilds = sizeof builds / sizeof builds[0];
	char *lib = xasprintf("%s/lib/libc.so.4", config.corpus);
	char *libdir = xasprintf("%s/lib", config.corpus);
	char nbuf[16];
	struct variant v[NLIBC4] = { { 0 } };
	char *why = NULL;

	snprintf(nbuf, sizeof nbuf, "%d", LIBC4_ROUNDS);
	for (size_t b = 0; b < nbuilds; b++) {
		const struct heap_build *hb = &builds[b];
		char *e = in_work(xasprintf("libc4-%s.qmagic", hb->build));

		convert(prog(xasprintf("benchprog-libc4%s.qmagic.aout", hb->build)), e,
			"-L", libdir, NULL);
		set_build(v, hb,
			  cmd_of(prog(xasprintf("benchprog-native-%s", hb->build)), "libc4",
				 lib, nbuf, NULL),
			  cmd_of(e, "libc4", lib, nbuf, NULL));
	}
	for (int i = 0; i < NLIBC4; i++)
		if (!works(v[i].cmd.v, NULL, &why)) {
			for (size_t b = 0; b < nbuilds; b++)
				skip_row(builds[b].row, why);
			return;
		}
	int rounds = scaled(61);
	note("heap: libc.so.4, 4 variants x %d runs", rounds);
	measure(v, NLIBC4, rounds, 1);
	build_rows(builds, nbuilds, v, rounds);
	detail("libc.so.4: benchprog libc4 maps ../shared/corpus/lib/libc.so.4 (uselib in "
	       "the conversion, which embeds it; mmap in the native ELF, whose kernel "
	       "has no uselib), sets its ___brk_addr from brk(0) as libc 4's crt0 did, "
	       "then calls malloc(200000) and free() through its jump table %d times: "
	       "each round grows the heap past 64K and gives it back (3 brk calls).\n",
	       LIBC4_ROUNDS);
}

/* gforth: ALLOCATE/FREE through libc.so.4's malloc */
static void bench_gforth_heap(void)
{
	enum { WITH, WITHOUT, NGFORTH };
	char *g = in_work("gforth-0.2.1.embed");
	char *fi = xasprintf("%s/gforth-0.2.1.fi", config.corpus);
	char *with = xasprintf(": t %d 0 do 200000 allocate throw free throw loop ; t bye",
			       GFORTH_LOOPS);
	char *without = xasprintf(": t %d 0 do 200000 drop loop ; t bye", GFORTH_LOOPS);
	struct variant gv[NGFORTH] = { { 0 } };
	char *why = NULL;
	struct row *r;

	if (!file_exists(g)) {
		skip_row(GFORTH_NAME, "gforth did not convert or run (see start-up)");
		return;
	}
	gv[WITH].cmd = cmd_of(g, "-i", fi, "-e", with, NULL);
	gv[WITHOUT].cmd = cmd_of(g, "-i", fi, "-e", without, NULL);
	if (!works(gv[WITH].cmd.v, NULL, &why) || !works(gv[WITHOUT].cmd.v, NULL, &why)) {
		skip_row(GFORTH_NAME, why);
		return;
	}
	int rounds = scaled(31);
	note("heap: gforth x %d runs", rounds);
	measure(gv, NGFORTH, rounds, 1);
	ratio_row(GFORTH_NAME, med(&gv[WITH]), med(&gv[WITHOUT]), 0, rounds);
	r = add_row("  per ALLOCATE+FREE of 200000 bytes");
	r->a = fmt_time((med(&gv[WITH]) - med(&gv[WITHOUT])) / GFORTH_LOOPS);
	r->runs = xasprintf("%d", rounds);
	detail("gforth: gforth-0.2.1 -e '%s' against -e '%s' (both converted, "
	       "libraries embedded); there is no native build of gforth 0.2.1 to "
	       "compare with.\n", with, without);
}

void bench_heap(void)
{
	/* the last two: the small builds with no rounds, what is not brk */
	enum {
		NATIVE_SMALL, CONV_SMALL, NATIVE_BIGBSS, CONV_BIGBSS,
		NATIVE_BIGDATA, CONV_BIGDATA, NATIVE_SMALL_IDLE, CONV_SMALL_IDLE, NHEAP
	};
	static const struct heap_build builds[] = {
		{ "small", "brk below 64K (trapped): converted / native", NATIVE_SMALL,
		  CONV_SMALL },
		{ "bigbss", "128K bss, brk above 64K (prctl): conv / native", NATIVE_BIGBSS,
		  CONV_BIGBSS },
		{ "bigdata", "64K data, brk above 64K (prctl): conv / native", NATIVE_BIGDATA,
		  CONV_BIGDATA },
	};
	const size_t nbuilds = sizeof builds / sizeof builds[0];
	char nbuf[16];
	struct variant v[NHEAP] = { { 0 } };
	char *why = NULL;

	section("2. heap: brk grows and shrinks the heap, 16 pages a time");
	snprintf(nbuf, sizeof nbuf, "%d", HEAP_ROUNDS);
	for (size_t b = 0; b < nbuilds; b++) {
		const struct heap_build *hb = &builds[b];
		char *nat = prog(xasprintf("benchprog-native-%s", hb->build));
		char *e = in_work(xasprintf("heap-%s.qmagic", hb->build));

		convert(prog(xasprintf("benchprog-%s.qmagic.aout", hb->build)), e, NULL,
			NULL, NULL);
		set_build(v, hb, cmd_of(nat, "heap", nbuf, NULL),
			  cmd_of(e, "heap", nbuf, NULL));
	}
	v[NATIVE_SMALL_IDLE].cmd = cmd_of(v[NATIVE_SMALL].cmd.v[0], "heap", "0", NULL);
	v[CONV_SMALL_IDLE].cmd = cmd_of(v[CONV_SMALL].cmd.v[0], "heap", "0", NULL);
	for (int i = 0; i < NHEAP; i++)
		if (!works(v[i].cmd.v, NULL, &why))
			die("%s heap: %s", v[i].cmd.v[0], why);
	int rounds = scaled(61);
	note("heap: 8 variants x %d runs", rounds);
	measure(v, NHEAP, rounds, 2);
	build_rows(builds, nbuilds, v, rounds);

	double calls = 32.0 * HEAP_ROUNDS;
	double conv = (med(&v[CONV_SMALL]) - med(&v[CONV_SMALL_IDLE])) / calls;
	double nat = (med(&v[NATIVE_SMALL]) - med(&v[NATIVE_SMALL_IDLE])) / calls;
	struct row *r;

	ratio_row("one brk call, brk < 64K: conv / native (us/call)", conv, nat, 0, rounds);
	r = add_row("  converted - native per brk call");
	r->a = xasprintf("%+.2f us", (conv - nat) * 1e6);
	r->runs = xasprintf("%d", rounds);
	detail("Heap: benchprog heap %d makes %d brk calls (16 grow + 16 shrink a "
	       "round); per call = (median(heap %d) - median(heap 0)) / %d.  Where brk "
	       "starts below 64K, the calls up to 64K are trapped (their pages stay "
	       "mapped, so each costs the trap and no page work), the rest are the "
	       "kernel's; what one trap costs is in part 0.\n",
	       HEAP_ROUNDS, 32 * HEAP_ROUNDS + 1, HEAP_ROUNDS, 32 * HEAP_ROUNDS);

	if (!config.corpus) {
		skip_row(LIBC4_NAME_SMALL, "no ../shared/corpus");
		skip_row(LIBC4_NAME_BIG, "no ../shared/corpus");
		skip_row(GFORTH_NAME, "no ../shared/corpus");
		return;
	}
	bench_libc4_heap();
	bench_gforth_heap();
}
