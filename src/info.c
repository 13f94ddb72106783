/*
 * aout2elf --info: what an a.out program is and the load map of the
 * program it converts to, or what an a.out shared library is and where
 * it loads.
 */
#include <string.h>

#include "info.h"
#include "elfwrite.h"
#include "input.h"
#include "record.h"
#include "stub_abi.h"
#include "stub_image.h"
#include "uselib_sites.h"
#include "diag.h"

/* A path from the command line or a folder, as the shell reads it back:
 * a file name holding an escape sequence is not sent to the terminal. */
static const char *shell_name(const char *path)
{
	static char buf[DIAG_NAME_MAX];

	diag_name(buf, sizeof buf, path);
	return buf;
}

static const char *describe(unsigned magic)
{
	switch (magic) {
	case AOUT_QMAGIC:
		return "demand paged, header inside text at 0x1000";
	case AOUT_ZMAGIC:
		return "demand paged, text at file offset 1024, loaded at 0";
	case AOUT_NMAGIC:
		return "pure, text and data loaded together at 0";
	case AOUT_OMAGIC:
		return "impure, text and data loaded together at 0";
	}
	return "";
}

static void prot_str(uint32_t prot, char s[4])
{
	s[0] = prot & STUB_PROT_R ? 'r' : '-';
	s[1] = prot & STUB_PROT_W ? 'w' : '-';
	s[2] = prot & STUB_PROT_X ? 'x' : '-';
	s[3] = 0;
}

static void map_line(FILE *out, uint32_t lo, uint32_t hi, uint32_t prot,
		     const char *what)
{
	char ps[4];

	prot_str(prot, ps);
	fprintf(out, "    0x%08x  0x%08x  %10u  %s  %s\n", lo, hi, hi - lo, ps,
		what);
}

/*
 * Where the stub's uselib() looks when the program runs, in its order
 * (src/stub/uselib.c): embedded copies by file name; else AOUT_LIBRARY_PATH,
 * the path given, the -L (and --shared-libs) directories, the customary.
 */
static void print_run_time_search(FILE *out, const struct plan *p)
{
	int any_on_disk = 0;

	for (size_t i = 0; i < p->nlibs; i++)
		any_on_disk |= !p->libs[i].embedded;
	if (!any_on_disk) {
		fprintf(out, "  At run time:      uselib() answered from the copies "
			     "inside the program, by file name\n");
		return;
	}
	fprintf(out, "  At run time:      uselib() looks in $AOUT_LIBRARY_PATH, %s"
		     "the path given, %s%s%s "
		     "(AOUT_LIBRARY_DEBUG=1 shows it)\n",
		strstr(p->paths, "$ORIGIN") ? "the copies of --shared-libs, " : "",
		p->paths, p->paths[0] ? ":" : "", libs_customary_dirs);
}

static void print_libs(FILE *out, const struct plan *p,
		       const struct libset *libs)
{
	if (!libs->n) {
		fprintf(out, "  Linking:          static\n");
		return;
	}
	fprintf(out, "  Linking:          dynamic (uselib), %zu a.out libraries\n",
		libs->n);
	for (size_t i = 0; i < libs->n; i++) {
		const struct lib *l = &libs->libs[i];
		char have[32], want[32];

		fprintf(out, "    %s", l->name);
		for (size_t k = 0; k < l->naliases; k++)
			fprintf(out, ", %s", l->aliases[k]);
		if (l->needed) {
			libs_version_str(l->needed, want, sizeof want);
			fprintf(out, " (%s %s, for %s)", want,
				l->exact ? "exactly" : "or later", l->needed_by);
		}
		if (!l->path) {
			fprintf(out, " => not found\n");
			continue;
		}
		fprintf(out, " => %s", shell_name(l->path));
		if (l->version) {
			libs_version_str(l->version, have, sizeof have);
			fprintf(out, " (%s)", have);
		}
		fprintf(out, " at 0x%08x-0x%08x\n", l->start,
			l->start + l->len + l->bss_len);
	}
	for (const char *w = libs->warnings; *w; w = strchr(w, '\n') + 1) {
		char line[sizeof libs->warnings], shown[4 * sizeof line];

		snprintf(line, sizeof line, "%.*s", (int)strcspn(w, "\n"), w);
		diag_escape(shown, sizeof shown, line);
		fprintf(out, "    warning: %s\n", shown);
	}
	print_run_time_search(out, p);
	if (p->uselib_sites || p->lib_uselib_sites || p->ldso_open_sites)
		fprintf(out, "  Calls the stub:   %u uselib() in the program, %u in "
			     "embedded libraries, %u open() in ld.so (not trapped)\n",
			p->uselib_sites, p->lib_uselib_sites, p->ldso_open_sites);
	if (p->readdir_sites)
		fprintf(out, "  readdir() sites:  %u, answered by the stub where the "
			     "host has no readdir (qemu-user)\n", p->readdir_sites);
}

