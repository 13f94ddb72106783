/*
 * src/libs.c for the programs of 1992-1994: libentries found through the
 * __SHARED_LIBRARIES__ set whatever their names, the lookup
 * by the name the program gives (-L, customary folders, a sysroot whose
 * absolute symbolic links stay inside it), one library under two names,
 * versions judged as the program's own crt0 or ld.so judged them, the
 * libraries' own libentries only warned about, libraries that
 * load_aout_library took wherever they were, and what --info and a
 * conversion say of all that.
 *
 * Images are built in memory (aoutgen, libimg); the lookups run in small
 * temporary trees with real symbolic links.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <CUnit/CUnit.h>

#include "aout.h"
#include "convert.h"
#include "info.h"
#include "libs.h"
#include "helpers/aoutgen.h"
#include "helpers/libimg.h"
#include "unit.h"

#define HINT "; give its directory with -L DIR, or the old system's root " \
	     "with --sysroot DIR"
#define CRT0_REFUSES "; its crt0 refuses it (\"Incompatible version.\")"
#define CUSTOMARY "/usr/i486-linuxaout/lib:/usr/i486-linux/lib:/lib:/usr/lib"
#define IN_ROOT "=/usr/i486-linuxaout/lib:=/usr/i486-linux/lib:=/lib:=/usr/lib"
#define CLASSIC LIBS_CLASSIC_BIT
#define LIB_EMU 0x10000000u /* where SLS's /lib/libemu loaded */

/* ---- building images ---- */

/* A libentry at data offset off, its strings in the data; its address. */
static uint32_t record(struct img *m, uint32_t off, const char *name,
		       const char *avers, uint32_t jump, uint32_t vers)
{
	img_entry_at(m, off, img_str(m, name), img_str(m, avers), jump, vers);
	return m->data_addr + off;
}

/* The set at data offset off: n, the n elements, 0. */
static void put_set(struct img *m, uint32_t off, const uint32_t *e, uint32_t n)
{
	aoutgen_put32(&m->g, m->g.data_off + off, n);
	for (uint32_t i = 0; i < n; i++)
		aoutgen_put32(&m->g, m->g.data_off + off + 4 + 4 * i, e[i]);
	aoutgen_put32(&m->g, m->g.data_off + off + 4 + 4 * n, 0);
}

/* A program whose set names one library, crt0's dummy first. */
static void prog_with(struct img *m, const char *name, uint32_t jump,
		      uint32_t vers)
{
	img_qprogram(m);
	uint32_t e[2] = { m->data_addr - 4, record(m, 0x100, name, "DLL Jump 4.4pl1",
						   jump, vers) };
	put_set(m, 0x40, e, 2);
}

static size_t scan_of(struct img *m, enum aout_kind kind, struct lib_need *need,
		      size_t max)
{
	if (img_parse(m, kind))
		return (size_t)-1;
	return libs_scan(&m->a, need, max);
}

/* How many libentries libs_scan finds in program m (then freed), the first in *need. */
static size_t scan1(struct img *m, struct lib_need *need)
{
	struct lib_need all[4];
	size_t n = scan_of(m, AOUT_EXEC, all, 4);

	if (n >= 1 && n != (size_t)-1)
		*need = all[0];
	img_free(m);
	return n;
}

/* ==== recognition ==== */

static void test_set_program(void)
{
	struct img m;
	struct lib_need need[4];

	img_qprogram(&m);
	uint32_t e[3] = {
		m.data_addr - 4, /* crt0's dummy, into the text */
		record(&m, 0x100, "/lib/libc.so.4.0", "4.0", 0x60000000u,
		       CLASSIC | 0x40000),
		/* no ".so", a jump table below 0x40000000 (libemu's place) */
		record(&m, 0x110, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca),
	};
	put_set(&m, 0x40, e, 3);
	size_t n = scan_of(&m, AOUT_EXEC, need, 4);
	CHECK_U(n, 2);
	if (n == 2) {
		CHECK_STR(need[0].name, "/lib/libc.so.4.0");
		CHECK_STR(need[0].avers, "4.0");
		CHECK_U(need[0].jump_table, 0x60000000u);
		CHECK_U(need[0].version, 0x40000);
		CHECK_U(need[0].exact, 1);
		CHECK_STR(need[1].name, "/lib/libc.2.2.2");
		CHECK_STR(need[1].avers, "2.2.2");
		CHECK_U(need[1].jump_table, LIB_EMU);
		CHECK_U(need[1].version, 0x200ca);
		CHECK_U(need[1].exact, 0);
	}
	/* never more than max */
	CHECK_U(libs_scan(&m.a, need, 1), 1);
	CHECK_STR(need[0].name, "/lib/libc.so.4.0");
	img_free(&m);

	/* the same set without the dummy: element [0] may be a libentry too */
	img_qprogram(&m);
	e[0] = record(&m, 0x120, "libm.so.4", "4.4", 0x600e0000u, 0x40191);
	e[1] = record(&m, 0x100, "libc.so.4", "4.4", 0x60000000u, 0x40191);
	put_set(&m, 0x40, e, 2);
	n = scan_of(&m, AOUT_EXEC, need, 4);
	CHECK_U(n, 2);
	CHECK_STR(need[0].name, "libm.so.4");
	img_free(&m);

	/* two sets: both counted, each name once */
	img_qprogram(&m);
	e[0] = m.data_addr - 4;
	e[1] = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	put_set(&m, 0x40, e, 2);
	e[2] = record(&m, 0x110, "/lib/libm.2.2.2", "2.2.2", LIB_EMU + 0x100000,
		      0x200ca);
	put_set(&m, 0x80, e, 3);
	n = scan_of(&m, AOUT_EXEC, need, 4);
	CHECK_U(n, 2);
	if (n == 2)
		CHECK_STR(need[1].name, "/lib/libm.2.2.2");
	img_free(&m);
}

