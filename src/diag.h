/* Error reports travel up as one sentence; the command line adds "aout2elf: FILE: ". */
#ifndef AOUT2ELF_DIAG_H
#define AOUT2ELF_DIAG_H

#include <stddef.h>

struct diag {
	char msg[256];
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int diag_set(struct diag *d, const char *fmt, ...);

/*
 * s into out (cap bytes, NUL-terminated), its control characters written
 * as C escapes (\n, \t, \033), so that a file name holding a newline
 * cannot end a diagnostic line early or forge the next one.  Returns 1 if
 * s did not fit whole.
 */
int diag_escape(char *out, size_t cap, const char *s);

/*
 * NAME into out (cap bytes, NUL-terminated) as the shell reads it back: as
 * it is, or $'...' when it holds a control character, as diag_print
 * writes it.  Returns 1 if it did not fit whole.
 */
int diag_name(char *out, size_t cap, const char *name);

/* room for any path escaped by diag_name or diag_quote */
#define DIAG_NAME_MAX (4 * 4096 + 4)

/*
 * NAME quoted for the shell whatever it holds, as cp -v quotes: 'NAME'
 * (a quote in it as '\''), or $'...' when it holds a control character.
 * A name read from an archive cannot then end -v's line early or send
 * the terminal an escape sequence.  Returns 1 if it did not fit whole.
 */
int diag_quote(char *out, size_t cap, const char *name);

/* -v's line on stdout: "'FROM' -> 'TO' (WHAT)", the names as diag_quote. */
void diag_converted(const char *from, const char *to, const char *what);

/*
 * "aout2elf: NAME: MSG" on stderr, one line in one write: NAME as the
 * shell reads it back (as it is, or $'...' when it holds a control
 * character), MSG escaped as by diag_escape.  Without NAME,
 * "aout2elf: MSG".
 */
void diag_print(const char *name, const char *msg);

#endif
