/*
 * src/input.c and src/output.c: reading the input (input_read takes only
 * a regular file, malloc'ed or mapped, and says why it refuses any other)
 * and writing the output atomically (output_open makes a file beside
 * OUTPUT, never over the input; output_abort leaves nothing;
 * output_commit puts it in place, replacing only with -f); last, one
 * whole conversion through files.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include <CUnit/CUnit.h>

#include "aout.h"
#include "elfwrite.h"
#include "input.h"
#include "output.h"
#include "plan.h"
#include "stub_image.h"
#include "helpers/aoutgen.h"
#include "unit.h"

/* ---- reading the input (input_*) ---- */

static void expect_input_fail(const char *path, const char *want, unsigned line)
{
	struct input in;
	struct diag d = { "" };

	unit_check_u64((uint64_t)(int64_t)input_read(path, &in, &d),
		       (uint64_t)(int64_t)-1, "input_read fails", line, __FILE__,
		       "expect_input_fail");
	unit_check_str(d.msg, want, "diag message", line, __FILE__,
		       "expect_input_fail");
	unit_check_u64((uintptr_t)in.buf, 0, "in.buf", line, __FILE__,
		       "expect_input_fail");
	unit_check_u64(in.size, 0, "in.size", line, __FILE__,
		       "expect_input_fail");
}
#define EXPECT_INPUT_FAIL(path, want) expect_input_fail((path), (want), __LINE__)

/* input_read of a file of size bytes at f: mapped, map_len huge or exact */
static void read_mapped(const char *f, size_t size, size_t huge_len)
{
	struct input in;
	struct diag d = { "" };
	uint8_t *pattern = malloc(size);

	CU_ASSERT_PTR_NOT_NULL_FATAL(pattern);
	for (size_t i = 0; i < size; i++)
		pattern[i] = (uint8_t)(i * 131 + (i >> 12));
	CU_ASSERT_EQUAL(unit_write_file(f, pattern, size, 0600), 0);
	CU_ASSERT_EQUAL(input_read(f, &in, &d), 0);
	CHECK_U(in.size, size);
	CU_ASSERT(in.map_len == huge_len || in.map_len == size);
	CU_ASSERT(in.buf && memcmp(in.buf, pattern, size) == 0);
	input_free(&in);
	CU_ASSERT_PTR_NULL(in.buf);
	CHECK_U(in.map_len, 0);
	free(pattern);
}

static void test_input_read_regular(void)
{
	char *dir = unit_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *f = unit_path(dir, "prog");
	char *e = unit_path(dir, "empty");
	struct aoutgen_spec s;
	struct aoutgen g;
	struct input in;
	struct diag d = { "" };

	aoutgen_default(&s, AOUT_ZMAGIC);
	aoutgen_build(&s, &g);
	CU_ASSERT_EQUAL(unit_write_file(f, g.buf, g.size, 0640), 0);
	CU_ASSERT_EQUAL(input_read(f, &in, &d), 0);
	CHECK_U(in.size, g.size);
	CU_ASSERT(in.buf && memcmp(in.buf, g.buf, g.size) == 0);
	CU_ASSERT(S_ISREG(in.st.st_mode));
	CHECK_U(in.st.st_mode & 07777, 0640);
	CHECK_U(in.st.st_size, g.size);
	input_free(&in);
	CU_ASSERT_PTR_NULL(in.buf);
	CHECK_U(in.size, 0);
	input_free(&in);

	CHECK_U(in.map_len, 0); /* small: malloc'd */

	/* an empty file reads (aout_parse then says why it is not an a.out) */
	CU_ASSERT_EQUAL(unit_write_file(e, "", 0, 0644), 0);
	CU_ASSERT_EQUAL(input_read(e, &in, &d), 0);
	CHECK_U(in.size, 0);
	CU_ASSERT_PTR_NOT_NULL(in.buf);
	input_free(&in);

	/* 1 MiB and more: read into pages mapped at once, freed by munmap */
	read_mapped(f, (1u << 20) + 4097, (1u << 20) + 4097);
	/* 2 MiB and more: whole huge pages are mapped (where the kernel can
	 * populate after the advice, 5.14 on; else exactly the size) */
	read_mapped(f, (2u << 20) + 12345, 4u << 20);

	aoutgen_free(&g);
	free(f);
	free(e);
	unit_rmtree(dir);
}

