/*
 * Running out of memory: whole conversions (conv_file: read, parse, plan,
 * find the libraries, write the ELF with libelf, commit the output) and
 * --info's path (conv_load, info_print) in which the Nth allocation
 * fails, for every N from the first allocation to the last the run makes.
 *
 * Every such run must fail cleanly: -1, a message saying memory ran out,
 * no OUTPUT and no temporary file beside it, and all it allocated freed
 * again.  A run may also survive the failure, but then with the very
 * bytes of an undisturbed run.
 *
 * For that this program replaces the malloc family: each call goes on to
 * glibc's own (__libc_malloc and so on) and, while a test has armed the
 * counter, is counted and may be made to fail.  Because the definitions
 * are in the executable they take the place of glibc's for every library
 * too, so libelf's allocations fail in turn as well.  Sanitizer builds
 * bring their own malloc, which must not be replaced: there the suite is
 * not registered, and says so.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "batch.h"
#include "convert.h"
#include "info.h"
#include "helpers/aoutgen.h"
#include "helpers/libimg.h"
#include "unit.h"

#if defined(__SANITIZE_ADDRESS__)
#define FAILALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAILALLOC 0
#endif
#endif
#ifndef FAILALLOC
#define FAILALLOC 1
#endif

#if FAILALLOC

/* ---- the counting allocator ---- */

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t align, size_t n);
void __libc_free(void *p);

static struct {
	int armed;
	long fail_at; /* the allocation that fails, counting from 0; -1: none */
	long calls;   /* allocations asked for while armed */
	long live;    /* made and not yet freed while armed */
	int failed;   /* fail_at was reached */
} fa = { 0, -1, 0, 0, 0 };

static void arm(long fail_at)
{
	fa.fail_at = fail_at;
	fa.calls = fa.live = 0;
	fa.failed = 0;
	fa.armed = 1;
}

static void disarm(void)
{
	fa.armed = 0;
}

static int must_fail(void)
{
	if (!fa.armed || fa.calls++ != fa.fail_at)
		return 0;
	fa.failed = 1;
	errno = ENOMEM;
	return 1;
}

static void *counted(void *p)
{
	if (p && fa.armed)
		fa.live++;
	return p;
}

void *malloc(size_t n)
{
	return must_fail() ? NULL : counted(__libc_malloc(n));
}

void *calloc(size_t n, size_t size)
{
	return must_fail() ? NULL : counted(__libc_calloc(n, size));
}

void *realloc(void *p, size_t n)
{
	if (must_fail())
		return NULL;
	void *q = __libc_realloc(p, n);

	if (fa.armed && !p && q)
		fa.live++;
	else if (fa.armed && p && !n && !q) /* glibc frees it */
		fa.live--;
	return q;
}

void *memalign(size_t align, size_t n)
{
	return must_fail() ? NULL : counted(__libc_memalign(align, n));
}

void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p = memalign(align, n);

	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void free(void *p)
{
	if (p && fa.armed)
		fa.live--;
	__libc_free(p);
}

/* ---- the inputs: files in a temporary folder ---- */

struct oom_files {
	char *dir;      /* the inputs and libraries */
	char *out_dir;  /* where OUTPUT goes, empty between runs */
	char *stat_q;   /* QMAGIC with symbols and stabs */
	char *stat_z;   /* ZMAGIC, stripped */
	char *dyn;      /* QMAGIC needing libunita.so.4 and libunitb.so.1 */
	char *dyn_miss; /* QMAGIC needing libunita.so.4 and libunitz.so.9 (absent) */
	char *lib_a, *lib_b;
	char *tree;     /* copies of stat_q, stat_z and dyn, for a batch */
};

static struct oom_files files;

/* g as dir/name; the path, malloc'ed, or NULL (no CUnit assertions: init) */
static char *write_image(const struct aoutgen *g, const char *name)
{
	char *path = unit_path(files.dir, name);

	if (path && unit_write_file(path, g->buf, g->size, 0644)) {
		free(path);
		path = NULL;
	}
	return path;
}

