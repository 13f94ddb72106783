/*
 * Part 3, memory: what a running program occupies, converted (each a.out
 * kind, and aln from the corpus) and native.  Two copies of a program run
 * at once, so that what is shared shows as shared; each waits (benchprog
 * pause, aln at its prompt) while the first one's /proc/PID/smaps_rollup
 * is read, and /proc/PID/pagemap for its text pages: present, from the
 * page cache (a file page), shared with the other copy.  A count, not a
 * time: one run of each.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aout_format.h"
#include "bench.h"

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

/* The text range of a program: [lo, hi), page aligned, from its file. */
struct range {
	uint32_t lo[4], hi[4];
	int n;
};

/* a.out: QMAGIC [0x1000, 0x1000 + a_text); others [0, a_text), minus an
 * OMAGIC page shared with the data. */
static struct range aout_text(const char *path)
{
	uint8_t h[AOUT_HEADER_SIZE];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct range r = { .n = 1 };

	if (fd < 0 || read(fd, h, sizeof h) != (ssize_t)sizeof h)
		die("%s: cannot read the a.out header", path);
	close(fd);
	struct aout_header a = aout_header_at(h);
	r.lo[0] = AOUT_INFO_MAGIC(a.info) == AOUT_QMAGIC ? AOUT_PAGE : 0;
	r.hi[0] = r.lo[0] + (a.text & ~(AOUT_PAGE - 1));
	return r;
}

/* native ELF32: its PT_LOAD segments without PF_W */
static struct range elf_text(const char *path)
{
	uint8_t h[sizeof(Elf32_Ehdr)], ph[sizeof(Elf32_Phdr)];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct range r = { .n = 0 };

	if (fd < 0 || read(fd, h, sizeof h) != (ssize_t)sizeof h ||
	    memcmp(h, "\177ELF\1", 5))
		die("%s: not an ELF32 file", path);
	uint32_t phoff = le32_at(h + offsetof(Elf32_Ehdr, e_phoff));
	unsigned phnum = le16_at(h + offsetof(Elf32_Ehdr, e_phnum));
	for (unsigned i = 0; i < phnum; i++) {
		if (pread(fd, ph, sizeof ph, phoff + sizeof ph * i) != (ssize_t)sizeof ph)
			die("%s: short program header", path);
		uint32_t vaddr = le32_at(ph + offsetof(Elf32_Phdr, p_vaddr));
		uint32_t memsz = le32_at(ph + offsetof(Elf32_Phdr, p_memsz));

		if (le32_at(ph + offsetof(Elf32_Phdr, p_type)) != PT_LOAD ||
		    (le32_at(ph + offsetof(Elf32_Phdr, p_flags)) & PF_W) || r.n == 4)
			continue;
		r.lo[r.n] = vaddr & ~4095u;
		r.hi[r.n] = (vaddr + memsz + 4095) & ~4095u;
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

void bench_memory(void)
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
	for (int k = 0; k < NKINDS; k++) {
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
		if (k == KIND_QMAGIC) {
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
	if (config.corpus) {
		char *in = xasprintf("%s/aln", config.corpus);
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

