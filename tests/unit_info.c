/*
 * Unit tests for src/info.c and src/info_json.c: --info of a converted
 * program, and --info --json of a program, a library and a converted
 * program, with the keys aout2elf(1) documents, in their order.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "info.h"
#include "unit.h"
#include "helpers/aoutgen.h"

#define SHA_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

/* What print wrote, malloc'ed. */
static char *printed(void (*print)(FILE *, const char *, const struct record *),
		     const char *name, const struct record *r)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	print(f, name, r);
	fclose(f);
	return text;
}

static struct record sample(void)
{
	struct record r = { .version = "0.1.0", .options = "-L /a\"b --strip",
			    .has_from = 1, .nlibs = 2 };

	strcpy(r.from.format, "ZMAGIC");
	r.from.size = 3;
	strcpy(r.from.sha256, SHA_ABC);
	r.libs[0] = (struct conv_embedded){ .path = "/l/libc.so.4", .name = "libc.so.4",
					    .size = 9, .mtime = { 1733500000, 7 } };
	r.libs[1] = (struct conv_embedded){ .path = "/o/.aout2elf-libs/x/libm.so.4",
					    .name = "libm.so.4", .size = 8,
					    .mtime = { 2, 3 }, .shared = 1,
					    .hash = "0123456789abcdef" };
	return r;
}

static void test_json_converted(void)
{
	struct record r = sample();
	char *s = printed(info_json_converted, "dir/a\nb.elf", &r);

	CHECK_STR(s, "{\"file\": \"dir/a\\u000ab.elf\", \"kind\": \"converted\", "
		     "\"format\": \"ZMAGIC\", \"size\": 3, \"sha256\": \"" SHA_ABC "\", "
		     "\"converter\": \"aout2elf\", \"version\": \"0.1.0\", "
		     "\"options\": \"-L /a\\\"b --strip\", \"libraries\": ["
		     "{\"name\": \"libc.so.4\", \"path\": \"/l/libc.so.4\", "
		     "\"carried\": \"embedded\", \"size\": 9, "
		     "\"modified\": \"2024-12-06T15:46:40.000000007Z\", \"hash\": null}, "
		     "{\"name\": \"libm.so.4\", \"path\": \"/o/.aout2elf-libs/x/libm.so.4\", "
		     "\"carried\": \"shared\", \"size\": 8, "
		     "\"modified\": \"1970-01-01T00:00:02.000000003Z\", "
		     "\"hash\": \"0123456789abcdef\"}]}\n");
	free(s);
	/* an older record: no a.out; an unreadable one: nothing known */
	r.has_from = 0;
	r.nlibs = 0;
	s = printed(info_json_converted, "p", &r);
	CHECK_STR(s, "{\"file\": \"p\", \"kind\": \"converted\", \"format\": null, "
		     "\"size\": null, \"sha256\": null, \"converter\": \"aout2elf\", "
		     "\"version\": \"0.1.0\", \"options\": \"-L /a\\\"b --strip\", "
		     "\"libraries\": []}\n");
	free(s);
	memset(&r, 0, sizeof r);
	s = printed(info_json_converted, "p", &r);
	CHECK_STR(s, "{\"file\": \"p\", \"kind\": \"converted\", \"format\": null, "
		     "\"size\": null, \"sha256\": null, \"converter\": null, "
		     "\"version\": null, \"options\": null, \"libraries\": []}\n");
	free(s);
}

static void test_text_converted(void)
{
	struct record r = sample();
	char *s = printed(info_print_converted, "p.elf", &r);

	CHECK_STR(s, "p.elf:\n"
		     "  Converted by:     aout2elf 0.1.0\n"
		     "  Options:          -L /a\"b --strip\n"
		     "  Converted from:   ZMAGIC a.out, 3 bytes, sha256 " SHA_ABC "\n"
		     "  Embeds:           libc.so.4, from /l/libc.so.4 (9 bytes, "
		     "modified 2024-12-06T15:46:40.000000007Z)\n"
		     "  Shares:           libm.so.4, from /o/.aout2elf-libs/x/libm.so.4 "
		     "(8 bytes, modified 1970-01-01T00:00:02.000000003Z)\n");
	free(s);
	r.has_from = 0;
	r.nlibs = 0;
	r.options[0] = 0;
	s = printed(info_print_converted, "p.elf", &r);
	CU_ASSERT(s && strstr(s, "  Options:          none\n") &&
		  strstr(s, "  Converted from:   not recorded (by an older aout2elf)\n") &&
		  strstr(s, "  Libraries:        none carried\n"));
	free(s);
	memset(&r, 0, sizeof r);
	s = printed(info_print_converted, "p.elf", &r);
	CHECK_STR(s, "p.elf:\n  Converted by:     aout2elf (its .comment record is "
		     "missing or unreadable)\n");
	free(s);
}