static char *write_gen(const struct aoutgen_spec *s, const char *name)
{
	struct aoutgen g;
	char *path;

	aoutgen_build(s, &g);
	path = write_image(&g, name);
	aoutgen_free(&g);
	return path;
}

static char *write_dynamic(const char *name, const char *second,
			   uint32_t second_jump)
{
	struct img m;
	char *path;

	img_qprogram(&m);
	img_need(&m, 0, "libunita.so.4", JUMP(LIB_A), 0x402be);
	img_need(&m, 1, second, second_jump, 0x10000);
	path = write_image(&m.g, name);
	img_free(&m);
	return path;
}

static char *write_library(uint32_t start, uint32_t version, const char *name)
{
	struct img m;
	char *path;

	img_library(&m, start, version);
	path = write_image(&m.g, name);
	img_free(&m);
	return path;
}

static int copy_into_tree(const char *from, const char *name)
{
	size_t n = 0;
	uint8_t *buf = unit_slurp(from, &n);
	char *to = unit_path(files.tree, name);
	int rc = buf && to ? unit_write_file(to, buf, n, 0644) : -1;

	free(buf);
	free(to);
	return rc;
}

static int oom_init(void)
{
	static const struct aoutgen_sym syms[] = {
		{ "prog.c", 0x64, 0, 0, 0x1020 },          /* N_SO */
		{ "_start", 0x05, 0, 0, 0x1020 },          /* N_TEXT | N_EXT */
		{ "main:F1", 0x24, 0, 3, 0x1100 },         /* N_FUN */
		{ "main", 0x04, 0, 0, 0x1100 },            /* N_TEXT */
		{ "counter", 0x07, 0, 0, 0x3004 },         /* N_DATA | N_EXT */
		{ "buffer", 0x09, 0, 0, 0x4010 },          /* N_BSS | N_EXT */
		{ "PAGE", 0x03, 0, 0, 0x1000 },            /* N_ABS | N_EXT */
	};
	struct aoutgen_spec s;

	files.dir = unit_tmpdir();
	files.out_dir = unit_tmpdir();
	if (!files.dir || !files.out_dir)
		return -1;
	aoutgen_default(&s, AOUT_QMAGIC);
	s.syms = syms;
	s.nsyms = sizeof syms / sizeof syms[0];
	files.stat_q = write_gen(&s, "static-q");
	aoutgen_default(&s, AOUT_ZMAGIC);
	files.stat_z = write_gen(&s, "static-z");
	files.lib_a = write_library(LIB_A, 0x402be, "libunita.so.4");
	files.lib_b = write_library(LIB_B, 0x10000, "libunitb.so.1");
	files.dyn = write_dynamic("dynamic", "libunitb.so.1", JUMP(LIB_B));
	files.dyn_miss = write_dynamic("dynamic-missing", "libunitz.so.9",
				       JUMP(LIB_C));
	files.tree = unit_path(files.dir, "tree");
	if (!files.tree || mkdir(files.tree, 0755) ||
	    copy_into_tree(files.stat_q, "static-q") ||
	    copy_into_tree(files.stat_z, "static-z") ||
	    copy_into_tree(files.dyn, "dynamic"))
		return -1;
	return files.stat_q && files.stat_z && files.lib_a && files.lib_b &&
			       files.dyn && files.dyn_miss ?
		       0 :
		       -1;
}

static int oom_cleanup(void)
{
	free(files.stat_q);
	free(files.stat_z);
	free(files.lib_a);
	free(files.lib_b);
	free(files.dyn);
	free(files.dyn_miss);
	free(files.tree);
	unit_rmtree(files.dir);
	unit_rmtree(files.out_dir);
	memset(&files, 0, sizeof files);
	return 0;
}

/* ---- the runs ---- */

struct oom_case {
	const char *what;
	const char *input;
	int no_embed_libs;
};

/* One conversion, the fail_at-th allocation failing (-1: none). */
static int convert_once(const struct oom_case *c, const char *out, long fail_at,
			struct conv_result *r)
{
	struct conv_options o;
	int rc;

