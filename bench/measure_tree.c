/*
 * Part 5, a converted distribution: one tree of many dynamically linked
 * programs converted twice in one batch run each, the libraries embedded
 * in every program and --shared-libs (each library once in the tree).
 * Compared: the bytes the tree takes on disk (st_blocks), and its pages
 * in the page cache after each program ran once (mincore over each file
 * of the tree, its pages dropped from the cache first where the file
 * system lets them go).  The corpus's 1993 programs (oldlinux/, several
 * copies of each, as a distribution has hundreds of programs on one
 * libc) where the corpus is there, else copies of the dyn fixture.
 * Counts, not times: one run of each.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* the corpus programs that end at once with stdin and stdout on /dev/null */
static const char *const old_progs[] = { "cat", "gawk", "gzip", "ls", "sed", "tcsh" };

struct tree_use {
	long long disk;          /* bytes: st_blocks * 512 */
	long long cached, pages; /* pages in the page cache, of all */
	long evicted_before;     /* pages still cached once dropped */
	int failed;              /* programs that did not exit 0 (usage) */
};

static struct tree_use *walking;
static int dropping;

static int visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	walking->disk += (long long)st->st_blocks * 512;
	if (!st->st_size)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (dropping) {
		fsync(fd); /* dirty pages are not dropped */
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	long page = sysconf(_SC_PAGESIZE);
	size_t n = (size_t)((st->st_size + page - 1) / page);
	void *m = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_SHARED, fd, 0);
	unsigned char *vec = xcalloc(n, 1);

	if (m == MAP_FAILED || mincore(m, (size_t)st->st_size, vec) < 0)
		die("%s: mincore: %s", path, strerror(errno));
	long cached = 0;
	for (size_t i = 0; i < n; i++)
		cached += vec[i] & 1;
	if (dropping)
		walking->evicted_before += cached;
	else {
		walking->cached += cached;
		walking->pages += (long long)n;
	}
	free(vec);
	munmap(m, (size_t)st->st_size);
	close(fd);
	return 0;
}

static void walk(const char *tree, struct tree_use *u, int drop)
{
	walking = u;
	dropping = drop;
	if (nftw(tree, visit, 32, FTW_PHYS) < 0)
		die("walking %s: %s", tree, strerror(errno));
}

/* Runs prog once, stdio on /dev/null, at most 10 s: 0 if it exited 0. */
static int run_once(const char *prog)
{
	char *argv[] = { (char *)prog, NULL };
	pid_t pid = start(argv, -1, -1, -1);
	int status;

	for (int i = 0; i < 1000; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		usleep(10000);
	}
	kill(pid, SIGKILL);
	wait_for(pid, NULL);
	return 1;
}

/* The tree's use: converted, dropped from the cache, each program run once. */
static void measure_tree(const char *out, char *const progs[], int nprogs,
			 struct tree_use *u)
{
	memset(u, 0, sizeof *u);
	walk(out, u, 1);
	for (int i = 0; i < nprogs; i++)
		u->failed += run_once(progs[i]);
	walk(out, u, 0);
}

static void convert_tree(const char *old, const char *out, const char *libopt,
			 const char *libarg, int shared)
{
	struct cmd c = cmd_of(config.aout2elf, "-q", "-r", "-O", out, libopt, libarg, NULL);
	char *why = NULL;

	if (shared)
		cmd_add(&c, "--shared-libs");
	cmd_add(&c, old);
	if (!works(c.v, NULL, &why))
		die("converting the tree %s: %s", old, why);
	cmd_free(&c);
}

/* DIR/lib as the 1993 system had it (see tests/lib.sh, old_libs). */
static void old_libs(const char *oldlinux, const char *root)
{
	char *why = NULL;
	char *script = xasprintf(
		"mkdir -p '%s/lib' && for f in '%s'/lib/*; do b=${f##*/}; "
		"if [ $(wc -c <\"$f\") -lt 64 ]; then ln -s \"/lib/$(cat \"$f\")\" '%s'/lib/$b; "
		"else cp \"$f\" '%s'/lib/$b; fi; done",
		root, oldlinux, root, root);

	if (!works(cmd_of("sh", "-c", script, NULL).v, NULL, &why))
		die("the oldlinux libraries: %s", why);
	free(script);
}

