/*
 * Diagnostics as values: one sentence in a fixed buffer, returned to the
 * caller instead of printed, so that batch workers and the JSON report
 * can use it (diag.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"

/* Returns -1 so that callers can write "return diag_set(...)". */
int diag_set(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return -1;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* A bounded string being written; once full, what follows is dropped. */
struct text {
	char *p;
	size_t len, cap; /* cap counts the terminating NUL */
	int cut;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->len + n >= t->cap) {
		n = t->cap - 1 - t->len;
		t->cut = 1;
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = 0;
}

/* c, or its escape where it is a control character */
static void put_char(struct text *t, unsigned char c)
{
	static const char controls[] = "\a\b\t\n\v\f\r", letters[] = "abtnvfr";
	const char *p = c ? memchr(controls, c, sizeof controls - 1) : NULL;
	char esc[5];

	if (!is_control(c))
		put(t, (const char *)&c, 1);
	else if (p)
		put(t, (char[]){ '\\', letters[p - controls] }, 2);
	else
		put(t, esc, (size_t)snprintf(esc, sizeof esc, "\\%03o", c));
}

static void put_escaped(struct text *t, const char *s)
{
	for (; *s && !t->cut; s++)
		put_char(t, (unsigned char)*s);
}

/* bash's $'...': \' and \\ stand for themselves, control characters escaped */
static void put_name(struct text *t, const char *name)
{
	const char *s;

	for (s = name; *s && !is_control((unsigned char)*s); s++)
		;
	if (!*s) {
		put(t, name, strlen(name));
		return;
	}
	put(t, "$'", 2);
	for (s = name; *s && !t->cut; s++) {
		if (*s == '\'' || *s == '\\')
			put(t, "\\", 1);
		put_char(t, (unsigned char)*s);
	}
	put(t, "'", 1);
}

/* 'name', a quote in it as '\'', or put_name's $'...' for a control character */
static void put_quoted(struct text *t, const char *name)
{
	const char *s;

	for (s = name; *s && !is_control((unsigned char)*s); s++)
		;
	if (*s) {
		put_name(t, name);
		return;
	}
	put(t, "'", 1);
	for (s = name; *s && !t->cut; s++)
		if (*s == '\'')
			put(t, "'\\''", 4);
		else
			put(t, s, 1);
	put(t, "'", 1);
}

/* s written into out by how; 1 if it did not fit whole */
static int write_into(char *out, size_t cap, const char *s,
		      void (*how)(struct text *, const char *))
{
	struct text t = { out, 0, cap, 0 };

	if (!cap)
		return 1;
	out[0] = 0;
	how(&t, s);
	return t.cut;
}

int diag_escape(char *out, size_t cap, const char *s)
{
	return write_into(out, cap, s, put_escaped);
}

int diag_name(char *out, size_t cap, const char *name)
{
	return write_into(out, cap, name, put_name);
}

int diag_quote(char *out, size_t cap, const char *name)
{
	return write_into(out, cap, name, put_quoted);
}

void diag_converted(const char *from, const char *to, const char *what)
{
	static char a[DIAG_NAME_MAX], b[DIAG_NAME_MAX];

	diag_quote(a, sizeof a, from);
	diag_quote(b, sizeof b, to);
	printf("%s -> %s (%s)\n", a, b, what);
}

void diag_print(const char *name, const char *msg)
{
	/* a whole path escaped (4 bytes a character at most), and the message */
	char buf[4 * 4096 + 1024];
	struct text t = { buf, 0, sizeof buf - 1, 0 }; /* room for the newline */

	put(&t, "aout2elf: ", 10);
	if (name) {
		put_name(&t, name);
		put(&t, ": ", 2);
	}
	put_escaped(&t, msg);
	buf[t.len++] = '\n';
	fwrite(buf, 1, t.len, stderr);
}