	memset(&o, 0, sizeof o);
	o.force = 1;
	o.plan.no_embed_libs = c->no_embed_libs;
	o.libdirs[0] = files.dir;
	o.nlibdirs = 1;
	arm(fail_at);
	rc = conv_file(c->input, out, &o, r);
	free(r->warning); /* not looked at here; freed while counted */
	r->warning = NULL;
	disarm();
	return rc;
}

/*
 * Every allocation of one conversion made to fail in turn; the checks of
 * the file comment.  Returns how many runs failed cleanly.
 */
static long convert_failing_each(const struct oom_case *c)
{
	char *out = unit_path(files.out_dir, "out.elf");
	struct conv_result r;
	size_t ref_size = 0, size = 0;
	uint8_t *ref = NULL;
	long clean = 0;
	int ended = 0; /* a run got past the last allocation */

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	/* twice undisturbed: the first run makes glibc's one-time allocations */
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(convert_once(c, out, -1, &r), 0);
		if (i == 0)
			continue;
		if (fa.live != 0)
			fprintf(stderr, "%s: %ld allocations not freed\n", c->what,
				fa.live);
		CU_ASSERT_EQUAL(fa.live, 0);
		ref = unit_slurp(out, &ref_size);
		CU_ASSERT_PTR_NOT_NULL(ref);
	}
	long total = fa.calls;

	CU_ASSERT(total > 10); /* the counter sees the conversion's allocations */
	unlink(out);
	for (long n = 0; ref && n < total + 5; n++) {
		int rc = convert_once(c, out, n, &r);
		int entries = unit_count_entries(files.out_dir);

		if (!fa.failed) { /* past the last allocation: undisturbed */
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT(n >= total);
			unlink(out);
			ended = 1;
			break;
		}
		if (fa.live != 0 || (rc == 0 && entries != 1) ||
		    (rc != 0 && (entries != 0 || !strstr(r.reason, "memory"))))
			fprintf(stderr, "%s: allocation %ld of %ld failing: rc %d, "
					"\"%s\", %d files left, %ld allocations not freed\n",
				c->what, n, total, rc, r.reason, entries, fa.live);
		CU_ASSERT_EQUAL(fa.live, 0);
		if (rc == 0) {
			uint8_t *got = unit_slurp(out, &size);

			CU_ASSERT_EQUAL(entries, 1);
			CU_ASSERT(got && size == ref_size &&
				  memcmp(got, ref, size) == 0);
			free(got);
			unlink(out);
		} else {
			clean++;
			CU_ASSERT_EQUAL(rc, -1);
			CU_ASSERT_EQUAL(r.status, CONV_FAILED);
			CU_ASSERT_PTR_NOT_NULL(strstr(r.reason, "memory"));
			CU_ASSERT_EQUAL(entries, 0);
		}
	}
	CU_ASSERT(ended);
	fprintf(stderr, "(%s: %ld allocations, each failed in turn: %ld runs "
			"failed cleanly) ", c->what, total, clean);
	free(ref);
	free(out);
	return clean;
}

static void test_oom_static_symbols(void)
{
	struct oom_case k = { "QMAGIC with symbols and stabs", files.stat_q, 0 };

	CU_ASSERT(convert_failing_each(&k) > 10);
}

static void test_oom_static_stripped(void)
{
	struct oom_case k = { "ZMAGIC, stripped", files.stat_z, 0 };

	CU_ASSERT(convert_failing_each(&k) > 10);
}

static void test_oom_dynamic_embedded(void)
{
	struct oom_case k = { "dynamic, libraries embedded", files.dyn, 0 };

	CU_ASSERT(convert_failing_each(&k) > 10);
}

static void test_oom_dynamic_missing_not_embedded(void)
{
	struct oom_case k = { "dynamic, a library missing, --no-embed-libs",
			      files.dyn_miss, 1 };

	CU_ASSERT(convert_failing_each(&k) > 10);
}

