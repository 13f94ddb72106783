/*
 * Part 1, start-up: exec to exit of benchprog doing nothing, the native
 * ELF against each a.out kind converted, all variants taking turns in
 * one measurement, and the page faults of a run of each (counted, from
 * wait4).  Beside them: QMAGIC converted with --direct (the kernel maps
 * the segments, the stub moves nothing), trapped and by prctl, which is
 * what the staging costs; and the native program doing only part of what
 * the stub does (one call through the vDSO; trapping its exit by syscall
 * user dispatch; attaching a seccomp filter like the stub's), which is
 * what that part costs a start.  Then pairs measured apart: QMAGIC
 * converted with --no-randomize against without, and the dyn fixture (and
 * pwd.exe and gforth from the corpus) with the libraries embedded against
 * --no-embed-libs.
 */
#include <stdlib.h>

#include "bench.h"

/* The variants timed together, in the order they take turns. */
enum start_variant {
	NATIVE,		/* benchprog-native-small */
	CONV_QMAGIC,	/* benchprog-small.KIND.aout, converted */
	CONV_ZMAGIC,
	CONV_NMAGIC,
	CONV_OMAGIC,
	NATIVE_BIGDATA,	/* 64K data: brk above 64K, set by prctl */
	CONV_BIGDATA,
	NATIVE_DISPATCH, /* native, trapping its exit as the stub would */
	DIRECT_SMALL,	/* --direct: the kernel maps, the stub moves nothing */
	DIRECT_BIGDATA,
	NATIVE_VDSO,	/* native, one call through the vDSO, as the stub makes */
	NATIVE_FILTER,	/* native, a filter like the stub's, trapping nothing */
	NSTART
};

static const enum start_variant converted_kind[NKINDS] = {
	[KIND_QMAGIC] = CONV_QMAGIC,
	[KIND_ZMAGIC] = CONV_ZMAGIC,
	[KIND_NMAGIC] = CONV_NMAGIC,
	[KIND_OMAGIC] = CONV_OMAGIC,
};

/* The variants, which of them run here (and why not), their times. */
struct start_runs {
	struct variant v[NSTART];
	int ok[NSTART];
	char *whynot[NSTART];
	int rounds;
};

/*
 * One row: the start-up of a against b, side by side, when both run and
 * print expect (NULL: exit 0 is enough); a skipped row saying why not.
 */
static void startup_pair(const char *row, const char *what, struct cmd a,
			 struct cmd b, const char *expect, int nruns, int warmup)
{
	enum { PAIR_A, PAIR_B, NPAIR };
	struct variant d[NPAIR] = { [PAIR_A] = { .name = "A", .cmd = a },
				    [PAIR_B] = { .name = "B", .cmd = b } };
	char *why = NULL;

	if (!works(a.v, expect, &why) || !works(b.v, expect, &why)) {
		skip_row(row, why);
		return;
	}
	int rounds = scaled(nruns);
	note("start-up: %s x %d runs", what, rounds);
	measure(d, NPAIR, rounds, warmup);
	ratio_row(row, med(&d[PAIR_A]), med(&d[PAIR_B]), 0, rounds);
}

static void set_variant(struct start_runs *s, enum start_variant i, const char *name,
			struct cmd cmd)
{
	s->v[i].name = name;
	s->v[i].cmd = cmd;
}

/* Converts the a.out builds and sets the command of every variant. */
static void start_variants(struct start_runs *s)
{
	char *native_small = prog("benchprog-native-small");
	char *native_bigdata = prog("benchprog-native-bigdata");

	set_variant(s, NATIVE, "native", cmd_of(native_small, NULL));
	for (int k = 0; k < NKINDS; k++) {
		char *a = prog(xasprintf("benchprog-small.%s.aout", kinds[k]));
		char *e = in_work(xasprintf("small.%s", kinds[k]));

		convert(a, e, NULL, NULL, NULL);
		set_variant(s, converted_kind[k], kinds[k], cmd_of(e, NULL));
	}
	set_variant(s, NATIVE_BIGDATA, "native-bigdata", cmd_of(native_bigdata, NULL));
	char *bigdata = in_work("bigdata.qmagic");
	convert(prog("benchprog-bigdata.qmagic.aout"), bigdata, NULL, NULL, NULL);
	set_variant(s, CONV_BIGDATA, "bigdata-qmagic", cmd_of(bigdata, NULL));
	set_variant(s, NATIVE_DISPATCH, "native-dispatch",
		    cmd_of(native_small, "dispatch", NULL));
	char *direct_small = in_work("small.qmagic.direct");
	char *direct_bigdata = in_work("bigdata.qmagic.direct");
	convert(prog("benchprog-small.qmagic.aout"), direct_small, "--direct", NULL,
		NULL);
	convert(prog("benchprog-bigdata.qmagic.aout"), direct_bigdata, "--direct", NULL,
		NULL);
	set_variant(s, DIRECT_SMALL, "small-qmagic-direct", cmd_of(direct_small, NULL));
	set_variant(s, DIRECT_BIGDATA, "bigdata-qmagic-direct",
		    cmd_of(direct_bigdata, NULL));
	set_variant(s, NATIVE_VDSO, "native-vdso", cmd_of(native_small, "vdso", NULL));
	set_variant(s, NATIVE_FILTER, "native-filter",
		    cmd_of(native_small, "filter", NULL));
}

