/*
 * Writing the output atomically (a temporary file beside it, without a
 * name where the file system allows, then link or rename), so that a
 * failed conversion leaves neither a partial file nor a changed one.
 */
#ifndef AOUT2ELF_OUTPUT_H
#define AOUT2ELF_OUTPUT_H

#include <sys/stat.h>

#include "diag.h"

struct output {
	char *path;
	char *tmp; /* the named temporary file; NULL while fd has no name (O_TMPFILE) */
	int fd;
	int force;
};

/*
 * Refuses an OUTPUT that is the input: the same inode, through any link,
 * or (input_path, if not NULL) another spelling of its name in its folder
 * on a file system that ignores case.
 */
int output_open(const char *path, const struct stat *input,
		const char *input_path, int force, struct output *o,
		struct diag *d);
int output_commit(struct output *o, mode_t mode, struct diag *d);
void output_abort(struct output *o);

/*
 * Has every signal whose default action ends the process remove the
 * temporary file of the output being written first, so that an
 * interrupted conversion leaves nothing: all but those of a crash
 * (SIGSEGV, SIGABRT, ...) and SIGTRAP, which debuggers use.  One ignored
 * when the tool started (nohup's SIGHUP) stays ignored.  SIGXFSZ is
 * ignored: a write past RLIMIT_FSIZE then fails with EFBIG, and is
 * reported.
 */
void output_remove_temp_on_signals(void);

/*
 * 0 if path's folder can be read and lists no entry of path's very name:
 * path names a file only as another spelling of a listed name, on a file
 * system that ignores case; 1 otherwise.
 */
int output_name_listed(const char *path);

/* The input's permissions, with x wherever r, never set-id, under umask. */
mode_t output_mode(mode_t input_mode, mode_t umask_bits);

#endif
