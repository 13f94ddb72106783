/*
 * a.out shared libraries ("jump table" libraries of libc 4 and ld.so 1.x):
 * which ones a program needs, where they are, and whether they fit.
 *
 * A dynamically linked program carries, in its data, one struct libentry
 * per library: { char *name; char *tools_version; void *jump_table;
 * long version; ... } with version = major << 16 | minor, minor being
 * 100 * x + y for "major.x.y".  The library's own version is the first
 * word of its jump table.  ld.so compares the two.
 */
#ifndef AOUT2ELF_LIBS_H
#define AOUT2ELF_LIBS_H

#include <stddef.h>
#include <stdint.h>

#include "aout.h"
#include "diag.h"
#include "input.h"
#include "stub_abi.h"

struct lib_need {
	char name[STUB_LIB_NAME];
	uint32_t jump_table;
	uint32_t version; /* 0: any (ld.so) */
};

#define LIBS_MAX_NEEDS 32

/* Pure: the libentries in a's data and whether its crt0 maps ld.so. */
size_t libs_scan(const struct aout *a, struct lib_need *out, size_t max);
int libs_wants_ldso(const struct aout *a);

struct lib {
	char name[STUB_LIB_NAME];
	char *path; /* NULL when not found */
	struct input in;
	struct aout a;
	uint32_t start, len, bss_len; /* page multiples, as uselib maps it */
	uint32_t version, needed;     /* found, and the highest needed */
	char needed_by[STUB_LIB_NAME];
};

struct libset {
	size_t n;
	struct lib libs[STUB_MAX_LIBS];
	unsigned parse_flags; /* the program's: AOUT_PARSE_NO_SYMBOLS or 0 */
};

/*
 * Finds what prog needs in dirs (then the customary folders), follows the
 * libraries' own needs, checks versions and address ranges against each
 * other and [image_lo, image_hi).  With missing_ok, a library that is not
 * found is left with path NULL instead of failing.
 */
int libs_resolve(const struct aout *prog, uint32_t image_lo, uint32_t image_hi,
		 const char *const *dirs, size_t ndirs, int missing_ok,
		 struct libset *set, struct diag *d);
void libs_free(struct libset *set);

/*
 * Whether a (parsed as AOUT_SHLIB) is a jump-table library: programs
 * start below 0x40000000, libraries load above it and below IMAGE_LIMIT.
 */
int libs_is_library(const struct aout *a);

/* "4.7.2" for 0x402be */
void libs_version_str(uint32_t v, char *buf, size_t cap);

extern const char libs_customary_dirs[];

/*
 * 1 if a search for name (dirs, then the customary folders) would now
 * stop before path, where it found name when the program was converted:
 * a library put there since shadows the one the output carries.
 */
int libs_shadowed(const char *name, const char *path, const char *const *dirs,
		  size_t ndirs);

#endif