/* Times, side by side, the variants that run here. */
static void start_measure(struct start_runs *s)
{
	struct variant run[NSTART];
	int nrun = 0;

	/* Only what runs here is timed: ZMAGIC, NMAGIC and OMAGIC need page 0. */
	for (int i = 0; i < NSTART; i++) {
		s->ok[i] = works(s->v[i].cmd.v, NULL, &s->whynot[i]);
		if (s->ok[i])
			run[nrun++] = s->v[i];
	}
	if (!s->ok[NATIVE] || !s->ok[NATIVE_BIGDATA])
		die("the native benchprog does not run: %s",
		    s->whynot[s->ok[NATIVE] ? NATIVE_BIGDATA : NATIVE]);
	s->rounds = scaled(1501);
	note("start-up: %d variants x %d runs", nrun, s->rounds);
	measure(run, nrun, s->rounds, 20);
	for (int i = 0, j = 0; i < NSTART; i++)
		if (s->ok[i])
			s->v[i] = run[j++];
}

static double start_med(const struct start_runs *s, enum start_variant i)
{
	return med(&s->v[i]);
}

/* a / b, or a skipped row saying why a does not run. */
static void start_row(const struct start_runs *s, const char *name,
		      enum start_variant a, enum start_variant b, double goal)
{
	if (s->ok[a])
		ratio_row(name, start_med(s, a), start_med(s, b), goal, s->rounds);
	else
		skip_row(name, s->whynot[a]);
}

/* A difference of two medians, in microseconds. */
static void us_row(const struct start_runs *s, const char *name, double seconds)
{
	struct row *r = add_row(name);

	r->a = xasprintf("%+.1f us", seconds * 1e6);
	r->runs = xasprintf("%d", s->rounds);
}

static void start_rows(const struct start_runs *s)
{
	double nat = start_med(s, NATIVE);

	for (int k = 0; k < NKINDS; k++)
		start_row(s,
			  xasprintf("%s (brk < 64K, trapped): converted / native", kinds[k]),
			  converted_kind[k], NATIVE, 1.10);
	start_row(s, "qmagic 64K data (brk by prctl) / native", CONV_BIGDATA,
		  NATIVE_BIGDATA, 1.10);
	start_row(s, "qmagic --direct (trapped) / native", DIRECT_SMALL, NATIVE, 0);
	start_row(s, "qmagic 64K data --direct (prctl) / native", DIRECT_BIGDATA,
		  NATIVE_BIGDATA, 0);
	/*
	 * What trapping alone costs a start (a SIGSYS handler, SIGSYS
	 * unblocked, syscall user dispatch, the exit a SIGSYS): the part of
	 * the trapped rows that no layout of the image can save, set beside
	 * what the stub adds where brk is set by prctl.
	 */
	start_row(s, "native + dispatch, exit trapped / native", NATIVE_DISPATCH, NATIVE,
		  0);
	if (s->ok[NATIVE_DISPATCH]) {
		double trapped = start_med(s, NATIVE_DISPATCH);

		us_row(s, "  what trapping costs", trapped - nat);
		if (s->ok[NATIVE_VDSO]) {
			start_row(s, "native + one call through the vDSO / native",
				  NATIVE_VDSO, NATIVE, 0);
			us_row(s, "  trapping beyond the vDSO's first use",
			       trapped - start_med(s, NATIVE_VDSO));
		}
		if (s->ok[CONV_BIGDATA])
			us_row(s, "  qmagic 64K data: converted - native",
			       start_med(s, CONV_BIGDATA) - start_med(s, NATIVE_BIGDATA));
	}
	/*
	 * Why dispatch and not the filter at start: attaching the filter the
	 * stub would attach (no_new_privs, then seccomp) costs a start more
	 * than trapping by dispatch does; the stub attaches it only once a
	 * program has made DISPATCH_BUDGET calls.
	 */
	start_row(s, "native + seccomp filter, nothing trapped / native", NATIVE_FILTER,
		  NATIVE, 0);
	if (s->ok[NATIVE_FILTER])
		us_row(s, "  what attaching the filter costs",
		       start_med(s, NATIVE_FILTER) - nat);
	/* what the times above are made of, counted: the same on every run */
	for (int k = 0; k < NKINDS; k++)
		if (s->ok[converted_kind[k]])
			faults_row(xasprintf("%s: page faults, converted - native", kinds[k]),
				   s->v[converted_kind[k]].cmd.v, s->v[NATIVE].cmd.v);
	if (s->ok[CONV_BIGDATA])
		faults_row("qmagic 64K data: page faults, conv - native",
			   s->v[CONV_BIGDATA].cmd.v, s->v[NATIVE_BIGDATA].cmd.v);
}

