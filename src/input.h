/*
 * Reading the input whole: the a.out program or library, into memory
 * that the parser and the writer then work on as a buffer.
 */
#ifndef AOUT2ELF_INPUT_H
#define AOUT2ELF_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "diag.h"

struct input {
	uint8_t *buf;
	size_t size;
	struct stat st;
	size_t map_len; /* buf is mapped (munmap), not malloc'd, when > 0 */
	const char *path; /* as given to input_read (not a copy) */
};

/*
 * Reads the file whole; -1 with *d on failure.  errno then is why the
 * file could not be opened, or 0 if it was opened, and in->st is what it
 * was (a library search goes on past a file that is not there or is no
 * regular file, but not past one it cannot read).
 */
int input_read(const char *path, struct input *in, struct diag *d);
/*
 * The same, but a file of a megabyte or more is first judged by its
 * first 32 bytes (head_ok: 0 or -1 with *d), before it is read whole:
 * gigabytes of something else are refused at once.
 */
int input_read_checked(const char *path, struct input *in,
		       int (*head_ok)(const uint8_t *head, size_t n, struct diag *d),
		       struct diag *d);
void input_free(struct input *in);

#endif
