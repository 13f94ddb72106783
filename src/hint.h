/* The fixes that messages name, as commands to run again. */
#ifndef AOUT2ELF_HINT_H
#define AOUT2ELF_HINT_H

#include <stddef.h>

#include "convert.h"

/*
 * The n words as one command line for the shell (malloc'ed; NULL without
 * memory): each as it is where the shell takes it so, else quoted as
 * diag_quote quotes ('it'\''s', $'a\nb').
 */
char *hint_command(const char *const words[], size_t n);

/*
 * The command line argv (NULL-terminated, argv[0] the program) again with
 * the nmore words more in front of its first argument, as hint_command
 * gives it (malloc'ed; NULL without memory, or an empty argv).
 */
char *hint_rerun_command(char *const argv[], const char *const more[], size_t nmore);

/*
 * Where near the program prog an a.out shared library named name (its
 * last component) lies, as a directory for -L: prog's directory, its lib/, or ../lib
 * beside it, spelled from prog as given (malloc'ed); NULL if in none.
 */
char *hint_find_lib(const char *prog, const char *name);

/*
 * The options that give prog the libraries it needs and that were not
 * found with o: "-L DIR" for each directory hint_find_lib finds, once
 * each, or "-L" "DIR" as it is when one of them is nowhere near
 * (malloc'ed, *n words).  NULL where none is missing (or without memory).
 */
const char **hint_libdirs(const char *prog, const struct conv_options *o, size_t *n);
void hint_libdirs_free(const char **words, size_t n);

#endif