static void test_input_read_not_regular(void)
{
	char *dir = unit_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *fifo = unit_path(dir, "fifo");
	char *missing = unit_path(dir, "missing");

	EXPECT_INPUT_FAIL(dir, "is a directory");
	EXPECT_INPUT_FAIL(missing, "No such file or directory");
	CU_ASSERT_EQUAL(mkfifo(fifo, 0600), 0);
	/* must not block waiting for a writer: SIGALRM would end the run */
	alarm(10);
	EXPECT_INPUT_FAIL(fifo, "not a regular file");
	alarm(0);
	if (access("/dev/null", R_OK) == 0)
		EXPECT_INPUT_FAIL("/dev/null", "not a regular file");
	/* a file below a regular file */
	char *below = unit_path(dir, "fifo/x");
	EXPECT_INPUT_FAIL(below, "Not a directory");
	free(below);

	free(fifo);
	free(missing);
	unit_rmtree(dir);
}

static void test_input_read_too_large(void)
{
	char *dir = unit_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	char *f = unit_path(dir, "huge");
	int fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0644);

	CU_ASSERT(fd >= 0);
	/* sparse: nothing is allocated, and nothing must be read */
	if (fd >= 0 && ftruncate(fd, ((off_t)1 << 31) + 1) == 0) {
		close(fd);
		EXPECT_INPUT_FAIL(f, "too large for an a.out executable "
				     "(2147483649 bytes)");
	} else {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "(skipped: no sparse file of 2 GiB here)\n");
	}
	free(f);
	unit_rmtree(dir);
}

/* ---- writing the output (output_*) ---- */

static void test_output_mode(void)
{
	static const struct {
		mode_t in, umask, out;
	} c[] = {
		{ 0644, 022, 0755 }, { 0644, 077, 0700 },
		{ 0600, 022, 0700 }, { 0600, 077, 0700 },
		{ 04755, 022, 0755 }, { 04755, 077, 0700 },
		{ 02755, 022, 0755 }, { 06755, 0, 0755 },
		{ 01777, 022, 0755 }, { 0444, 022, 0555 },
		{ 0640, 027, 0750 }, { 0200, 022, 0200 },
		{ 0000, 022, 0000 }, { 0777, 0, 0777 },
		{ 0100644, 022, 0755 }, /* S_IFREG bits are dropped too */
	};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char what[96];

		snprintf(what, sizeof what, "output_mode(0%o, 0%o) == 0%o",
			 (unsigned)c[i].in, (unsigned)c[i].umask,
			 (unsigned)c[i].out);
		unit_check_u64(output_mode(c[i].in, c[i].umask), c[i].out, what,
			       __LINE__, __FILE__, __func__);
	}
}

static int file_is(const char *path, const char *content)
{
	size_t n;
	uint8_t *b = unit_slurp(path, &n);
	int ok = b && n == strlen(content) && memcmp(b, content, n) == 0;

	free(b);
	return ok;
}

/* An input file in a fresh directory, and its stat. */
struct outfix {
	char *dir, *in, *out;
	struct stat st;
};

static int outfix_init(struct outfix *f)
{
	memset(f, 0, sizeof *f);
	f->dir = unit_tmpdir();
	if (!f->dir)
		return -1;
	f->in = unit_path(f->dir, "input");
	f->out = unit_path(f->dir, "output");
	if (unit_write_file(f->in, "a.out bytes", 11, 0644) || stat(f->in, &f->st))
		return -1;
	return 0;
}

static void outfix_free(struct outfix *f)
{
	free(f->in);
	free(f->out);
	unit_rmtree(f->dir);
}

static void expect_open_fail(const char *path, const struct stat *st,
			     int force, const char *want, unsigned line)
{
	struct output o;
	struct diag d = { "" };

	unit_check_u64((uint64_t)(int64_t)output_open(path, st, NULL, force, &o, &d),
		       (uint64_t)(int64_t)-1, "output_open refuses", line,
		       __FILE__, "expect_open_fail");
	unit_check_str(d.msg, want, "diag message", line, __FILE__,
		       "expect_open_fail");
	unit_check_u64((uint64_t)(int64_t)o.fd, (uint64_t)(int64_t)-1, "o.fd",
		       line, __FILE__, "expect_open_fail");
}
#define EXPECT_OPEN_FAIL(path, st, force, want) \
	expect_open_fail((path), (st), (force), (want), __LINE__)

