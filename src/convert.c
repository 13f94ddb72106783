/*
 * One conversion: an input read and planned with its libraries, the ELF
 * file written with its .comment, and what the command line and the
 * batch report say of it; or, for --exec, written into memory and run.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* <linux/memfd.h> of Linux 6.3 */
#endif
#include <sys/personality.h>
#include <unistd.h>

#include "convert.h"
#include "shared_libs.h"
#include "elfwrite.h"
#include "filecap.h"
#include "record.h"
#include "stub_image.h"
#include "uselib_sites.h"

void conv_job_free(struct conv_job *j)
{
	libs_free(&j->libs);
	aout_free(&j->a);
	input_free(&j->in);
}

int conv_is_shared_library(const uint8_t *buf, size_t size)
{
	struct aout a;
	int lib = 0;

	if (aout_parse_opts(buf, size, AOUT_SHLIB, AOUT_PARSE_NO_SYMBOLS, &a,
			    NULL) == 0) {
		lib = libs_is_library(&a);
		aout_free(&a);
	}
	return lib;
}

/*
 * Reads and plans one input with its libraries; missing libraries are
 * fatal only when they would be embedded.
 */
int conv_prepare(struct conv_job *j, const struct conv_options *o,
		 int missing_ok, struct diag *d)
{
	if (aout_parse_opts(j->in.buf, j->in.size, AOUT_EXEC,
			    o->strip ? AOUT_PARSE_NO_SYMBOLS : 0, &j->a, d)) {
		/* read as a program, its entry is outside its text: say what it is */
		if (conv_is_shared_library(j->in.buf, j->in.size))
			diag_set(d, CONV_SHARED_LIBRARY);
		conv_job_free(j);
		return -1;
	}
	if (plan_build(&j->a, &o->plan, &j->p, d) ||
	    libs_resolve(&j->a, j->p.min_addr, j->p.image_end, o->libdirs,
			 o->nlibdirs, o->sysroot, missing_ok, &j->libs, d) ||
	    plan_add_libs(&j->p, &j->libs, &o->plan, o->libdirs, o->nlibdirs, d) ||
	    elfw_check(&j->a, &j->p, stub_image, stub_image_size, d)) {
		conv_job_free(j);
		return -1;
	}
	return 0;
}

int conv_load(const char *path, const struct conv_options *o, int missing_ok,
	      struct conv_job *j, struct diag *d)
{
	memset(j, 0, sizeof *j);
	if (input_read_checked(path, &j->in, aout_check_header, d))
		return -1;
	return conv_prepare(j, o, missing_ok, d);
}

void conv_describe(char *out, size_t cap, const struct conv_result *r,
		   int no_embed_libs)
{
	snprintf(out, cap, "%s, %s", r->format,
		 !r->dynamic ? "static" :
		 no_embed_libs ? "dynamic, libraries at run time" :
				 "dynamic, libraries embedded");
}

const char *conv_status_name(enum conv_status s)
{
	static const char *const names[] = { "converted", "up-to-date",
					     "skipped", "failed" };
	return names[s];
}

/*
 * Read once per process (a batch converts thousands of files), or 0 when
 * it cannot be read, then tried again next time: a failure for want of
 * memory must not silence the warning for the rest of a batch.
 */
static unsigned long mmap_min_addr(void)
{
	static int known;
	static unsigned long v;
	FILE *f;

	if (known)
		return v;
	f = fopen("/proc/sys/vm/mmap_min_addr", "r");
	if (!f)
		return 0;
	known = fscanf(f, "%lu", &v) == 1;
	fclose(f);
	return known ? v : 0;
}

static void describe(const struct conv_job *j, struct conv_result *r)
{
	size_t used = 0;

	snprintf(r->format, sizeof r->format, "%s", aout_magic_name(j->a.magic));
	r->dynamic = j->p.dynamic;
	for (size_t i = 0; i < j->libs.n; i++)
		used += (size_t)snprintf(r->libraries + used,
					 sizeof r->libraries - used, "%s%s",
					 i ? " " : "", j->libs.libs[i].name);
}

