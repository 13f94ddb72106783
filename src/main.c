/*
 * The command line: options, then one of four modes -
 *
 *   aout2elf [OPTION]... INPUT OUTPUT          one conversion
 *   aout2elf [OPTION]... -O DIR INPUT...       batch (src/batch.c)
 *   aout2elf --info FILE...                    describe (src/info.c)
 *   aout2elf [OPTION]... --exec FILE [ARG]...  convert in memory and run
 *   aout2elf [OPTION]... --gdb FILE [ARG]...   debug (src/debug.c)
 *
 * - and the exit statuses 0 (done), 1 (an input could not be converted),
 * 2 (usage).  Every failure is one line, "aout2elf: FILE: reason".  argv
 * is parsed into one struct cli, whose mode one switch then runs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

#include "batch.h"
#include "convert.h"
#include "debug.h"
#include "hint.h"
#include "info.h"
#include "output.h"

/* 126: as the shell says of a program it found but could not execute */
enum { EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_CANNOT_RUN = 126 };

static const char *progname = "aout2elf";

enum cli_mode { CLI_CONVERT, CLI_BATCH, CLI_INFO, CLI_EXEC, CLI_GDB, CLI_HELP,
		CLI_VERSION };

/* The command line, parsed. */
struct cli {
	enum cli_mode mode;
	struct conv_options conv; /* its libdirs malloc'ed (add_libdir) */
	struct batch_options batch;
	int verbose;
	int info;       /* --info */
	int json;       /* --json */
	int jobs_given; /* -j */
	int shared_libs; /* --shared-libs */
	int gdb;         /* --gdb: --exec under gdb */
	char **args;    /* the operands; for --exec, FILE and its ARGs */
	int nargs;
	char *output;   /* INPUT.elf, where OUTPUT is not given (malloc'ed) */
	char **argv;    /* the whole command line, for the commands hints give */
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]... INPUT [OUTPUT]\n"
"  or:  %s [OPTION]... -O DIR INPUT...\n"
"  or:  %s --info [--json] [OPTION]... FILE...\n"
"  or:  %s [OPTION]... --exec FILE [ARG]...\n"
"  or:  %s [OPTION]... --gdb FILE [ARG]...\n"
"Convert Linux i386 a.out executables (OMAGIC, NMAGIC, ZMAGIC, QMAGIC)\n"
"into ELF32 executables that run as they did under the a.out loader.\n"
"OUTPUT is INPUT.elf when not given.\n"
"\n"
"  -f, --force          replace OUTPUT if it exists; in batch mode, convert\n"
"                         even when OUTPUT is newer than INPUT, and replace\n"
"                         a file aout2elf did not write\n"
"  -O, --output-dir DIR convert each INPUT into DIR\n"
"  -r, --recursive      with -O: walk INPUT directories, mirror them in DIR\n"
"  -j, --jobs N         with -O: convert N files at once (default: CPUs)\n"
"      --report FILE    with -O: write a JSON report of every file\n"
"      --info           describe each a.out FILE, its libraries and the load\n"
"                         map of the converted program; or what a FILE\n"
"                         aout2elf wrote was converted from, and how\n"
"      --json           with --info: one JSON object per FILE\n"
"      --exec FILE [ARG]...  convert FILE in memory and run it with ARGs\n"
"      --gdb FILE [ARG]...   start gdb on FILE (converted first if it is an\n"
"                         a.out), stopped at its a.out entry point\n"
"  -L, --library-path DIR  look for ld.so and a.out libraries in DIR first\n"
"                         (repeatable)\n"
"      --sysroot DIR    DIR holds the old system's tree: a library the\n"
"                         program names /P is looked for as DIR/P first\n"
"      --no-embed-libs  find the libraries when the program runs, instead of\n"
"                         carrying them inside OUTPUT\n"
"      --shared-libs    with -O: each library once in DIR/.aout2elf-libs,\n"
"                         found by the programs relative to their place\n"
"      --direct         let the kernel map the a.out segments at their own\n"
"                         addresses at exec, so gdb can set breakpoints\n"
"                         before 'run'; a forbidden low address is then a\n"
"                         SIGSEGV at exec instead of a message\n"
"      --noexecstack    make stack, bss, heap and QMAGIC data non-executable\n"
"  -s, --strip          leave the a.out symbols and stabs out of OUTPUT; a\n"
"                         damaged symbol or string table is then no error\n"
"      --no-randomize   run without address randomisation, as under the\n"
"                         a.out loader: stack and mmap base fixed (the\n"
"                         program execs itself once more, as setarch -R)\n"
"      --setcap         give OUTPUT cap_sys_rawio+ep (as root), so that any\n"
"                         user can run it where its addresses lie below\n"
"                         vm.mmap_min_addr; it gives the capability up\n"
"                         before the a.out code runs\n"
"      --keep-rawio     let the program keep CAP_SYS_RAWIO (ioperm, iopl)\n"
"                         when it was given it: see aout2elf(1) for the risk\n"
"  -q, --quiet          print no warnings, progress or summary\n"
"  -v, --verbose        say what was converted\n"
"  -h, --help           display this help and exit\n"
"  -V, --version        output version information and exit\n"
"\n"
"Exit status: 0 on success, 1 if an input could not be converted,\n"
"2 on a usage error.  See aout2elf(1).\n", progname, progname, progname,
		progname, progname);
}

