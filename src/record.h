/*
 * The .comment record of a converted program, read back whole (for
 * --info), and the dates in it: conv_file_comment (convert.h) writes it.
 */
#ifndef AOUT2ELF_RECORD_H
#define AOUT2ELF_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "convert.h"
#include "sha256.h"

/* "2026-12-07T12:10:00.000000007Z": UTC, to the nanosecond */
#define RECORD_TIME_MAX 48
void record_time_iso(char out[RECORD_TIME_MAX], const struct timespec *t);

/*
 * A date at s as record_time_iso writes it, or as SEC.NSEC (the records
 * of aout2elf 1.0): the number of bytes it takes, or 0 if there is none.
 */
size_t record_time_parse(const char *s, struct timespec *t);

/* "from FORMAT (SIZE bytes, sha256 HEX)": the a.out the program was */
#define RECORD_FROM "from "

struct record_from {
	char format[8];
	uint64_t size;
	char sha256[SHA256_HEX];
};

/* That string of an a.out of size bytes into out (cap bytes). */
void record_from_write(char *out, size_t cap, const char *format, uint64_t size,
		       const char sha256[SHA256_HEX]);
/* 0, or -1 for anything record_from_write did not write. */
int record_from_parse(const char *s, struct record_from *f);

/* The whole record. */
struct record {
	char version[32];   /* "1.0" */
	char options[1024]; /* as written in the parentheses, "" for none */
	int has_from;       /* older records have none */
	struct record_from from;
	size_t nlibs;
	struct conv_embedded libs[STUB_MAX_LIBS]; /* paths malloc'ed */
};

/*
 * The size bytes of a .comment into *r: 0, or -1 (and *r empty) if it
 * is not aout2elf's (its first string) or a string of it is unreadable.
 */
int record_parse(const char *c, size_t size, struct record *r);
void record_free(struct record *r);

/*
 * The record of the program at path: 0; 1 if aout2elf wrote it but its
 * record cannot be read (none, or damaged; *r empty); -1 if aout2elf did
 * not write it (conv_is_converted).
 */
int record_read(const char *path, struct record *r);

#endif