/* A set that is not one: its entries, which only it could give, are not found. */
static void test_set_refused(void)
{
	struct img m;
	struct lib_need need;
	uint32_t e[3];

	/* an element after the first that is no libentry */
	img_qprogram(&m);
	e[0] = m.data_addr - 4;
	e[1] = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	e[2] = m.data_addr + 0x200; /* zeros */
	put_set(&m, 0x40, e, 3);
	CHECK_U(scan1(&m, &need), 0);

	/* counts of 0 and 65; no 0 after the elements; running past the data */
	static const uint32_t counts[] = { 0, 65 };
	for (size_t i = 0; i < 2; i++) {
		prog_with(&m, "/lib/libc.2.2.2", LIB_EMU, 0x200ca);
		aoutgen_put32(&m.g, m.g.data_off + 0x40, counts[i]);
		CHECK_U(scan1(&m, &need), 0);
	}
	prog_with(&m, "/lib/libc.2.2.2", LIB_EMU, 0x200ca);
	aoutgen_put32(&m.g, m.g.data_off + 0x4c, 7);
	CHECK_U(scan1(&m, &need), 0);
	img_qprogram(&m);
	e[0] = m.data_addr - 4;
	e[1] = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	aoutgen_put32(&m.g, m.g.data_off + m.data_size - 8, 2);
	aoutgen_put32(&m.g, m.g.data_off + m.data_size - 4, e[0]);
	CHECK_U(scan1(&m, &need), 0);

	/* an element pointing into the text, at a copy of a good libentry */
	img_qprogram(&m);
	uint32_t good = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	aoutgen_put_bytes(&m.g, m.g.text_off + 0x800, m.g.buf + m.g.data_off + 0x100, 16);
	e[0] = m.data_addr - 4;
	e[1] = 0x1800;
	put_set(&m, 0x40, e, 2);
	CHECK_U(scan1(&m, &need), 0);
	(void)good;
	/* an element whose 16 bytes do not fit in the data */
	img_qprogram(&m);
	e[1] = m.data_addr + m.data_size - 8;
	put_set(&m, 0x40, e, 2);
	CHECK_U(scan1(&m, &need), 0);

	/* a library's set has no dummy: its first element must be good too */
	img_library(&m, LIB_A, 0x40000);
	e[0] = m.data_addr + 0x300;
	e[1] = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	put_set(&m, 0x40, e, 2);
	CHECK_U(scan_of(&m, AOUT_SHLIB, &need, 1), 0);
	img_free(&m);
	img_library(&m, LIB_A, 0x40000);
	e[0] = record(&m, 0x100, "/lib/libc.2.2.2", "2.2.2", LIB_EMU, 0x200ca);
	put_set(&m, 0x40, e, 1);
	CHECK_U(scan_of(&m, AOUT_SHLIB, &need, 1), 1);
	CHECK_STR(need.name, "/lib/libc.2.2.2");
	img_free(&m);
}

/* Each limit of a libentry reached through the set, just in and just out. */
static void test_set_limits(void)
{
	struct img m;
	struct lib_need need;
	/* the program's image ends at its bss: 0x3000 + 0x1000 + 0x2345 */
	const uint32_t end = 0x6345;
	char name[LIBS_NAME_MAX + 1];

	prog_with(&m, "/lib/libx", end, 0x10000);
	CHECK_U(scan1(&m, &need), 1);
	prog_with(&m, "/lib/libx", end - 1, 0x10000);
	CHECK_U(scan1(&m, &need), 0);
	prog_with(&m, "/lib/libx", IMAGE_LIMIT - 1, 0x10000);
	CHECK_U(scan1(&m, &need), 1);
	prog_with(&m, "/lib/libx", IMAGE_LIMIT, 0x10000);
	CHECK_U(scan1(&m, &need), 0);

	/* majors up to 0xfff; nothing above the CLASSIC bit; not 0 */
	prog_with(&m, "/lib/libx", LIB_EMU, 0x0fffffffu);
	CHECK_U(scan1(&m, &need), 1);
	CHECK_U(need.version, 0x0fffffffu);
	prog_with(&m, "/lib/libx", LIB_EMU, 0x1fffffffu);
	CHECK_U(scan1(&m, &need), 1);
	CHECK_U(need.exact, 1);
	static const uint32_t bad[] = { 0x20040000u, 0x80040000u, 0xffff, CLASSIC };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		prog_with(&m, "/lib/libx", LIB_EMU, bad[i]);
		CHECK_U(scan1(&m, &need), 0);
	}

	/* names of 255 characters, not 256, and not ending in '/' */
	memset(name, 'x', sizeof name);
	name[0] = '/';
	name[LIBS_NAME_MAX - 1] = 0;
	prog_with(&m, name, LIB_EMU, 0x10000);
	CHECK_U(scan1(&m, &need), 1);
	CHECK_U(strlen(need.name), LIBS_NAME_MAX - 1);
	name[LIBS_NAME_MAX - 1] = 'x';
	name[LIBS_NAME_MAX] = 0;
	prog_with(&m, name, LIB_EMU, 0x10000);
	CHECK_U(scan1(&m, &need), 0);
	prog_with(&m, "/lib/", LIB_EMU, 0x10000);
	CHECK_U(scan1(&m, &need), 0);
	prog_with(&m, "/lib/lib x", LIB_EMU, 0x10000);
	CHECK_U(scan1(&m, &need), 0);
}

/* Without a set, every word is tried as before, ".so" or not. */
static void test_fallback(void)
{
	struct img m;
	struct lib_need need;
	char name[40];

	static const char *const names[] = { "libc.a", "libc.s.o", "/lib/libc.2.2.2" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		img_qprogram(&m);
		img_need(&m, 0, names[i], 0x60000000u, 0x20202);
		CHECK_U(scan1(&m, &need), 1);
		CHECK_STR(need.name, names[i]);
	}
	/* the CLASSIC bit is kept apart from the major */
	img_qprogram(&m);
	img_need(&m, 0, "/lib/libc.so.4.0", 0x60000000u, CLASSIC | 0x40000);
	CHECK_U(scan1(&m, &need), 1);
	CHECK_U(need.version, 0x40000);
	CHECK_U(need.exact, 1);
	/* but no more than before: majors to 255, jump tables from 0x40000000,
	 * names of 31 characters */
	img_qprogram(&m);
	img_need(&m, 0, "libc.so.4", 0x60000000u, CLASSIC | 0x1000000);
	CHECK_U(scan1(&m, &need), 0);
	img_qprogram(&m);
	img_need(&m, 0, "libc.so.4", LIB_EMU, 0x40000);
	CHECK_U(scan1(&m, &need), 0);
	memset(name, 'x', 32);
	name[32] = 0;
	img_qprogram(&m);
	img_need(&m, 0, name, 0x60000000u, 0x40000);
	CHECK_U(scan1(&m, &need), 0);
}

/* ==== the loaders ==== */

static void test_loader_of(void)
{
	static const struct {
		const char *text; /* in the data, NUL included */
		enum libs_loader want;
	} c[] = {
		{ NULL, LIBS_CRT0_SLS },
		{ "/lib/ld.so", LIBS_LDSO },
		{ "Warning: ", LIBS_CRT0_SLS },
		{ ": incompatible minor version numbers (", LIBS_CRT0_SLACKWARE },
		{ ": incompatible minor version numbers", LIBS_CRT0_SLS },
	};
	struct img m;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		img_qprogram(&m);
		if (c[i].text)
			img_str(&m, c[i].text);
		if (img_parse(&m, AOUT_EXEC) == 0)
			CHECK_U(libs_loader_of(&m.a), c[i].want);
		img_free(&m);
	}
	/* both: ld.so decides */
	img_qprogram(&m);
	img_str(&m, ": incompatible minor version numbers (");
	aoutgen_put_bytes(&m.g, m.g.text_off + 0x100, "/lib/ld.so", 11);
	if (img_parse(&m, AOUT_EXEC) == 0)
		CHECK_U(libs_loader_of(&m.a), LIBS_LDSO);
	img_free(&m);
}