void info_print(FILE *out, const char *name, const struct aout *a,
		const struct plan *p, const struct libset *libs)
{
	const struct aout_header *h = &a->h;
	size_t nstab = 0;

	for (size_t i = 0; i < a->nsyms; i++)
		nstab += (a->syms[i].type & N_STAB) != 0;
	fprintf(out, "%s:\n", shell_name(name));
	fprintf(out, "  Format:           %s (0%o), %s\n", aout_magic_name(a->magic),
		a->magic, describe(a->magic));
	fprintf(out, "  Machine:          %s (%u)\n",
		a->machine == AOUT_M_386 ? "i386" : "unspecified", a->machine);
	fprintf(out, "  Flags:            0x%02x\n", a->flags);
	fprintf(out, "  Text:             %u bytes at 0x%08x, file offset %u\n",
		h->text, p->start_code, a->text_off);
	fprintf(out, "  Data:             %u bytes at 0x%08x, file offset %u\n",
		h->data, p->data_addr, a->data_off);
	fprintf(out, "  Bss:              %u bytes at 0x%08x\n", h->bss, p->bss_addr);
	fprintf(out, "  Entry point:      0x%08x\n", h->entry);
	fprintf(out, "  brk at entry:     0x%08x\n", p->brk);
	if (a->nsyms)
		fprintf(out, "  Symbols:          %zu (%zu of them stabs)\n",
			a->nsyms, nstab);
	else if (a->no_symbols && h->syms)
		fprintf(out, "  Symbols:          left out (-s), %u bytes unread\n",
			h->syms);
	else
		fprintf(out, "  Symbols:          none (stripped)\n");
	print_libs(out, p, libs);
	fprintf(out, "  Load map of the converted program:\n");
	fprintf(out, "    %-10s  %-10s  %10s  %s  %s\n", "Start", "End", "Bytes",
		"Acc", "Contents");
	for (size_t i = 0; i < p->nregions; i++) {
		const struct plan_region *r = &p->regions[i];
		char what[64];

		snprintf(what, sizeof what, "%s, from file offset %u", r->name,
			 r->aout_off);
		map_line(out, r->vaddr & ~(STUB_PAGE - 1),
			 (r->vaddr + r->size + STUB_PAGE - 1) & ~(STUB_PAGE - 1),
			 r->prot, what);
	}
	for (size_t i = 0; i < p->nzero; i++)
		map_line(out, p->zero[i].vaddr, p->zero[i].vaddr + p->zero[i].size,
			 p->zero[i].prot, "bss, zero pages");
	/* a brk below the floor: the stub maps the pages up to it (set_brk) */
	uint64_t brk_page = ((uint64_t)p->brk + STUB_PAGE - 1) & ~(uint64_t)(STUB_PAGE - 1);
	if (brk_page < STUB_BRK_FLOOR)
		map_line(out, (uint32_t)brk_page, STUB_BRK_FLOOR,
			 STUB_PROT_R | STUB_PROT_W | (p->noexec ? 0 : STUB_PROT_X),
			 "zero pages up to 64 KiB, unless brk is exact "
			 "or ulimit -d leaves no room");
	for (size_t i = 0; i < p->nlibs; i++) {
		char what[96];

		if (!p->libs[i].len)
			continue;
		snprintf(what, sizeof what, "%s, at uselib(), %s", p->libs[i].name,
			 p->libs[i].embedded ? "embedded" : "found at run time");
		map_line(out, p->libs[i].start,
			 p->libs[i].start + p->libs[i].len + p->libs[i].bss_len,
			 STUB_PROT_R | STUB_PROT_W | STUB_PROT_X, what);
	}
	/* the stub's code and plan, and its variables, as elfwrite lays them out */
	struct elfw_layout l;
	struct diag d;
	uint32_t stub_len = STUB_PAGE, bss_len = STUB_PAGE;

	if (elfw_layout(p, stub_image, stub_image_size, &l, &d) == 0) {
		stub_len = (l.stub_filesz + STUB_PAGE - 1) & ~(STUB_PAGE - 1);
		bss_len = (l.stub_bss_size + STUB_PAGE - 1) & ~(STUB_PAGE - 1);
	}
	map_line(out, STUB_BASE, STUB_BASE + stub_len,
		 elfw_stub_prot(p), "aout2elf runtime stub, code");
	/* the moves leave the staging mapped, without its pages (the stub's
	 * move_pages), where the kernel has MREMAP_DONTUNMAP for files; where
	 * the layout fails, conversion says why */
	for (size_t i = 0; i < p->nregions && !p->direct && l.nregions; i++) {
		char what[96];

		snprintf(what, sizeof what,
			 "%s staged, emptied at start (unmapped before Linux 5.13)",
			 p->regions[i].name);
		map_line(out, l.region[i].stage, l.region[i].stage + l.region[i].len,
			 p->regions[i].prot, what);
	}
	map_line(out, STUB_BSS, STUB_BSS + bss_len, STUB_PROT_R | STUB_PROT_W,
		 "aout2elf runtime stub, variables");
}

