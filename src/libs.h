/*
 * a.out shared libraries ("jump table" libraries of libc 4 and ld.so 1.x):
 * which ones a program needs, where they are, and whether they fit.
 *
 * A dynamically linked program carries, in its data, one struct libentry
 * per library: { char *name; char *tools_version; void *jump_table;
 * long version; }, with version = major << 16 | minor, minor being
 * 100 * x + y for "major.x.y", and bit 28 (the DLL tools' CLASSIC_BIT)
 * meaning "this very version".  The linker gathers pointers to them in
 * the set __SHARED_LIBRARIES__: a count N, N pointers, then 0; in a
 * program the first pointer is crt0's own dummy.  The library's own
 * version is the first word of its jump table: the program's crt0 (or
 * ld.so) compares the two after uselib(), never the kernel.
 */
#ifndef AOUT2ELF_LIBS_H
#define AOUT2ELF_LIBS_H

#include <stddef.h>
#include <stdint.h>

#include "aout.h"
#include "diag.h"
#include "input.h"
#include "stub_abi.h"

#define LIBS_NAME_MAX 256  /* a libentry's name, NUL included */
#define LIBS_AVERS_MAX 81  /* its tools version string, NUL included */

struct lib_need {
	char name[LIBS_NAME_MAX]; /* as the program gives it: a path or a file name */
	char avers[LIBS_AVERS_MAX]; /* "DLL Jump 4.4pl1", what crt0 prints of it */
	uint32_t jump_table;
	uint32_t version; /* major << 16 | minor, without the CLASSIC bit; 0: any (ld.so) */
	int exact;        /* CLASSIC bit: no other version will do */
};

#define LIBS_MAX_NEEDS 32
#define LIBS_CLASSIC_BIT 0x10000000u

/*
 * Pure: the libentries in a's data, from its __SHARED_LIBRARIES__ set, or
 * where no set is found, from every word that starts one; and whether
 * its crt0 maps ld.so.
 */
size_t libs_scan(const struct aout *a, struct lib_need *out, size_t max);
int libs_wants_ldso(const struct aout *a);

/* Who checks the versions when the program starts, found in its bytes. */
enum libs_loader {
	LIBS_CRT0_SLS,       /* libc 4.0-4.3 crt0: CLASSIC exact, an older minor fatal */
	LIBS_CRT0_SLACKWARE, /* libc 4.4 crt0: an older minor only warned about */
	LIBS_LDSO,           /* ld.so 1.x: an older x of major.x.y only warned about */
};
enum libs_loader libs_loader_of(const struct aout *a);

/* What that loader does with a library of version found. */
enum libs_verdict {
	LIBS_FITS,          /* runs, nothing said */
	LIBS_OLDER_QUIET,   /* older, yet runs without a word (ld.so: older y) */
	LIBS_OLDER_WARNED,  /* older, runs after the loader's own warning */
	LIBS_REFUSED_MAJOR, /* another major version: exit 128 */
	LIBS_REFUSED_EXACT, /* CLASSIC and not that very version: exit 128 */
	LIBS_REFUSED_OLDER, /* an older minor: exit 128 */
};
enum libs_verdict libs_judge(enum libs_loader loader, uint32_t found,
			     const struct lib_need *need);

#define LIBS_MAX_ALIASES 7

struct lib {
	char name[STUB_LIB_NAME]; /* the first name it was asked for */
	/* other names the program gives the same file (or the same bytes) */
	char aliases[LIBS_MAX_ALIASES][STUB_LIB_NAME];
	size_t naliases;
	char *path; /* NULL when not found */
	struct input in;
	struct aout a;
	uint32_t start, len, bss_len; /* page multiples, as uselib maps it */
	uint32_t version, needed;     /* found, and the highest needed */
	int exact;                    /* needed is wanted exactly */
	char needed_by[STUB_LIB_NAME];
};

struct libset {
	size_t n;
	struct lib libs[STUB_MAX_LIBS];
	unsigned parse_flags; /* the program's: AOUT_PARSE_NO_SYMBOLS or 0 */
	/* lines "WHAT\n": older versions the program runs with, and what
	 * the libraries' own libentries ask for and will not get */
	char warnings[1024];
};

/*
 * Finds what prog needs, NAME as the program gives it:
 *  - a NAME holding '/' as it is, or with sysroot as SYSROOT/NAME with
 *    its symbolic links resolved inside SYSROOT (openat2's
 *    RESOLVE_IN_ROOT; plain concatenation where the kernel lacks it);
 *  - NAME's last component in each of dirs (-L);
 *  - then in each customary folder (STUB_CUSTOMARY_DIRS), under sysroot
 *    when one is given, resolved there as above;
 * the first regular file that can be read is the library; one file
 * under two names is one library.  Checks the versions as prog's own
 * crt0 or ld.so will, and the address ranges against each other and
 * [image_lo, image_hi).  The libraries' own libentries are not loaded
 * (no loader did), only warned about.  With missing_ok, a library that
 * is not found is left with path NULL instead of failing.
 */
int libs_resolve(const struct aout *prog, uint32_t image_lo, uint32_t image_hi,
		 const char *const *dirs, size_t ndirs, const char *sysroot,
		 int missing_ok, struct libset *set, struct diag *d);
void libs_free(struct libset *set);

/*
 * Whether a (parsed as AOUT_SHLIB) is a jump-table library: it fails as
 * a program (its entry is outside its text), and as uselib maps it, it
 * starts above the first 64 KiB (where every program's text lies) and
 * ends below IMAGE_LIMIT.
 */
int libs_is_library(const struct aout *a);

/* "4.7.2" for 0x402be (the CLASSIC bit left out) */
void libs_version_str(uint32_t v, char *buf, size_t cap);

extern const char libs_customary_dirs[];

/*
 * 1 if a search for name (in libs_resolve's order, under sysroot unless
 * it is NULL) would now stop before path, where it found name when the
 * program was converted: a library put there since shadows the one the
 * output carries.
 */
int libs_shadowed(const char *name, const char *path, const char *const *dirs,
		  size_t ndirs, const char *sysroot);

#endif