static char *mb(long long bytes)
{
	return xasprintf("%.1f MB", (double)bytes / 1e6);
}

void bench_tree(void)
{
	char *old = in_work("tree-old"), *emb = in_work("tree-embedded"),
	     *shr = in_work("tree-shared");
	const char *libopt, *libarg;
	int copies, nsrc;
	char **names;

	section("5. a converted distribution: embedded vs --shared-libs");
	rm_rf(old);
	mkdir_p(old);
	if (config.corpus) {
		char *ol = xasprintf("%s/oldlinux", config.corpus);

		old_libs(ol, old);
		libopt = "--sysroot";
		libarg = old;
		nsrc = (int)(sizeof old_progs / sizeof *old_progs);
		names = xcalloc((size_t)nsrc, sizeof *names);
		for (int i = 0; i < nsrc; i++)
			names[i] = xasprintf("%s/%s", ol, old_progs[i]);
		copies = scaled(16);
	} else {
		libopt = "-L";
		libarg = config.testdata;
		nsrc = 1;
		names = xcalloc(1, sizeof *names);
		names[0] = xasprintf("%s/dyn.qmagic.aout", config.testdata);
		copies = scaled(96);
	}
	copies = copies < 2 ? 2 : copies;

	int nprogs = nsrc * copies;
	char **emb_progs = xcalloc((size_t)nprogs, sizeof *emb_progs);
	char **shr_progs = xcalloc((size_t)nprogs, sizeof *shr_progs);

	for (int k = 0; k < copies; k++) {
		char *dir = xasprintf("%s/bin%d", old, k);

		mkdir_p(dir);
		for (int i = 0; i < nsrc; i++) {
			const char *b = strrchr(names[i], '/') + 1;
			char *to = xasprintf("%s/%s", dir, b);

			copy_file(names[i], to);
			emb_progs[k * nsrc + i] = xasprintf("%s/bin%d/%s", emb, k, b);
			shr_progs[k * nsrc + i] = xasprintf("%s/bin%d/%s", shr, k, b);
			free(to);
		}
		free(dir);
	}
	rm_rf(emb);
	rm_rf(shr);
	convert_tree(old, emb, libopt, libarg, 0);
	convert_tree(old, shr, libopt, libarg, 1);

	struct tree_use e, s;

	measure_tree(emb, emb_progs, nprogs, &e);
	measure_tree(shr, shr_progs, nprogs, &s);

	const char *what = config.corpus ? "oldlinux" : "dyn fixture";
	struct row *r = add_row(xasprintf("%d %s programs: disk (st_blocks)", nprogs, what));
	r->a = mb(e.disk);
	r->b = mb(s.disk);
	r->ratio = xasprintf("%.1f", s.disk ? (double)e.disk / (double)s.disk : 0.0);
	r->runs = xasprintf("1");
	long page = sysconf(_SC_PAGESIZE);
	r = add_row(xasprintf("%d %s programs: page cache after one run each", nprogs, what));
	r->a = mb(e.cached * page);
	r->b = mb(s.cached * page);
	r->ratio = xasprintf("%.1f", s.cached ? (double)e.cached / (double)s.cached : 0.0);
	r->runs = xasprintf("1");
	detail("\nA converted distribution (part 5): A = libraries embedded, B = "
	       "--shared-libs;\n%d programs (%d copies of %d), converted with %s in one "
	       "-r -O run each.\n", nprogs, copies, nsrc, libopt);
	detail("%-10s %12s %14s %14s %16s %8s\n", "tree", "disk bytes", "file pages",
	       "cached pages", "left after drop", "exit != 0");
	detail("%-10s %12lld %14lld %14lld %16ld %8d\n", "embedded", e.disk, e.pages,
	       e.cached, e.evicted_before, e.failed);
	detail("%-10s %12lld %14lld %14lld %16ld %8d\n", "shared", s.disk, s.pages,
	       s.cached, s.evicted_before, s.failed);
	detail("(\"left after drop\": pages the file system kept when asked to drop "
	       "them; on tmpfs every page stays.  \"exit != 0\": gawk and sed without "
	       "arguments say their usage and exit 1 or 2, having run.)\n");
	rm_rf(old);
	rm_rf(emb);
	rm_rf(shr);
}