static int usage_error(const char *msg)
{
	fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n",
		progname, msg, progname);
	return EXIT_USAGE;
}

/* "aout2elf: NAME: WHAT: COMMAND": a fix, and the command that makes it. */
static void hint_say(const char *name, const char *what, char *command)
{
	char *msg = NULL;

	if (command && asprintf(&msg, "%s: %s", what, command) < 0)
		msg = NULL;
	diag_print(name, msg ? msg : what);
	free(msg);
	free(command);
}

/* The command line of words (words[0] is aout2elf), as hint_say says it. */
static void hint_print(const char *name, const char *what,
		       const char *const words[], size_t n)
{
	hint_say(name, what, hint_command(words, n));
}

/* This command line again with more options in front, as hint_say says it. */
static void hint_rerun(const struct cli *c, const char *name, const char *what,
		       const char *const more[], size_t nmore)
{
	hint_say(name, what, hint_rerun_command(c->argv, more, nmore));
}

/* "aout2elf: DIR: -L: REASON": which option the name came with */
static void option_error(const char *dir, const char *option, const char *reason)
{
	char msg[sizeof ((struct diag *)0)->msg];

	snprintf(msg, sizeof msg, "%s: %s", option, reason);
	diag_print(dir, msg);
}

/* -L folders become absolute: the program may look in them from anywhere. */
static int add_libdir(struct conv_options *o, const char *dir)
{
	char *abs = realpath(dir, NULL);

	if (!abs) {
		option_error(dir, "-L", strerror(errno));
		return -1;
	}
	/* the converted program keeps the folders as one ':'-separated list */
	if (strchr(abs, ':')) {
		diag_print(abs, "a -L directory cannot have ':' in its name");
		free(abs);
		return -1;
	}
	/* the same sum as plan_add_libs makes, so that it is a usage error */
	size_t total = strlen(abs) + 1;

	for (size_t i = 0; i < o->nlibdirs; i++)
		total += strlen(o->libdirs[i]) + 1;
	if (total > STUB_PATHS) {
		char msg[64];

		snprintf(msg, sizeof msg,
			 "the -L directories would be longer than %d bytes "
			 "in all",
			 STUB_PATHS);
		diag_print(abs, msg);
		free(abs);
		return -1;
	}
	if (o->nlibdirs == CONV_MAX_LIBDIRS) {
		free(abs);
		fprintf(stderr, "%s: at most %d -L directories\n", progname,
			CONV_MAX_LIBDIRS);
		return -1;
	}
	o->libdirs[o->nlibdirs++] = abs;
	return 0;
}

/* --sysroot: absolute, like -L, and a directory; the last one counts. */
static int set_sysroot(struct conv_options *o, const char *dir)
{
	char *abs = realpath(dir, NULL);
	struct stat st;

	if (!abs || stat(abs, &st) != 0) {
		option_error(dir, "--sysroot", strerror(errno));
		free(abs);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		diag_print(dir, "--sysroot takes a directory, the old system's root");
		free(abs);
		return -1;
	}
	free((char *)o->sysroot);
	o->sysroot = abs;
	return 0;
}

static int parse_jobs(const char *s, int *jobs)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || end == s || n < 1 || n > 1024)
		return -1;
	*jobs = (int)n;
	return 0;
}

/*
 * Everything after "--exec FILE" belongs to the program; getopt_long
 * takes "--e", "--ex" and "--exe" for it too, so they must end the
 * options as well (or "--exe prog out" would write a file named out).
 * The same for "--gdb FILE" ("--g", "--gd").
 * The index in argv of FILE (argc if it is missing), or 0 without either.
 */
static int exec_file_index(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strlen(argv[i]) >= 3 && (!strncmp(argv[i], "--exec", strlen(argv[i])) ||
					     !strncmp(argv[i], "--gdb", strlen(argv[i]))))
			return i + 1;
	return 0;
}