static void test_judge(void)
{
	enum { SLS = LIBS_CRT0_SLS, SLACK = LIBS_CRT0_SLACKWARE, LDSO = LIBS_LDSO };
	static const struct {
		int loader;
		uint32_t found, needed;
		int exact;
		enum libs_verdict want;
	} c[] = {
		/* the same, or newer: runs everywhere */
		{ SLS, 0x40191, 0x40191, 0, LIBS_FITS },
		{ SLS, 0x402be, 0x40001, 0, LIBS_FITS },
		{ SLACK, 0x402be, 0x40191, 0, LIBS_FITS },
		{ LDSO, 0x402be, 0x40273, 0, LIBS_FITS },
		/* another major: refused everywhere, older or newer */
		{ SLS, 0x50000, 0x40001, 0, LIBS_REFUSED_MAJOR },
		{ SLACK, 0x30000, 0x40191, 0, LIBS_REFUSED_MAJOR },
		{ LDSO, 0x50000, 0x40273, 0, LIBS_REFUSED_MAJOR },
		/* an older minor: fatal to SLS, a warning elsewhere */
		{ SLS, 0x40190, 0x40191, 0, LIBS_REFUSED_OLDER },
		{ SLACK, 0x40190, 0x40191, 0, LIBS_OLDER_WARNED },
		{ SLACK, 0x40000, 0x40191, 0, LIBS_OLDER_WARNED },
		{ LDSO, 0x40191, 0x40273, 0, LIBS_OLDER_WARNED },
		/* ld.so compares x of major.x.y: 4.4.1 for 4.4.4 is silent */
		{ LDSO, 0x40191, 0x40194, 0, LIBS_OLDER_QUIET },
		/* CLASSIC: the very word, for the SLS crt0 only */
		{ SLS, CLASSIC | 0x40000, 0x40000, 1, LIBS_FITS },
		{ SLS, 0x40000, 0x40000, 1, LIBS_REFUSED_EXACT },
		{ SLS, 0x40191, 0x40000, 1, LIBS_REFUSED_EXACT },
		{ SLACK, 0x40191, 0x40000, 1, LIBS_FITS },
		{ LDSO, 0x40191, 0x40000, 1, LIBS_FITS },
		{ LDSO, 0x50191, 0x40000, 1, LIBS_REFUSED_MAJOR },
		/* the CLASSIC bit of a library's word is no part of its major */
		{ SLACK, CLASSIC | 0x40191, 0x40191, 0, LIBS_FITS },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct lib_need need = { .version = c[i].needed, .exact = c[i].exact };

		CHECK_U(libs_judge((enum libs_loader)c[i].loader, c[i].found, &need),
			c[i].want);
	}
}

/* ==== the lookup ==== */

struct tree {
	char *dir;  /* the temporary folder */
	char *root; /* dir/root: the old system */
	char *real; /* root as the kernel names it */
	char *ldir; /* dir/L: a -L folder */
};

static char *sub(const char *a, const char *b)
{
	char *p = unit_path(a, b);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

/* mkdir -p a/b */
static void mkdirs(const char *a, const char *b)
{
	char *p = sub(a, b);

	for (char *s = p + strlen(a) + 1; (s = strchr(s, '/')); *s++ = '/') {
		*s = 0;
		mkdir(p, 0755);
	}
	CU_ASSERT(mkdir(p, 0755) == 0 || errno == EEXIST);
	free(p);
}

static void tree_make(struct tree *t)
{
	char real[PATH_MAX];

	t->dir = unit_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->dir);
	t->root = sub(t->dir, "root");
	t->ldir = sub(t->dir, "L");
	mkdirs(t->dir, "root/lib");
	mkdirs(t->dir, "root/usr/lib");
	mkdirs(t->dir, "root/usr/i486-linuxaout/lib");
	mkdirs(t->dir, "L");
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(t->root, real));
	t->real = strdup(real);
}

static void tree_free(struct tree *t)
{
	free(t->root);
	free(t->real);
	free(t->ldir);
	unit_rmtree(t->dir);
}

/* A library image at start with version v as file rel under dir. */
static void put_lib(const char *dir, const char *rel, uint32_t start, uint32_t v)
{
	struct img m;

	img_library(&m, start, v);
	free(img_write(&m, dir, rel));
	img_free(&m);
}

static void put_link(const char *dir, const char *rel, const char *target)
{
	char *p = sub(dir, rel);

	CU_ASSERT_EQUAL(symlink(target, p), 0);
	free(p);
}

/* "ROOT-as-the-kernel-says/REL", malloc'ed */
static char *in_real(const struct tree *t, const char *rel)
{
	return sub(t->real, rel);
}

/* libs_resolve for a program needing name (1.0.0 of the library at LIB_A) */
static int find(const struct tree *t, const char *name, int use_l, int use_root,
		struct libset *set, struct diag *d)
{
	struct img m;
	const char *dirs[] = { t->ldir };
	int rc = -2;

	prog_with(&m, name, JUMP(LIB_A), 0x10000);
	if (img_parse(&m, AOUT_EXEC) == 0)
		rc = libs_resolve(&m.a, 0x1000, 0x7000, dirs, use_l ? 1 : 0,
				  use_root ? t->root : NULL, 0, set, d);
	img_free(&m);
	return rc;
}

/* The path find gives name, version checked (NULL: not found). */
static void expect_found(const struct tree *t, const char *name, int use_l,
			 int use_root, const char *want, uint32_t version,
			 unsigned line)
{
	struct libset set;
	struct diag d = { "" };
	int rc = find(t, name, use_l, use_root, &set, &d);

	unit_check_u64((uint64_t)rc, 0, "libs_resolve succeeds", line, __FILE__,
		       "expect_found");
	if (rc)
		fprintf(stderr, "expect_found: %s\n", d.msg);
	if (rc == 0 && set.n == 1) {
		unit_check_str(set.libs[0].path, want, "the library found", line,
			       __FILE__, "expect_found");
		unit_check_str(set.libs[0].name, name, "its name", line, __FILE__,
			       "expect_found");
		unit_check_u64(set.libs[0].version, version, "its version", line,
			       __FILE__, "expect_found");
	}
	if (rc == 0)
		libs_free(&set);
}
#define EXPECT_FOUND(t, name, l, r, want, v) \
	expect_found((t), (name), (l), (r), (want), (v), __LINE__)

