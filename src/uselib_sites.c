/*
 * The converter's side of the rewritten call sites (syscall_sites.h):
 * where the program's text and its embedded libraries lie in the input
 * buffers and in memory, and where the stub's thunks are.
 */
#include <string.h>

#include "elfwrite.h"
#include "syscall_sites.h"
#include "uselib_sites.h"

#define NR_OPEN 5
#define NR_USELIB 86
#define NR_READDIR 89

/* The code of library l (a QMAGIC one's text holds its header): in buf and in memory. */
static uint8_t *library_code(struct lib *l, uint32_t *len, uint32_t *addr)
{
	uint32_t skip = l->a.magic == AOUT_QMAGIC ? AOUT_HEADER_SIZE : 0;

	*len = l->a.h.text > skip ? l->a.h.text - skip : 0;
	*addr = l->start + skip;
	return l->in.buf + l->a.text_off + skip;
}

/* The index of the library called ld.so (by any name of it), or -1. */
static long ldso_index(const struct plan *p)
{
	for (size_t k = 0; k < p->nlibs; k++)
		if (!strcmp(p->libs[k].name, "ld.so"))
			return p->libs[k].same_as ? (long)p->libs[k].same_as - 1 : (long)k;
	return -1;
}

int uselib_sites_patch(struct conv_job *j, const unsigned char *stub,
		       size_t stub_size, struct diag *d)
{
	struct stub_header h;
	struct plan *p = &j->p;

	if (elfw_stub_header(stub, stub_size, &h, d))
		return -1;
	uint32_t uselib = STUB_BASE + h.uselib_thunk_off;
	uint32_t open = STUB_BASE + h.open_thunk_off;
	uint32_t readdir = STUB_BASE + h.readdir_thunk_off;
	uint8_t *text = j->in.buf + j->a.text_off + (p->text_addr - p->start_code);
	long ldso = ldso_index(p);

	p->uselib_sites = p->lib_uselib_sites = p->ldso_open_sites = 0;
	/* readdir for hosts without it (qemu-user), in static programs too */
	p->readdir_sites = syscall_sites_patch(text, p->text_size, p->text_addr,
					       NR_READDIR, readdir);
	if (!p->dynamic)
		return 0;
	p->uselib_sites = syscall_sites_patch(text, p->text_size, p->text_addr,
					      NR_USELIB, uselib);
	/* libs[i] is j->libs.libs[i]'s, for i < j->libs.n */
	for (size_t i = 0; i < j->libs.n; i++) {
		uint32_t len, addr;
		uint8_t *code;

		if (!p->libs[i].embedded)
			continue;
		code = library_code(&j->libs.libs[i], &len, &addr);
		p->lib_uselib_sites += syscall_sites_patch(code, len, addr, NR_USELIB,
							   uselib);
		p->readdir_sites += syscall_sites_patch(code, len, addr, NR_READDIR,
							readdir);
		if ((long)i == ldso)
			p->ldso_open_sites = syscall_sites_patch(code, len, addr,
								 NR_OPEN, open);
	}
	return 0;
}
