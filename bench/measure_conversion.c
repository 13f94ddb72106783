/*
 * Part 4, conversion: how fast aout2elf converts, against cp of the same
 * bytes (the least any tool that writes the file must spend).  N copies
 * of a corpus-sized a.out in one batch at -j1 and at -j CPUs against cp
 * of the same files, and CPUs cp processes copying a share each at once
 * against one cp (what the machine gains from parallel file creation,
 * the most -j can gain); one conversion of inputs from 1 KiB to 64 MiB
 * against cp of the same file; and 64 MiB against 16 MiB side by side,
 * whether the time grows linearly.  Executes no i386 program.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define NCOPIES 200

static char *batch_out;

static void empty_out(struct variant *v)
{
	(void)v;
	rm_rf(batch_out);
	mkdir_p(batch_out);
}

/* the last word of the command is the output: neither replaces a file */
static void remove_output(struct variant *v)
{
	if (unlink(v->cmd.v[v->cmd.n - 1]) < 0 && errno != ENOENT)
		die("%s: %s", v->cmd.v[v->cmd.n - 1], strerror(errno));
}

/* s, then w after a space: w as it is (sh syntax), or quoted for sh */
static char *append_word(char *s, const char *w, int quote)
{
	size_t n = strlen(s), m = strlen(w);
	char *r = malloc(n + 4 * m + 4), *p;

	if (!r)
		die("out of memory");
	memcpy(r, s, n);
	p = r + n;
	*p++ = ' ';
	if (quote)
		*p++ = '\'';
	for (const char *q = w; *q; q++)
		if (quote && *q == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *q;
		}
	if (quote)
		*p++ = '\'';
	*p = 0;
	free(s);
	return r;
}


/* The batch's variants, in the order they take turns. */
enum batch_variant {
	BATCH_CP,	  /* cp FILES... OUT */
	BATCH_J1,	  /* aout2elf -q -O OUT -j1 FILES... */
	BATCH_JN,	  /* aout2elf -q -O OUT -jCPUS FILES... */
	BATCH_SH_CP,	  /* sh -c "cp FILES... OUT" */
	BATCH_SH_CPUS_CP, /* sh -c "cp SHARE OUT & cp SHARE OUT ...; wait", CPUs shares */
	NBATCH
};

