/*
 * aout2elf --info --json: what --info says, as one JSON object a file on
 * one line.  The keys are a stable interface, listed in aout2elf(1) ("Info
 * in JSON"): new keys may come, none changes its meaning or goes.  Every
 * object has "file", "kind", and the a.out's "format", "size", "sha256"
 * (of a converted program, those of the a.out it was converted from,
 * null where not recorded) and "libraries".
 */
#include <stdio.h>
#include <string.h>

#include "info.h"
#include "json.h"
#include "sha256.h"

static void key(FILE *out, const char *k)
{
	fprintf(out, ", ");
	json_string(out, k);
	fprintf(out, ": ");
}

static void key_str(FILE *out, const char *k, const char *v)
{
	key(out, k);
	if (v)
		json_string(out, v);
	else
		fprintf(out, "null");
}

static void key_num(FILE *out, const char *k, unsigned long long v)
{
	key(out, k);
	fprintf(out, "%llu", v);
}

/* "{"file": NAME, "kind": KIND, "format": ..., "size": ..., "sha256": ..." */
static void head(FILE *out, const char *name, const char *kind,
		 const char *format, const struct input *in)
{
	char sha[SHA256_HEX];

	fprintf(out, "{");
	json_string(out, "file");
	fprintf(out, ": ");
	json_string(out, name);
	key_str(out, "kind", kind);
	key_str(out, "format", format);
	key_num(out, "size", in->size);
	sha256_hex(in->buf, in->size, sha);
	key_str(out, "sha256", sha);
}

static void segment(FILE *out, const char *k, uint32_t size, uint32_t addr,
		    uint32_t offset, int has_offset)
{
	key(out, k);
	fprintf(out, "{\"size\": %u, \"address\": %u", size, addr);
	if (has_offset)
		fprintf(out, ", \"offset\": %u", offset);
	fprintf(out, "}");
}

static void version_or_null(FILE *out, const char *k, uint32_t v)
{
	char s[32];

	if (v)
		libs_version_str(v, s, sizeof s);
	key_str(out, k, v ? s : NULL);
}

static void program_libs(FILE *out, const struct plan *p, const struct libset *libs)
{
	key(out, "libraries");
	fprintf(out, "[");
	for (size_t i = 0; i < libs->n; i++) {
		const struct lib *l = &libs->libs[i];

		fprintf(out, "%s{", i ? ", " : "");
		json_string(out, "name");
		fprintf(out, ": ");
		json_string(out, l->name);
		key(out, "aliases");
		fprintf(out, "[");
		for (size_t k = 0; k < l->naliases; k++) {
			fprintf(out, "%s", k ? ", " : "");
			json_string(out, l->aliases[k]);
		}
		fprintf(out, "]");
		version_or_null(out, "needed", l->needed);
		key(out, "needed_exactly");
		fprintf(out, "%s", !l->needed ? "null" : l->exact ? "true" : "false");
		key_str(out, "needed_by", l->needed ? l->needed_by : NULL);
		key_str(out, "path", l->path);
		version_or_null(out, "version", l->path ? l->version : 0);
		key(out, "address");
		if (l->path)
			fprintf(out, "%u", l->start);
		else
			fprintf(out, "null");
		key_str(out, "carried", i < p->nlibs && p->libs[i].embedded ?
					"embedded" : "at run time");
		fprintf(out, "}");
	}
	fprintf(out, "]");
	key(out, "warnings");
	fprintf(out, "[");
	for (const char *w = libs->warnings, *sep = ""; *w; w = strchr(w, '\n') + 1) {
		char line[sizeof libs->warnings];

		snprintf(line, sizeof line, "%.*s", (int)strcspn(w, "\n"), w);
		fprintf(out, "%s", sep);
		json_string(out, line);
		sep = ", ";
	}
	fprintf(out, "]");
}

void info_json_program(FILE *out, const char *name, const struct input *in,
		       const struct aout *a, const struct plan *p,
		       const struct libset *libs)
{
	size_t nstab = 0;

	for (size_t i = 0; i < a->nsyms; i++)
		nstab += (a->syms[i].type & N_STAB) != 0;
	head(out, name, "program", aout_magic_name(a->magic), in);
	key_str(out, "machine", a->machine == AOUT_M_386 ? "i386" : "unspecified");
	key_num(out, "flags", a->flags);
	segment(out, "text", a->h.text, p->start_code, a->text_off, 1);
	segment(out, "data", a->h.data, p->data_addr, a->data_off, 1);
	segment(out, "bss", a->h.bss, p->bss_addr, 0, 0);
	key_num(out, "entry", a->h.entry);
	key_num(out, "brk", p->brk);
	key(out, "symbols");
	if (a->no_symbols && a->h.syms)
		fprintf(out, "null");
	else
		fprintf(out, "%zu", a->nsyms);
	key_num(out, "stabs", nstab);
	key_str(out, "linking", libs->n ? "dynamic" : "static");
	program_libs(out, p, libs);
	fprintf(out, "}\n");
}

void info_json_library(FILE *out, const char *name, const struct input *in,
		       const struct aout *a)
{
	struct lib_need needs[LIBS_MAX_NEEDS];
	size_t n = libs_scan(a, needs, LIBS_MAX_NEEDS);

	head(out, name, "library", aout_magic_name(a->magic), in);
	key_str(out, "machine", a->machine == AOUT_M_386 ? "i386" : "unspecified");
	segment(out, "text", a->h.text, aout_lib_start(a), a->text_off, 1);
	key_num(out, "data_size", a->h.data);
	key_num(out, "bss_size", a->h.bss);
	key(out, "libraries");
	fprintf(out, "[");
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{", i ? ", " : "");
		json_string(out, "name");
		fprintf(out, ": ");
		json_string(out, needs[i].name);
		version_or_null(out, "needed", needs[i].version);
		fprintf(out, "}");
	}
	fprintf(out, "]}\n");
}

void info_json_converted(FILE *out, const char *name, const struct record *r)
{
	fprintf(out, "{");
	json_string(out, "file");
	fprintf(out, ": ");
	json_string(out, name);
	key_str(out, "kind", "converted");
	key_str(out, "format", r->has_from ? r->from.format : NULL);
	key(out, "size");
	if (r->has_from)
		fprintf(out, "%llu", (unsigned long long)r->from.size);
	else
		fprintf(out, "null");
	key_str(out, "sha256", r->has_from ? r->from.sha256 : NULL);
	key_str(out, "converter", r->version[0] ? "aout2elf" : NULL);
	key_str(out, "version", r->version[0] ? r->version : NULL);
	key_str(out, "options", r->version[0] ? r->options : NULL);
	key(out, "libraries");
	fprintf(out, "[");
	for (size_t i = 0; i < r->nlibs; i++) {
		const struct conv_embedded *l = &r->libs[i];
		char date[RECORD_TIME_MAX];

		record_time_iso(date, &l->mtime);
		fprintf(out, "%s{", i ? ", " : "");
		json_string(out, "name");
		fprintf(out, ": ");
		json_string(out, l->name);
		key_str(out, "path", l->path);
		key_str(out, "carried", l->shared ? "shared" : "embedded");
		key_num(out, "size", l->size);
		key_str(out, "modified", date);
		key_str(out, "hash", l->shared ? l->hash : NULL);
		fprintf(out, "}");
	}
	fprintf(out, "]}\n");
}
