/*
 * bench: the driver of `make bench`.  Every figure it prints is a ratio of
 * two things measured side by side in the same run: the variants of a
 * measurement are run in turn, round after round (A B A B ..., the order
 * reversed every other round), so that whatever else the machine is doing
 * hits all of them alike, and each is summed up by the median of its runs.
 * Times are CLOCK_MONOTONIC from posix_spawn() to the end of wait4().
 *
 *	bench --aout2elf PATH --progs DIR --testdata DIR --work DIR
 *	      [--corpus DIR] [--scale X] [--part run|convert]
 *
 * --progs is where `make bench` built benchprog (bench/benchprog.c) as
 * native static ELF and as a.out, and mkbig; --testdata holds the dyn
 * fixture and libtiny.so.1 (testdata/fixtures.mk); --corpus the real
 * programs of ../shared/corpus, used when the folder is there; --work is
 * scratch space (emptied first).  --scale multiplies the number of runs
 * (0.1 for a quick look; the figures are then noisier).  --part run
 * measures 0-3 only, the parts that execute i386 programs, and --part
 * convert 4 only, which does not: on a machine whose kernel cannot execute
 * i386 programs, `make bench` times the conversion on the machine itself
 * and the rest in the VM of tools/run-in-vm.
 *
 * The measurements:
 *
 *  1. start-up: benchprog doing nothing, native ELF against each a.out
 *     kind converted (times, and the page faults of a run, counted), and
 *     the native one trapping its exit as the stub traps where brk is
 *     trapped (what trapping alone costs a start);
 *     QMAGIC converted with --direct (the kernel maps the segments, the
 *     stub moves nothing) against native, trapped and by prctl: what the
 *     staging costs;
 *     QMAGIC converted with --no-randomize against without; the dyn fixture (and pwd.exe and gforth from the corpus) with the
 *     libraries embedded against --no-embed-libs;
 *  2. heap: benchprog growing and shrinking its heap (brk) many times,
 *     converted against native, for each way the stub gets brk right, and
 *     the cost of one trapped brk call; libc.so.4's malloc and free in
 *     a loop (benchprog libc4, with the corpus), converted against native,
 *     brk trapped and by prctl; gforth ALLOCATE/FREE (libc.so.4's malloc)
 *     against the same loop without them;
 *  3. memory: /proc/PID/smaps_rollup of a running converted program and of
 *     the native one (two copies of each run at once, so that what is
 *     shared shows as shared), and /proc/PID/pagemap of the text pages:
 *     present, from the page cache (a file page), shared with the other copy;
 *  4. conversion: N copies of a corpus-sized a.out in one batch at -j1 and
 *     at -j CPUs against cp of the same files, and CPUs cp processes
 *     copying a share each at once against one cp (what the machine gains
 *     from parallel file creation, the most -j can gain); and one
 *     conversion of inputs from 1 KiB to 64 MiB against cp of the same file.
 *
 * Prints the machine, one table (measurement, median A, median B, A/B,
 * goal, verdict, runs) and the details of memory and size series.  Exit
 * status 0 when everything could be measured (goals may be missed: that
 * is a result, not an error), 1 when a program failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ------------------------------------------------------------------ */
/* small helpers */

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	va_list ap;

	fputs("bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

static char * __attribute__((format(printf, 1, 2))) xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double *s = xcalloc((size_t)n, sizeof *s);
	double m;

	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

/* "412.3 us", "12.34 ms", "1.234 s" */
static char *fmt_time(double s)
{
	if (s < 1e-3)
		return xasprintf("%.1f us", s * 1e6);
	if (s < 1)
		return xasprintf("%.2f ms", s * 1e3);
	return xasprintf("%.3f s", s);
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static char *must_realpath(const char *p)
{
	char *r = realpath(p, NULL);

	if (!r)
		die("%s: %s", p, strerror(errno));
	return r;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static void rm_rf(const char *path)
{
	if (!file_exists(path))
		return;
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) < 0)
		die("removing %s: %s", path, strerror(errno));
}

static void mkdir_p(const char *path)
{
	char *p = xasprintf("%s", path);

	for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
		if (s)
			*s = 0;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			die("mkdir %s: %s", p, strerror(errno));
		if (!s)
			break;
		*s = '/';
	}
	free(p);
}

static void copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	char buf[65536];
	ssize_t n;

	if (in < 0 || out < 0)
		die("copying %s to %s: %s", from, to, strerror(errno));
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			die("writing %s: %s", to, strerror(errno));
	if (n < 0 || close(out) < 0)
		die("copying %s: %s", from, strerror(errno));
	close(in);
}

static off_t file_size(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		die("%s: %s", path, strerror(errno));
	return st.st_size;
}

/* ------------------------------------------------------------------ */
/* running programs */

/* An argv built up word by word. */
struct cmd {
	char **v;
	int n, cap;
};

static void cmd_add(struct cmd *c, const char *w)
{
	if (c->n + 2 > c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->v = realloc(c->v, (size_t)c->cap * sizeof *c->v);
		if (!c->v)
			die("out of memory");
	}
	c->v[c->n++] = xasprintf("%s", w);
	c->v[c->n] = NULL;
}

static struct cmd cmd_of(const char *first, ...)
{
	struct cmd c = { 0 };
	va_list ap;

	cmd_add(&c, first);
	va_start(ap, first);
	for (const char *w; (w = va_arg(ap, const char *));)
		cmd_add(&c, w);
	va_end(ap);
	return c;
}

static void cmd_free(struct cmd *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	memset(c, 0, sizeof *c);
}

static int devnull = -1;

/*
 * Starts argv with stdin/stdout/stderr on the given descriptors (-1: on
 * /dev/null); returns the pid.
 */
static pid_t start(char *const argv[], int in, int out, int err)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int r;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in >= 0 ? in : devnull, 0);
	posix_spawn_file_actions_adddup2(&fa, out >= 0 ? out : devnull, 1);
	posix_spawn_file_actions_adddup2(&fa, err >= 0 ? err : devnull, 2);
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r)
		die("%s: %s", argv[0], strerror(r));
	return pid;
}

/* Waits for pid; its status, and what it used into *ru unless ru is NULL. */
static int wait_for(pid_t pid, struct rusage *ru)
{
	int status;

	while (wait4(pid, &status, 0, ru) < 0)
		if (errno != EINTR)
			die("wait4: %s", strerror(errno));
	return status;
}