static void test_lookup_sysroot(void)
{
	struct tree t;

	tree_make(&t);
	/* the old system: links as its ldconfig made them, absolute */
	put_lib(t.root, "lib/libx.so.1.2", LIB_A, 0x100c8);
	put_link(t.root, "lib/libx.so.1", "/lib/libx.so.1.2");
	put_link(t.root, "lib/libdot.so.1", "../../../../../../../lib/libx.so.1.2");
	put_link(t.root, "lib/libout.so.1", t.real); /* a folder on the host */
	char *want = in_real(&t, "lib/libx.so.1.2");

	/* the absolute name, resolved inside the old system */
	EXPECT_FOUND(&t, "/lib/libx.so.1", 0, 1, want, 0x100c8);
	/* relative names with a '/': inside it too */
	EXPECT_FOUND(&t, "lib/libx.so.1", 0, 1, want, 0x100c8);
	/* ".." stops at its root */
	EXPECT_FOUND(&t, "/lib/libdot.so.1", 0, 1, want, 0x100c8);
	/* a bare name: in its customary folders */
	EXPECT_FOUND(&t, "libx.so.1", 0, 1, want, 0x100c8);
	EXPECT_FOUND(&t, "libdot.so.1", 0, 1, want, 0x100c8);
	/* the sysroot given with a trailing '/' */
	{
		struct tree u = t;
		char *slash = malloc(strlen(t.root) + 2);

		CU_ASSERT_PTR_NOT_NULL_FATAL(slash);
		sprintf(slash, "%s/", t.root);
		u.root = slash;
		EXPECT_FOUND(&u, "/lib/libx.so.1", 0, 1, want, 0x100c8);
		free(slash);
	}

	/* the absolute link is not followed on the host: without the sysroot,
	 * or as a link to a host folder, nothing */
	struct libset set;
	struct diag d = { "" };
	char msg[512];

	CU_ASSERT_EQUAL(find(&t, "/lib/libout.so.1", 0, 1, &set, &d), -1);
	snprintf(msg, sizeof msg, "needs the a.out library /lib/libout.so.1, not "
		 "found in =/lib/libout.so.1:" IN_ROOT " (= is %s)" HINT, t.root);
	msg[sizeof d.msg - 1] = 0; /* as diag_set cuts it */
	CHECK_STR(d.msg, msg);
	CU_ASSERT_EQUAL(find(&t, "/lib/libx.so.1", 0, 0, &set, &d), -1);
	CHECK_MSG(&d, "needs the a.out library /lib/libx.so.1, not found in "
		      "/lib/libx.so.1:" CUSTOMARY HINT);
	/* -L folders are on the host, between the two */
	CU_ASSERT_EQUAL(find(&t, "/lib/libnone.so.1", 1, 1, &set, &d), -1);
	snprintf(msg, sizeof msg, "needs the a.out library /lib/libnone.so.1, not "
		 "found in =/lib/libnone.so.1:%s:" IN_ROOT " (= is %s)" HINT,
		 t.ldir, t.root);
	msg[sizeof d.msg - 1] = 0;
	CHECK_STR(d.msg, msg);
	free(want);
	tree_free(&t);
}

/* NAME itself, then its last component in -L, then the customary folders. */
static void test_lookup_order(void)
{
	struct tree t;

	tree_make(&t);
	put_lib(t.root, "usr/lib/libo.so.1", LIB_A, 0x10001);
	char *usr = in_real(&t, "usr/lib/libo.so.1");
	char *l = sub(t.ldir, "libo.so.1");

	/* only in /usr/lib of the old system */
	EXPECT_FOUND(&t, "libo.so.1", 1, 1, usr, 0x10001);
	EXPECT_FOUND(&t, "/lib/libo.so.1", 1, 1, usr, 0x10001);
	/* in -L: before the customary folders */
	put_lib(t.ldir, "libo.so.1", LIB_A, 0x10002);
	EXPECT_FOUND(&t, "libo.so.1", 1, 1, l, 0x10002);
	EXPECT_FOUND(&t, "/lib/libo.so.1", 1, 1, l, 0x10002);
	EXPECT_FOUND(&t, "/lib/libo.so.1", 1, 0, l, 0x10002);
	/* the name itself: before -L */
	put_lib(t.root, "lib/libo.so.1", LIB_A, 0x10003);
	char *lib = in_real(&t, "lib/libo.so.1");
	EXPECT_FOUND(&t, "/lib/libo.so.1", 1, 1, lib, 0x10003);
	/* the customary folders in their order: i486-linuxaout before /lib */
	EXPECT_FOUND(&t, "libo.so.1", 0, 1, lib, 0x10003);
	put_lib(t.root, "usr/i486-linuxaout/lib/libo.so.1", LIB_A, 0x10004);
	char *aout = in_real(&t, "usr/i486-linuxaout/lib/libo.so.1");
	EXPECT_FOUND(&t, "libo.so.1", 0, 1, aout, 0x10004);
	/* a folder of the library's name is passed over */
	mkdirs(t.root, "lib/libp.so.1");
	put_lib(t.root, "usr/lib/libp.so.1", LIB_A, 0x10005);
	char *p = in_real(&t, "usr/lib/libp.so.1");
	EXPECT_FOUND(&t, "/lib/libp.so.1", 1, 1, p, 0x10005);
	free(usr);
	free(l);
	free(lib);
	free(aout);
	free(p);
	tree_free(&t);
}

static void test_lookup_errors(void)
{
	struct tree t;
	struct libset set;
	struct diag d = { "" };
	char msg[512];

	tree_make(&t);
	/* the sysroot is not there */
	struct tree u = t;
	u.root = sub(t.dir, "nothing");
	CU_ASSERT_EQUAL(find(&u, "/lib/libx.so.1", 1, 1, &set, &d), -1);
	snprintf(msg, sizeof msg, "the old system's root %s: %s", u.root,
		 strerror(ENOENT));
	CHECK_STR(d.msg, msg);
	CHECK_U(set.n, 0);
	free(u.root);

	/* the corpus's text files in place of links: not a library */
	char *txt = sub(t.root, "lib/libc.so.4");
	CU_ASSERT_EQUAL(unit_write_file(txt, "libc.so.4.4.1", 13, 0644), 0);
	char *real = in_real(&t, "lib/libc.so.4");
	CU_ASSERT_EQUAL(find(&t, "/lib/libc.so.4", 0, 1, &set, &d), -1);
	snprintf(msg, sizeof msg, "%s: not an a.out shared library: not an a.out "
		 "executable (unknown magic 064554)", real);
	CHECK_STR(d.msg, msg);

	/* out of descriptors inside the sysroot: the search stops there */
	struct rlimit old, low;
	int lowest = dup(0);

	CU_ASSERT_FATAL(lowest >= 0 && getrlimit(RLIMIT_NOFILE, &old) == 0);
	close(lowest);
	low = old;
	low.rlim_cur = (rlim_t)lowest + 1; /* the sysroot's, and no other */
	int set_low = setrlimit(RLIMIT_NOFILE, &low);
	int rc = find(&t, "/lib/libc.so.4", 0, 1, &set, &d);

	setrlimit(RLIMIT_NOFILE, &old);
	CU_ASSERT_EQUAL(set_low, 0);
	CU_ASSERT_EQUAL(rc, -1);
	snprintf(msg, sizeof msg, "%s: %s", txt, strerror(EMFILE));
	CHECK_STR(d.msg, msg);

	/* a name too long to carry */
	char name[40];
	memset(name, 'x', sizeof name);
	name[0] = '/';
	name[32] = 0;
	CU_ASSERT_EQUAL(find(&t, name, 0, 1, &set, &d), -1);
	snprintf(msg, sizeof msg, "needs the a.out library %s, whose name is "
		 "longer than the 31 characters aout2elf can carry", name);
	CHECK_STR(d.msg, msg);
	free(txt);
	free(real);
	tree_free(&t);
}

