/*
 * aout2elf --gdb FILE [ARG]...
 *
 * When exec is done, the a.out segments are not yet at their addresses:
 * the stub moves them there from staging (src/stub/start.c), so gdb
 * cannot insert a breakpoint set on the a.out code before "run" ("Cannot
 * access memory").  gdb is started with "starti" and taken, by "advance",
 * to the point in the stub's _start where stub_main has returned (the
 * image is in place from there on), then to the a.out entry point.  From
 * there every breakpoint can be set.  SIGSYS, by which the stub traps the
 * program's uselib and brk calls, is passed to it without a stop.
 *
 * An a.out FILE is converted first, into a private temporary directory
 * that is removed when gdb ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "debug.h"
#include "elfwrite.h"

/*
 * _start begins "movl %esp,%eax; pushl %eax; call stub_main"
 * (src/stub/stub_start.S): the call returns 8 bytes in.
 */
static const unsigned char start_code[] = { 0x89, 0xe0, 0x50, 0xe8 };
#define START_CALL_RETURNS 8u

#define ELF_E_ENTRY 24 /* offset of e_entry in the ELF32 header */

int debug_find_stops(const unsigned char *buf, size_t size,
		     struct debug_stops *s, struct diag *d)
{
	const uint32_t stub = ELFW_STUB_OFFSET;

	if (size < stub + sizeof(struct stub_header) || memcmp(buf, "\177ELF", 4) != 0 ||
	    le32_at(buf + stub) != STUB_MAGIC)
		return diag_set(d, "not a program aout2elf converted");

	uint32_t entry = le32_at(buf + ELF_E_ENTRY);
	uint32_t plan_off = le32_at(buf + stub + offsetof(struct stub_header, plan_off));
	uint64_t code = (uint64_t)stub + entry - STUB_BASE;
	uint64_t plan = (uint64_t)stub + plan_off;

	if (entry < STUB_BASE || code + sizeof start_code > size ||
	    memcmp(buf + code, start_code, sizeof start_code) != 0 ||
	    plan + sizeof(struct stub_plan) > size ||
	    le32_at(buf + plan) != STUB_PLAN_MAGIC)
		return diag_set(d, "its runtime stub starts in a way aout2elf --gdb "
				   "does not know (converted by another version?)");
	s->mapped = entry + START_CALL_RETURNS;
	s->entry = le32_at(buf + plan + offsetof(struct stub_plan, entry));
	return 0;
}

/* The stops of the converted program at path: 0, or -1 with d set. */
static int read_stops(const char *path, struct debug_stops *s, struct diag *d)
{
	size_t cap = ELFW_STUB_OFFSET + STUB_MAX_FILESZ + sizeof(struct stub_plan);
	unsigned char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = 0, got;
	int rc;

	if (fd < 0 || !buf) {
		rc = diag_set(d, "%s", fd < 0 ? strerror(errno) : "out of memory");
	} else {
		while ((size_t)n < cap && (got = pread(fd, buf + n, cap - (size_t)n, n)) > 0)
			n += got;
		rc = debug_find_stops(buf, (size_t)n, s, d);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

static int is_converted(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int yes = fd >= 0 && elfw_is_converted(fd);

	if (fd >= 0)
		close(fd);
	return yes;
}

/* Replaces this process with gdb, stopped at the a.out entry point. */
static void exec_gdb(char **argv, const char *path, const struct debug_stops *s)
{
	char mapped[32], entry[32];
	int n = 0;

	while (argv[n])
		n++;

	const char **args = calloc((size_t)n + 12, sizeof *args);
	int i = 0;

	if (!args) {
		diag_print(NULL, "out of memory");
		return;
	}
	snprintf(mapped, sizeof mapped, "advance *%#x", s->mapped);
	snprintf(entry, sizeof entry, "advance *%#x", s->entry);
	args[i++] = "gdb";
	args[i++] = "-q";
	args[i++] = "-ex";
	args[i++] = "handle SIGSYS nostop noprint pass";
	args[i++] = "-ex";
	args[i++] = "starti";
	args[i++] = "-ex";
	args[i++] = mapped;
	args[i++] = "-ex";
	args[i++] = entry;
	args[i++] = "--args";
	args[i++] = path;
	for (int k = 1; k < n; k++)
		args[i++] = argv[k];
	execvp("gdb", (char *const *)args);
	diag_print("gdb", strerror(errno));
	free(args);
}

/* gdb as a child, while the temporary conversion is kept for it. */
static int run_gdb(char **argv, const char *path, const struct debug_stops *s)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int status;
	pid_t pid;

	/* ^C and ^\ are gdb's, as system() leaves them */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		exec_gdb(argv, path, s);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (pid < 0) {
		diag_print(NULL, strerror(errno));
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Converts the a.out src into dir/its name; the new path, or NULL. */
static char *convert_for_gdb(const char *src, const char *dir,
			     const struct conv_options *o)
{
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	size_t len = strlen(dir) + strlen(base) + 2;
	char *dst = malloc(len);
	struct conv_result r;

	if (!dst) {
		diag_print(NULL, "out of memory");
		return NULL;
	}
	snprintf(dst, len, "%s/%s", dir, base);
	if (conv_file(src, dst, o, &r)) {
		diag_print(r.reason_is_output ? dst : src, r.reason);
		free(dst);
		return NULL;
	}
	if (r.warning)
		fputs(r.warning, stderr);
	free(r.warning);
	return dst;
}

int debug_program(char **argv, const struct conv_options *o)
{
	struct debug_stops s = { 0, 0 };
	struct diag d;

	if (is_converted(argv[0])) {
		if (read_stops(argv[0], &s, &d)) {
			diag_print(argv[0], d.msg);
			return 1;
		}
		exec_gdb(argv, argv[0], &s);
		return 127;
	}

	const char *tmp = getenv("TMPDIR");
	char dir[4096];
	int rc = 1;

	snprintf(dir, sizeof dir, "%s/aout2elf-gdb.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		diag_print(dir, strerror(errno));
		return 1;
	}
	char *path = convert_for_gdb(argv[0], dir, o);

	if (path && read_stops(path, &s, &d) == 0)
		rc = run_gdb(argv, path, &s);
	else if (path)
		diag_print(path, d.msg);
	if (path)
		unlink(path);
	rmdir(dir);
	free(path);
	return rc;
}
