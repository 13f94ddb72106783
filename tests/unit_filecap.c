/*
 * src/filecap.c and --setcap in conv_file: the bytes of security.capability
 * (those setcap(8) writes for cap_sys_rawio+ep), where the kernel refuses
 * them and what is said then, and that a refused --setcap leaves no
 * output behind.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "convert.h"
#include "filecap.h"
#include "helpers/aoutgen.h"
#include "unit.h"

/* `setcap cap_sys_rawio+ep F; getfattr -e hex -n security.capability F` */
static const uint8_t setcap_rawio_ep[FILECAP_SIZE] = {
	0x01, 0x00, 0x00, 0x02, /* VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE */
	0x00, 0x00, 0x02, 0x00, /* permitted: 1 << CAP_SYS_RAWIO (17) */
};

static void test_filecap_bytes(void)
{
	uint8_t got[FILECAP_SIZE];

	memset(got, 0xaa, sizeof got);
	filecap_rawio_bytes(got);
	CU_ASSERT(memcmp(got, setcap_rawio_ep, FILECAP_SIZE) == 0);
}

/* A file that takes no xattrs at all: the reason names --setcap. */
static void test_filecap_refused_by_pipe(void)
{
	int p[2];
	struct diag d = { "" };

	CU_ASSERT_FATAL(pipe(p) == 0);
	CHECK_U((uint64_t)(int64_t)filecap_set_rawio(p[1], &d), (uint64_t)(int64_t)-1);
	CHECK_MSG_HAS(&d, "cannot give it CAP_SYS_RAWIO (--setcap): ");
	close(p[0]);
	close(p[1]);
}

/* What filecap_set_rawio does to a fresh file here: root sets the bytes. */
static void test_filecap_on_file(void)
{
	char *dir = unit_tmpdir(), *path = dir ? unit_path(dir, "prog") : NULL;
	struct diag d = { "" };
	uint8_t back[FILECAP_SIZE + 4];
	int fd;

	CU_ASSERT_FATAL(path && unit_write_file(path, "x", 1, 0755) == 0);
	fd = open(path, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	if (filecap_set_rawio(fd, &d) == 0) {
		CHECK_U((uint64_t)fgetxattr(fd, FILECAP_XATTR, back, sizeof back),
			FILECAP_SIZE);
		CU_ASSERT(memcmp(back, setcap_rawio_ep, FILECAP_SIZE) == 0);
	} else if (geteuid() != 0) {
		CHECK_MSG_HAS(&d, "Operation not permitted; only root (CAP_SETFCAP) can");
	} else {
		/* root, on a file system without security xattrs */
		CHECK_MSG_HAS(&d, "keeps no file capabilities");
	}
	close(fd);
	free(path);
	unit_rmtree(dir);
}

/*
 * conv_file with --setcap where it is refused (an ordinary user: root
 * drops to uid 65534 in a child first): fails, names the output, leaves
 * nothing in the folder.  The child's exit status is the first check
 * that failed there (0: none).
 */
static int setcap_refused_child(const char *in, const char *dir)
{
	struct conv_options o = { .setcap = 1, .quiet = 1 };
	struct conv_result r;
	char *out = unit_path(dir, "out");

	if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
		return 10;
	if (!out || conv_file(in, out, &o, &r) != -1)
		return 1;
	if (r.status != CONV_FAILED || !r.reason_is_output)
		return 2;
	if (strcmp(r.reason, "cannot give it CAP_SYS_RAWIO (--setcap): Operation "
			     "not permitted; only root (CAP_SETFCAP) can") != 0)
		return 3;
	if (unit_count_entries(dir) != 0)
		return 4;
	free(out);
	return 0;
}

static void test_conv_setcap_refused_leaves_nothing(void)
{
	char *dir = unit_tmpdir(), *outdir = dir ? unit_path(dir, "out") : NULL;
	char *in = dir ? unit_path(dir, "in.aout") : NULL;
	struct aoutgen_spec s;
	struct aoutgen g;
	int st = -1;
	pid_t pid;

	CU_ASSERT_FATAL(dir && outdir && in);
	aoutgen_default(&s, AOUT_QMAGIC);
	aoutgen_build(&s, &g);
	CU_ASSERT_EQUAL_FATAL(unit_write_file(in, g.buf, g.size, 0644), 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(outdir, 0777), 0);
	CU_ASSERT_EQUAL_FATAL(chmod(outdir, 0777), 0);
	CU_ASSERT_EQUAL_FATAL(chmod(dir, 0755), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(setcap_refused_child(in, outdir));
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st));
	CHECK_U((uint64_t)WEXITSTATUS(st), 0);
	aoutgen_free(&g);
	free(in);
	free(outdir);
	unit_rmtree(dir);
}

/* --setcap and --keep-rawio shape the output: a batch rerun converts again */
static void test_conv_comment_names_caps(void)
{
	struct conv_options o = { .setcap = 1 };
	char *c;

	o.plan.keep_rawio = 1;
	c = conv_comment(&o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	unit_check_has(c, " (--keep-rawio --setcap)", "the comment", __LINE__,
		       __FILE__, __func__);
	free(c);
}

int unit_filecap_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_filecap_bytes),
		UNIT_TEST(test_filecap_refused_by_pipe),
		UNIT_TEST(test_filecap_on_file),
		UNIT_TEST(test_conv_setcap_refused_leaves_nothing),
		UNIT_TEST(test_conv_comment_names_caps),
		UNIT_END
	};

	return unit_add_suite("file capability (src/filecap.c, --setcap)", NULL,
			      NULL, tests);
}
