/*
 * The command line: options, one conversion or one --info report per
 * file, and the mapping of failures onto "aout2elf: FILE: reason" and the
 * exit statuses 0 (done), 1 (an input could not be converted), 2 (usage).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"

#include "aout.h"
#include "elfwrite.h"
#include "info.h"
#include "output.h"
#include "plan.h"
#include "stub_image.h"

enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

struct options {
	int force, quiet, verbose, info;
	struct plan_options plan;
};

static const char *progname = "aout2elf";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]... INPUT OUTPUT\n"
"  or:  %s --info FILE...\n"
"Convert a Linux i386 a.out executable (OMAGIC, NMAGIC, ZMAGIC, QMAGIC)\n"
"into an ELF32 executable that runs as it did under the a.out loader.\n"
"\n"
"  -f, --force         replace OUTPUT if it exists\n"
"      --info          describe each a.out FILE and its converted load map\n"
"      --noexecstack   make stack, data, bss and heap non-executable\n"
"  -q, --quiet         print no warnings\n"
"  -v, --verbose       say what was converted\n"
"  -h, --help          display this help and exit\n"
"  -V, --version       output version information and exit\n"
"\n"
"Exit status: 0 on success, 1 if an input could not be converted,\n"
"2 on a usage error.  See aout2elf(1).\n", progname, progname);
}

static int usage_error(const char *msg)
{
	fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n",
		progname, msg, progname);
	return EXIT_USAGE;
}

static int fail(const char *file, const struct diag *d)
{
	fprintf(stderr, "%s: %s: %s\n", progname, file, d->msg);
	return EXIT_FAIL;
}

static unsigned long mmap_min_addr(void)
{
	unsigned long v = 0;
	FILE *f = fopen("/proc/sys/vm/mmap_min_addr", "r");

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Reads and plans one input; the caller frees in and a. */
static int load(const char *path, const struct options *o, struct input *in,
		struct aout *a, struct plan *p, struct diag *d)
{
	if (input_read(path, in, d))
		return -1;
	if (aout_parse(in->buf, in->size, a, d) || plan_build(a, &o->plan, p, d)) {
		aout_free(a);
		input_free(in);
		return -1;
	}
	return 0;
}

static int info(const char *path, const struct options *o)
{
	struct input in;
	struct aout a;
	struct plan p;
	struct diag d;

	if (load(path, o, &in, &a, &p, &d))
		return fail(path, &d);
	info_print(stdout, path, &a, &p);
	aout_free(&a);
	input_free(&in);
	return 0;
}

static int convert(const char *src, const char *dst, const struct options *o,
		   mode_t umask_bits)
{
	struct input in;
	struct aout a;
	struct plan p;
	struct output out;
	struct diag d;
	int rc = 0;

	if (load(src, o, &in, &a, &p, &d))
		return fail(src, &d);
	if (output_open(dst, &in.st, o->force, &out, &d)) {
		rc = fail(dst, &d);
		goto done;
	}
	if (elfw_write(out.fd, &a, &p, stub_image, stub_image_size, &d)) {
		output_abort(&out);
		rc = fail(dst, &d);
		goto done;
	}
	if (output_commit(&out, output_mode(in.st.st_mode, umask_bits), &d)) {
		rc = fail(dst, &d);
		goto done;
	}
	if (!o->quiet && p.min_addr < mmap_min_addr())
		fprintf(stderr, "%s: warning: %s: needs address 0x%x, below "
				"vm.mmap_min_addr (%lu) here; only root can run "
				"it unless 'sysctl -w vm.mmap_min_addr=%u'\n",
			progname, dst, p.min_addr, mmap_min_addr(), p.min_addr);
	if (o->verbose)
		printf("'%s' -> '%s' (%s)\n", src, dst, aout_magic_name(a.magic));
done:
	aout_free(&a);
	input_free(&in);
	return rc;
}

int main(int argc, char **argv)
{
	enum { OPT_INFO = 256, OPT_NOEXECSTACK };
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "info", no_argument, NULL, OPT_INFO },
		{ "noexecstack", no_argument, NULL, OPT_NOEXECSTACK },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, "fqvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o.force = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'v':
			o.verbose = 1;
			break;
		case OPT_INFO:
			o.info = 1;
			break;
		case OPT_NOEXECSTACK:
			o.plan.noexec = 1;
			break;
		case 'h':
			usage(stdout);
			return fflush(stdout) ? EXIT_FAIL : 0;
		case 'V':
			printf("aout2elf %s\n", PACKAGE_VERSION);
			return fflush(stdout) ? EXIT_FAIL : 0;
		default:
			fprintf(stderr, "Try '%s --help' for more information.\n",
				progname);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;

	mode_t umask_bits = umask(0);
	umask(umask_bits);

	if (o.info) {
		int rc = 0;

		if (argc < 1)
			return usage_error("--info needs at least one FILE");
		for (int i = 0; i < argc; i++)
			if (info(argv[i], &o))
				rc = EXIT_FAIL;
		if (fflush(stdout))
			rc = EXIT_FAIL;
		return rc;
	}
	if (argc < 2)
		return usage_error(argc ? "missing OUTPUT operand" :
					  "missing INPUT and OUTPUT operands");
	if (argc > 2)
		return usage_error("too many operands (INPUT OUTPUT expected)");
	return convert(argv[0], argv[1], &o, umask_bits);
}
