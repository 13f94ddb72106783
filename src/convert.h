/*
 * One conversion, from a file name to a file name (or a descriptor, for
 * --exec), with everything the command line and the batch mode report
 * about it.  Diagnostics are returned, not printed, so that parallel
 * workers and the JSON report can use them.
 */
#ifndef AOUT2ELF_CONVERT_H
#define AOUT2ELF_CONVERT_H

#include <stdio.h>
#include <sys/types.h>

#include "aout.h"
#include "diag.h"
#include "input.h"
#include "libs.h"
#include "output.h"
#include "plan.h"

#define CONV_MAX_LIBDIRS 32

struct conv_options {
	int force;
	int quiet; /* no warnings */
	int strip; /* -s: the a.out symbol tables left out, and unchecked */
	struct plan_options plan;
	const char *libdirs[CONV_MAX_LIBDIRS];
	size_t nlibdirs;
	const char *sysroot; /* --sysroot: the old system's root; NULL: none */
	/* --shared-libs: the -O folder the libraries are written into; NULL: none */
	const char *shared_libs;
	mode_t umask_bits;
	int setcap; /* --setcap: each output gets cap_sys_rawio+ep (filecap.h) */
};

enum conv_status {
	CONV_CONVERTED,
	CONV_UP_TO_DATE,
	CONV_SKIPPED,
	CONV_FAILED,
};

/*
 * Fixed size, but for the warnings: batch workers hand it to the parent
 * through shared memory, and the warnings through batch_warnings.c.
 */
struct conv_result {
	enum conv_status status;
	char format[8];   /* "QMAGIC"..., "" when unknown */
	int dynamic;      /* -1 unknown */
	char libraries[STUB_MAX_LIBS * STUB_LIB_NAME];
	char reason[256]; /* why it failed or was skipped */
	/* lines "aout2elf: warning: ...\n", whole, printed as they are
	 * (malloc'ed, the caller frees it; NULL: none) */
	char *warning;
	int reason_is_output; /* the reason concerns OUTPUT, not INPUT */
};

/*
 * What -v says of a converted file: "QMAGIC, static", "ZMAGIC, dynamic,
 * libraries embedded" or "..., libraries at run time".
 */
void conv_describe(char *out, size_t cap, const struct conv_result *r,
		   int no_embed_libs);

/*
 * The options that shape a converted file's bytes, as words of a command
 * line in a fixed order ("-L", DIR, ..., "--sysroot", DIR, "--strip", ...):
 * how many.  The words point into o, or are constants.
 */
#define CONV_OPTION_WORDS (2 * CONV_MAX_LIBDIRS + 2 + 7)
size_t conv_option_words(const struct conv_options *o,
			 const char *words[CONV_OPTION_WORDS]);

/*
 * What the .comment of a converted file says (malloc'ed; NULL without
 * memory): "aout2elf VERSION", and in parentheses the options that shaped
 * its bytes (and --setcap, its capability), in a fixed order, e.g. "aout2elf 1.0 (-L /opt/lib --strip)".
 * A batch rerun converts again what was converted otherwise.
 */
char *conv_comment(const struct conv_options *o);

/* A parsed and planned input, with its libraries. */
struct conv_job {
	struct input in;
	struct aout a;
	struct plan p;
	struct libset libs;
};

/*
 * The whole .comment of j's output (malloc'ed, *size bytes; NULL without
 * memory): conv_comment's string, then the a.out's, "from FORMAT (SIZE
 * bytes, sha256 HEX)" (record.h), then one string per library the output
 * carries, "embeds PATH (NAME, SIZE bytes, modified DATE)": where the
 * search for NAME found it, and the size and date (ISO 8601, UTC, to the
 * nanosecond; SEC.NSEC in older records, read as well) it had when read.  A batch rerun converts again an output whose library is gone
 * from PATH, has another size or date there (replaced, even by an older
 * copy), or would now be found before PATH (libs_shadowed).
 */
char *conv_file_comment(const struct conv_options *o, const struct conv_job *j,
			size_t *size);
#define CONV_EMBEDS "embeds "
/*
 * the same of a library --shared-libs wrote into the output tree, with
 * ", hash HASH" before the ")": the folder of its copy
 */
#define CONV_SHARES "shares "

/* One such string, read back. */
struct conv_embedded {
	char *path; /* malloc'ed */
	char name[STUB_LIB_NAME];
	uint64_t size;
	struct timespec mtime;
	int shared; /* CONV_SHARES, not CONV_EMBEDS */
	char hash[17]; /* of CONV_SHARES: shared_libs_hash of the bytes */
};

/* 0, or -1 (and e->path NULL) for anything conv_file_comment did not write. */
int conv_embeds_parse(const char *s, struct conv_embedded *e);

/*
 * 1 if path is a program aout2elf wrote.  Anything else by an output's
 * name (the a.out itself, copied there with its date by "cp -a") is no
 * up-to-date conversion, however new.
 */
int conv_is_converted(const char *path);

/*
 * 1 if path is a program aout2elf wrote with the options o, whose
 * conv_comment is comment (made once for a whole batch): one converted
 * otherwise (-s, --noexecstack, other -L folders, another version) is
 * converted again, as its input would be if it were newer.  So is one
 * that carries a library that is no longer where it was found, or has
 * another size or date there than when it was read (replaced, by a newer
 * library or by an older copy: cp -p), or that a library put into a
 * folder searched before that one would now shadow.
 */
int conv_converted_alike(const char *path, const char *comment,
			 const struct conv_options *o);

int conv_load(const char *path, const struct conv_options *o, int missing_ok,
	      struct conv_job *j, struct diag *d);
/* The same for j->in, already read; frees j on failure. */
int conv_prepare(struct conv_job *j, const struct conv_options *o,
		 int missing_ok, struct diag *d);
void conv_job_free(struct conv_job *j);

/* 1 if buf holds an a.out shared library (for -L), not a program. */
int conv_is_shared_library(const uint8_t *buf, size_t size);
#define CONV_SHARED_LIBRARY "an a.out shared library, not a program (use it with -L)"

/* 0 converted, -1 failed; r is filled in either way. */
int conv_file(const char *src, const char *dst, const struct conv_options *o,
	      struct conv_result *r);
/* The same for an input already read, whose buffer it takes over. */
int conv_input(struct input *in, const char *dst, const struct conv_options *o,
	       struct conv_result *r);

/* Writes the converted program to fd (for --exec); -1 with *d on failure. */
int conv_to_fd(const char *src, int fd, const struct conv_options *o,
	       struct diag *d);

/*
 * --exec: converts argv[0] into a file in memory and executes that with
 * argv and the environment (with --no-randomize, without address
 * randomisation).  Returns only on failure: which step failed, *d why.
 */
enum conv_exec_failure {
	CONV_EXEC_NO_MEMFD,      /* *d: "memfd_create: REASON" */
	CONV_EXEC_NOT_CONVERTED, /* *d: why argv[0] could not be converted */
	CONV_EXEC_NOT_RUN,       /* *d: "cannot run it: REASON" */
};
enum conv_exec_failure conv_exec(char *const argv[], const struct conv_options *o,
				 struct diag *d);

const char *conv_status_name(enum conv_status s);

#endif