enum { OPT_INFO = 256, OPT_NOEXECSTACK, OPT_NO_EMBED, OPT_DIRECT,
       OPT_REPORT, OPT_EXEC, OPT_NORANDOM, OPT_SYSROOT, OPT_SHARED_LIBS,
       OPT_SETCAP, OPT_KEEP_RAWIO, OPT_GDB, OPT_JSON };

/* One option from getopt_long into c: 0, or EXIT_USAGE. */
static int take_option(struct cli *c, int opt, const char *arg)
{
	switch (opt) {
	case 'f':
		c->conv.force = 1;
		break;
	case 'O':
		c->batch.outdir = arg;
		break;
	case 'r':
		c->batch.recursive = 1;
		break;
	case 'j':
		if (parse_jobs(arg, &c->batch.jobs))
			return usage_error("-j takes a number from 1 to 1024");
		c->jobs_given = 1;
		break;
	case OPT_REPORT:
		c->batch.report = arg;
		break;
	case 'q':
		c->conv.quiet = c->batch.quiet = 1;
		break;
	case 's':
		c->conv.strip = 1;
		break;
	case 'v':
		c->verbose = c->batch.verbose = 1;
		break;
	case OPT_INFO:
		c->info = 1;
		break;
	case OPT_JSON:
		c->json = 1;
		break;
	case OPT_EXEC:
		break; /* found by exec_file_index */
	case OPT_GDB:
		c->gdb = 1; /* and FILE found by exec_file_index */
		break;
	case OPT_NOEXECSTACK:
		c->conv.plan.noexec = 1;
		break;
	case OPT_DIRECT:
		c->conv.plan.direct = 1;
		break;
	case OPT_NO_EMBED:
		c->conv.plan.no_embed_libs = 1;
		break;
	case OPT_SHARED_LIBS:
		c->shared_libs = 1;
		c->conv.plan.no_embed_libs = 1;
		break;
	case OPT_NORANDOM:
		c->conv.plan.norandom = 1;
		break;
	case OPT_SETCAP:
		c->conv.setcap = 1;
		break;
	case OPT_KEEP_RAWIO:
		c->conv.plan.keep_rawio = 1;
		break;
	case 'L':
		return add_libdir(&c->conv, arg) ? EXIT_USAGE : 0;
	case OPT_SYSROOT:
		return set_sysroot(&c->conv, arg) ? EXIT_USAGE : 0;
	case 'h':
		c->mode = CLI_HELP;
		break;
	case 'V':
		c->mode = CLI_VERSION;
		break;
	default: /* getopt_long said what */
		fprintf(stderr, "Try '%s --help' for more information.\n",
			progname);
		return EXIT_USAGE;
	}
	return 0;
}