/*
 * --info's path: conv_load, then info_print into a stream whose buffer
 * was set beforehand (a buffer stdio made while armed would count as
 * not freed).  Each failing run: -1 with the message, nothing printed.
 */
static void test_oom_info(void)
{
	struct conv_options o;
	struct conv_job j;
	struct diag d;
	static char buf[1 << 16];
	FILE *f = tmpfile();
	long total = -1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	setvbuf(f, buf, _IOFBF, sizeof buf);
	memset(&o, 0, sizeof o);
	o.libdirs[0] = files.dir;
	o.nlibdirs = 1;
	for (long n = -1;; n++) {
		long at = ftell(f);
		int rc;

		arm(n);
		rc = conv_load(files.dyn, &o, 1, &j, &d);
		if (rc == 0) {
			info_print(f, files.dyn, &j.a, &j.p, &j.libs);
			conv_job_free(&j);
		}
		disarm();
		if (n == -1) {
			CU_ASSERT_EQUAL_FATAL(rc, 0);
			total = fa.calls;
			CU_ASSERT(ftell(f) > at);
			continue;
		}
		CU_ASSERT_EQUAL(fa.live, 0);
		if (!fa.failed) {
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT(n >= total);
			break;
		}
		CU_ASSERT_EQUAL(rc, -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "memory"));
		CU_ASSERT_EQUAL(ftell(f), at);
		if (n > total + 5) {
			CU_FAIL("the runs never got past the last allocation");
			break;
		}
	}
	CU_ASSERT(total > 5);
	fclose(f);
}

/* ---- a batch ---- */

static const char *const batch_outputs[] = { "static-q", "static-z", "dynamic" };
#define NBATCH (sizeof batch_outputs / sizeof batch_outputs[0])

struct batch_files {
	char *outdir, *report, *err;
	uint8_t *ref[NBATCH + 1]; /* the outputs, then the report */
	size_t ref_size[NBATCH + 1];
};

static const char *batch_file(const struct batch_files *b, size_t i, char *buf,
			      size_t cap)
{
	if (i == NBATCH)
		return b->report;
	snprintf(buf, cap, "%s/%s", b->outdir, batch_outputs[i]);
	return buf;
}