/*
 * One more line "aout2elf: warning: ...\n" in r->warning, printed as it
 * is: whole, however long its paths, with its prefix and its newline,
 * and never with a newline of a file name's in it (diag_escape).  Only
 * without memory is a line left out.
 */
static void add_warning(struct conv_result *r, const char *fmt, ...)
{
	static const char prefix[] = "aout2elf: warning: ";
	size_t used = r->warning ? strlen(r->warning) : 0, len, cap;
	char *line, *w;
	va_list ap;

	va_start(ap, fmt);
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): a false alarm */
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line)
		return;
	len = strlen(line);
	if (len && line[len - 1] == '\n')
		line[--len] = 0;
	/* an escaped control character takes four bytes ("\033") */
	cap = used + sizeof prefix + 4 * len + 2;
	w = realloc(r->warning, cap);
	if (w) {
		memcpy(w + used, prefix, sizeof prefix);
		used += sizeof prefix - 1;
		diag_escape(w + used, cap - used - 1, line);
		used += strlen(w + used);
		memcpy(w + used, "\n", 2);
		r->warning = w;
	}
	free(line);
}

static void warnings(const char *dst, const struct conv_job *j,
		     const struct conv_options *o, struct conv_result *r)
{
	unsigned long min = mmap_min_addr();

	if (o->quiet)
		return;
	/* the two remedies, as the stub's own message names them */
	if (j->p.min_addr < min && !o->setcap)
		add_warning(r, "%s: needs address 0x%x, below vm.mmap_min_addr (%lu) "
			    "here; only root can run it, unless given the right: "
			    "for it, 'setcap cap_sys_rawio+ep %s' (or --setcap); "
			    "for all programs, 'sysctl -w vm.mmap_min_addr=%u'\n",
			    dst, j->p.min_addr, min, dst, j->p.min_addr);
	for (size_t i = 0; i < j->libs.n; i++)
		if (!j->libs.libs[i].path)
			add_warning(r, "%s: a.out library %s not found here; the "
				    "program looks for it when it runs\n", dst,
				    j->libs.libs[i].name);
	for (const char *w = j->libs.warnings; *w; w = strchr(w, '\n') + 1)
		add_warning(r, "%s: %.*s\n", dst, (int)strcspn(w, "\n"), w);
}

size_t conv_option_words(const struct conv_options *o,
			 const char *words[CONV_OPTION_WORDS])
{
	const char *flag[] = {
		o->shared_libs ? "--shared-libs" :
		o->plan.no_embed_libs ? "--no-embed-libs" : NULL,
		o->plan.direct ? "--direct" : NULL,
		o->plan.noexec ? "--noexecstack" : NULL,
		o->strip ? "--strip" : NULL,
		o->plan.norandom ? "--no-randomize" : NULL,
		o->plan.keep_rawio ? "--keep-rawio" : NULL,
		o->setcap ? "--setcap" : NULL,
	};
	size_t n = 0;

	for (size_t i = 0; i < o->nlibdirs; i++) {
		words[n++] = "-L";
		words[n++] = o->libdirs[i];
	}
	if (o->sysroot) {
		words[n++] = "--sysroot";
		words[n++] = o->sysroot;
	}
	for (size_t i = 0; i < sizeof flag / sizeof *flag; i++)
		if (flag[i])
			words[n++] = flag[i];
	return n;
}

char *conv_comment(const struct conv_options *o)
{
	static const char head[] = "aout2elf " PACKAGE_VERSION;
	const char *words[CONV_OPTION_WORDS];
	size_t n = conv_option_words(o, words), len = sizeof head + 3; /* " (" and ")" */
	char *c, *at;

	for (size_t i = 0; i < n; i++)
		len += 1 + strlen(words[i]);
	c = malloc(len);
	if (!c)
		return NULL;
	at = c + sprintf(c, "%s", head);
	for (size_t i = 0; i < n; i++)
		at += sprintf(at, "%s%s", i ? " " : " (", words[i]);
	if (n)
		memcpy(at, ")", 2);
	return c;
}