/* --report FILE must not be a folder, nor a file that is no report. */
static int check_report(const char *report)
{
	struct stat st;

	if (stat(report, &st) == 0 && S_ISDIR(st.st_mode)) {
		diag_print(report, "is a directory");
		return EXIT_USAGE;
	}
	if (batch_report_clobbers(report)) {
		diag_print(report, "exists and is not a report; refusing to "
				   "overwrite it");
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * c->mode from the options and operands, checked: 0, or EXIT_USAGE.
 * exec: --exec was given; stray: operands came before it.
 */
static int choose_mode(struct cli *c, int exec, int stray)
{
	const struct batch_options *b = &c->batch;

	if (!b->outdir && (b->recursive || c->jobs_given || b->report))
		return usage_error("-r, -j and --report go with -O DIR");
	if (!b->outdir && c->shared_libs)
		return usage_error("--shared-libs goes with -O DIR");
	if (c->json && !c->info)
		return usage_error("--json goes with --info");
	c->conv.shared_libs = c->shared_libs ? b->outdir : NULL;
	if (c->conv.setcap && (exec || c->info))
		return usage_error("--setcap goes with an OUTPUT file, not --exec or --info");
	if (exec) {
		const char *opt = c->gdb ? "--gdb" : "--exec";
		char msg[64];

		if (c->info || b->outdir)
			snprintf(msg, sizeof msg, "%s goes with neither --info nor -O", opt);
		else if (c->nargs < 1)
			snprintf(msg, sizeof msg, "%s needs a FILE", opt);
		else if (stray)
			snprintf(msg, sizeof msg, "operands before %s FILE", opt);
		else {
			c->mode = c->gdb ? CLI_GDB : CLI_EXEC;
			return 0;
		}
		return usage_error(msg);
	}
	if (c->info) {
		if (b->outdir)
			return usage_error("--info does not go with -O");
		if (c->nargs < 1)
			return usage_error("--info needs at least one FILE");
		c->mode = CLI_INFO;
		return 0;
	}
	if (b->outdir) {
		if (c->nargs < 1)
			return usage_error("-O DIR needs at least one INPUT");
		if (b->report && check_report(b->report))
			return EXIT_USAGE;
		c->mode = CLI_BATCH;
		return 0;
	}
	if (c->nargs < 1)
		return usage_error("missing INPUT operand");
	if (c->nargs > 2)
		return usage_error("too many operands (INPUT OUTPUT, or -O DIR "
				   "INPUT...)");
	if (c->nargs == 1) {
		if (asprintf(&c->output, "%s.elf", c->args[0]) < 0) {
			c->output = NULL;
			diag_print(NULL, "out of memory");
			return EXIT_FAIL;
		}
	}
	c->mode = CLI_CONVERT;
	return 0;
}

/*
 * "--exec -L DIR prog": FILE is an option, and no file; the options after
 * --exec belong before it.  Says so with the command meant (exit 2), or
 * returns 0 where that is not the case.
 */
static int options_after_exec(int argc, char **argv, int exec_at,
			      const struct option *longopts, const char *shortopts)
{
	struct stat st;
	char stop_at_operand[32];
	int end, err = opterr, opt, bad = 0;

	if (argv[exec_at][0] != '-' || !strcmp(argv[exec_at], "--") ||
	    lstat(argv[exec_at], &st) == 0)
		return 0;
	/* where they end: getopt over them ("--exec" in argv[0]'s place) */
	snprintf(stop_at_operand, sizeof stop_at_operand, "+%s", shortopts);
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc - exec_at + 1, argv + exec_at - 1,
				  stop_at_operand, longopts, NULL)) != -1)
		bad |= opt == '?' || opt == ':';
	end = exec_at - 1 + optind;
	opterr = err;
	if (bad || end >= argc || !strcmp(argv[end - 1], "--"))
		return 0;

	/* aout2elf, the options before --exec, those after it, --exec FILE ARG... */
	const char **words = malloc(sizeof *words * (size_t)argc);
	size_t n = 0;

	if (!words)
		return 0;
	for (int i = 0; i < exec_at - 1; i++)
		words[n++] = argv[i];
	for (int i = exec_at; i < end; i++)
		words[n++] = argv[i];
	words[n++] = argv[exec_at - 1];
	for (int i = end; i < argc; i++)
		words[n++] = argv[i];
	hint_print(argv[exec_at], "options go before --exec FILE", words, n);
	free(words);
	return EXIT_USAGE;
}

/* argv into c: 0, or the exit status of a usage error. */
static int parse(int argc, char **argv, struct cli *c)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "output-dir", required_argument, NULL, 'O' },
		{ "recursive", no_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "info", no_argument, NULL, OPT_INFO },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "exec", no_argument, NULL, OPT_EXEC },
		{ "gdb", no_argument, NULL, OPT_GDB },
		{ "library-path", required_argument, NULL, 'L' },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "no-embed-libs", no_argument, NULL, OPT_NO_EMBED },
		{ "shared-libs", no_argument, NULL, OPT_SHARED_LIBS },
		{ "direct", no_argument, NULL, OPT_DIRECT },
		{ "noexecstack", no_argument, NULL, OPT_NOEXECSTACK },
		{ "no-randomize", no_argument, NULL, OPT_NORANDOM },
		{ "setcap", no_argument, NULL, OPT_SETCAP },
		{ "keep-rawio", no_argument, NULL, OPT_KEEP_RAWIO },
		{ "strip", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char shortopts[] = "fO:rj:qsvhVL:";
	int exec_at = exec_file_index(argc, argv);
	int nopts = exec_at ? exec_at : argc;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int opt;

	c->batch.jobs = cpus > 0 ? (int)cpus : 1;
	/* getopt's own messages begin with argv[0]: "aout2elf:", as ours do */
	if (argc > 0)
		argv[0] = (char *)progname;
	while ((opt = getopt_long(nopts, argv, shortopts, longopts, NULL)) != -1) {
		int rc = take_option(c, opt, optarg);

		/* -h and -V end the parsing: what follows them is not looked at */
		if (rc || c->mode == CLI_HELP || c->mode == CLI_VERSION)
			return rc;
	}
	c->conv.umask_bits = umask(0);
	umask(c->conv.umask_bits);
	c->args = argv + (exec_at ? exec_at : optind);
	c->nargs = argc - (exec_at ? exec_at : optind);
	c->argv = argv;
	c->batch.argv = argv;
	if (exec_at && exec_at < argc &&
	    options_after_exec(argc, argv, exec_at, longopts, shortopts))
		return EXIT_USAGE;
	return choose_mode(c, exec_at != 0, exec_at && optind != exec_at);
}

