/*
 * crt0_slack.h: load_shared_libraries() as the crt0 of Slackware's
 * programs (libc 4.4: ls, tcsh, gzip) did it (see oldcrt0.h).
 *
 * The libentries give bare names ("libc.so.4").  For each, crt0 tries in
 * turn every folder of LD_LIBRARY_PATH (its ':' parts, each with "/"
 * after it; empty parts are passed over), then "/usr/lib/", "/lib/" and
 * "/": the folder and the name written one after the other, even when the
 * name is a path, given to uselib().  Only ENOENT moves it to the next
 * folder; any other error is fatal at once, named by the path that
 * failed.  When every folder failed with ENOENT, the last path ("/NAME")
 * is named, "No such library.".  LD_LIBRARY_PATH is ignored in a set-uid
 * or set-gid program run by anyone but root.
 *
 * The version word: another major is fatal ("Incompatible version.",
 * exit 128); an older minor only warns, on stderr, and the program runs:
 *
 *	Warning: ARGV0: NAME: incompatible minor version numbers (AVERS).
 *
 * The CLASSIC bit means nothing to it (it lies outside the major).
 * libs_loader_of in the converter knows this crt0 by that warning's text.
 */
#ifndef AOUT2ELF_CRT0_SLACK_H
#define AOUT2ELF_CRT0_SLACK_H

#include "oldcrt0.h"
#include "uselib_call.h"

#define CRT0_NAMES_BY_PATH 0 /* the libentries give bare names (olddyn.c) */

#define SYS_getuid 24
#define SYS_getgid 47
#define SYS_geteuid 49
#define SYS_getegid 50

static const char *const builtin_dirs[] = { "/usr/lib/", "/lib/", "/" };
#define N_BUILTIN_DIRS (sizeof builtin_dirs / sizeof builtin_dirs[0])

/* where uselib() is given the path: the folder, then the name */
static char path[1024];

/* The value of LD_LIBRARY_PATH in envp, "" if none or if it may not count. */
static const char *library_path(char **envp)
{
	static const char var[] = "LD_LIBRARY_PATH=";
	long uid = sys0(SYS_getuid);

	if (uid != 0 && (uid != sys0(SYS_geteuid) || sys0(SYS_getgid) != sys0(SYS_getegid)))
		return "";
	for (; *envp; envp++)
		if (fx_starts_with(*envp, var))
			return *envp + sizeof var - 1;
	return "";
}

/*
 * uselib(DIR NAME), with the first dir_len bytes of dir and a "/" after
 * them when slash is set: 0 or minus the error.  A path longer than the
 * buffer is not there.
 */
static long try_dir(const char *dir, size_t dir_len, int slash, const char *name)
{
	size_t n = fx_strlen(name);

	if (dir_len + (size_t)slash + n + 1 > sizeof path)
		return -CRT0_ENOENT;
	memcpy(path, dir, dir_len);
	if (slash)
		path[dir_len] = '/';
	memcpy(path + dir_len + (size_t)slash, name, n + 1);
	return uselib_call(path);
}

/* Loads name from the first folder that has it: 0 or minus the error. */
static long find_and_load(const char *ldpath, const char *name)
{
	long r = -CRT0_ENOENT;

	while (*ldpath && r == -CRT0_ENOENT) {
		const char *end = ldpath;

		while (*end && *end != ':')
			end++;
		if (end > ldpath)
			r = try_dir(ldpath, (size_t)(end - ldpath), 1, name);
		ldpath = *end ? end + 1 : end;
	}
	for (size_t i = 0; i < N_BUILTIN_DIRS && r == -CRT0_ENOENT; i++)
		r = try_dir(builtin_dirs[i], fx_strlen(builtin_dirs[i]), 0, name);
	return r;
}

static void load_shared_libraries(int argc, char **argv, char **envp)
{
	const char *ldpath = library_path(envp);

	if (argc <= 0)
		crt0_list();
	for (struct libentry **e = CRT0_FIRST_LIBENTRY; *e; e++) {
		long r = find_and_load(ldpath, (*e)->name);
		uint32_t in_core;

		if (r < 0)
			crt0_fatal(argv[0], path, -r);
		in_core = crt0_in_core(*e);
		if ((in_core & LIBENTRY_MAJOR_MASK) != ((*e)->vers & LIBENTRY_MAJOR_MASK))
			crt0_fatal(argv[0], path, CRT0_INCOMPATIBLE);
		if ((in_core & LIBENTRY_MINOR_MASK) < ((*e)->vers & LIBENTRY_MINOR_MASK))
			crt0_print(2, "Warning: ", argv[0], ": ", (*e)->name,
				   ": incompatible minor version numbers (",
				   (*e)->avers, ").\n", (const char *)NULL);
	}
}

#endif