/* The path find gives name inside the sysroot; NULL where it finds none. */
static char *found_path(const struct tree *t, const char *name)
{
	struct libset set;
	struct diag d;
	char *path;

	if (find(t, name, 0, 1, &set, &d))
		return NULL;
	path = set.n == 1 ? strdup(set.libs[0].path) : NULL;
	libs_free(&set);
	return path;
}

/*
 * Without openat2 (kernels before 5.6, qemu-user, or a sandbox's filter):
 * the same library by the same path as with it (a conversion must not
 * depend on the machine), links resolved inside the sysroot alike.  Run
 * in a child, under a filter answering ENOSYS; it exits with the number
 * of the first name found otherwise than with openat2.
 */
static void test_lookup_without_openat2(void)
{
#ifdef SYS_openat2
	static const char *const names[] = { "/lib/libx.so.1", "/lib/librel.so.1",
					     "/lib/libdot.so.1", "libx.so.1",
					     "/lib/libout.so.1", "/lib/libnone.so.1" };
	char *want[sizeof names / sizeof names[0]];
	struct tree t;
	int status = -1;

	tree_make(&t);
	put_lib(t.root, "lib/libx.so.1.2", LIB_A, 0x100c8);
	put_link(t.root, "lib/libx.so.1", "/lib/libx.so.1.2");
	put_link(t.root, "lib/librel.so.1", "libx.so.1.2");
	put_link(t.root, "lib/libdot.so.1", "../../../../../../../lib/libx.so.1.2");
	put_link(t.root, "lib/libout.so.1", t.real);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		want[i] = found_path(&t, names[i]);
	/* the test's own premise: the first four found, the rest not */
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		CU_ASSERT_EQUAL(want[i] != NULL, i < 4);
	pid_t pid = fork();

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { sizeof f / sizeof f[0], f };

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(100);
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
			char *got = found_path(&t, names[i]);

			if (got ? !want[i] || strcmp(got, want[i]) : !!want[i])
				_exit((int)i + 1);
			free(got);
		}
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status));
	CHECK_U(WEXITSTATUS(status), 0);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		free(want[i]);
	tree_free(&t);
#endif
}

/* A batch rerun asks whether a library now comes before the one carried. */
static void test_shadowed_in(void)
{
	struct tree t;
	const char *dirs[1];

	tree_make(&t);
	dirs[0] = t.ldir;
	put_lib(t.ldir, "libs.so.1", LIB_A, 0x10000);
	char *l = sub(t.ldir, "libs.so.1");

	CHECK_U(libs_shadowed("/lib/libs.so.1", l, dirs, 1, t.root), 0);
	CHECK_U(libs_shadowed("libs.so.1", l, dirs, 1, t.root), 0);
	/* the old system's own copy comes first for the full name only */
	put_lib(t.root, "lib/libs.so.1.0", LIB_A, 0x10000);
	put_link(t.root, "lib/libs.so.1", "/lib/libs.so.1.0");
	CHECK_U(libs_shadowed("/lib/libs.so.1", l, dirs, 1, t.root), 1);
	CHECK_U(libs_shadowed("libs.so.1", l, dirs, 1, t.root), 0);
	/* found there: nothing before it */
	char *there = in_real(&t, "lib/libs.so.1.0");
	CHECK_U(libs_shadowed("/lib/libs.so.1", there, dirs, 1, t.root), 0);
	/* and where the bare name found it, the -L copy shadows it */
	CHECK_U(libs_shadowed("libs.so.1", there, dirs, 1, t.root), 1);
	/* no sysroot: the host's /lib/libs.so.1 is not there */
	CHECK_U(libs_shadowed("/lib/libs.so.1", l, dirs, 1, NULL), 0);
	/* a sysroot that is gone: nothing shadows */
	char *gone = sub(t.dir, "gone");
	CHECK_U(libs_shadowed("/lib/libs.so.1", there, NULL, 0, gone), 0);
	free(gone);
	free(l);
	free(there);
	tree_free(&t);
}

/* ==== one library under several names ==== */

/* A program whose set names each of names (jump table at LIB_A). */
static int prog_naming(struct img *m, const char *const *names, size_t n,
		       uint32_t jump2)
{
	uint32_t e[12];

	img_qprogram(m);
	e[0] = m->data_addr - 4;
	for (size_t i = 0; i < n; i++)
		e[i + 1] = record(m, 0x100 + 16 * (uint32_t)i, names[i], "4.0",
				  i == 1 ? jump2 : JUMP(LIB_A), 0x10000);
	put_set(m, 0x40, e, (uint32_t)n + 1);
	return img_parse(m, AOUT_EXEC);
}

