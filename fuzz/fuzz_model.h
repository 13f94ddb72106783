/*
 * Shared by the libFuzzer targets: what the converter's command line does
 * between reading and writing, without touching the file system.
 *
 * libs_resolve looks the libraries up in folders, so the targets do not
 * call it.  fuzz_libset builds the struct libset it would have returned
 * from the pure libs_scan: every library the program names, ld.so first
 * when the crt0 maps it, all "not found" (path NULL), as libs_resolve
 * leaves them with missing_ok.  With embed_self, the first library is
 * instead "found", being the fuzz input itself read as a shared library
 * (aout_parse_kind AOUT_SHLIB), with start, len and bss_len computed as
 * add_lib computes them (start moved to `where` when it would overlap the
 * program) and kept only where check_overlaps would accept it, so that
 * the writer's embedded-library path is fuzzed too.
 */
#ifndef AOUT2ELF_FUZZ_MODEL_H
#define AOUT2ELF_FUZZ_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aout.h"
#include "libs.h"
#include "plan.h"

static inline uint32_t fuzz_hash(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return h;
}

static inline void fuzz_add_need(struct libset *set, const char *name,
				 uint32_t version)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->libs[i].name, name)) {
			if (version > set->libs[i].needed) {
				set->libs[i].needed = version;
				strcpy(set->libs[i].needed_by, "the program");
			}
			return;
		}
	if (set->n == STUB_MAX_LIBS)
		return; /* libs_resolve would refuse the program */
	struct lib *l = &set->libs[set->n++];

	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	l->needed = version;
	if (version)
		strcpy(l->needed_by, "the program");
}

/* Fills *set; libs_free(set) releases it. */
static inline void fuzz_libset(const struct aout *prog, const struct plan *p,
			       const uint8_t *data, size_t size, int embed_self,
			       uint32_t where, struct libset *set)
{
	struct lib_need needs[LIBS_MAX_NEEDS];
	size_t n = libs_scan(prog, needs, LIBS_MAX_NEEDS);

	memset(set, 0, sizeof *set);
	if (n && libs_wants_ldso(prog))
		fuzz_add_need(set, "ld.so", 0);
	for (size_t i = 0; i < n; i++)
		fuzz_add_need(set, needs[i].name, needs[i].version);
	if (!embed_self || !set->n)
		return;

	struct lib *l = &set->libs[0];
	struct diag d;

	if (aout_parse_kind(data, size, AOUT_SHLIB, &l->a, &d))
		return;
	const struct aout_header *h = &l->a.h;
	uint64_t len = ((uint64_t)h->text + h->data + AOUT_PAGE - 1) &
		       ~(uint64_t)(AOUT_PAGE - 1);
	uint64_t all = ((uint64_t)h->text + h->data + h->bss + AOUT_PAGE - 1) &
		       ~(uint64_t)(AOUT_PAGE - 1);
	uint32_t start = aout_lib_start(&l->a);
	uint64_t end = (uint64_t)start + all;

	/*
	 * An executable's entry lies in its own image, so the input read as
	 * a library would always overlap itself as the program: move it to
	 * a library address chosen by the caller.  The writer sees the same
	 * kind of struct plan_lib either way.
	 */
	int moved = start < p->image_end && end > p->min_addr;

	if (moved) {
		start = where;
		end = (uint64_t)start + all;
	}
	/* check_overlaps: below IMAGE_LIMIT and clear of the program */
	if (end > IMAGE_LIMIT || (start < p->image_end && end > p->min_addr)) {
		aout_free(&l->a);
		return;
	}
	l->start = start;
	l->len = (uint32_t)len;
	l->bss_len = (uint32_t)(all - len);
	l->path = strdup("/fuzz/self.so");
	if (!l->path) {
		aout_free(&l->a);
		return;
	}
	/*
	 * As add_lib: the word at the jump table the program named, and no
	 * library at all without it (not for a moved one, whose addresses
	 * the program cannot know).
	 */
	for (size_t i = 0; i < n && !moved; i++) {
		size_t avail;
		const uint8_t *w;

		if (strcmp(needs[i].name, l->name) || !needs[i].version)
			continue;
		w = aout_at(&l->a, needs[i].jump_table, &avail);
		if (!w || avail < 4) {
			/* add_lib refuses a library without that jump table */
			free(l->path);
			l->path = NULL;
			aout_free(&l->a);
			l->start = l->len = l->bss_len = 0;
			return;
		}
		l->version = (uint32_t)w[0] | (uint32_t)w[1] << 8 |
			     (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
	}
}

#endif