/* The corpus's dynamic programs, embedded against --no-embed-libs. */
static void startup_corpus(void)
{
	static const struct {
		const char *row, *file, *expect;
		const char *image; /* gforth's image, in the corpus; NULL: none */
		int rounds;
	} dynamic[] = {
		{ "pwd.exe embedded / --no-embed-libs", "pwd.exe", "/", NULL, 400 },
		{ "gforth -e bye embedded / --no-embed-libs", "gforth-0.2.1", NULL,
		  "gforth-0.2.1.fi", 200 },
	};
	char *libdir = xasprintf("%s/lib", config.corpus);

	for (size_t p = 0; p < sizeof dynamic / sizeof dynamic[0]; p++) {
		char *in = xasprintf("%s/%s", config.corpus, dynamic[p].file);
		char *e = in_work(xasprintf("%s.embed", dynamic[p].file));
		char *n = in_work(xasprintf("%s.noembed", dynamic[p].file));

		convert(in, e, "-L", libdir, NULL);
		convert(in, n, "--no-embed-libs", "-L", libdir);
		if (dynamic[p].image) {
			char *fi = xasprintf("%s/%s", config.corpus, dynamic[p].image);

			startup_pair(dynamic[p].row, dynamic[p].file,
				     cmd_of(e, "-i", fi, "-e", "bye", NULL),
				     cmd_of(n, "-i", fi, "-e", "bye", NULL),
				     dynamic[p].expect, dynamic[p].rounds, 5);
		} else {
			startup_pair(dynamic[p].row, dynamic[p].file, cmd_of(e, NULL),
				     cmd_of(n, NULL), dynamic[p].expect, dynamic[p].rounds,
				     5);
		}
	}
}

void bench_startup(void)
{
	struct start_runs s = { 0 };

	section("1. start-up: exec to exit of a program that does nothing");
	start_variants(&s);
	start_measure(&s);
	start_rows(&s);

	/* --no-randomize: its price is the second execve of the program */
	char *norandom = in_work("small.qmagic.norandom");

	convert(prog("benchprog-small.qmagic.aout"), norandom, "--no-randomize", NULL,
		NULL);
	startup_pair("qmagic --no-randomize / default", "--no-randomize",
		     cmd_of(norandom, NULL), cmd_of(in_work("small.qmagic"), NULL), NULL,
		     600, 10);

	/* dynamic: the dyn fixture, libraries embedded or found at run time */
	char *dyn = xasprintf("%s/dyn.qmagic.aout", config.testdata);
	char *lib = xasprintf("%s/libtiny.so.1", config.testdata);
	const char *dname = "dyn (libtiny) embedded / --no-embed-libs";

	if (!file_exists(dyn) || !file_exists(lib)) {
		skip_row(dname, "testdata/dyn.qmagic.aout or libtiny.so.1 not built");
	} else {
		char *e = in_work("dyn.embed"), *n = in_work("dyn.noembed");

		convert(dyn, e, "-L", config.testdata, NULL);
		convert(dyn, n, "--no-embed-libs", "-L", config.testdata);
		startup_pair(dname, "dyn", cmd_of(e, NULL), cmd_of(n, NULL),
			     "hello from libtiny", 600, 10);
	}

	/* the corpus: pwd.exe (OMAGIC, ld.so + libc.so.4) and gforth */
	if (config.corpus) {
		startup_corpus();
	} else {
		skip_row("pwd.exe embedded / --no-embed-libs", "no ../shared/corpus");
		skip_row("gforth embedded / --no-embed-libs", "no ../shared/corpus");
	}
}
