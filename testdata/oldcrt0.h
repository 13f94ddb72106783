/*
 * oldcrt0.h: what the crt0 of a dynamically linked libc 4 program did
 * before main, in the years before ld.so (SLS 1992-1993, Slackware 1993),
 * for the fixtures of olddyn.c.  This part is what both kinds share; the
 * kind itself, load_shared_libraries(), is crt0_sls.h or crt0_slack.h,
 * included after this file.
 *
 * The linker gathered the program's libentries (libentry.h) into the set
 * __SHARED_LIBRARIES__: a count N, N pointers, then 0.  Element [0] is
 * crt0's own and names no library; crt0 walks from element [1] to the 0.
 * The program spells its set out in its .data (olddyn.c, with
 * crt0_set_dummy as element [0]).
 *
 * For each libentry crt0 calls uselib() itself (i386 system call 86, no
 * libc wrapper, with the instructions of the real crt0s), then reads the library's version word at the libentry's
 * jump table.  What it cannot load, or will not take, ends the program
 * with its own words on stderr,
 *
 *	ARGV0: can't load library 'PATH'
 *		REASON
 *
 * REASON by the error: "No such library." (ENOENT), "Permission denied."
 * (EACCES), "Exec format error." (ENOEXEC), "Too many libraries."
 * (EINVAL), "Unspecified error." (any other), "Incompatible version."
 * (the version word); and exit status 128.  Started with argc <= 0, as
 * ldd started it, crt0 lists the libentries instead, "\tNAME (AVERS)" a
 * line, and exits 0.
 */
#ifndef AOUT2ELF_OLDCRT0_H
#define AOUT2ELF_OLDCRT0_H

#include <stdarg.h>

#include "fixture.h"
#include "libentry.h"

/* what uselib() failed with, as crt0 tells them apart */
#define CRT0_ENOENT 2
#define CRT0_ENOEXEC 8
#define CRT0_EACCES 13
#define CRT0_EINVAL 22
#define CRT0_INCOMPATIBLE 0 /* not an error number: the version word */

#define CRT0_FATAL_STATUS 128

/* the program's set (olddyn.c) */
extern struct libentry *__SHARED_LIBRARIES__[];
/* its element [0]: crt0's, not a libentry (in .data, as crt0's was) */
static __attribute__((section(".data"))) uint32_t crt0_set_dummy[4];
#define CRT0_FIRST_LIBENTRY (__SHARED_LIBRARIES__ + 2)

int main(int argc, char **argv, char **envp);
static void load_shared_libraries(int argc, char **argv, char **envp);

/* Writes each string up to a NULL to fd, one write each. */
static void crt0_print(int fd, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, fd);
	while ((s = va_arg(ap, const char *)) != NULL)
		fx_puts(fd, s);
	va_end(ap);
}

static const char *crt0_reason(long err)
{
	switch (err) {
	case CRT0_INCOMPATIBLE:
		return "Incompatible version.\n";
	case CRT0_ENOENT:
		return "No such library.\n";
	case CRT0_EACCES:
		return "Permission denied.\n";
	case CRT0_ENOEXEC:
		return "Exec format error.\n";
	case CRT0_EINVAL:
		return "Too many libraries.\n";
	default:
		return "Unspecified error.\n";
	}
}

static __attribute__((noreturn)) void crt0_fatal(const char *argv0, const char *path,
						   long err)
{
	crt0_print(2, argv0, ": can't load library '", path, "'\n\t",
		   crt0_reason(err), (const char *)NULL);
	sys_exit(CRT0_FATAL_STATUS);
}

/* ldd's view: argc <= 0 */
static __attribute__((noreturn)) void crt0_list(void)
{
	for (struct libentry **e = CRT0_FIRST_LIBENTRY; *e; e++)
		crt0_print(1, "\t", (*e)->name, " (", (*e)->avers, ")\n",
			   (const char *)NULL);
	sys_exit(0);
}

/* the word at the start of a library's jump table, now that it is mapped */
static uint32_t crt0_in_core(const struct libentry *e)
{
	return *(volatile const uint32_t *)e->addr;
}

/* fixture_start.S's entry: the a.out frame is argc, argv, envp */
int fixture_main(uint32_t *entry_sp)
{
	int argc = (int)entry_sp[0];
	char **argv = (char **)entry_sp[1], **envp = (char **)entry_sp[2];

	load_shared_libraries(argc, argv, envp);
	return main(argc, argv, envp);
}

#endif