/* Why src could not be converted into dst, with the command that fixes it. */
static void convert_failed(const struct cli *c, const char *src, const char *dst,
			   const struct conv_result *r)
{
	const char **more;
	struct stat st;
	size_t n;

	if (r->reason_is_output && stat(dst, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* the options as given (getopt put them first), then -O DIR INPUT */
		int nopts = (int)(c->args - c->argv);
		const char **words = malloc(sizeof *words * ((size_t)nopts + 3));

		if (!words) {
			diag_print(dst, r->reason);
			return;
		}
		memcpy(words, c->argv, sizeof *words * (size_t)nopts);
		words[0] = progname;
		words[nopts] = "-O";
		words[nopts + 1] = dst;
		words[nopts + 2] = src;
		hint_print(dst, "is a directory; to convert into it", words,
			   (size_t)nopts + 3);
		free(words);
	} else if (r->reason_is_output && !c->conv.force && strstr(r->reason, "use -f")) {
		hint_rerun(c, dst, "already exists; to replace it",
			   (const char *[]){ "-f" }, 1);
	} else if (!r->reason_is_output &&
		   (more = hint_libdirs(src, &c->conv, &n)) != NULL) {
		hint_rerun(c, src, r->reason, more, n);
		hint_libdirs_free(more, n);
	} else {
		diag_print(r->reason_is_output ? dst : src, r->reason);
	}
}

static int convert(const struct cli *c, const char *src, const char *dst)
{
	const struct conv_options *o = &c->conv;
	struct conv_result r;

	if (conv_file(src, dst, o, &r)) {
		convert_failed(c, src, dst, &r);
		return EXIT_FAIL;
	}
	if (r.warning)
		fputs(r.warning, stderr); /* whole lines, prefixed */
	free(r.warning);
	if (c->verbose) {
		char what[sizeof r.format + 40];

		conv_describe(what, sizeof what, &r, o->plan.no_embed_libs);
		diag_converted(src, dst, what);
	}
	return 0;
}

static int info_files(char **files, int n, const struct conv_options *o,
		      int json)
{
	int rc = 0;

	for (int i = 0; i < n; i++) {
		struct diag d;

		if (info_file(stdout, files[i], o, json, &d)) {
			diag_print(files[i], d.msg);
			rc = EXIT_FAIL;
		}
	}
	return rc;
}

/* Returns only if the program could not be run. */
static int exec_program(char **argv, const struct conv_options *o)
{
	struct diag d;
	enum conv_exec_failure f = conv_exec(argv, o, &d);

	diag_print(f == CONV_EXEC_NO_MEMFD ? NULL : argv[0], d.msg);
	return f == CONV_EXEC_NOT_RUN ? EXIT_CANNOT_RUN : EXIT_FAIL;
}

static int run(const struct cli *c)
{
	/* the modes that may write a file (--info: where stdout goes) */
	if (c->mode == CLI_CONVERT || c->mode == CLI_BATCH || c->mode == CLI_INFO)
		output_remove_temp_on_signals();
	switch (c->mode) {
	case CLI_CONVERT:
		return convert(c, c->args[0], c->output ? c->output : c->args[1]);
	case CLI_BATCH:
		return batch_run(c->args, (size_t)c->nargs, &c->batch, &c->conv);
	case CLI_INFO:
		return info_files(c->args, c->nargs, &c->conv, c->json);
	case CLI_EXEC:
		return exec_program(c->args, &c->conv);
	case CLI_GDB:
		return debug_program(c->args, &c->conv);
	case CLI_HELP:
		usage(stdout);
		return 0;
	case CLI_VERSION:
		printf("aout2elf %s\n", PACKAGE_VERSION);
		return 0;
	}
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	int rc = parse(argc, argv, &c);

	if (rc == 0)
		rc = run(&c);
	for (size_t i = 0; i < c.conv.nlibdirs; i++)
		free((char *)c.conv.libdirs[i]);
	free((char *)c.conv.sysroot);
	free(c.output);
	/* --help, --version, --info and -v write there: a lost line is an error */
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", progname,
			errno ? strerror(errno) : "write error");
		rc = EXIT_FAIL;
	}
	return rc;
}