/* room for " (NAME, SIZE bytes, modified DATE, hash HASH)" */
#define EMBEDS_TAIL (64 + RECORD_TIME_MAX + STUB_LIB_NAME)
/* room for "from FORMAT (SIZE bytes, sha256 HEX)" */
#define FROM_MAX (48 + SHA256_HEX)

/* Whether conv_file_comment records j's library i: carried or shared. */
static int recorded(const struct conv_options *o, const struct conv_job *j, size_t i)
{
	return j->p.libs[i].embedded || (o->shared_libs && j->libs.libs[i].path);
}

char *conv_file_comment(const struct conv_options *o, const struct conv_job *j,
			size_t *size)
{
	char *head = conv_comment(o), *c;
	size_t len = head ? strlen(head) + 1 + FROM_MAX : 0;
	char sha[SHA256_HEX];

	for (size_t i = 0; head && i < j->p.nlibs; i++)
		if (recorded(o, j, i))
			len += sizeof CONV_EMBEDS + strlen(j->libs.libs[i].path) +
			       EMBEDS_TAIL;
	c = head ? realloc(head, len) : NULL;
	if (!c) {
		free(head);
		return NULL;
	}
	*size = strlen(c) + 1;
	sha256_hex(j->in.buf, j->in.size, sha);
	record_from_write(c + *size, FROM_MAX, aout_magic_name(j->a.magic),
			  j->in.size, sha);
	*size += strlen(c + *size) + 1;
	for (size_t i = 0; i < j->p.nlibs; i++) {
		const struct lib *l = &j->libs.libs[i];
		int embeds = j->p.libs[i].embedded;
		char hash[17] = "", date[RECORD_TIME_MAX];

		if (!recorded(o, j, i))
			continue;
		if (!embeds)
			shared_libs_hash(l->in.buf, l->in.size, hash);
		record_time_iso(date, &l->in.st.st_mtim);
		*size += (size_t)sprintf(c + *size,
					 "%s%s (%s, %llu bytes, modified %s%s%s)",
					 embeds ? CONV_EMBEDS : CONV_SHARES, l->path,
					 l->name, (unsigned long long)l->in.st.st_size,
					 date, embeds ? "" : ", hash ", hash) +
			 1;
	}
	return c;
}

int conv_embeds_parse(const char *s, struct conv_embedded *e)
{
	const char *tail = strrchr(s, '(');
	unsigned long long bytes;
	size_t date;
	int at = -1, end = -1;

	_Static_assert(sizeof e->name == 32, "the %31[^,] below fills e->name");
	_Static_assert(sizeof CONV_EMBEDS == sizeof CONV_SHARES, "one length");
	_Static_assert(sizeof e->hash == 17, "the %16[0-9a-f] below fills e->hash");
	e->path = NULL;
	e->hash[0] = 0;
	e->shared = strncmp(s, CONV_SHARES, strlen(CONV_SHARES)) == 0;
	if ((!e->shared && strncmp(s, CONV_EMBEDS, strlen(CONV_EMBEDS)) != 0) || !tail ||
	    tail < s + strlen(CONV_EMBEDS) + 2 || tail[-1] != ' ')
		return -1;
	/* "(NAME, SIZE bytes, modified DATE" then ")" or ", hash HASH)" */
	if (sscanf(tail, "(%31[^,], %llu bytes, modified %n", e->name, &bytes, &at) != 2 ||
	    at < 0 || !(date = record_time_parse(tail + at, &e->mtime)))
		return -1;
	tail += at + date;
	if (e->shared)
		sscanf(tail, ", hash %16[0-9a-f])%n", e->hash, &end);
	else
		end = *tail == ')' ? 1 : -1;
	if (end < 0 || tail[end] || (e->shared && strlen(e->hash) != 16))
		return -1;
	tail = strrchr(s, '(');
	e->path = strndup(s + strlen(CONV_EMBEDS),
			  (size_t)(tail - 1 - (s + strlen(CONV_EMBEDS))));
	if (!e->path)
		return -1;
	e->size = bytes;
	return 0;
}