static char *describe_status(int status)
{
	if (WIFEXITED(status))
		return xasprintf("exit status %d", WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return xasprintf("signal %d", WTERMSIG(status));
	return xasprintf("status 0x%x", status);
}

/* One timed run; the program must exit 0. */
static double timed_run(char *const argv[])
{
	double t0 = now();
	int status = wait_for(start(argv, -1, -1, -1), NULL);
	double t = now() - t0;

	if (status != 0)
		die("%s ...: %s during a timed run", argv[0], describe_status(status));
	return t;
}

/*
 * The page faults (minor and major) of one run, from wait4: a count, not a
 * time, so noise does not move it; the program must exit 0.
 */
static long faults_of_run(char *const argv[])
{
	struct rusage ru;
	int status = wait_for(start(argv, -1, -1, -1), &ru);

	if (status != 0)
		die("%s ...: %s while counting page faults", argv[0],
		    describe_status(status));
	return ru.ru_minflt + ru.ru_majflt;
}

/* Runs argv once, its output (stdout and stderr) into *out; the status. */
static int run_capture(char *const argv[], char **out)
{
	char *path = xasprintf("/tmp/aout2elf-bench-out.%ld", (long)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int status;

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	unlink(path);
	free(path);
	status = wait_for(start(argv, -1, fd, fd), NULL);
	off_t n = lseek(fd, 0, SEEK_END);
	*out = xcalloc(1, (size_t)n + 1);
	if (pread(fd, *out, (size_t)n, 0) != n)
		die("reading program output: %s", strerror(errno));
	close(fd);
	return status;
}

/* Runs argv once; 1 when it exits 0 (and, with expect, prints it). */
static int works(char *const argv[], const char *expect, char **why)
{
	char *out;
	int status = run_capture(argv, &out);
	int ok = status == 0 && (!expect || strstr(out, expect));

	if (!ok && why) {
		char *nl = strchr(out, '\n');

		if (nl)
			*nl = 0;
		*why = xasprintf("%s%s%s", describe_status(status),
				 out[0] ? ": " : "", out);
	}
	free(out);
	return ok;
}

/* ------------------------------------------------------------------ */
/* side-by-side measurement */

struct variant {
	const char *name;
	struct cmd cmd;
	void (*before)(struct variant *); /* untimed preparation, or NULL */
	void *arg;
	double *t;
	int n;
};

static double scale = 1.0;

static int scaled(int rounds)
{
	int r = (int)(rounds * scale + 0.5);

	return r < 3 ? 3 : r | 1; /* odd: the median is one run */
}

/*
 * rounds rounds over the variants, forwards and backwards in turn, after
 * warmup untimed rounds.
 */
static void measure(struct variant *v, int nv, int rounds, int warmup)
{
	for (int i = 0; i < nv; i++) {
		free(v[i].t);
		v[i].t = xcalloc((size_t)rounds, sizeof *v[i].t);
		v[i].n = 0;
	}
	for (int r = -warmup; r < rounds; r++) {
		for (int k = 0; k < nv; k++) {
			struct variant *x = &v[(r & 1) ? nv - 1 - k : k];

			if (x->before)
				x->before(x);
			double t = timed_run(x->cmd.v);
			if (r >= 0)
				x->t[x->n++] = t;
		}
	}
}

static double med(const struct variant *v)
{
	return median(v->t, v->n);
}

/* ------------------------------------------------------------------ */
/* the table */

struct row {
	char *name, *a, *b, *ratio, *goal, *verdict, *runs;
	int section; /* a heading, not a measurement */
};

static struct row rows[128];
static int nrows;

static struct row *add_row(const char *name)
{
	if (nrows == (int)(sizeof rows / sizeof rows[0]))
		die("too many rows");
	struct row *r = &rows[nrows++];

	r->name = xasprintf("%s", name);
	r->a = r->b = r->ratio = r->goal = r->verdict = r->runs = NULL;
	return r;
}

static void section(const char *name)
{
	add_row(name)->section = 1;
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

/* A/B with a goal on the ratio (goal <= 0: for information). */
static void ratio_row(const char *name, double a, double b, double goal, int runs)
{
	struct row *r = add_row(name);
	double q = a / b;

	r->a = fmt_time(a);
	r->b = fmt_time(b);
	r->ratio = xasprintf("%.3f", q);
	if (goal > 0) {
		r->goal = xasprintf("<= %.2f", goal);
		r->verdict = xasprintf("%s", q <= goal ? "meets" : "MISSES");
	}
	r->runs = xasprintf("%d", runs);
}

/* The median page faults of FAULT_RUNS runs of a and of b (faults_of_run). */
#define FAULT_RUNS 21
static void faults_row(const char *name, char *const a[], char *const b[])
{
	double fa[FAULT_RUNS], fb[FAULT_RUNS];
	int runs = FAULT_RUNS;

	for (int i = 0; i < runs; i++) {
		fa[i] = (double)faults_of_run(a);
		fb[i] = (double)faults_of_run(b);
	}
	struct row *r = add_row(name);
	double ma = median(fa, runs), mb = median(fb, runs);

	r->a = xasprintf("%.0f", ma);
	r->b = xasprintf("%.0f", mb);
	r->ratio = xasprintf("%+.0f", ma - mb);
	r->runs = xasprintf("%d", runs);
}

static void skip_row(const char *name, const char *why)
{
	struct row *r = add_row(name);

	r->a = xasprintf("skipped: %s", why);
}

static void print_table(void)
{
	const char *head[7] = { "measurement", "median A", "median B", "A/B",
				"goal", "verdict", "runs" };
	size_t w[7];

	for (int c = 0; c < 7; c++)
		w[c] = strlen(head[c]);
	for (int i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		const char *cell[7] = { r->name, or_dash(r->a), or_dash(r->b),
					or_dash(r->ratio), or_dash(r->goal),
					or_dash(r->verdict), or_dash(r->runs) };

		if (r->section || (r->a && !strncmp(r->a, "skipped", 7)))
			continue;
		for (int c = 0; c < 7; c++)
			if (strlen(cell[c]) > w[c])
				w[c] = strlen(cell[c]);
	}
	size_t total = 0;
	for (int c = 0; c < 7; c++)
		total += w[c] + 2;
	printf("%-*s  %*s  %*s  %*s  %-*s  %-*s  %*s\n", (int)w[0], head[0],
	       (int)w[1], head[1], (int)w[2], head[2], (int)w[3], head[3],
	       (int)w[4], head[4], (int)w[5], head[5], (int)w[6], head[6]);
	for (size_t i = 0; i + 2 < total; i++)
		putchar('-');
	putchar('\n');
	for (int i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		if (r->section) {
			printf("%s%s\n", i ? "\n" : "", r->name);
			continue;
		}
		if (r->a && !strncmp(r->a, "skipped", 7)) {
			printf("%-*s  %s\n", (int)w[0], r->name, r->a);
			continue;
		}
		printf("%-*s  %*s  %*s  %*s  %-*s  %-*s  %*s\n", (int)w[0], r->name,
		       (int)w[1], or_dash(r->a), (int)w[2], or_dash(r->b),
		       (int)w[3], or_dash(r->ratio), (int)w[4], or_dash(r->goal),
		       (int)w[5], or_dash(r->verdict), (int)w[6], or_dash(r->runs));
	}
}

/* Details printed after the table. */
static char *details;
static size_t details_len;

static void __attribute__((format(printf, 1, 2))) detail(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	size_t n = strlen(s);
	details = realloc(details, details_len + n + 1);
	if (!details)
		die("out of memory");
	memcpy(details + details_len, s, n + 1);
	details_len += n;
	free(s);
}

/* ------------------------------------------------------------------ */
/* configuration */

static const char *aout2elf, *progs, *testdata, *corpus, *work;
static char *vm_copies; /* see use_vm_tmpfs */
static const char *part = "all"; /* --part: all, run (0-3) or convert (4) */
static int ncpus;

static char *prog(const char *name)
{
	char *p = xasprintf("%s/%s", progs, name);

	if (!file_exists(p))
		die("%s is missing (run `make bench`, which builds it)", p);
	return p;
}

static char *in_work(const char *name)
{
	return xasprintf("%s/%s", work, name);
}

/* aout2elf -q -f [OPTS...] IN OUT; dies when it fails. */
static void convert(const char *in, const char *out, const char *opt1,
		    const char *opt2, const char *opt3)
{
	struct cmd c = cmd_of(aout2elf, "-q", "-f", NULL);
	char *why = NULL;

	if (opt1)
		cmd_add(&c, opt1);
	if (opt2)
		cmd_add(&c, opt2);
	if (opt3)
		cmd_add(&c, opt3);
	cmd_add(&c, in);
	cmd_add(&c, out);
	if (!works(c.v, NULL, &why))
		die("converting %s: %s", in, why);
	cmd_free(&c);
}

static const char *kinds[4] = { "qmagic", "zmagic", "nmagic", "omagic" };

/* ------------------------------------------------------------------ */
/* 0. what a system call costs here */

static void bench_syscall(void)
{
	struct cmd c = cmd_of(prog("syscost"), NULL);
	double int80, vdso, by_sigreturn, by_resume;
	char *out;
	struct row *r;

	section("0. the machine: one i386 system call (getpid), in-process loop");
	if (run_capture(c.v, &out) != 0 ||
	    sscanf(out, "%lf %lf %lf %lf", &int80, &vdso, &by_sigreturn, &by_resume) != 4)
		die("bench/syscost failed: %s", out);
	r = add_row("int $0x80 (a.out code, stub) / vDSO (glibc)");
	r->a = xasprintf("%.0f ns", int80);
	r->b = xasprintf("%.0f ns", vdso);
	r->ratio = xasprintf("%.3f", int80 / vdso);
	r->runs = xasprintf("21x20000");
	r = add_row("trapped call: back by rt_sigreturn / by the stub");
	r->a = xasprintf("%.0f ns", by_sigreturn);
	r->b = xasprintf("%.0f ns", by_resume);
	r->ratio = xasprintf("%.3f", by_sigreturn / by_resume);
	r->runs = xasprintf("21x5000");
	r = add_row("  what a trap adds to int $0x80, by the stub");
	r->a = xasprintf("%+.0f ns", by_resume - int80);
	r->runs = xasprintf("21x5000");
	free(out);
	cmd_free(&c);
}

/* ------------------------------------------------------------------ */
/* 1. start-up */

/*
 * One row: the start-up of a against b, side by side, when both run and
 * print expect (NULL: exit 0 is enough); a skipped row saying why not.
 */
static void startup_pair(const char *row, const char *what, struct cmd a,
			 struct cmd b, const char *expect, int nruns, int warmup)
{
	struct variant d[2] = { { .name = "A", .cmd = a }, { .name = "B", .cmd = b } };
	char *why = NULL;

	if (!works(a.v, expect, &why) || !works(b.v, expect, &why)) {
		skip_row(row, why);
		return;
	}
	int rounds = scaled(nruns);
	note("start-up: %s x %d runs", what, rounds);
	measure(d, 2, rounds, warmup);
	ratio_row(row, med(&d[0]), med(&d[1]), 0, rounds);
}

static void bench_startup(void)
{
	struct variant v[12] = { { 0 } };
	int ok[12] = { 0 }, nv = 0;
	char *native_small = prog("benchprog-native-small");
	char *native_data = prog("benchprog-native-bigdata");

	section("1. start-up: exec to exit of a program that does nothing");
	v[nv].name = "native";
	v[nv++].cmd = cmd_of(native_small, NULL);
	for (int k = 0; k < 4; k++) {
		char *a = prog(xasprintf("benchprog-small.%s.aout", kinds[k]));
		char *e = in_work(xasprintf("small.%s", kinds[k]));

		convert(a, e, NULL, NULL, NULL);
		v[nv].name = kinds[k];
		v[nv++].cmd = cmd_of(e, NULL);
	}
	v[nv].name = "native-bigdata";
	v[nv++].cmd = cmd_of(native_data, NULL);
	{
		char *e = in_work("bigdata.qmagic");

		convert(prog("benchprog-bigdata.qmagic.aout"), e, NULL, NULL, NULL);
		v[nv].name = "bigdata-qmagic";
		v[nv++].cmd = cmd_of(e, NULL);
	}
	/* the native program trapping its exit as the stub would */
	v[nv].name = "native-dispatch";
	v[nv++].cmd = cmd_of(native_small, "dispatch", NULL);
	/* --direct: the kernel maps the segments, the stub moves nothing */
	{
		char *s = in_work("small.qmagic.direct");
		char *b = in_work("bigdata.qmagic.direct");

		convert(prog("benchprog-small.qmagic.aout"), s, "--direct", NULL, NULL);
		convert(prog("benchprog-bigdata.qmagic.aout"), b, "--direct", NULL, NULL);
		v[nv].name = "small-qmagic-direct";
		v[nv++].cmd = cmd_of(s, NULL);
		v[nv].name = "bigdata-qmagic-direct";
		v[nv++].cmd = cmd_of(b, NULL);
	}
	/* the native program using the vDSO once, as the stub does */
	v[nv].name = "native-vdso";
	v[nv++].cmd = cmd_of(native_small, "vdso", NULL);
	/* the native program attaching a filter like the stub's, trapping nothing */
	v[nv].name = "native-filter";
	v[nv++].cmd = cmd_of(native_small, "filter", NULL);
	/* Only what runs here is timed: ZMAGIC, NMAGIC and OMAGIC need page 0. */
	char *whynot[12] = { 0 };
	struct variant run[12];
	int idx[12], nrun = 0;
	for (int i = 0; i < nv; i++) {
		ok[i] = works(v[i].cmd.v, NULL, &whynot[i]);
		if (ok[i]) {
			idx[i] = nrun;
			run[nrun++] = v[i];
		}
	}
	if (!ok[0] || !ok[5])
		die("the native benchprog does not run: %s", whynot[ok[0] ? 5 : 0]);
	int rounds = scaled(1501);
	note("start-up: %d variants x %d runs", nrun, rounds);
	measure(run, nrun, rounds, 20);
	double nat = med(&run[idx[0]]);
	for (int k = 0; k < 4; k++) {
		char *name = xasprintf("%s (brk < 64K, trapped): converted / native", kinds[k]);
		if (ok[1 + k])
			ratio_row(name, med(&run[idx[1 + k]]), nat, 1.10, rounds);
		else
			skip_row(name, whynot[1 + k]);
	}
	if (ok[6])
		ratio_row("qmagic 64K data (brk by prctl) / native", med(&run[idx[6]]),
			  med(&run[idx[5]]), 1.10, rounds);
	else
		skip_row("qmagic 64K data (brk by prctl) / native", whynot[6]);
	if (ok[8])
		ratio_row("qmagic --direct (trapped) / native", med(&run[idx[8]]), nat,
			  0, rounds);
	else
		skip_row("qmagic --direct (trapped) / native", whynot[8]);
	if (ok[9])
		ratio_row("qmagic 64K data --direct (prctl) / native",
			  med(&run[idx[9]]), med(&run[idx[5]]), 0, rounds);
	else
		skip_row("qmagic 64K data --direct (prctl) / native", whynot[9]);
	/*
	 * What trapping alone costs a start (a SIGSYS handler, SIGSYS
	 * unblocked, syscall user dispatch, the exit a SIGSYS): the part of
	 * the trapped rows that no layout of the image can save, set beside
	 * what the stub adds where brk is set by prctl.
	 */
	if (ok[7]) {
		double trapped = med(&run[idx[7]]);
		struct row *r;

		ratio_row("native + dispatch, exit trapped / native", trapped, nat, 0,
			  rounds);
		r = add_row("  what trapping costs");
		r->a = xasprintf("%+.1f us", (trapped - nat) * 1e6);
		r->runs = xasprintf("%d", rounds);
		if (ok[10]) {
			double vdso = med(&run[idx[10]]);

			ratio_row("native + one call through the vDSO / native", vdso,
				  nat, 0, rounds);
			r = add_row("  trapping beyond the vDSO's first use");
			r->a = xasprintf("%+.1f us", (trapped - vdso) * 1e6);
			r->runs = xasprintf("%d", rounds);
		}
		if (ok[6]) {
			r = add_row("  qmagic 64K data: converted - native");
			r->a = xasprintf("%+.1f us",
					 (med(&run[idx[6]]) - med(&run[idx[5]])) * 1e6);
			r->runs = xasprintf("%d", rounds);
		}
	} else {
		skip_row("native + dispatch, exit trapped / native", whynot[7]);
	}
	/*
	 * Why dispatch and not the filter at start: attaching the filter the
	 * stub would attach (no_new_privs, then seccomp) costs a start more
	 * than trapping by dispatch does; the stub attaches it only once a
	 * program has made DISPATCH_BUDGET calls.
	 */
	if (ok[11]) {
		double filtered = med(&run[idx[11]]);
		struct row *r;

		ratio_row("native + seccomp filter, nothing trapped / native",
			  filtered, nat, 0, rounds);
		r = add_row("  what attaching the filter costs");
		r->a = xasprintf("%+.1f us", (filtered - nat) * 1e6);
		r->runs = xasprintf("%d", rounds);
	} else {
		skip_row("native + seccomp filter, nothing trapped / native", whynot[11]);
	}
	/* what the times above are made of, counted: the same on every run */
	for (int k = 0; k < 4; k++)
		if (ok[1 + k])
			faults_row(xasprintf("%s: page faults, converted - native", kinds[k]),
				   v[1 + k].cmd.v, v[0].cmd.v);
	if (ok[6])
		faults_row("qmagic 64K data: page faults, conv - native", v[6].cmd.v,
			   v[5].cmd.v);

	/* --no-randomize: its price is the second execve of the program */
	{
		char *n = in_work("small.qmagic.norandom");

		convert(prog("benchprog-small.qmagic.aout"), n, "--no-randomize", NULL,
			NULL);
		startup_pair("qmagic --no-randomize / default", "--no-randomize",
			     cmd_of(n, NULL), cmd_of(in_work("small.qmagic"), NULL), NULL,
			     600, 10);
	}

	/* dynamic: the dyn fixture, libraries embedded or found at run time */
	char *dyn = xasprintf("%s/dyn.qmagic.aout", testdata);
	char *lib = xasprintf("%s/libtiny.so.1", testdata);
	const char *dname = "dyn (libtiny) embedded / --no-embed-libs";

	if (!file_exists(dyn) || !file_exists(lib)) {
		skip_row(dname, "testdata/dyn.qmagic.aout or libtiny.so.1 not built");
	} else {
		char *e = in_work("dyn.embed"), *n = in_work("dyn.noembed");

		convert(dyn, e, "-L", testdata, NULL);
		convert(dyn, n, "--no-embed-libs", "-L", testdata);
		startup_pair(dname, "dyn", cmd_of(e, NULL), cmd_of(n, NULL),
			     "hello from libtiny", 600, 10);
	}

	/* the corpus: pwd.exe (OMAGIC, ld.so + libc.so.4) and gforth */
	if (!corpus) {
		skip_row("pwd.exe embedded / --no-embed-libs", "no ../shared/corpus");
		skip_row("gforth embedded / --no-embed-libs", "no ../shared/corpus");
		return;
	}
	char *libdir = xasprintf("%s/lib", corpus);
	struct {
		const char *name, *file, *expect;
		int rounds;
	} progs_[2] = {
		{ "pwd.exe embedded / --no-embed-libs", "pwd.exe", "/", 400 },
		{ "gforth -e bye embedded / --no-embed-libs", "gforth-0.2.1", NULL, 200 },
	};
	for (int p = 0; p < 2; p++) {
		char *in = xasprintf("%s/%s", corpus, progs_[p].file);
		char *e = in_work(xasprintf("%s.embed", progs_[p].file));
		char *n = in_work(xasprintf("%s.noembed", progs_[p].file));
		char *fi = xasprintf("%s/gforth-0.2.1.fi", corpus);

		convert(in, e, "-L", libdir, NULL);
		convert(in, n, "--no-embed-libs", "-L", libdir);
		startup_pair(progs_[p].name, progs_[p].file,
			     p ? cmd_of(e, "-i", fi, "-e", "bye", NULL) : cmd_of(e, NULL),
			     p ? cmd_of(n, "-i", fi, "-e", "bye", NULL) : cmd_of(n, NULL),
			     progs_[p].expect, progs_[p].rounds, 5);
	}
}

/* ------------------------------------------------------------------ */
/* 2. heap */

#define HEAP_ROUNDS 50 /* benchprog heap N: 1 + 32 N brk calls */
#define GFORTH_LOOPS 1000

#define LIBC4_ROUNDS 1000 /* benchprog libc4 LIB N: N malloc+free */
#define LIBC4_NAME_SMALL "libc.so.4 malloc+free, brk < 64K: conv / native"
#define LIBC4_NAME_BIG "same, 128K bss, brk above 64K: conv / native"

/*
 * The same loop of libc.so.4's malloc(200000) and free() in a native ELF
 * (which maps the library itself: no uselib there) and in the a.out
 * converted with the library embedded, whose brk calls from libc's code
 * the stub traps (below 64K) or the kernel answers (prctl).
 */
static void bench_libc4_heap(void)
{
	const char *builds[2] = { "small", "bigbss" };
	const char *names[2] = { LIBC4_NAME_SMALL, LIBC4_NAME_BIG };
	char *lib = xasprintf("%s/lib/libc.so.4", corpus);
	char *libdir = xasprintf("%s/lib", corpus);
	char nbuf[16];
	struct variant v[4] = { { 0 } };
	char *why = NULL;

	snprintf(nbuf, sizeof nbuf, "%d", LIBC4_ROUNDS);
	for (int b = 0; b < 2; b++) {
		char *e = in_work(xasprintf("libc4-%s.qmagic", builds[b]));

		convert(prog(xasprintf("benchprog-libc4%s.qmagic.aout", builds[b])), e,
			"-L", libdir, NULL);
		v[2 * b].name = "native";
		v[2 * b].cmd = cmd_of(prog(xasprintf("benchprog-native-%s", builds[b])),
				      "libc4", lib, nbuf, NULL);
		v[2 * b + 1].name = "converted";
		v[2 * b + 1].cmd = cmd_of(e, "libc4", lib, nbuf, NULL);
	}
	for (int i = 0; i < 4; i++)
		if (!works(v[i].cmd.v, NULL, &why)) {
			skip_row(names[0], why);
			skip_row(names[1], why);
			return;
		}
	int rounds = scaled(61);
	note("heap: libc.so.4, 4 variants x %d runs", rounds);
	measure(v, 4, rounds, 1);
	for (int b = 0; b < 2; b++)
		ratio_row(names[b], med(&v[2 * b + 1]), med(&v[2 * b]), 1.10, rounds);
	detail("libc.so.4: benchprog libc4 maps ../shared/corpus/lib/libc.so.4 (uselib in "
	       "the conversion, which embeds it; mmap in the native ELF, whose kernel "
	       "has no uselib), sets its ___brk_addr from brk(0) as libc 4's crt0 did, "
	       "then calls malloc(200000) and free() through its jump table %d times: "
	       "each round grows the heap past 64K and gives it back (3 brk calls).\n",
	       LIBC4_ROUNDS);
}

static void bench_heap(void)
{
	char nbuf[16];
	const char *builds[3] = { "small", "bigbss", "bigdata" };
	const char *names[3] = {
		"brk below 64K (trapped): converted / native",
		"128K bss, brk above 64K (prctl): conv / native",
		"64K data, brk above 64K (prctl): conv / native",
	};
	struct variant v[8] = { { 0 } };
	char *why = NULL;

	section("2. heap: brk grows and shrinks the heap, 16 pages a time");
	snprintf(nbuf, sizeof nbuf, "%d", HEAP_ROUNDS);
	for (int b = 0; b < 3; b++) {
		char *nat = prog(xasprintf("benchprog-native-%s", builds[b]));
		char *e = in_work(xasprintf("heap-%s.qmagic", builds[b]));

		convert(prog(xasprintf("benchprog-%s.qmagic.aout", builds[b])), e,
			NULL, NULL, NULL);
		v[2 * b].name = "native";
		v[2 * b].cmd = cmd_of(nat, "heap", nbuf, NULL);
		v[2 * b + 1].name = "converted";
		v[2 * b + 1].cmd = cmd_of(e, "heap", nbuf, NULL);
	}
	/* the same two small programs with no rounds: what is not brk */
	v[6].cmd = cmd_of(v[0].cmd.v[0], "heap", "0", NULL);
	v[7].cmd = cmd_of(v[1].cmd.v[0], "heap", "0", NULL);
	for (int i = 0; i < 8; i++)
		if (!works(v[i].cmd.v, NULL, &why))
			die("%s heap: %s", v[i].cmd.v[0], why);
	int rounds = scaled(61);
	note("heap: 8 variants x %d runs", rounds);
	measure(v, 8, rounds, 2);
	for (int b = 0; b < 3; b++)
		ratio_row(names[b], med(&v[2 * b + 1]), med(&v[2 * b]), 1.10, rounds);

	double calls = 32.0 * HEAP_ROUNDS;
	double conv = (med(&v[1]) - med(&v[7])) / calls;
	double nat = (med(&v[0]) - med(&v[6])) / calls;
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

	/* gforth: ALLOCATE/FREE through libc.so.4's malloc */
	const char *gname = "gforth ALLOCATE+FREE loop / same loop without";

	if (!corpus) {
		skip_row(LIBC4_NAME_SMALL, "no ../shared/corpus");
		skip_row(LIBC4_NAME_BIG, "no ../shared/corpus");
		skip_row(gname, "no ../shared/corpus");
		return;
	}
	bench_libc4_heap();
	char *g = in_work("gforth-0.2.1.embed");
	char *fi = xasprintf("%s/gforth-0.2.1.fi", corpus);
	char *with = xasprintf(": t %d 0 do 200000 allocate throw free throw loop ; t bye",
			       GFORTH_LOOPS);
	char *without = xasprintf(": t %d 0 do 200000 drop loop ; t bye", GFORTH_LOOPS);
	struct variant gv[2] = { { 0 } };

	if (!file_exists(g)) {
		skip_row(gname, "gforth did not convert or run (see start-up)");
		return;
	}
	gv[0].cmd = cmd_of(g, "-i", fi, "-e", with, NULL);
	gv[1].cmd = cmd_of(g, "-i", fi, "-e", without, NULL);
	if (!works(gv[0].cmd.v, NULL, &why) || !works(gv[1].cmd.v, NULL, &why)) {
		skip_row(gname, why);
		return;
	}
	rounds = scaled(31);
	note("heap: gforth x %d runs", rounds);
	measure(gv, 2, rounds, 1);
	ratio_row(gname, med(&gv[0]), med(&gv[1]), 0, rounds);
	r = add_row("  per ALLOCATE+FREE of 200000 bytes");
	r->a = fmt_time((med(&gv[0]) - med(&gv[1])) / GFORTH_LOOPS);
	r->runs = xasprintf("%d", rounds);
	detail("gforth: gforth-0.2.1 -e '%s' against -e '%s' (both converted, "
	       "libraries embedded); there is no native build of gforth 0.2.1 to "
	       "compare with.\n", with, without);
}

/* ------------------------------------------------------------------ */
/* 3. memory */

struct mem {
	long rss, pss, shared_clean, shared_dirty, private_clean, private_dirty,
		anonymous;
	/* text pages (pagemap): present, file pages, mapped by both copies */
	long text_pages, present, file, shared;
};

static long rollup_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static char *read_text(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 65536;
	char *s = xcalloc(1, cap);
	ssize_t n;

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	while ((n = read(fd, s + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap) {
			cap *= 2;
			s = realloc(s, cap);
			if (!s)
				die("out of memory");
		}
	}
	s[len] = 0;
	close(fd);
	return s;
}

/* The text range of a program: [lo, hi), page aligned, from its file. */
struct range {
	uint32_t lo[4], hi[4];
	int n;
};

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* a.out: QMAGIC [0x1000, 0x1000 + a_text); others [0, a_text), minus an
 * OMAGIC page shared with the data. */
static struct range aout_text(const char *path)
{
	unsigned char h[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct range r = { .n = 1 };

	if (fd < 0 || read(fd, h, 32) != 32)
		die("%s: cannot read the a.out header", path);
	close(fd);
	uint32_t magic = rd32(h) & 0xffff, a_text = rd32(h + 4);
	r.lo[0] = magic == 0314 ? 0x1000 : 0;
	r.hi[0] = r.lo[0] + (a_text & ~4095u);
	return r;
}

/* native ELF32: its PT_LOAD segments without PF_W */
static struct range elf_text(const char *path)
{
	unsigned char h[52], ph[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct range r = { .n = 0 };

	if (fd < 0 || read(fd, h, 52) != 52 || memcmp(h, "\177ELF\1", 5))
		die("%s: not an ELF32 file", path);
	uint32_t phoff = rd32(h + 28);
	unsigned phnum = (unsigned)(h[44] | h[45] << 8);
	for (unsigned i = 0; i < phnum; i++) {
		if (pread(fd, ph, 32, phoff + 32 * i) != 32)
			die("%s: short program header", path);
		if (rd32(ph) != 1 /* PT_LOAD */ || (rd32(ph + 24) & 2) || r.n == 4)
			continue;
		r.lo[r.n] = rd32(ph + 8) & ~4095u;
		r.hi[r.n] = (rd32(ph + 8) + rd32(ph + 20) + 4095) & ~4095u;
		r.n++;
	}
	close(fd);
	return r;
}

/* 1 when pid is blocked in read(0, ...) (i386 system call 3). */
static int reading_stdin(pid_t pid)
{
	char *path = xasprintf("/proc/%ld/syscall", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[64] = "";

	free(path);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	return n > 0 && !strncmp(buf, "3 0x0 ", 6);
}

/*
 * Starts two copies of argv; waits until each has printed marker (or,
 * marker NULL, is waiting in read(0)); reads the first one's memory;
 * ends both by closing their stdin.
 */
static int measure_memory(char *const argv[], const char *marker,
			  const struct range *text, struct mem *m, char **why)
{
	int in[2][2], out[2][2];
	pid_t pid[2];

	memset(m, 0, sizeof *m);
	/* a file written moments ago has dirty page-cache pages: write it
	 * back first, so that its mapped pages count as what they will be */
	int pfd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (pfd < 0 || fsync(pfd) < 0)
		die("%s: %s", argv[0], strerror(errno));
	close(pfd);
	for (int c = 0; c < 2; c++) {
		if (pipe2(in[c], O_CLOEXEC) < 0 || pipe2(out[c], O_CLOEXEC) < 0)
			die("pipe: %s", strerror(errno));
		pid[c] = start(argv, in[c][0], out[c][1], -1);
		close(in[c][0]);
		close(out[c][1]);
	}
	int ok = 1;
	for (int c = 0; c < 2 && ok; c++) {
		char buf[4096];
		size_t len = 0;
		double t0 = now();

		/* wait for the marker, at most 10 s */
		while (marker ? !memmem(buf, len, marker, strlen(marker))
			      : !reading_stdin(pid[c])) {
			struct pollfd p = { out[c][0], POLLIN, 0 };
			ssize_t n;

			if (now() - t0 > 10 || poll(&p, 1, marker ? 1000 : 10) < 0) {
				ok = 0;
				break;
			}
			if (!(p.revents & (POLLIN | POLLHUP)))
				continue;
			if (len == sizeof buf)
				len = 0;
			n = read(out[c][0], buf + len, sizeof buf - len);
			if (n <= 0) {
				ok = 0;
				break;
			}
			len += (size_t)n;
		}
	}
	if (ok) {
		char *path = xasprintf("/proc/%ld/smaps_rollup", (long)pid[0]);
		char *s = read_text(path);

		m->rss = rollup_field(s, "\nRss:");
		m->pss = rollup_field(s, "\nPss:");
		m->shared_clean = rollup_field(s, "\nShared_Clean:");
		m->shared_dirty = rollup_field(s, "\nShared_Dirty:");
		m->private_clean = rollup_field(s, "\nPrivate_Clean:");
		m->private_dirty = rollup_field(s, "\nPrivate_Dirty:");
		m->anonymous = rollup_field(s, "\nAnonymous:");
		free(s);
		free(path);

		path = xasprintf("/proc/%ld/pagemap", (long)pid[0]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("%s: %s", path, strerror(errno));
		for (int i = 0; i < text->n; i++)
			for (uint32_t a = text->lo[i]; a < text->hi[i]; a += 4096) {
				uint64_t e;

				if (pread(fd, &e, 8, (off_t)(a / 4096) * 8) != 8)
					die("%s: %s", path, strerror(errno));
				m->text_pages++;
				if (!(e >> 63 & 1))
					continue;
				m->present++;
				m->file += e >> 61 & 1;
				m->shared += !(e >> 56 & 1); /* not exclusively mapped */
			}
		close(fd);
		free(path);
	}
	int failed = 0;
	for (int c = 0; c < 2; c++) {
		close(in[c][1]); /* EOF: the program ends */
		if (!ok)
			kill(pid[c], SIGKILL);
		int st = wait_for(pid[c], NULL);
		close(out[c][0]); /* after it ended: it may write on its way out */
		/* aln exits 1 by design when nothing is to be linked */
		if (ok && !(WIFEXITED(st) && WEXITSTATUS(st) <= 1))
			failed = st;
	}
	if (!ok || failed) {
		*why = ok ? describe_status(failed) : xasprintf("did not reach its pause");
		return 0;
	}
	return 1;
}

static void mem_detail(const char *name, const struct mem *m)
{
	detail("%-24s %5ld %5ld %6ld %6ld %6ld %6ld %6ld   %3ld/%-3ld %4ld %4ld\n",
	       name, m->rss, m->pss, m->shared_clean, m->shared_dirty,
	       m->private_clean, m->private_dirty, m->anonymous, m->present,
	       m->text_pages, m->file, m->shared);
}

static void text_row(const char *name, const struct mem *m)
{
	struct row *r = add_row(name);

	r->a = xasprintf("%ld/%ld file", m->file, m->present);
	r->b = xasprintf("%ld/%ld shared", m->shared, m->present);
	r->goal = xasprintf("all file");
	r->verdict = xasprintf("%s", m->present && m->file == m->present ? "meets" : "MISSES");
	r->runs = xasprintf("1");
}

static void bench_memory(void)
{
	struct mem nat, m;
	char *why = NULL;
	char *native = prog("benchprog-native-small");
	struct range nt = elf_text(native);

	section("3. memory: text pages of a running program (pagemap)");
	detail("\nMemory of a running program, kB, from /proc/PID/smaps_rollup (two "
	       "copies running, the first one measured);\ntext pages from "
	       "/proc/PID/pagemap: present/all, file pages (page cache), shared "
	       "with the other copy:\n\n");
	detail("%-24s %5s %5s %6s %6s %6s %6s %6s   %7s %4s %4s\n", "program", "Rss",
	       "Pss", "Sh_Cln", "Sh_Dty", "Pr_Cln", "Pr_Dty", "Anon", "text", "file",
	       "shar");
	if (!measure_memory(cmd_of(native, "pause", NULL).v, "R", &nt, &nat, &why))
		die("native benchprog pause: %s", why);
	mem_detail("native ELF", &nat);
	text_row("native ELF: text pages from the file", &nat);
	for (int k = 0; k < 4; k++) {
		char *aout = prog(xasprintf("benchprog-small.%s.aout", kinds[k]));
		char *e = in_work(xasprintf("small.%s", kinds[k]));
		struct range t = aout_text(aout);
		char *name = xasprintf("%s converted: text pages from the file", kinds[k]);

		if (!file_exists(e) || !measure_memory(cmd_of(e, "pause", NULL).v, "R",
							&t, &m, &why)) {
			skip_row(name, why ? why : "not converted");
			continue;
		}
		mem_detail(xasprintf("%s converted", kinds[k]), &m);
		text_row(name, &m);
		if (k == 0) {
			struct row *r = add_row("qmagic converted / native: Rss kB");
			r->a = xasprintf("%ld kB", m.rss);
			r->b = xasprintf("%ld kB", nat.rss);
			r->ratio = xasprintf("%.3f", (double)m.rss / (double)nat.rss);
			r->runs = xasprintf("1");
			r = add_row("qmagic converted - native: private dirty kB");
			r->a = xasprintf("%ld kB", m.private_dirty);
			r->b = xasprintf("%ld kB", nat.private_dirty);
			r->ratio = xasprintf("%+ld kB", m.private_dirty - nat.private_dirty);
			r->runs = xasprintf("1");
		}
	}
	if (corpus) {
		char *in = xasprintf("%s/aln", corpus);
		char *e = in_work("aln");
		struct range t = aout_text(in);

		convert(in, e, NULL, NULL, NULL);
		/* aln prints its banner and waits for the return key */
		if (measure_memory(cmd_of(e, NULL).v, NULL, &t, &m, &why)) {
			mem_detail("aln converted (corpus)", &m);
			text_row("aln converted: text pages from the file", &m);
		} else {
			skip_row("aln converted: text pages from the file", why);
		}
	}
	detail("\n");
}

/* ------------------------------------------------------------------ */
/* 4. conversion throughput */

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

static void bench_convert(void)
{
	char *mkbig = prog("mkbig");
	char *src, *why = NULL;
	char *indir = in_work("batch-in");
	struct variant v[5] = { { 0 } };
	char jn[16];
	char *one_cp = xasprintf("cp"), *split_cp = xasprintf("cp");

	section("4. conversion: aout2elf against cp of the same bytes");
	mkdir_p(indir);
	batch_out = in_work("batch-out");
	if (corpus) {
		src = xasprintf("%s/aln", corpus);
	} else {
		src = in_work("aln-sized");
		struct cmd c = cmd_of(mkbig, "-m", "qmagic", "118784", src, NULL);
		if (!works(c.v, NULL, &why))
			die("mkbig: %s", why);
	}
	off_t size = file_size(src);
	snprintf(jn, sizeof jn, "-j%d", ncpus);
	v[0].cmd = cmd_of("cp", NULL);
	v[1].cmd = cmd_of(aout2elf, "-q", "-O", batch_out, "-j1", NULL);
	v[2].cmd = cmd_of(aout2elf, "-q", "-O", batch_out, jn, NULL);
	for (int i = 0; i < NCOPIES; i++) {
		char *f = xasprintf("%s/prog%03d", indir, i);

		copy_file(src, f);
		for (int k = 0; k < 3; k++)
			cmd_add(&v[k].cmd, f);
		one_cp = append_word(one_cp, f, 1);
		split_cp = append_word(split_cp, f, 1);
		/* the same files in ncpus groups, one cp each, all at once */
		if ((i + 1) % ((NCOPIES + ncpus - 1) / ncpus) == 0 && i + 1 < NCOPIES)
			split_cp = append_word(append_word(split_cp, batch_out, 1),
					       "& cp", 0);
		free(f);
	}
	cmd_add(&v[0].cmd, batch_out);
	one_cp = append_word(one_cp, batch_out, 1);
	split_cp = append_word(append_word(split_cp, batch_out, 1), "; wait", 0);
	v[3].cmd = cmd_of("sh", "-c", one_cp, NULL);
	v[4].cmd = cmd_of("sh", "-c", split_cp, NULL);
	int nv = ncpus > 1 ? 5 : 3;
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
			       corpus ? "aln" : "aln-sized");
	ratio_row(name, med(&v[1]), med(&v[0]), 1.5, rounds);
	free(name);
	name = xasprintf("same, -j%d / cp", ncpus);
	ratio_row(name, med(&v[2]), med(&v[0]), 0, rounds);
	free(name);
	name = xasprintf("same, -j%d / -j1", ncpus);
	ratio_row(name, med(&v[2]), med(&v[1]), 0, rounds);
	free(name);
	/*
	 * What -j can gain here: the same copies made by ncpus cp processes
	 * at once, against one cp (both started by sh).  Where this machine
	 * creates files no faster in parallel, neither can aout2elf -j.
	 */
	if (nv == 5) {
		name = xasprintf("the machine: %d cp at once / one cp", ncpus);
		ratio_row(name, med(&v[4]), med(&v[3]), 0, rounds);
		free(name);
	}
	free(one_cp);
	free(split_cp);
	rm_rf(batch_out);
	rm_rf(indir);

	/* the size series */
	static const long sizes[] = { 1L << 10, 4L << 10, 16L << 10, 64L << 10,
				      256L << 10, 1L << 20, 4L << 20, 16L << 20,
				      64L << 20 };
	int ns = (int)(sizeof sizes / sizeof sizes[0]);
	double tconv[16], tcp[16];
	char *dir = in_work("sizes");

	mkdir_p(dir);
	detail("Conversion time by input size (one aout2elf -q -f IN OUT against "
	       "cp IN OUT of the same file,\nOUT removed before each run; medians):\n\n");
	detail("%10s  %10s  %10s  %8s  %12s\n", "size", "aout2elf", "cp", "ratio",
	       "aout2elf/MiB");
	for (int i = 0; i < ns; i++) {
		char sz[32];
		char *in = xasprintf("%s/in-%ld", dir, sizes[i]);
		char *out = xasprintf("%s/out-%ld", dir, sizes[i]);
		char *cpo = xasprintf("%s/cp-%ld", dir, sizes[i]);
		struct variant s[2] = { { 0 } };

		snprintf(sz, sizeof sz, "%ld", sizes[i]);
		struct cmd c = cmd_of(mkbig, "-m", sizes[i] < 4096 ? "omagic" : "qmagic",
				      sz, in, NULL);
		if (!works(c.v, NULL, &why))
			die("mkbig %s: %s", sz, why);
		cmd_free(&c);
		s[0].cmd = cmd_of(aout2elf, "-q", "-f", in, out, NULL);
		s[1].cmd = cmd_of("cp", in, cpo, NULL);
		s[0].before = s[1].before = remove_output;
		if (!works(s[0].cmd.v, NULL, &why))
			die("converting %s: %s", in, why);
		rounds = scaled(sizes[i] <= (1L << 20) ? 41 : sizes[i] <= (16L << 20) ? 11 : 7);
		note("conversion: %ld bytes x %d runs", sizes[i], rounds);
		measure(s, 2, rounds, 1);
		tconv[i] = med(&s[0]);
		tcp[i] = med(&s[1]);
		char *label = sizes[i] >= (1L << 20) ? xasprintf("%ld MiB", sizes[i] >> 20)
						     : xasprintf("%ld KiB", sizes[i] >> 10);
		detail("%10s  %10s  %10s  %8.3f  %12s%s\n", label, fmt_time(tconv[i]),
		       fmt_time(tcp[i]), tconv[i] / tcp[i],
		       fmt_time(tconv[i] / ((double)sizes[i] / (1 << 20))),
		       sizes[i] < 4096 ? "   (OMAGIC: QMAGIC is 4 KiB at least)" : "");
		unlink(in);
		unlink(out);
		unlink(cpo);
	}
	/*
	 * Linear growth, judged on the two largest converted side by side
	 * (A B A B ...), not taken from the series above, whose sizes were
	 * timed one after another while the machine's speed drifts.
	 */
	{
		struct variant s[2] = { { 0 } };
		long big[2] = { 64L << 20, 16L << 20 };

		for (int i = 0; i < 2; i++) {
			char sz[32];
			char *in = xasprintf("%s/in-%ld", dir, big[i]);

			snprintf(sz, sizeof sz, "%ld", big[i]);
			struct cmd c = cmd_of(mkbig, "-m", "qmagic", sz, in, NULL);
			if (!works(c.v, NULL, &why))
				die("mkbig %s: %s", sz, why);
			cmd_free(&c);
			s[i].cmd = cmd_of(aout2elf, "-q", "-f", in,
					  xasprintf("%s/out-%ld", dir, big[i]), NULL);
			s[i].before = remove_output;
		}
		rounds = scaled(11);
		note("conversion: 64 MiB against 16 MiB x %d runs", rounds);
		measure(s, 2, rounds, 1);
		ratio_row("one 64 MiB input / one 16 MiB input (linear: 4)", med(&s[0]),
			  med(&s[1]), 4.4, rounds);
	}
	rm_rf(dir);
	ratio_row("one 64 MiB input, aout2elf / cp", tconv[ns - 1], tcp[ns - 1], 0,
		  scaled(7));
	detail("\n");
}

/* ------------------------------------------------------------------ */

static char *load_before;

static void machine(void)
{
	struct utsname u;
	char model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	time_t t = time(NULL);
	char date[64];

	if (f) {
		while (fgets(line, sizeof line, f))
			if (!strncmp(line, "model name", 10)) {
				char *p = strchr(line, ':');
				if (p) {
					snprintf(model, sizeof model, "%s", p + 2);
					model[strcspn(model, "\n")] = 0;
				}
				break;
			}
		fclose(f);
	}
	uname(&u);
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
	char *mmin = read_text("/proc/sys/vm/mmap_min_addr");
	mmin[strcspn(mmin, "\n")] = 0;
	printf("aout2elf benchmark, %s\n", date);
	printf("machine: Linux %s %s, %d CPUs, %s; vm.mmap_min_addr=%s; %s\n",
	       u.release, u.machine, ncpus, model, mmin,
	       geteuid() == 0 ? "run as root" : "run as an ordinary user");
	printf("load average before: %s", load_before);
	char *load = read_text("/proc/loadavg");
	printf("load average after:  %s", load);
	if (vm_copies)
		printf("files: copied into the VM's tmpfs, %s (its 9p view of the "
		       "host drops cached pages at every open)\n", vm_copies);
	if (strcmp(part, "all"))
		printf("part: %s\n", strcmp(part, "run") ?
			"4 (conversion) only; 0-3 run where i386 programs run" :
			"0-3 (what executes i386 programs) only; 4 is measured apart");
	printf("corpus: %s; runs scaled by %g; rerun with: make bench\n\n",
	       corpus ? corpus : "absent", scale);
	free(load);
	free(mmin);
}

/*
 * In the VM of tools/run-in-vm the host's files are seen over 9p, which
 * drops a file's cached pages whenever it is opened: every run of a
 * program would read its pages from the host again, a cost no disk has
 * and one that would swamp what is measured.  There the programs, the
 * inputs and the scratch space are copied into the VM's own tmpfs
 * first, where pages stay cached as on a disk.
 */
static const char *into_vm_tmpfs(const char *path, const char *name)
{
	char *copy = xasprintf("%s/%s", vm_copies, name);
	char *why = NULL;

	if (!works(cmd_of("cp", "-a", path, copy, NULL).v, NULL, &why))
		die("copying %s into the VM's tmpfs: %s", path, why);
	return copy;
}

static void use_vm_tmpfs(void)
{
	if (!getenv("AOUT2ELF_IN_VM") || access("/dev/shm", W_OK) != 0)
		return;
	vm_copies = xasprintf("/dev/shm/aout2elf-bench");
	rm_rf(vm_copies);
	mkdir_p(vm_copies);
	aout2elf = into_vm_tmpfs(aout2elf, "aout2elf");
	progs = into_vm_tmpfs(progs, "progs");
	testdata = into_vm_tmpfs(testdata, "testdata");
	if (corpus)
		corpus = into_vm_tmpfs(corpus, "corpus");
	work = xasprintf("%s/work", vm_copies);
	mkdir_p(work);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "aout2elf", required_argument, NULL, 'a' },
		{ "progs", required_argument, NULL, 'p' },
		{ "testdata", required_argument, NULL, 't' },
		{ "corpus", required_argument, NULL, 'c' },
		{ "work", required_argument, NULL, 'w' },
		{ "scale", required_argument, NULL, 's' },
		{ "part", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': aout2elf = optarg; break;
		case 'p': progs = optarg; break;
		case 't': testdata = optarg; break;
		case 'c': corpus = optarg; break;
		case 'w': work = optarg; break;
		case 's':
			scale = strtod(optarg, NULL);
			if (!(scale > 0 && scale <= 100))
				die("--scale takes a number in (0, 100]");
			break;
		case 'P':
			part = optarg;
			if (strcmp(part, "run") && strcmp(part, "convert"))
				die("--part takes run or convert");
			break;
		default:
			die("usage: bench --aout2elf PATH --progs DIR --testdata DIR "
			    "--work DIR [--corpus DIR] [--scale X] [--part run|convert]");
		}
	}
	if (!aout2elf || !progs || !testdata || !work || optind != argc)
		die("usage: bench --aout2elf PATH --progs DIR --testdata DIR "
		    "--work DIR [--corpus DIR] [--scale X] [--part run|convert]");
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0)
		die("/dev/null: %s", strerror(errno));
	aout2elf = must_realpath(aout2elf);
	progs = must_realpath(progs);
	testdata = must_realpath(testdata);
	if (corpus && !file_exists(corpus))
		corpus = NULL;
	if (corpus)
		corpus = must_realpath(corpus);
	rm_rf(work);
	mkdir_p(work);
	work = must_realpath(work);
	use_vm_tmpfs();
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	ncpus = n > 0 ? (int)n : 1;

	double t0 = now();
	load_before = read_text("/proc/loadavg");
	if (strcmp(part, "convert")) {
		bench_syscall();
		bench_startup();
		bench_heap();
		bench_memory();
	}
	if (strcmp(part, "run"))
		bench_convert();

	machine();
	print_table();
	printf("\nA and B are medians of the runs, measured side by side (A B A B "
	       "...); A/B is the ratio of the medians.\n");
	fputs("\n", stdout);
	fputs(details ? details : "", stdout);
	printf("whole benchmark: %.0f s\n", now() - t0);
	rm_rf(work);
	if (vm_copies)
		rm_rf(vm_copies);
	return 0;
}