static void test_output_open_refuses_input(void)
{
	struct outfix f;

	CU_ASSERT_FATAL(outfix_init(&f) == 0);
	const char *msg = "is the input file; refusing to overwrite it";
	char *hard = unit_path(f.dir, "hardlink");
	char *sym = unit_path(f.dir, "symlink");
	char *dotted = unit_path(f.dir, "./input");

	for (int force = 0; force < 2; force++) {
		EXPECT_OPEN_FAIL(f.in, &f.st, force, msg);
		EXPECT_OPEN_FAIL(dotted, &f.st, force, msg);
	}
	CU_ASSERT_EQUAL(link(f.in, hard), 0);
	CU_ASSERT_EQUAL(symlink("input", sym), 0);
	for (int force = 0; force < 2; force++) {
		EXPECT_OPEN_FAIL(hard, &f.st, force, msg);
		EXPECT_OPEN_FAIL(sym, &f.st, force, msg);
	}
	/* nothing created, nothing changed */
	CHECK_U(unit_count_entries(f.dir), 3);
	CU_ASSERT(file_is(f.in, "a.out bytes"));
	free(hard);
	free(sym);
	free(dotted);
	outfix_free(&f);
}

static void test_output_open_existing(void)
{
	struct outfix f;
	struct output o;
	struct diag d = { "" };

	CU_ASSERT_FATAL(outfix_init(&f) == 0);
	CU_ASSERT_EQUAL(unit_write_file(f.out, "old", 3, 0644), 0);
	EXPECT_OPEN_FAIL(f.out, &f.st, 0, "already exists (use -f to replace it)");
	CHECK_U(unit_count_entries(f.dir), 2);
	CU_ASSERT(file_is(f.out, "old"));

	/* a dangling symlink exists too */
	char *dangling = unit_path(f.dir, "dangling");
	CU_ASSERT_EQUAL(symlink("nowhere", dangling), 0);
	EXPECT_OPEN_FAIL(dangling, &f.st, 0, "already exists (use -f to replace it)");

	/* a directory is refused even with -f */
	char *sub = unit_path(f.dir, "sub");
	CU_ASSERT_EQUAL(mkdir(sub, 0755), 0);
	EXPECT_OPEN_FAIL(sub, &f.st, 0, "is a directory");
	EXPECT_OPEN_FAIL(sub, &f.st, 1, "is a directory");

	/* with -f an existing file is accepted (and kept until commit) */
	CU_ASSERT_EQUAL(output_open(f.out, &f.st, NULL, 1, &o, &d), 0);
	CU_ASSERT(o.fd >= 0);
	CU_ASSERT(file_is(f.out, "old"));
	output_abort(&o);
	CU_ASSERT(file_is(f.out, "old"));
	CHECK_U(unit_count_entries(f.dir), 4);

	/* a directory that does not exist */
	char *nodir = unit_path(f.dir, "nodir/output");
	EXPECT_OPEN_FAIL(nodir, &f.st, 0,
			 "cannot create a file beside it: No such file or directory");
	free(nodir);
	free(dangling);
	free(sub);
	outfix_free(&f);
}

