/*
 * Rewriting a conversion's uselib call sites (and its embedded ld.so's
 * open) to call the stub, so that no trap answers them: see
 * syscall_sites.h for what a site is.
 */
#ifndef AOUT2ELF_USELIB_SITES_H
#define AOUT2ELF_USELIB_SITES_H

#include "convert.h"

/*
 * Rewrites, in j's buffers, the uselib sites of the program's text and of
 * every embedded library's, and the open sites of an embedded ld.so, to
 * call the thunks of stub; counts them in j->p.  Libraries not embedded
 * stay as they are (the stub rewrites them when it maps them).  Once
 * only, before the ELF is written.  0, or -1 with *d (a damaged stub).
 */
int uselib_sites_patch(struct conv_job *j, const unsigned char *stub,
		       size_t stub_size, struct diag *d);

#endif