/* NCOPIES copies of a corpus-sized a.out in one batch, against cp of them. */
static void convert_batch(const char *mkbig)
{
	char *src, *why = NULL;
	char *indir = in_work("batch-in");
	struct variant v[NBATCH] = { { 0 } };
	char jn[16];
	char *one_cp = xasprintf("cp"), *split_cp = xasprintf("cp");
	int ncpus = config.ncpus;

	mkdir_p(indir);
	batch_out = in_work("batch-out");
	if (config.corpus) {
		src = xasprintf("%s/aln", config.corpus);
	} else {
		src = in_work("aln-sized");
		struct cmd c = cmd_of(mkbig, "-m", "qmagic", "118784", src, NULL);
		if (!works(c.v, NULL, &why))
			die("mkbig: %s", why);
	}
	off_t size = file_size(src);
	snprintf(jn, sizeof jn, "-j%d", ncpus);
	v[BATCH_CP].cmd = cmd_of("cp", NULL);
	v[BATCH_J1].cmd = cmd_of(config.aout2elf, "-q", "-O", batch_out, "-j1", NULL);
	v[BATCH_JN].cmd = cmd_of(config.aout2elf, "-q", "-O", batch_out, jn, NULL);
	for (int i = 0; i < NCOPIES; i++) {
		char *f = xasprintf("%s/prog%03d", indir, i);

		copy_file(src, f);
		cmd_add(&v[BATCH_CP].cmd, f);
		cmd_add(&v[BATCH_J1].cmd, f);
		cmd_add(&v[BATCH_JN].cmd, f);
		one_cp = append_word(one_cp, f, 1);
		split_cp = append_word(split_cp, f, 1);
		/* the same files in ncpus groups, one cp each, all at once */
		if ((i + 1) % ((NCOPIES + ncpus - 1) / ncpus) == 0 && i + 1 < NCOPIES)
			split_cp = append_word(append_word(split_cp, batch_out, 1),
					       "& cp", 0);
		free(f);
	}
	cmd_add(&v[BATCH_CP].cmd, batch_out);
	one_cp = append_word(one_cp, batch_out, 1);
	split_cp = append_word(append_word(split_cp, batch_out, 1), "; wait", 0);
	v[BATCH_SH_CP].cmd = cmd_of("sh", "-c", one_cp, NULL);
	v[BATCH_SH_CPUS_CP].cmd = cmd_of("sh", "-c", split_cp, NULL);
	/* the two sh variants compare parallel cp with one: not on one CPU */
	int nv = ncpus > 1 ? NBATCH : BATCH_SH_CP;
	for (int k = 0; k < nv; k++) {
		v[k].before = empty_out;
		empty_out(&v[k]);
		if (!works(v[k].cmd.v, NULL, &why))
			die("%s: %s", v[k].cmd.v[0], why);
	}
	int rounds = scaled(15);
	note("conversion: batch of %d x %lld bytes, %d variants x %d runs", NCOPIES,
	     (long long)size, nv, rounds);
	measure(v, nv, rounds, 1);
	char *name = xasprintf("%d x %lld B (%s), -j1 / cp", NCOPIES, (long long)size,
			       config.corpus ? "aln" : "aln-sized");
	ratio_row(name, med(&v[BATCH_J1]), med(&v[BATCH_CP]), 1.5, rounds);
	free(name);
	name = xasprintf("same, -j%d / cp", ncpus);
	ratio_row(name, med(&v[BATCH_JN]), med(&v[BATCH_CP]), 0, rounds);
	free(name);
	name = xasprintf("same, -j%d / -j1", ncpus);
	ratio_row(name, med(&v[BATCH_JN]), med(&v[BATCH_J1]), 0, rounds);
	free(name);
	/*
	 * What -j can gain here: the same copies made by ncpus cp processes
	 * at once, against one cp (both started by sh).  Where this machine
	 * creates files no faster in parallel, neither can aout2elf -j.
	 */
	if (nv == NBATCH) {
		name = xasprintf("the machine: %d cp at once / one cp", ncpus);
		ratio_row(name, med(&v[BATCH_SH_CPUS_CP]), med(&v[BATCH_SH_CP]), 0,
			  rounds);
		free(name);
	}
	free(one_cp);
	free(split_cp);
	rm_rf(batch_out);
	rm_rf(indir);
}

/*
 * One conversion of each size against cp of the same file, into the
 * details; the medians of the largest into *conv and *cp.
 */