static void test_output_temp_beside(void)
{
	struct outfix f;
	struct output o;
	struct diag d = { "" };
	struct stat st;

	CU_ASSERT_FATAL(outfix_init(&f) == 0);
	/* a new OUTPUT: a file without a name (O_TMPFILE), where there are such */
	CU_ASSERT_EQUAL_FATAL(output_open(f.out, &f.st, NULL, 0, &o, &d), 0);
	CU_ASSERT(o.fd >= 0);
	CHECK_STR(o.path, f.out);
	if (!o.tmp) {
		CHECK_U(unit_count_entries(f.dir), 1); /* the input only */
		CU_ASSERT_EQUAL(fstat(o.fd, &st), 0);
		CU_ASSERT(S_ISREG(st.st_mode));
		CHECK_U(st.st_nlink, 0);
	} else {
		fprintf(stderr, "(no O_TMPFILE here: the named way)\n");
	}
	output_abort(&o);

	/* one to replace: a temporary file beside it, with a name */
	CU_ASSERT_EQUAL(unit_write_file(f.out, "old", 3, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(output_open(f.out, &f.st, NULL, 1, &o, &d), 0);
	CU_ASSERT_PTR_NOT_NULL(o.tmp);
	if (o.tmp) {
		char prefix[4200];

		snprintf(prefix, sizeof prefix, "%s/.output.aout2elf-", f.dir);
		CU_ASSERT(strncmp(o.tmp, prefix, strlen(prefix)) == 0);
		CU_ASSERT_EQUAL(stat(o.tmp, &st), 0);
		CU_ASSERT_EQUAL(fstat(o.fd, &st), 0);
		CU_ASSERT(S_ISREG(st.st_mode));
		CHECK_U(st.st_size, 0);
	}
	CU_ASSERT(file_is(f.out, "old"));
	output_abort(&o);
	CU_ASSERT_EQUAL(unlink(f.out), 0);

	/* a name without a directory: the temporary file goes in "." */
	int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CU_ASSERT_FATAL(cwd >= 0);
	if (chdir(f.dir) == 0) {
		CU_ASSERT_EQUAL(output_open("plain", &f.st, NULL, 0, &o, &d), 0);
		if (o.tmp)
			CU_ASSERT(strncmp(o.tmp, ".plain.aout2elf-", 16) == 0);
		CU_ASSERT(o.fd >= 0 && write(o.fd, "x", 1) == 1);
		CU_ASSERT_EQUAL(output_commit(&o, 0755, &d), 0);
		CU_ASSERT(file_is("plain", "x"));
		CU_ASSERT_EQUAL(fchdir(cwd), 0);
	} else {
		CU_FAIL("chdir");
	}
	close(cwd);
	CHECK_U(unit_count_entries(f.dir), 2);
	outfix_free(&f);
}

static void test_output_abort_leaves_nothing(void)
{
	struct outfix f;
	struct output o;
	struct diag d = { "" };

	CU_ASSERT_FATAL(outfix_init(&f) == 0);
	for (int force = 0; force < 2; force++) {
		CU_ASSERT_EQUAL_FATAL(output_open(f.out, &f.st, NULL, force, &o, &d), 0);
		/* input, and the temporary file unless it has no name */
		CHECK_U(unit_count_entries(f.dir), o.tmp ? 2 : 1);
		CU_ASSERT(write(o.fd, "partial", 7) == 7);
		output_abort(&o);
		CU_ASSERT_EQUAL(o.fd, -1);
		CU_ASSERT_PTR_NULL(o.tmp);
		CU_ASSERT_PTR_NULL(o.path);
		CHECK_U(unit_count_entries(f.dir), 1); /* the input only */
		CU_ASSERT(access(f.out, F_OK) < 0);
		output_abort(&o); /* twice is harmless */
	}
	outfix_free(&f);
}

static void test_output_commit(void)
{
	struct outfix f;
	struct output o;
	struct diag d = { "" };
	struct stat st;
	mode_t old = umask(077); /* fchmod is not subject to the umask */

	CU_ASSERT_FATAL(outfix_init(&f) == 0);
	CU_ASSERT_EQUAL_FATAL(output_open(f.out, &f.st, NULL, 0, &o, &d), 0);
	CU_ASSERT(write(o.fd, "converted", 9) == 9);
	CU_ASSERT_EQUAL(output_commit(&o, 0755, &d), 0);
	CU_ASSERT_PTR_NULL(o.tmp);
	CU_ASSERT_PTR_NULL(o.path);
	CU_ASSERT(file_is(f.out, "converted"));
	CU_ASSERT_EQUAL(stat(f.out, &st), 0);
	CHECK_U(st.st_mode & 07777, 0755);
	CHECK_U(st.st_nlink, 1); /* the temporary link is gone */
	CHECK_U(unit_count_entries(f.dir), 2);
	CU_ASSERT(file_is(f.in, "a.out bytes"));

	/* and again: the output now exists */
	EXPECT_OPEN_FAIL(f.out, &f.st, 0, "already exists (use -f to replace it)");
	umask(old);
	outfix_free(&f);
}

/*
 * An OUTPUT that appears after output_open: without -f it is not replaced;
 * with -f it is, the file without a name being linked under a temporary
 * name first, then renamed over it.
 */
static void test_output_commit_race(void)
{
	for (int force = 0; force < 2; force++) {
		struct outfix f;
		struct output o;
		struct diag d = { "" };

		CU_ASSERT_FATAL(outfix_init(&f) == 0);
		CU_ASSERT_EQUAL_FATAL(output_open(f.out, &f.st, NULL, force, &o, &d), 0);
		CU_ASSERT(write(o.fd, "new", 3) == 3);
		CU_ASSERT_EQUAL(unit_write_file(f.out, "someone else's", 14, 0600), 0);
		if (force) {
			CU_ASSERT_EQUAL(output_commit(&o, 0755, &d), 0);
			CU_ASSERT(file_is(f.out, "new"));
		} else {
			CU_ASSERT_EQUAL(output_commit(&o, 0755, &d), -1);
			CHECK_MSG(&d, "already exists (use -f to replace it)");
			CU_ASSERT(file_is(f.out, "someone else's"));
		}
		CHECK_U(unit_count_entries(f.dir), 2); /* no temporary left */
		CU_ASSERT_PTR_NULL(o.tmp);
		CU_ASSERT_PTR_NULL(o.path);
		CU_ASSERT_EQUAL(o.fd, -1);
		outfix_free(&f);
	}
}

static void test_output_commit_force(void)
{
	struct outfix f;
	struct output o;
	struct diag d = { "" };
	struct stat before, after;

	CU_ASSERT_FATAL(outfix_init(&f) == 0);
	CU_ASSERT_EQUAL(unit_write_file(f.out, "old", 3, 0600), 0);
	CU_ASSERT_EQUAL(stat(f.out, &before), 0);
	CU_ASSERT_EQUAL_FATAL(output_open(f.out, &f.st, NULL, 1, &o, &d), 0);
	CU_ASSERT(write(o.fd, "new", 3) == 3);
	CU_ASSERT(file_is(f.out, "old")); /* untouched until the commit */
	CU_ASSERT_EQUAL(output_commit(&o, 0750, &d), 0);
	CU_ASSERT(file_is(f.out, "new"));
	CU_ASSERT_EQUAL(stat(f.out, &after), 0);
	CHECK_U(after.st_mode & 07777, 0750);
	CU_ASSERT(after.st_ino != before.st_ino); /* replaced, not rewritten */
	CHECK_U(unit_count_entries(f.dir), 2);

	/* an OUTPUT that is a symlink: the link is replaced, its target kept */
	char *target = unit_path(f.dir, "target");
	char *link_ = unit_path(f.dir, "link");
	struct stat lst;
	CU_ASSERT_EQUAL(unit_write_file(target, "target", 6, 0644), 0);
	CU_ASSERT_EQUAL(symlink("target", link_), 0);
	CU_ASSERT_EQUAL_FATAL(output_open(link_, &f.st, NULL, 1, &o, &d), 0);
	CU_ASSERT(write(o.fd, "via link", 8) == 8);
	CU_ASSERT_EQUAL(output_commit(&o, 0755, &d), 0);
	CU_ASSERT_EQUAL(lstat(link_, &lst), 0);
	CU_ASSERT(S_ISREG(lst.st_mode));
	CU_ASSERT(file_is(link_, "via link"));
	CU_ASSERT(file_is(target, "target"));
	CHECK_U(unit_count_entries(f.dir), 4);
	free(target);
	free(link_);
	outfix_free(&f);
}

/*
 * The spelling check, where case counts (here): "INPUT" beside "input"
 * is another file, which -f replaces; a folder's listing answers for
 * names in it, and a folder that cannot be read answers "listed".
 */
static void test_output_spelling(void)
{
	struct outfix f;
	struct output o;
	struct diag d = { "" };

	CU_ASSERT_FATAL(outfix_init(&f) == 0);
	char *upper = unit_path(f.dir, "INPUT");

	CHECK_U(output_name_listed(f.in), 1);
	CHECK_U(output_name_listed(upper), 0);
	CHECK_U(output_name_listed("/no/such/folder/x"), 1);
	CU_ASSERT_EQUAL(unit_write_file(upper, "another file", 12, 0644), 0);
	CHECK_U(output_name_listed(upper), 1);
	CU_ASSERT_EQUAL_FATAL(output_open(upper, &f.st, f.in, 1, &o, &d), 0);
	output_abort(&o);
	/* the same spelling is the inode's to tell: the input itself */
	expect_open_fail(f.in, &f.st, 1, "is the input file; refusing to overwrite it",
			 __LINE__);
	int here = open(".", O_RDONLY | O_DIRECTORY);

	CU_ASSERT_EQUAL(chdir(f.dir), 0);
	CHECK_U(output_name_listed("input"), 1);
	CHECK_U(output_name_listed("Input"), 0);
	CU_ASSERT_EQUAL(fchdir(here), 0);
	close(here);
	CHECK_U(unit_count_entries(f.dir), 2);
	free(upper);
	outfix_free(&f);
}

/* ---- the two, with the writer between ---- */

/* The whole path of the command line, through files. */
static void test_convert_through_files(void)
{
	struct outfix f;
	struct aoutgen_spec s;
	struct aoutgen g;
	struct input in;
	struct aout a;
	struct plan p;
	struct output o;
	struct diag d = { "" };
	struct stat st;

	CU_ASSERT_FATAL(outfix_init(&f) == 0);
	aoutgen_default(&s, AOUT_QMAGIC);
	aoutgen_build(&s, &g);
	CU_ASSERT_EQUAL(unit_write_file(f.in, g.buf, g.size, 0644), 0);
	CU_ASSERT_EQUAL(stat(f.in, &f.st), 0);
	CU_ASSERT_EQUAL_FATAL(input_read(f.in, &in, &d), 0);
	CU_ASSERT_EQUAL_FATAL(aout_parse(in.buf, in.size, &a, &d), 0);
	CU_ASSERT_EQUAL(plan_build(&a, NULL, &p, &d), 0);
	CU_ASSERT_EQUAL(output_open(f.out, &in.st, NULL, 0, &o, &d), 0);
	CU_ASSERT_EQUAL(elfw_write(o.fd, &a, &p, stub_image, stub_image_size, &d), 0);
	CU_ASSERT_EQUAL(output_commit(&o, output_mode(in.st.st_mode, 022), &d), 0);
	CU_ASSERT_EQUAL(stat(f.out, &st), 0);
	CHECK_U(st.st_mode & 07777, 0755);
	CU_ASSERT(st.st_size > 0);

	int fd = open(f.out, O_RDONLY);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	GElf_Ehdr eh;
	CU_ASSERT(e && gelf_getehdr(e, &eh) && eh.e_machine == EM_386);
	if (e)
		elf_end(e);
	/* what batch mode takes for an up-to-date OUTPUT */
	CHECK_U(fd >= 0 && elfw_is_converted(fd), 1);
	if (fd >= 0)
		close(fd);
	fd = open(f.in, O_RDONLY);
	CHECK_U(fd >= 0 && elfw_is_converted(fd), 0); /* the a.out */
	if (fd >= 0)
		close(fd);
	CHECK_U(unit_count_entries(f.dir), 2);

	/* an ELF file without the stub where aout2elf puts it, and a stump */
	char *other = unit_path(f.dir, "other");
	uint8_t img[ELFW_STUB_OFFSET + 4];

	memset(img, 0, sizeof img);
	memcpy(img, ELFMAG, 4);
	for (size_t len = 4; len <= sizeof img; len += sizeof img - 4) {
		CU_ASSERT_EQUAL(unit_write_file(other, img, len, 0644), 0);
		fd = open(other, O_RDONLY);
		CHECK_U(fd >= 0 && elfw_is_converted(fd), 0);
		if (fd >= 0)
			close(fd);
		CU_ASSERT_EQUAL(unlink(other), 0);
	}
	free(other);
	aout_free(&a);
	input_free(&in);
	aoutgen_free(&g);
	outfix_free(&f);
}

static int output_init(void)
{
	/* test_convert_through_files reads the ELF back with libelf */
	return elf_version(EV_CURRENT) == EV_NONE ? -1 : 0;
}

int unit_output_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_input_read_regular),
		UNIT_TEST(test_input_read_not_regular),
		UNIT_TEST(test_input_read_too_large),
		UNIT_TEST(test_output_mode),
		UNIT_TEST(test_output_open_refuses_input),
		UNIT_TEST(test_output_open_existing),
		UNIT_TEST(test_output_temp_beside),
		UNIT_TEST(test_output_abort_leaves_nothing),
		UNIT_TEST(test_output_commit),
		UNIT_TEST(test_output_commit_race),
		UNIT_TEST(test_output_commit_force),
		UNIT_TEST(test_output_spelling),
		UNIT_TEST(test_convert_through_files),
		UNIT_END
	};

	return unit_add_suite("input and output (src/input.c, src/output.c)",
			      output_init, NULL, tests);
}