void info_print_library(FILE *out, const char *name, const struct aout *a)
{
	const struct aout_header *h = &a->h;
	struct lib_need needs[LIBS_MAX_NEEDS];
	size_t n = libs_scan(a, needs, LIBS_MAX_NEEDS);
	uint64_t len = ((uint64_t)h->text + h->data + STUB_PAGE - 1) & ~(uint64_t)(STUB_PAGE - 1);
	uint64_t end = aout_lib_start(a) +
		       (((uint64_t)h->text + h->data + h->bss + STUB_PAGE - 1) &
			~(uint64_t)(STUB_PAGE - 1));

	fprintf(out, "%s:\n", shell_name(name));
	fprintf(out, "  Format:           %s (0%o), a.out shared library (uselib)\n",
		aout_magic_name(a->magic), a->magic);
	fprintf(out, "  Machine:          %s (%u)\n",
		a->machine == AOUT_M_386 ? "i386" : "unspecified", a->machine);
	fprintf(out, "  Text:             %u bytes, file offset %u\n", h->text,
		a->text_off);
	fprintf(out, "  Data:             %u bytes\n", h->data);
	fprintf(out, "  Bss:              %u bytes\n", h->bss);
	fprintf(out, "  Loads at:         0x%08x-0x%08llx (text and data rwx, "
		     "bss from 0x%08llx)\n", aout_lib_start(a),
		(unsigned long long)end,
		(unsigned long long)aout_lib_start(a) + len);
	if (!n)
		fprintf(out, "  Needs:            no other library\n");
	for (size_t i = 0; i < n; i++) {
		char v[32];

		libs_version_str(needs[i].version, v, sizeof v);
		fprintf(out, "  Needs:            %s (%s or later)\n", needs[i].name, v);
	}
}

void info_print_converted(FILE *out, const char *name, const struct record *r)
{
	fprintf(out, "%s:\n", shell_name(name));
	if (!r->version[0]) {
		fprintf(out, "  Converted by:     aout2elf (its .comment record is "
			     "missing or unreadable)\n");
		return;
	}
	fprintf(out, "  Converted by:     aout2elf %s\n", r->version);
	fprintf(out, "  Options:          %s\n",
		r->options[0] ? shell_name(r->options) : "none");
	if (r->has_from)
		fprintf(out, "  Converted from:   %s a.out, %llu bytes, sha256 %s\n",
			r->from.format, (unsigned long long)r->from.size,
			r->from.sha256);
	else
		fprintf(out, "  Converted from:   not recorded (by an older aout2elf)\n");
	if (!r->nlibs)
		fprintf(out, "  Libraries:        none carried\n");
	for (size_t i = 0; i < r->nlibs; i++) {
		const struct conv_embedded *l = &r->libs[i];
		char date[RECORD_TIME_MAX];

		record_time_iso(date, &l->mtime);
		fprintf(out, "  %s %s, from %s (%llu bytes, modified %s)\n",
			l->shared ? "Shares:          " : "Embeds:          ",
			l->name, shell_name(l->path), (unsigned long long)l->size, date);
	}
}

/* path on out if aout2elf wrote it; -1 if it did not. */
static int print_if_converted(FILE *out, const char *path, int json)
{
	struct record r;

	if (record_read(path, &r) < 0)
		return -1;
	if (json)
		info_json_converted(out, path, &r);
	else
		info_print_converted(out, path, &r);
	record_free(&r);
	return 0;
}

/* path on out if it is an a.out shared library; -1 if it is none. */
static int print_if_library(FILE *out, const char *path, int json)
{
	struct input in;
	struct aout a;
	struct diag d;
	int rc = -1;

	if (input_read(path, &in, &d))
		return -1;
	if (aout_parse_kind(in.buf, in.size, AOUT_SHLIB, &a, &d) == 0) {
		if (libs_is_library(&a)) {
			if (json)
				info_json_library(out, path, &in, &a);
			else
				info_print_library(out, path, &a);
			rc = 0;
		}
		aout_free(&a);
	}
	input_free(&in);
	return rc;
}

int info_file(FILE *out, const char *path, const struct conv_options *o,
	      int json, struct diag *d)
{
	struct conv_job j;

	if (conv_load(path, o, 1, &j, d))
		return print_if_converted(out, path, json) == 0 ? 0 :
		       print_if_library(out, path, json);
	if (json) {
		info_json_program(out, path, &j.in, &j.a, &j.p, &j.libs);
		conv_job_free(&j);
		return 0;
	}
	/* the sites as the conversion would rewrite them, to count them
	 * (in j's copy of the input: after the JSON's sha256 of it) */
	if (uselib_sites_patch(&j, stub_image, stub_image_size, d)) {
		conv_job_free(&j);
		return -1;
	}
	info_print(out, path, &j.a, &j.p, &j.libs);
	conv_job_free(&j);
	return 0;
}