int conv_is_converted(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int yes = fd >= 0 && elfw_is_converted(fd);

	if (fd >= 0)
		close(fd);
	return yes;
}

int conv_converted_alike(const char *path, const char *comment,
			 const struct conv_options *o)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	size_t size = 0;
	char *c = fd >= 0 && elfw_is_converted(fd) ? elfw_read_comment(fd, &size) :
						       NULL;
	int yes = c && !strcmp(c, comment);

	for (size_t at = c ? strlen(c) + 1 : 0; yes && at < size;
	     at += strlen(c + at) + 1) {
		struct stat lib;
		struct conv_embedded l;

		/* the a.out's record: its date and bytes are the input's to judge */
		if (!strncmp(c + at, RECORD_FROM, strlen(RECORD_FROM)))
			continue;
		yes = conv_embeds_parse(c + at, &l) == 0 && stat(l.path, &lib) == 0 &&
		      (uint64_t)lib.st_size == l.size &&
		      lib.st_mtim.tv_sec == l.mtime.tv_sec &&
		      lib.st_mtim.tv_nsec == l.mtime.tv_nsec &&
		      !libs_shadowed(l.name, l.path, o->libdirs, o->nlibdirs,
					 o->sysroot) &&
		      (!l.shared || (o->shared_libs &&
				     shared_libs_present(o->shared_libs, l.hash, l.name,
							 l.size)));
		free(l.path);
	}
	free(c);
	if (fd >= 0)
		close(fd);
	return yes;
}

/* j written to fd as ELF, its call sites rewritten first (uselib_sites.c). */
static int write_elf(int fd, struct conv_job *j, const char *comment,
		     size_t comment_size, struct diag *d)
{
	if (uselib_sites_patch(j, stub_image, stub_image_size, d))
		return -1;
	return elfw_write_with_comment(fd, &j->a, &j->p, stub_image, stub_image_size,
				       comment, comment_size, d);
}

int conv_input(struct input *in, const char *dst, const struct conv_options *o,
	       struct conv_result *r)
{
	struct conv_job j = { .in = *in };
	struct output out;
	struct diag d;

	memset(in, 0, sizeof *in); /* the job owns the buffer now */
	memset(r, 0, sizeof *r);
	r->dynamic = -1;
	r->status = CONV_FAILED;
	if (conv_prepare(&j, o, o->plan.no_embed_libs, &d)) {
		snprintf(r->reason, sizeof r->reason, "%s", d.msg);
		return -1;
	}
	if (o->shared_libs && shared_libs_place(o->shared_libs, dst, &j.libs, &j.p, &d)) {
		snprintf(r->reason, sizeof r->reason, "%s", d.msg);
		r->reason_is_output = 1;
		conv_job_free(&j);
		return -1;
	}
	describe(&j, r);
	size_t comment_size;
	char *comment = conv_file_comment(o, &j, &comment_size);

	if (!comment) {
		snprintf(r->reason, sizeof r->reason, "out of memory");
		conv_job_free(&j);
		return -1;
	}
	if (output_open(dst, &j.in.st, j.in.path, o->force, &out, &d) ||
	    write_elf(out.fd, &j, comment, comment_size, &d) ||
	    (o->setcap && filecap_set_rawio(out.fd, &d)) ||
	    output_commit(&out, output_mode(j.in.st.st_mode, o->umask_bits), &d)) {
		output_abort(&out);
		snprintf(r->reason, sizeof r->reason, "%s", d.msg);
		r->reason_is_output = 1;
		free(comment);
		conv_job_free(&j);
		return -1;
	}
	free(comment);
	warnings(dst, &j, o, r);
	r->status = CONV_CONVERTED;
	conv_job_free(&j);
	return 0;
}