static void convert_sizes(const char *mkbig, const char *dir, double *conv, double *cp)
{
	enum { BY_AOUT2ELF, BY_CP, NBY };
	static const long sizes[] = { 1L << 10, 4L << 10, 16L << 10, 64L << 10,
				      256L << 10, 1L << 20, 4L << 20, 16L << 20,
				      64L << 20 };
	const int ns = (int)(sizeof sizes / sizeof sizes[0]);
	char *why = NULL;

	detail("Conversion time by input size (one aout2elf -q -f IN OUT against "
	       "cp IN OUT of the same file,\nOUT removed before each run; medians):\n\n");
	detail("%10s  %10s  %10s  %8s  %12s\n", "size", "aout2elf", "cp", "ratio",
	       "aout2elf/MiB");
	for (int i = 0; i < ns; i++) {
		char sz[32];
		char *in = xasprintf("%s/in-%ld", dir, sizes[i]);
		char *out = xasprintf("%s/out-%ld", dir, sizes[i]);
		char *cpo = xasprintf("%s/cp-%ld", dir, sizes[i]);
		struct variant s[NBY] = { { 0 } };

		snprintf(sz, sizeof sz, "%ld", sizes[i]);
		struct cmd c = cmd_of(mkbig, "-m", sizes[i] < 4096 ? "omagic" : "qmagic",
				      sz, in, NULL);
		if (!works(c.v, NULL, &why))
			die("mkbig %s: %s", sz, why);
		cmd_free(&c);
		s[BY_AOUT2ELF].cmd = cmd_of(config.aout2elf, "-q", "-f", in, out, NULL);
		s[BY_CP].cmd = cmd_of("cp", in, cpo, NULL);
		s[BY_AOUT2ELF].before = s[BY_CP].before = remove_output;
		if (!works(s[BY_AOUT2ELF].cmd.v, NULL, &why))
			die("converting %s: %s", in, why);
		int rounds = scaled(sizes[i] <= (1L << 20) ? 41
				    : sizes[i] <= (16L << 20) ? 11 : 7);
		note("conversion: %ld bytes x %d runs", sizes[i], rounds);
		measure(s, NBY, rounds, 1);
		*conv = med(&s[BY_AOUT2ELF]);
		*cp = med(&s[BY_CP]);
		char *label = sizes[i] >= (1L << 20) ? xasprintf("%ld MiB", sizes[i] >> 20)
						     : xasprintf("%ld KiB", sizes[i] >> 10);
		detail("%10s  %10s  %10s  %8.3f  %12s%s\n", label, fmt_time(*conv),
		       fmt_time(*cp), *conv / *cp,
		       fmt_time(*conv / ((double)sizes[i] / (1 << 20))),
		       sizes[i] < 4096 ? "   (OMAGIC: QMAGIC is 4 KiB at least)" : "");
		unlink(in);
		unlink(out);
		unlink(cpo);
	}
}

/*
 * Linear growth, judged on the two largest converted side by side
 * (A B A B ...), not taken from the series above, whose sizes were
 * timed one after another while the machine's speed drifts.
 */
static void convert_linear(const char *mkbig, const char *dir)
{
	enum { BIG_64MIB, BIG_16MIB, NBIG };
	static const long big[NBIG] = { [BIG_64MIB] = 64L << 20,
					[BIG_16MIB] = 16L << 20 };
	struct variant s[NBIG] = { { 0 } };
	char *why = NULL;

	for (int i = 0; i < NBIG; i++) {
		char sz[32];
		char *in = xasprintf("%s/in-%ld", dir, big[i]);

		snprintf(sz, sizeof sz, "%ld", big[i]);
		struct cmd c = cmd_of(mkbig, "-m", "qmagic", sz, in, NULL);
		if (!works(c.v, NULL, &why))
			die("mkbig %s: %s", sz, why);
		cmd_free(&c);
		s[i].cmd = cmd_of(config.aout2elf, "-q", "-f", in,
				  xasprintf("%s/out-%ld", dir, big[i]), NULL);
		s[i].before = remove_output;
	}
	int rounds = scaled(11);
	note("conversion: 64 MiB against 16 MiB x %d runs", rounds);
	measure(s, NBIG, rounds, 1);
	ratio_row("one 64 MiB input / one 16 MiB input (linear: 4)", med(&s[BIG_64MIB]),
		  med(&s[BIG_16MIB]), 4.4, rounds);
}

void bench_convert(void)
{
	char *mkbig = prog("mkbig");
	char *dir;
	double conv_largest, cp_largest;

	section("4. conversion: aout2elf against cp of the same bytes");
	convert_batch(mkbig);
	dir = in_work("sizes");
	mkdir_p(dir);
	convert_sizes(mkbig, dir, &conv_largest, &cp_largest);
	convert_linear(mkbig, dir);
	rm_rf(dir);
	ratio_row("one 64 MiB input, aout2elf / cp", conv_largest, cp_largest, 0,
		  scaled(7));
	detail("\n");
}