/* -O outdir -r -j 1 -q --report, tree; its standard error into b->err. */
static int batch_once(const struct batch_files *b, long fail_at)
{
	char *inputs[] = { files.tree };
	struct batch_options bo = { .outdir = b->outdir, .recursive = 1,
				    .jobs = 1, .report = b->report, .quiet = 1 };
	struct conv_options o;
	int err = open(b->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int saved = dup(2), rc;

	memset(&o, 0, sizeof o);
	o.libdirs[0] = files.dir;
	o.nlibdirs = 1;
	CU_ASSERT_FATAL(err >= 0 && saved >= 0);
	dup2(err, 2);
	arm(fail_at);
	rc = batch_run(inputs, 1, &bo, &o);
	disarm();
	dup2(saved, 2);
	close(saved);
	close(err);
	return rc;
}

/* Removes the output folder and the report. */
static void batch_clear(const struct batch_files *b)
{
	if (access(b->outdir, F_OK) == 0)
		unit_rmtree(strdup(b->outdir));
	unlink(b->report);
}

static int file_has(const char *path, const char *text)
{
	size_t n = 0;
	uint8_t *buf = unit_slurp(path, &n);
	int has = buf && memmem(buf, n, text, strlen(text)) != NULL;

	free(buf);
	return has;
}

/*
 * A batch over a folder (-r) with a report, in this process (-j 1): each
 * failing run exits 1 and says why on standard error, and what it leaves
 * is whole: every output there is byte for byte an undisturbed run's,
 * with no temporary file beside it, and the report, if written, a whole
 * JSON array.
 */
static void test_oom_batch(void)
{
	struct batch_files b = { 0 };
	char path[4096];
	long total, clean = 0;
	int ended = 0;

	b.outdir = unit_path(files.out_dir, "batch");
	b.report = unit_path(files.out_dir, "report.json");
	b.err = unit_path(files.dir, "batch.err");
	CU_ASSERT_FATAL(b.outdir && b.report && b.err);
	for (int i = 0; i < 2; i++) { /* the first run warms glibc up */
		batch_clear(&b);
		CU_ASSERT_EQUAL_FATAL(batch_once(&b, -1), 0);
	}
	CU_ASSERT_EQUAL(fa.live, 0);
	total = fa.calls;
	for (size_t i = 0; i <= NBATCH; i++) {
		b.ref[i] = unit_slurp(batch_file(&b, i, path, sizeof path), &b.ref_size[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b.ref[i]);
	}
	for (long n = 0; n < total + 5; n++) {
		batch_clear(&b);
		int rc = batch_once(&b, n);
		int whole = 1, entries = unit_count_entries(b.outdir);

		CU_ASSERT_EQUAL(fa.live, 0);
		for (size_t i = 0; i < NBATCH; i++) {
			size_t size = 0;
			uint8_t *got = unit_slurp(batch_file(&b, i, path, sizeof path), &size);

			if (got && (size != b.ref_size[i] || memcmp(got, b.ref[i], size)))
				whole = 0;
			entries -= got != NULL;
			free(got);
		}
		CU_ASSERT(whole);
		CU_ASSERT(entries <= 0); /* nothing but the outputs */
		if (!fa.failed) {
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT(n >= total);
			ended = 1;
			break;
		}
		if (rc == 0)
			continue; /* survived: the outputs were checked above */
		clean++;
		CU_ASSERT_EQUAL(rc, 1);
		CU_ASSERT(file_has(b.err, "memory"));
		size_t size = 0;
		uint8_t *rep = unit_slurp(b.report, &size);

		CU_ASSERT(!rep || (size >= 2 && rep[0] == '[' &&
				   memcmp(rep + size - 2, "]\n", 2) == 0));
		free(rep);
	}
	fprintf(stderr, "(%ld allocations, each failed in turn: %ld runs failed "
			"cleanly) ", total, clean);
	CU_ASSERT(clean > 10);
	CU_ASSERT(ended);
	batch_clear(&b);
	for (size_t i = 0; i <= NBATCH; i++)
		free(b.ref[i]);
	free(b.outdir);
	free(b.report);
	free(b.err);
}

/* The counter itself: a failure it injects is seen, and frees balance. */
static void test_oom_counter(void)
{
	/* through pointers, which the compiler cannot pair and leave out */
	void *(*volatile do_malloc)(size_t) = malloc;
	void *(*volatile do_calloc)(size_t, size_t) = calloc;
	void *(*volatile do_realloc)(void *, size_t) = realloc;
	char *(*volatile do_strdup)(const char *) = strdup;
	void (*volatile do_free)(void *) = free;

	arm(1);
	void *a = do_malloc(16), *b = do_malloc(16), *c = do_calloc(2, 8);
	char *s = do_strdup("glibc's own calls are counted too");

	c = do_realloc(c, 64);
	do_free(a);
	do_free(c);
	do_free(s);
	disarm();
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_PTR_NULL(b);
	CU_ASSERT_PTR_NOT_NULL(s);
	CU_ASSERT_EQUAL(fa.calls, 5);
	CU_ASSERT_EQUAL(fa.live, 0);
	CU_ASSERT(fa.failed);
}

int unit_oom_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_oom_counter),
		UNIT_TEST(test_oom_static_symbols),
		UNIT_TEST(test_oom_static_stripped),
		UNIT_TEST(test_oom_dynamic_embedded),
		UNIT_TEST(test_oom_dynamic_missing_not_embedded),
		UNIT_TEST(test_oom_info),
		UNIT_TEST(test_oom_batch),
		UNIT_END,
	};
	return unit_add_suite("out of memory", oom_init, oom_cleanup, tests);
}

#else /* sanitizer build */

int unit_oom_register(void)
{
	fprintf(stderr, "unit_tests: the out-of-memory suite is left out of "
			"sanitizer builds (they bring their own malloc)\n");
	return 0;
}

#endif