static void test_identity(void)
{
	struct tree t;
	struct img m;
	struct libset set;
	struct diag d = { "" };
	char msg[512];

	tree_make(&t);
	put_lib(t.root, "lib/libc.so.4.4.1", LIB_A, 0x10000);
	put_link(t.root, "lib/libc.so.4", "libc.so.4.4.1");
	put_link(t.root, "usr/lib/libc.so.4", "/lib/libc.so.4.4.1");
	char *want = in_real(&t, "lib/libc.so.4.4.1");

	/* two names, one file: one library, its names kept */
	static const char *const two[] = { "/lib/libc.so.4", "/usr/lib/libc.so.4" };
	if (prog_naming(&m, two, 2, JUMP(LIB_A)) == 0) {
		CU_ASSERT_EQUAL(libs_resolve(&m.a, 0x1000, 0x7000, NULL, 0, t.root,
					     0, &set, &d), 0);
		CHECK_U(set.n, 1);
		CHECK_STR(set.libs[0].name, "/lib/libc.so.4");
		CHECK_U(set.libs[0].naliases, 1);
		CHECK_STR(set.libs[0].aliases[0], "/usr/lib/libc.so.4");
		CHECK_STR(set.libs[0].path, want);
		CHECK_STR(set.warnings, "");
		libs_free(&set);
	}
	img_free(&m);
	/* its jump table checked for each name */
	if (prog_naming(&m, two, 2, JUMP(LIB_A) + 0x10000) == 0) {
		CU_ASSERT_EQUAL(libs_resolve(&m.a, 0x1000, 0x7000, NULL, 0, t.root,
					     0, &set, &d), -1);
		snprintf(msg, sizeof msg, "%s: the jump table 0x61010040 that the "
			 "program uses is not in this library "
			 "(0x61000000-0x61003000)", want);
		CHECK_STR(d.msg, msg);
	}
	img_free(&m);

	/* two files of the same bytes: one library */
	put_lib(t.ldir, "libc.so.4", LIB_A, 0x10000);
	static const char *const copies[] = { "/lib/libc.so.4", "libc.so.4" };
	const char *dirs[] = { t.ldir };
	if (prog_naming(&m, copies, 2, JUMP(LIB_A)) == 0) {
		CU_ASSERT_EQUAL(libs_resolve(&m.a, 0x1000, 0x7000, dirs, 1, t.root,
					     0, &set, &d), 0);
		CHECK_U(set.n, 1);
		CHECK_U(set.libs[0].naliases, 1);
		CHECK_STR(set.libs[0].aliases[0], "libc.so.4");
		libs_free(&set);
	}
	img_free(&m);

	/* two different files at the same addresses: the overlap, both named */
	char *other = sub(t.ldir, "libc.so.4");
	put_lib(t.dir, "L/libc.so.4.tmp", LIB_A, 0x10001);
	char *tmp = sub(t.ldir, "libc.so.4.tmp");
	CU_ASSERT_EQUAL(rename(tmp, other), 0);
	if (prog_naming(&m, copies, 2, JUMP(LIB_A)) == 0) {
		CU_ASSERT_EQUAL(libs_resolve(&m.a, 0x1000, 0x7000, dirs, 1, t.root,
					     0, &set, &d), -1);
		snprintf(msg, sizeof msg, "%s (0x61000000-0x61006000) overlaps %s "
			 "(0x61000000-0x61006000)", other, want);
		CHECK_STR(d.msg, msg);
	}
	img_free(&m);

	/* more names than a library keeps */
	static const char *const many[] = { "/lib/libc.so.4", "//lib/libc.so.4",
		"///lib/libc.so.4", "/usr/lib/libc.so.4", "//usr/lib/libc.so.4",
		"/lib/./libc.so.4", "/lib/../lib/libc.so.4", "/usr/../lib/libc.so.4",
		"/usr/lib/./libc.so.4" };
	if (prog_naming(&m, many, 9, JUMP(LIB_A)) == 0) {
		CU_ASSERT_EQUAL(libs_resolve(&m.a, 0x1000, 0x7000, NULL, 0, t.root,
					     0, &set, &d), -1);
		snprintf(msg, sizeof msg, "names %s under more than 8 names", want);
		CHECK_STR(d.msg, msg);
		CHECK_U(set.n, 0);
	}
	img_free(&m);
	if (prog_naming(&m, many, 8, JUMP(LIB_A)) == 0) {
		CU_ASSERT_EQUAL(libs_resolve(&m.a, 0x1000, 0x7000, NULL, 0, t.root,
					     0, &set, &d), 0);
		CHECK_U(set.n, 1);
		CHECK_U(set.libs[0].naliases, LIBS_MAX_ALIASES);
		libs_free(&set);
	}
	img_free(&m);
	free(want);
	free(other);
	free(tmp);
	tree_free(&t);
}

/* libm names libc by its bare name, the program by its path: one libc. */
static void test_library_records(void)
{
	struct tree t;
	struct img m, lib;
	struct libset set;
	struct diag d = { "" };
	char msg[512];
	static const char *const names[] = { "/lib/libm.so.4", "/lib/libc.so.4" };

	tree_make(&t);
	put_lib(t.root, "lib/libc.so.4", LIB_A, 0x40191);
	char *libc = in_real(&t, "lib/libc.so.4"), *libm = in_real(&t, "lib/libm.so.4");

	for (int k = 0; k < 4; k++) {
		/* libm's set: libc 4.4.1, then 4.4.2, then with its jump table
		 * elsewhere, then a library the program does not name */
		static const struct {
			const char *name;
			uint32_t jump, vers;
		} rec[] = {
			{ "libc.so.4", JUMP(LIB_A), 0x40191 },
			{ "libc.so.4", JUMP(LIB_A), 0x40192 },
			{ "libc.so.4", LIB_C, 0x40191 },
			{ "/lib/libX11.so.3", LIB_C, 0x30000 },
		};
		img_library(&lib, LIB_B, 0x40191);
		uint32_t e[1] = { record(&lib, 0x100, rec[k].name, "DLL Jump 4.4pl1",
					 rec[k].jump, rec[k].vers) };
		put_set(&lib, 0x40, e, 1);
		free(img_write(&lib, t.root, "lib/libm.so.4"));
		img_free(&lib);

		img_qprogram(&m);
		uint32_t p[3] = { m.data_addr - 4,
				  record(&m, 0x100, names[0], "4.0", JUMP(LIB_B), 0x40000),
				  record(&m, 0x110, names[1], "4.0", JUMP(LIB_A), 0x40001) };
		put_set(&m, 0x40, p, 3);
		if (img_parse(&m, AOUT_EXEC) == 0) {
			CU_ASSERT_EQUAL(libs_resolve(&m.a, 0x1000, 0x7000, NULL, 0,
						     t.root, 0, &set, &d), 0);
			CHECK_U(set.n, 2);
			if (k == 0)
				msg[0] = 0;
			else if (k == 1)
				snprintf(msg, sizeof msg, "%s was built against "
					 "libc.so.4 4.4.2 or later, and %s is "
					 "version 4.4.1\n", libm, libc);
			else if (k == 2)
				snprintf(msg, sizeof msg, "%s needs libc.so.4 with "
					 "its jump table at 0x63000000, outside %s\n",
					 libm, libc);
			else
				snprintf(msg, sizeof msg, "%s needs the a.out library "
					 "/lib/libX11.so.3, which the program does "
					 "not load\n", libm);
			CHECK_STR(set.warnings, msg);
			libs_free(&set);
		}
		img_free(&m);
	}
	free(libc);
	free(libm);
	tree_free(&t);
}

/* ==== versions, as the program's loader judges them ==== */

/* A program of loader family k needing libx.so.1 (needed, exact). */
static int family_prog(struct img *m, enum libs_loader k, uint32_t needed)
{
	img_qprogram(m);
	uint32_t e[2] = { m->data_addr - 4,
			  record(m, 0x100, "libx.so.1", "DLL Jump 1.2pl3",
				 JUMP(LIB_A), needed) };
	put_set(m, 0x40, e, 2);
	if (k == LIBS_LDSO)
		img_str(m, "/lib/ld.so");
	if (k == LIBS_CRT0_SLACKWARE)
		img_str(m, ": incompatible minor version numbers (");
	return img_parse(m, AOUT_EXEC);
}

