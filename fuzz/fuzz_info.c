/*
 * libFuzzer target: aout2elf --info without the file system.
 *
 *   aout_parse -> plan_build -> libs_scan -> plan_add_libs -> info_print
 *
 * The libraries are those libs_scan names, "not found" as libs_resolve
 * leaves them for --info (missing_ok), or the input itself as the first
 * one (see fuzz_model.h); the options come from a hash of the input.  The
 * report goes into a memory buffer (open_memstream), which is then checked
 * to be text: no NUL byte, ending in a newline.  Inputs that --info would
 * refuse as programs go, as in info_file, to info_print_library when they
 * are a.out shared libraries (libs_is_library).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aout.h"
#include "info.h"
#include "libs.h"
#include "plan.h"

#include "fuzz_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t sel = fuzz_hash(data, size);
	struct plan_options opt = {
		.noexec = sel & 1,
		.direct = (sel >> 1) & 1,
		.no_embed_libs = (sel >> 2) & 1,
	};
	static const char *const dirs[] = { "/fuzz/lib" };
	struct aout a;
	struct diag d;

	struct plan *p = calloc(1, sizeof *p);
	struct libset *set = calloc(1, sizeof *set);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!p || !set || !out)
		abort();
	int parsed = aout_parse(data, size, &a, &d) == 0;

	if (parsed && plan_build(&a, &opt, p, &d) == 0) {
		fuzz_libset(&a, p, data, size, (sel >> 3) & 1,
			    PLAN_LIB_WINDOW_LO + ((sel >> 4) & 0xff) * 0x10000u,
			    set);
		if (plan_add_libs(p, set, &opt, dirs, 1, &d))
			abort();
		info_print(out, "fuzz.aout", &a, p, set);
	} else {
		/*
		 * What info_file falls back to: a shared library.  The
		 * program's symbols go first (aout_parse_kind clears *a).
		 */
		if (parsed)
			aout_free(&a);
		if (aout_parse_kind(data, size, AOUT_SHLIB, &a, &d) == 0 &&
		    libs_is_library(&a))
			info_print_library(out, "fuzz.so", &a);
	}
	if (fclose(out))
		abort();
	if (len && (memchr(text, 0, len) || text[len - 1] != '\n')) {
		fprintf(stderr, "fuzz_info: the report is not text\n");
		abort();
	}
	free(text);
	libs_free(set);
	free(set);
	free(p);
	aout_free(&a);
	return 0;
}
