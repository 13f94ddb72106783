/*
 * Files for the unit tests: fresh temporary folders and paths in them,
 * whole files written and read back.
 */
#ifndef AOUT2ELF_TESTS_FILES_H
#define AOUT2ELF_TESTS_FILES_H

#include <stdint.h>
#include <sys/types.h>

/* A fresh directory under $TMPDIR (or /tmp), malloc'ed path; NULL on error. */
char *unit_tmpdir(void);
/* Removes the directory tree (not following symlinks) and frees path. */
void unit_rmtree(char *path);
/* dir "/" name, malloc'ed. */
char *unit_path(const char *dir, const char *name);
/* Number of entries in dir besides . and .. ; -1 on error. */
int unit_count_entries(const char *dir);

/* Writes n bytes as the file path (created with mode, or truncated); 0 or -1. */
int unit_write_file(const char *path, const void *buf, size_t n, mode_t mode);
/*
 * The whole file, malloc'ed, and its size in *size; NULL (and *size 0)
 * when it cannot be read or is empty.
 */
uint8_t *unit_slurp(const char *path, size_t *size);

#endif