static void test_versions(void)
{
	static const struct {
		enum libs_loader k;
		uint32_t needed;
		int rc;
		const char *says; /* the message or warning after "PATH " */
	} c[] = {
		{ LIBS_CRT0_SLS, 0x100c8, 0, "" },
		{ LIBS_CRT0_SLS, 0x100c9, -1, "is version 1.2.0, older than the "
		  "1.2.1 that the program needs" CRT0_REFUSES },
		{ LIBS_CRT0_SLS, 0x200c8, -1, "is version 1.2.0, the program needs "
		  "major version 2" CRT0_REFUSES },
		{ LIBS_CRT0_SLS, CLASSIC | 0x100c8, -1, "is version 1.2.0 "
		  "(0x000100c8), the program needs exactly 1.2.0 (0x100100c8)"
		  CRT0_REFUSES },
		{ LIBS_CRT0_SLACKWARE, 0x100c9, 0, "is version 1.2.0, older than "
		  "the 1.2.1 that the program needs: it runs, and its crt0 warns "
		  "\"Warning: <program>: libx.so.1: incompatible minor version "
		  "numbers (DLL Jump 1.2pl3).\"\n" },
		{ LIBS_CRT0_SLACKWARE, 0x200c8, -1, "is version 1.2.0, the program "
		  "needs major version 2" CRT0_REFUSES },
		{ LIBS_CRT0_SLACKWARE, CLASSIC | 0x10000, 0, "" },
		{ LIBS_LDSO, 0x1012c, 0, "is version 1.2.0, older than the 1.3.0 "
		  "that the program needs: it runs, and its ld.so warns \"Desire "
		  "minor version >= 3 and found 2\"\n" },
		{ LIBS_LDSO, 0x100c9, 0, "is version 1.2.0, older than the 1.2.1 "
		  "that the program needs: it runs, and its ld.so says nothing "
		  "(it compares only x of major.x.y)\n" },
		{ LIBS_LDSO, 0x200c8, -1, "is version 1.2.0, the program needs major "
		  "version 2; its ld.so refuses it (\"Require major version 2 and "
		  "found 1\")" },
	};
	struct tree t;
	struct img m;
	struct libset set;
	struct diag d = { "" };
	char want[512];
	const char *dirs[1];

	tree_make(&t);
	dirs[0] = t.ldir;
	put_lib(t.ldir, "libx.so.1", LIB_A, 0x100c8);
	char *path = sub(t.ldir, "libx.so.1");

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		if (family_prog(&m, c[i].k, c[i].needed) == 0) {
			/* ld.so itself is not there: allowed */
			int rc = libs_resolve(&m.a, 0x1000, 0x7000, dirs, 1, NULL,
					      1, &set, &d);

			CHECK_U(rc, c[i].rc);
			snprintf(want, sizeof want, "%s%s%s", c[i].says[0] ? path : "",
				 c[i].says[0] ? " " : "", c[i].says);
			if (rc == 0) {
				CHECK_STR(set.warnings, want);
				libs_free(&set);
			} else {
				want[sizeof d.msg - 1] = 0;
				CHECK_MSG(&d, want);
				CHECK_U(set.n, 0);
			}
		}
		img_free(&m);
	}
	/* the very word of a classic library: taken */
	put_lib(t.ldir, "libx.so.1", LIB_A, CLASSIC | 0x100c8);
	if (family_prog(&m, LIBS_CRT0_SLS, CLASSIC | 0x100c8) == 0) {
		CU_ASSERT_EQUAL(libs_resolve(&m.a, 0x1000, 0x7000, dirs, 1, NULL, 0,
					     &set, &d), 0);
		CHECK_U(set.n, 1);
		CHECK_U(set.libs[0].exact, 1);
		CHECK_STR(set.warnings, "");
		libs_free(&set);
	}
	img_free(&m);
	free(path);
	tree_free(&t);
}

/* ==== libraries where load_aout_library took them ==== */

static void test_libemu(void)
{
	struct img lib, low, prog;
	struct libset set;
	struct diag d = { "" };
	char *dir = unit_tmpdir();

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	img_library(&lib, LIB_EMU, 0x10000);
	img_library(&low, 0xf000u, 0x10000);
	CHECK_U(conv_is_shared_library(lib.g.buf, lib.g.size), 1);
	CHECK_U(conv_is_shared_library(low.g.buf, low.g.size), 0);
	if (img_parse(&lib, AOUT_SHLIB) == 0)
		CHECK_U(libs_is_library(&lib.a), 1);
	if (img_parse(&low, AOUT_SHLIB) == 0)
		CHECK_U(libs_is_library(&low.a), 0);
	/* read as a program, it is not a library */
	img_qprogram(&prog);
	if (img_parse(&prog, AOUT_EXEC) == 0)
		CHECK_U(libs_is_library(&prog.a), 0);
	img_free(&prog);
	/* as a library, a program's image is not one either: below 64 KiB,
	 * or (with its entry at 0x10020, in its text) fine as a program */
	img_qprogram(&prog);
	if (img_parse(&prog, AOUT_SHLIB) == 0)
		CHECK_U(libs_is_library(&prog.a), 0);
	img_free(&prog);
	img_program(&prog, AOUT_QMAGIC, 0x20000, 0x1000);
	aoutgen_set_field(&prog.g, AG_ENTRY, 0x10020);
	if (img_parse(&prog, AOUT_SHLIB) == 0) {
		CHECK_U(aout_lib_start(&prog.a), 0x10000);
		CHECK_U(libs_is_library(&prog.a), 0);
	}
	CHECK_U(conv_is_shared_library(prog.g.buf, prog.g.size), 0);
	img_free(&prog);
	/* one ending past IMAGE_LIMIT is no library */
	{
		struct img top;

		img_library(&top, IMAGE_LIMIT - 0x2000, 0x10000);
		if (img_parse(&top, AOUT_SHLIB) == 0)
			CHECK_U(libs_is_library(&top.a), 0);
		img_free(&top);
	}

	/* the program that uses it: found, mapped at 0x10000000 */
	char *path = img_write(&lib, dir, "libemu");
	const char *dirs[] = { dir };

	prog_with(&prog, "/lib/libemu", JUMP(LIB_EMU), 0x10000);
	if (img_parse(&prog, AOUT_EXEC) == 0) {
		CU_ASSERT_EQUAL(libs_resolve(&prog.a, 0x1000, 0x7000, dirs, 1, NULL,
					     0, &set, &d), 0);
		CHECK_U(set.n, 1);
		if (set.n == 1) {
			CHECK_STR(set.libs[0].path, path);
			CHECK_U(set.libs[0].start, LIB_EMU);
			CHECK_U(set.libs[0].version, 0x10000);
		}
		libs_free(&set);
	}
	img_free(&prog);
	img_free(&lib);
	img_free(&low);
	free(path);
	unit_rmtree(dir);
}

/* ==== what --info and a conversion say ==== */

