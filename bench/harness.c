/*
 * The harness of bench: it starts programs (posix_spawn; stdin, stdout
 * and stderr on /dev/null unless told otherwise), times them from spawn
 * to the end of wait4 (CLOCK_MONOTONIC), runs the variants of a measurement
 * side by side (A B A B ..., the order reversed every other round, so
 * that whatever else the machine does hits all of them alike), sums each
 * up by the median of its runs, and collects the rows of the one table
 * and the details printed after it.  The measurements (measure_*.c)
 * only say what to run and which rows to make of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

/* ------------------------------------------------------------------ */
/* small helpers */

void die(const char *fmt, ...)
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

void note(const char *fmt, ...)
{
	va_list ap;

	fputs("bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

static char *__attribute__((format(printf, 1, 0)))
xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

double now(void)
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

double median(const double *v, int n)
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
char *fmt_time(double s)
{
	if (s < 1e-3)
		return xasprintf("%.1f us", s * 1e6);
	if (s < 1)
		return xasprintf("%.2f ms", s * 1e3);
	return xasprintf("%.3f s", s);
}

int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

char *must_realpath(const char *p)
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

void rm_rf(const char *path)
{
	if (!file_exists(path))
		return;
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) < 0)
		die("removing %s: %s", path, strerror(errno));
}

void mkdir_p(const char *path)
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

void copy_file(const char *from, const char *to)
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

off_t file_size(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		die("%s: %s", path, strerror(errno));
	return st.st_size;
}

/* The whole of a (small) file, NUL-terminated. */
char *read_text(const char *path)
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

/* ------------------------------------------------------------------ */
/* running programs */

void cmd_add(struct cmd *c, const char *w)
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

struct cmd cmd_of(const char *first, ...)
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

void cmd_free(struct cmd *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	memset(c, 0, sizeof *c);
}

static int devnull = -1;

void harness_init(void)
{
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0)
		die("/dev/null: %s", strerror(errno));
}

/*
 * Starts argv with stdin/stdout/stderr on the given descriptors (-1: on
 * /dev/null); returns the pid.
 */
pid_t start(char *const argv[], int in, int out, int err)
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
int wait_for(pid_t pid, struct rusage *ru)
{
	int status;

	while (wait4(pid, &status, 0, ru) < 0)
		if (errno != EINTR)
			die("wait4: %s", strerror(errno));
	return status;
}

char *describe_status(int status)
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
int run_capture(char *const argv[], char **out)
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
int works(char *const argv[], const char *expect, char **why)
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

int scaled(int rounds)
{
	int r = (int)(rounds * config.scale + 0.5);

	return r < 3 ? 3 : r | 1; /* odd: the median is one run */
}

/*
 * rounds rounds over the variants, forwards and backwards in turn, after
 * warmup untimed rounds.
 */
void measure(struct variant *v, int nv, int rounds, int warmup)
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

double med(const struct variant *v)
{
	return median(v->t, v->n);
}

/* ------------------------------------------------------------------ */
/* the table */

static struct row rows[128];
static int nrows;

struct row *add_row(const char *name)
{
	if (nrows == (int)(sizeof rows / sizeof rows[0]))
		die("too many rows");
	struct row *r = &rows[nrows++];

	r->name = xasprintf("%s", name);
	r->a = r->b = r->ratio = r->goal = r->verdict = r->runs = NULL;
	return r;
}

void section(const char *name)
{
	add_row(name)->section = 1;
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

/* A/B with a goal on the ratio (goal <= 0: for information). */
void ratio_row(const char *name, double a, double b, double goal, int runs)
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
void faults_row(const char *name, char *const a[], char *const b[])
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

void skip_row(const char *name, const char *why)
{
	struct row *r = add_row(name);

	r->a = xasprintf("skipped: %s", why);
}

void print_table(void)
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

void detail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	size_t n = strlen(s);
	details = realloc(details, details_len + n + 1);
	if (!details)
		die("out of memory");
	memcpy(details + details_len, s, n + 1);
	details_len += n;
	free(s);
}

void print_details(void)
{
	fputs(details ? details : "", stdout);
}
