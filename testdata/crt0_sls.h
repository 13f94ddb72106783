/*
 * crt0_sls.h: load_shared_libraries() as the crt0 of SLS's programs
 * (libc 4.1-4.3: cat, sed, gawk) did it (see oldcrt0.h).
 *
 * Each library is given to uselib() by the name in its libentry, a full
 * path such as "/lib/libc.so.4", and nowhere else: no search, no
 * environment.  A failure is fatal, named by that path.
 *
 * The version word: a libentry with the CLASSIC bit wants that very word
 * (the library's carries the bit too); otherwise the major must be the
 * same and the library's minor (100 * x + y of major.x.y) not below the
 * libentry's.  An older minor is as fatal as another major: "Incompatible
 * version.", exit 128.
 */
#ifndef AOUT2ELF_CRT0_SLS_H
#define AOUT2ELF_CRT0_SLS_H

#include "oldcrt0.h"

#define CRT0_NAMES_BY_PATH 1 /* the libentries give full paths (olddyn.c) */

static int incompatible(uint32_t in_core, uint32_t linked)
{
	if (linked & LIBENTRY_CLASSIC_BIT)
		return in_core != linked;
	return (in_core & LIBENTRY_MAJOR_MASK) != (linked & LIBENTRY_MAJOR_MASK) ||
	       (in_core & LIBENTRY_MINOR_MASK) < (linked & LIBENTRY_MINOR_MASK);
}

/*
 * uselib((*e)->name), 0 or minus the error, made as SLS's crt0 made it,
 * byte for byte (oldlinux/gawk, cat, sed of the corpus):
 * movl $86,%eax; movl (%esi),%edi; movl (%edi),%ebx; int $0x80.
 */
static long sls_uselib(struct libentry **e)
{
	long r;

	__asm__ volatile("movl $86, %%eax\n\t"
			 "movl (%%esi), %%edi\n\t"
			 "movl (%%edi), %%ebx\n\t"
			 "int $0x80"
			 : "=&a"(r)
			 : "S"(e)
			 : "edi", "ebx", "memory");
	return r;
}

static void load_shared_libraries(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc <= 0)
		crt0_list();
	for (struct libentry **e = CRT0_FIRST_LIBENTRY; *e; e++) {
		long r = sls_uselib(e);

		if (r < 0)
			crt0_fatal(argv[0], (*e)->name, -r);
		if (incompatible(crt0_in_core(*e), (*e)->vers))
			crt0_fatal(argv[0], (*e)->name, CRT0_INCOMPATIBLE);
	}
}

#endif