static void test_info_lines(void)
{
	struct tree t;
	struct conv_options o;
	struct conv_job j;
	struct diag d = { "" };
	struct img m;
	char *text = NULL, want[2048];
	size_t len = 0;
	static const char *const names[] = { "/lib/libc.so.4", "/usr/lib/libc.so.4",
					     "/lib/libc.so.4.0" };

	tree_make(&t);
	put_lib(t.root, "lib/libc.so.4.4.1", LIB_A, 0x10000);
	put_link(t.root, "lib/libc.so.4", "/lib/libc.so.4.4.1");
	put_link(t.root, "usr/lib/libc.so.4", "/lib/libc.so.4.4.1");
	char *libc = in_real(&t, "lib/libc.so.4.4.1");

	/* libc by two names, then 4.0 exactly, which is not there */
	img_qprogram(&m);
	uint32_t e[4] = { m.data_addr - 4,
			  record(&m, 0x100, names[0], "4.0", JUMP(LIB_A), 0x10000),
			  record(&m, 0x110, names[1], "4.0", JUMP(LIB_A), 0x10000),
			  record(&m, 0x120, names[2], "4.0", JUMP(LIB_B),
				 CLASSIC | 0x40000) };
	put_set(&m, 0x40, e, 4);
	img_str(&m, ": incompatible minor version numbers (");
	char *prog = img_write(&m, t.dir, "prog");
	memset(&o, 0, sizeof o);
	o.sysroot = t.root;
	if (conv_load(prog, &o, 1, &j, &d) == 0) {
		FILE *f = open_memstream(&text, &len);

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		info_print(f, prog, &j.a, &j.p, &j.libs);
		fclose(f);
		snprintf(want, sizeof want,
			 "  Linking:          dynamic (uselib), 2 a.out libraries\n"
			 "    /lib/libc.so.4, /usr/lib/libc.so.4 (1.0.0 or later, "
			 "for the program) => %s (1.0.0) at 0x61000000-0x61006000\n"
			 "    /lib/libc.so.4.0 (4.0.0 exactly, for the program) => "
			 "not found\n"
			 "  At run time:      uselib() ", libc);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
		if (!strstr(text, want))
			fprintf(stderr, "test_info_lines: got\n%s\n", text);
		conv_job_free(&j);
	} else {
		CU_FAIL(d.msg);
	}
	free(text);
	text = NULL;
	img_free(&m);

	/* a warning shows under the libraries */
	img_qprogram(&m);
	e[1] = record(&m, 0x100, names[0], "DLL Jump 1.0pl1", JUMP(LIB_A), 0x10001);
	put_set(&m, 0x40, e, 2);
	img_str(&m, ": incompatible minor version numbers (");
	free(img_write(&m, t.dir, "prog"));
	if (conv_load(prog, &o, 0, &j, &d) == 0) {
		FILE *f = open_memstream(&text, &len);

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		info_print(f, prog, &j.a, &j.p, &j.libs);
		fclose(f);
		snprintf(want, sizeof want, " at 0x61000000-0x61006000\n"
			 "    warning: %s is version 1.0.0, older than the 1.0.1 "
			 "that the program needs: it runs, and its crt0 warns "
			 "\"Warning: <program>: /lib/libc.so.4: incompatible minor "
			 "version numbers (DLL Jump 1.0pl1).\"\n  At run time:      "
			 "uselib() answered from the copies inside the program, "
			 "by file name\n  Load map", libc);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
		if (!strstr(text, want))
			fprintf(stderr, "test_info_lines: got\n%s\n", text);
		conv_job_free(&j);

		/* and as a conversion's warning, on its output */
		struct conv_result r;
		char *out = sub(t.dir, "out");

		CU_ASSERT_EQUAL(conv_file(prog, out, &o, &r), 0);
		snprintf(want, sizeof want, "aout2elf: warning: %s: %s is version "
			 "1.0.0, older than the 1.0.1 that the program needs: it "
			 "runs, and its crt0 warns \"Warning: <program>: "
			 "/lib/libc.so.4: incompatible minor version numbers (DLL "
			 "Jump 1.0pl1).\"\n", out, libc);
		/* (after the one on vm.mmap_min_addr, where 0x1000 is below it) */
		CU_ASSERT(r.warning && strstr(r.warning, want));
		if (!r.warning || !strstr(r.warning, want))
			fprintf(stderr, "test_info_lines: got %s\n",
				r.warning ? r.warning : "none");
		free(r.warning);
		/* quiet: none */
		o.quiet = 1;
		o.force = 1;
		CU_ASSERT_EQUAL(conv_file(prog, out, &o, &r), 0);
		CU_ASSERT_PTR_NULL(r.warning);
		/* the .comment says which sysroot */
		char *c = conv_comment(&o);
		snprintf(want, sizeof want, "(--sysroot %s)", t.root);
		CU_ASSERT(c && strstr(c, want));
		free(c);
		free(out);
	} else {
		CU_FAIL(d.msg);
	}
	free(text);
	img_free(&m);
	free(prog);
	free(libc);
	tree_free(&t);
}

/* A warning naming an output path of PATH_MAX bytes comes out whole. */
static void test_warning_whole(void)
{
	struct tree t;
	struct conv_options o;
	struct conv_result r;
	struct img m;
	char *prog, *dst, *want;
	size_t len;

	tree_make(&t);
	img_qprogram(&m);
	uint32_t e[2] = { m.data_addr - 4,
			  record(&m, 0x100, "/lib/libnone.so.1", "1.0", JUMP(LIB_A),
				 0x10000) };
	put_set(&m, 0x40, e, 2);
	prog = img_write(&m, t.dir, "prog");
	/* folders of 200 bytes, then a name that makes PATH_MAX - 1 */
	dst = malloc(PATH_MAX);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dst);
	len = (size_t)snprintf(dst, PATH_MAX, "%s", t.dir);
	while (len + 1 + 200 + 1 + 100 < PATH_MAX - 1) {
		dst[len++] = '/';
		memset(dst + len, 'd', 200);
		len += 200;
		dst[len] = 0;
		CU_ASSERT_EQUAL(mkdir(dst, 0755), 0);
	}
	dst[len++] = '/';
	memset(dst + len, 'p', PATH_MAX - 1 - len);
	dst[PATH_MAX - 1] = 0;
	memset(&o, 0, sizeof o);
	o.plan.no_embed_libs = 1;
	o.libdirs[0] = t.ldir;
	o.nlibdirs = 1;
	CU_ASSERT_EQUAL(conv_file(prog, dst, &o, &r), 0);
	CU_ASSERT(asprintf(&want, "aout2elf: warning: %s: a.out library "
			   "/lib/libnone.so.1 not found here; the program looks "
			   "for it when it runs\n", dst) > 0);
	/* (after the one on vm.mmap_min_addr, where the program is below it) */
	len = r.warning ? strlen(r.warning) : 0;
	CU_ASSERT(len >= strlen(want) &&
		  !strcmp(r.warning + len - strlen(want), want));
	free(r.warning);
	free(want);
	free(dst);
	free(prog);
	img_free(&m);
	tree_free(&t);
}

int unit_libs_search_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_set_program),
		UNIT_TEST(test_set_refused),
		UNIT_TEST(test_set_limits),
		UNIT_TEST(test_fallback),
		UNIT_TEST(test_loader_of),
		UNIT_TEST(test_judge),
		UNIT_TEST(test_lookup_sysroot),
		UNIT_TEST(test_lookup_order),
		UNIT_TEST(test_lookup_errors),
		UNIT_TEST(test_lookup_without_openat2),
		UNIT_TEST(test_shadowed_in),
		UNIT_TEST(test_identity),
		UNIT_TEST(test_library_records),
		UNIT_TEST(test_versions),
		UNIT_TEST(test_libemu),
		UNIT_TEST(test_info_lines),
		UNIT_TEST(test_warning_whole),
		UNIT_END,
	};

	return unit_add_suite("a.out libraries of 1992-1994 (src/libs.c)",
			      NULL, NULL, tests);
}
