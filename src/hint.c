/*
 * The fixes that messages name, as commands to run again: a command line
 * quoted for the shell, and the directories near a program where the
 * libraries it needs lie (for the -L options of that command).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "diag.h"
#include "hint.h"

/* what hint_libdirs gives where it finds no directory */
static const char placeholder[] = "DIR";

/* characters that the shell takes as they are, anywhere in a word */
static int plain_word(const char *w)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_@%+=:,./-";

	return *w && strspn(w, plain) == strlen(w);
}

char *hint_command(const char *const words[], size_t n)
{
	size_t len = 1;
	char *s, *at;

	/* quoted, a byte takes 4 at most ("\ooo", or "'\''"), and "$''" 3 more */
	for (size_t i = 0; i < n; i++)
		len += 4 * strlen(words[i]) + 4;
	s = malloc(len);
	if (!s)
		return NULL;
	at = s;
	*at = 0;
	for (size_t i = 0; i < n; i++) {
		if (i)
			*at++ = ' ';
		if (plain_word(words[i]))
			memcpy(at, words[i], strlen(words[i]) + 1);
		else
			diag_quote(at, len - (size_t)(at - s), words[i]);
		at += strlen(at);
	}
	return s;
}

char *hint_rerun_command(char *const argv[], const char *const more[], size_t nmore)
{
	size_t argc = 0, n = 0;
	const char **words;
	char *command;

	if (!argv[0])
		return NULL; /* no command line to give */
	while (argv[argc])
		argc++;
	words = malloc(sizeof *words * (nmore + argc + 1));
	if (!words)
		return NULL;
	words[n++] = argv[0];
	for (size_t i = 0; i < nmore; i++)
		words[n++] = more[i];
	for (size_t i = 1; i < argc; i++)
		words[n++] = argv[i];
	command = hint_command(words, n);
	free(words);
	return command;
}

/* dir/name is an a.out shared library: -L DIR would find it, and take it */
static int is_library(const char *dir, const char *name)
{
	struct input in;
	struct diag d;
	char *p;
	int yes;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return 0;
	yes = input_read(p, &in, &d) == 0;
	free(p);
	if (yes) {
		yes = conv_is_shared_library(in.buf, in.size);
		input_free(&in);
	}
	return yes;
}

char *hint_find_lib(const char *prog, const char *name)
{
	/* the program's directory, its lib/, and the lib/ beside it */
	static const char *const tails[] = { "", "/lib", "/../lib" };
	const char *slash = strrchr(prog, '/'), *base = strrchr(name, '/');
	/* "prog": "."; "/prog": "" (then "/lib" and "/../lib") */
	int dirlen = slash ? (int)(slash - prog) : 1;

	base = base ? base + 1 : name;
	if (!*base)
		return NULL;
	for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
		char *dir;

		if (asprintf(&dir, "%.*s%s", dirlen, slash ? prog : ".", tails[i]) < 0)
			return NULL;
		if (is_library(dir, base))
			return *dir ? dir : (free(dir), strdup("/"));
		free(dir);
	}
	return NULL;
}

void hint_libdirs_free(const char **words, size_t n)
{
	for (size_t i = 1; words && i < n; i += 2)
		if (words[i] != placeholder)
			free((char *)words[i]);
	free(words);
}

const char **hint_libdirs(const char *prog, const struct conv_options *o, size_t *n)
{
	struct conv_job j;
	struct diag d;
	const char **words;
	int all = 1, missing = 0;

	*n = 0;
	if (conv_load(prog, o, 1, &j, &d))
		return NULL;
	words = malloc(sizeof *words * 2 * (j.libs.n + 1));
	for (size_t i = 0; words && i < j.libs.n; i++) {
		char *dir;
		size_t k = 1;

		if (j.libs.libs[i].path)
			continue;
		missing = 1;
		dir = all ? hint_find_lib(prog, j.libs.libs[i].name) : NULL;
		all = dir != NULL;
		while (dir && k < *n && strcmp(words[k], dir) != 0)
			k += 2;
		if (dir && k < *n) {
			free(dir);
		} else if (dir) {
			words[(*n)++] = "-L";
			words[(*n)++] = dir;
		}
	}
	conv_job_free(&j);
	if (!words || !missing) {
		hint_libdirs_free(words, *n);
		*n = 0;
		return NULL;
	}
	if (!all) {
		hint_libdirs_free(words, *n);
		words = malloc(sizeof *words * 2);
		*n = words ? 2 : 0;
		if (words) {
			words[0] = "-L";
			words[1] = placeholder;
		}
	}
	return words;
}