int conv_file(const char *src, const char *dst, const struct conv_options *o,
	      struct conv_result *r)
{
	struct input in;
	struct diag d;

	if (input_read_checked(src, &in, aout_check_header, &d)) {
		memset(r, 0, sizeof *r);
		r->dynamic = -1;
		r->status = CONV_FAILED;
		snprintf(r->reason, sizeof r->reason, "%s", d.msg);
		return -1;
	}
	return conv_input(&in, dst, o, r);
}

int conv_to_fd(const char *src, int fd, const struct conv_options *o,
	       struct diag *d)
{
	struct conv_job j;
	int rc;

	if (conv_load(src, o, o->plan.no_embed_libs, &j, d))
		return -1;
	size_t comment_size;
	char *comment = conv_file_comment(o, &j, &comment_size);

	rc = comment ? write_elf(fd, &j, comment, comment_size, d) :
		       diag_set(d, "out of memory");
	free(comment);
	conv_job_free(&j);
	return rc;
}

/* The stub has no libc headers: its copies of the personality bits must agree. */
_Static_assert(STUB_PER_ADDR_NO_RANDOMIZE == ADDR_NO_RANDOMIZE, "ADDR_NO_RANDOMIZE");
_Static_assert((STUB_PER_NORANDOM_MARK &
		(PER_MASK | UNAME26 | ADDR_NO_RANDOMIZE | FDPIC_FUNCPTRS |
		 MMAP_PAGE_ZERO | ADDR_COMPAT_LAYOUT | READ_IMPLIES_EXEC |
		 ADDR_LIMIT_32BIT | SHORT_INODE | WHOLE_SECONDS | STICKY_TIMEOUTS |
		 ADDR_LIMIT_3GB)) == 0,
	       "the mark is no personality flag");

/* The converted program never touches a disk. */
enum conv_exec_failure conv_exec(char *const argv[], const struct conv_options *o,
				 struct diag *d)
{
	/*
	 * MFD_EXEC (Linux 6.3): under vm.memfd_noexec=1 a memfd made without it
	 * cannot be executed; older kernels refuse the flag (EINVAL).
	 */
	int fd = memfd_create("aout2elf-exec", MFD_CLOEXEC | MFD_EXEC);

	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("aout2elf-exec", MFD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		diag_set(d, "--exec needs an executable memfd, which vm.memfd_noexec=2 "
			    "forbids: convert to a file instead (aout2elf PROG PROG.elf)");
		return CONV_EXEC_NO_MEMFD;
	}
	if (fd < 0) {
		diag_set(d, "memfd_create: %s", strerror(errno));
		return CONV_EXEC_NO_MEMFD;
	}
	if (conv_to_fd(argv[0], fd, o, d)) {
		close(fd);
		return CONV_EXEC_NOT_CONVERTED;
	}
	signal(SIGXFSZ, SIG_DFL); /* an ignored signal stays ignored across exec */
	/*
	 * --no-randomize: the stub cannot exec a memfd again (exec closed
	 * it), so the exec here is the one without randomisation; the mark
	 * has the stub take both bits off again.
	 */
	int per = personality(0xffffffff);

	if (o->plan.norandom && per != -1 && !(per & STUB_PER_ADDR_NO_RANDOMIZE))
		personality((unsigned long)per | STUB_PER_ADDR_NO_RANDOMIZE |
			    STUB_PER_NORANDOM_MARK);
	fexecve(fd, argv, environ);
	if (per != -1)
		personality((unsigned long)per);
	diag_set(d, "cannot run it: %s", strerror(errno));
	close(fd);
	return CONV_EXEC_NOT_RUN;
}
