/*
 * The command line: options, one conversion or one --info report per
 * file, and the mapping of failures onto "aout2elf: FILE: reason" and the
 * exit statuses 0 (done), 1 (an input could not be converted), 2 (usage).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"

#include "aout.h"
#include "elfwrite.h"
#include "info.h"
#include "libs.h"
#include "output.h"
#include "plan.h"
#include "stub_image.h"

enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

#define MAX_LIBDIRS 32

struct options {
	int force, quiet, verbose, info;
	struct plan_options plan;
	const char *libdirs[MAX_LIBDIRS];
	size_t nlibdirs;
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
"      --info          describe each a.out FILE, its libraries and the load\n"
"                        map of the converted program\n"
"  -L, --library-path DIR  look for ld.so and a.out libraries in DIR first\n"
"                        (repeatable)\n"
"      --no-embed-libs find the libraries when the program runs, instead of\n"
"                        carrying them inside OUTPUT\n"
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

struct job {
	struct input in;
	struct aout a;
	struct plan p;
	struct libset libs;
};

static void job_free(struct job *j)
{
	libs_free(&j->libs);
	aout_free(&j->a);
	input_free(&j->in);
}

/*
 * Reads and plans one input, with its libraries; missing libraries are
 * fatal only when they would be embedded.
 */
static int load(const char *path, const struct options *o, int missing_ok,
		struct job *j, struct diag *d)
{
	memset(j, 0, sizeof *j);
	if (input_read(path, &j->in, d))
		return -1;
	if (aout_parse(j->in.buf, j->in.size, &j->a, d) ||
	    plan_build(&j->a, &o->plan, &j->p, d) ||
	    libs_resolve(&j->a, j->p.min_addr, j->p.image_end, o->libdirs,
			 o->nlibdirs, missing_ok, &j->libs, d) ||
	    plan_add_libs(&j->p, &j->libs, &o->plan, o->libdirs, o->nlibdirs, d)) {
		job_free(j);
		return -1;
	}
	return 0;
}

static int info(const char *path, const struct options *o)
{
	struct job j;
	struct diag d;

	if (load(path, o, 1, &j, &d))
		return fail(path, &d);
	info_print(stdout, path, &j.a, &j.p, &j.libs);
	job_free(&j);
	return 0;
}

static int convert(const char *src, const char *dst, const struct options *o,
		   mode_t umask_bits)
{
	struct job j;
	struct output out;
	struct diag d;
	int rc = 0;

	if (load(src, o, o->plan.no_embed_libs, &j, &d))
		return fail(src, &d);
	if (output_open(dst, &j.in.st, o->force, &out, &d)) {
		rc = fail(dst, &d);
		goto done;
	}
	if (elfw_write(out.fd, &j.a, &j.p, stub_image, stub_image_size, &d)) {
		output_abort(&out);
		rc = fail(dst, &d);
		goto done;
	}
	if (output_commit(&out, output_mode(j.in.st.st_mode, umask_bits), &d)) {
		rc = fail(dst, &d);
		goto done;
	}
	if (!o->quiet && j.p.min_addr < mmap_min_addr())
		fprintf(stderr, "%s: warning: %s: needs address 0x%x, below "
				"vm.mmap_min_addr (%lu) here; only root can run "
				"it unless 'sysctl -w vm.mmap_min_addr=%u'\n",
			progname, dst, j.p.min_addr, mmap_min_addr(), j.p.min_addr);
	for (size_t i = 0; i < j.libs.n && !o->quiet; i++)
		if (!j.libs.libs[i].path)
			fprintf(stderr, "%s: warning: %s: a.out library %s not found "
					"here; the program looks for it when it "
					"runs\n", progname, dst, j.libs.libs[i].name);
	if (o->verbose)
		printf("'%s' -> '%s' (%s, %s)\n", src, dst,
		       aout_magic_name(j.a.magic),
		       !j.p.dynamic ? "static" :
		       o->plan.no_embed_libs ? "dynamic, libraries at run time" :
					       "dynamic, libraries embedded");
done:
	job_free(&j);
	return rc;
}

/* -L folders become absolute: the program may look in them from anywhere. */
static int add_libdir(struct options *o, const char *dir)
{
	char *abs = realpath(dir, NULL);

	if (!abs) {
		fprintf(stderr, "%s: %s: %s\n", progname, dir, strerror(errno));
		return -1;
	}
	if (o->nlibdirs == MAX_LIBDIRS) {
		free(abs);
		fprintf(stderr, "%s: at most %d -L folders\n", progname, MAX_LIBDIRS);
		return -1;
	}
	o->libdirs[o->nlibdirs++] = abs;
	return 0;
}

int main(int argc, char **argv)
{
	enum { OPT_INFO = 256, OPT_NOEXECSTACK, OPT_NO_EMBED };
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "info", no_argument, NULL, OPT_INFO },
		{ "noexecstack", no_argument, NULL, OPT_NOEXECSTACK },
		{ "library-path", required_argument, NULL, 'L' },
		{ "no-embed-libs", no_argument, NULL, OPT_NO_EMBED },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, "fqvhVL:", longopts, NULL)) != -1) {
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
		case OPT_NO_EMBED:
			o.plan.no_embed_libs = 1;
			break;
		case 'L':
			if (add_libdir(&o, optarg))
				return EXIT_USAGE;
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