/* info_file --json on each kind of file, and on one that is none. */
static void test_info_file_json(void)
{
	char *dir = unit_tmpdir(), *text = NULL;
	struct aoutgen_spec spec;
	struct aoutgen g, lib;
	struct conv_options o = { .umask_bits = 022 };
	struct conv_result res;
	struct diag d;
	size_t size = 0;

	if (!dir) {
		CU_FAIL("no temporary directory");
		return;
	}
	char *src = unit_path(dir, "prog"), *dst = unit_path(dir, "prog.elf"),
	     *lp = unit_path(dir, "lib"), *junk = unit_path(dir, "junk");
	FILE *f = open_memstream(&text, &size);

	aoutgen_default(&spec, AOUT_QMAGIC);
	aoutgen_build(&spec, &g);
	aoutgen_library(&spec, 0x60000000);
	aoutgen_build(&spec, &lib);
	CU_ASSERT_EQUAL(unit_write_file(src, g.buf, g.size, 0755), 0);
	CU_ASSERT_EQUAL(unit_write_file(lp, lib.buf, lib.size, 0644), 0);
	CU_ASSERT_EQUAL(unit_write_file(junk, "junk", 4, 0644), 0);
	CU_ASSERT_EQUAL(conv_file(src, dst, &o, &res), 0);
	CU_ASSERT_EQUAL(info_file(f, src, &o, 1, &d), 0);
	CU_ASSERT_EQUAL(info_file(f, dst, &o, 1, &d), 0);
	CU_ASSERT_EQUAL(info_file(f, lp, &o, 1, &d), 0);
	CU_ASSERT_EQUAL(info_file(f, junk, &o, 1, &d), -1);
	fclose(f);

	/* one line each, the common keys first, then the kind's own */
	char *line[3] = { text, NULL, NULL };

	for (int i = 1; i < 3 && line[i - 1]; i++) {
		line[i] = strchr(line[i - 1], '\n');
		line[i] = line[i] ? line[i] + 1 : NULL;
	}
	CU_ASSERT(line[2] && strchr(line[2], '\n') && !strchr(line[2], '\n')[1]);
	CU_ASSERT(line[0] && strstr(line[0], "\"kind\": \"program\", \"format\": \"QMAGIC\", "
					      "\"size\": ") &&
		  strstr(line[0], "\"machine\": \"i386\", \"flags\": 0, \"text\": {\"size\": ") &&
		  strstr(line[0], "\"linking\": \"static\", \"libraries\": [], "
				  "\"warnings\": []}\n"));
	CU_ASSERT(line[1] && strstr(line[1], "\"kind\": \"converted\", \"format\": "
					      "\"QMAGIC\", \"size\": "));
	CU_ASSERT(line[2] && strstr(line[2], "\"kind\": \"library\", \"format\": "
					      "\"QMAGIC\", \"size\": ") &&
		  strstr(line[2], "\"address\": 1610612736"));
	/* the a.out's sha256, read back from its conversion */
	char *sha = line[0] ? strstr(line[0], "\"sha256\": ") : NULL;

	CU_ASSERT(sha && line[1] && strncmp(strstr(line[1], "\"sha256\": "), sha, 77) == 0);
	free(text);
	aoutgen_free(&g);
	aoutgen_free(&lib);
	free(src);
	free(dst);
	free(lp);
	free(junk);
	unit_rmtree(dir);
}

int unit_info_register(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(test_json_converted),
		UNIT_TEST(test_text_converted),
		UNIT_TEST(test_info_file_json),
		UNIT_END
	};

	return unit_add_suite("--info of converted programs, --json (src/info*.c)",
			      NULL, NULL, tests);
}
