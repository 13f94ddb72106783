/* JSON strings, for --report and --info --json. */
#include <stdio.h>

#include "json.h"

/*
 * Length of the valid UTF-8 sequence at s, 0 if it is none: no overlong
 * form, no surrogate (U+D800-DFFF), nothing above U+10FFFF (RFC 3629),
 * which is where the second byte's range narrows.
 */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 :
		   s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : 0;
	unsigned lo = s[0] == 0xe0 ? 0xa0 : s[0] == 0xf0 ? 0x90 : 0x80;
	unsigned hi = s[0] == 0xed ? 0x9f : s[0] == 0xf4 ? 0x8f : 0xbf;

	if (n && (s[1] < lo || s[1] > hi))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* File names are bytes; a byte that is not UTF-8 is written as U+00XX. */
void json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', f);
	while (*s) {
		size_t n = *s >= 0x80 ? utf8_len(s) : 1;

		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20 || n == 0)
			fprintf(f, "\\u%04x", *s);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
	putc('"', f);
}
