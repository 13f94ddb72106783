/* JSON strings, for --report and --info --json. */
#ifndef AOUT2ELF_JSON_H
#define AOUT2ELF_JSON_H

#include <stdio.h>

/*
 * str on f as a JSON string: file names are bytes, and a byte that is not
 * UTF-8 is written as U+00XX; control characters as \u00XX.
 */
void json_string(FILE *f, const char *str);

#endif
