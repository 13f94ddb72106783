/*
 * --shared-libs: each library of a batch written once into the output
 * tree, under ROOT/.aout2elf-libs/HASH/NAME, and found by the program
 * through a search path relative to its own place ($ORIGIN), so that the
 * tree still works when it is moved.
 */
#ifndef AOUT2ELF_SHARED_LIBS_H
#define AOUT2ELF_SHARED_LIBS_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "libs.h"
#include "plan.h"

#define SHARED_LIBS_DIR ".aout2elf-libs"

/* A short name of the bytes (FNV-1a, 64 bits): 16 hex digits and NUL. */
void shared_libs_hash(const uint8_t *buf, size_t size, char out[17]);

/*
 * "$ORIGIN", then as many "/.." as dst's folder lies below root, or 0
 * written and -1 when dst is not under root or it does not fit.
 */
int shared_libs_origin(const char *root, const char *dst, char *out, size_t cap);

/*
 * Writes each library of set found at conversion into root (unless the
 * same bytes are there already) and puts the folders holding them, as
 * seen from dst, first in p's search paths: 0, or -1 with d set.
 */
int shared_libs_place(const char *root, const char *dst,
		      const struct libset *set, struct plan *p, struct diag *d);

/*
 * Whether root holds the copy shared_libs_place wrote of a library of
 * that name (its final component), size and hash (shared_libs_hash), for
 * the up-to-date check of a rerun: another library of that name and size
 * is in another hash's folder, and does not count.
 */
int shared_libs_present(const char *root, const char *hash, const char *name,
			uint64_t size);

#endif
