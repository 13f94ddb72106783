/*
 * bench: the driver of `make bench`.  Every figure it prints is a ratio of
 * two things measured side by side in the same run: the variants of a
 * measurement are run in turn, round after round (A B A B ..., the order
 * reversed every other round), so that whatever else the machine is doing
 * hits all of them alike, and each is summed up by the median of its runs.
 * Times are CLOCK_MONOTONIC from posix_spawn() to the end of wait4().
 *
 *	bench --aout2elf PATH --progs DIR --testdata DIR --work DIR
 *	      [--corpus DIR] [--scale X] [--part run|convert]
 *
 * --progs is where `make bench` built benchprog (bench/benchprog.c) as
 * native static ELF and as a.out, and mkbig; --testdata holds the dyn
 * fixture and libtiny.so.1 (testdata/fixtures.mk); --corpus the real
 * programs of ../shared/corpus, used when the folder is there; --work is
 * scratch space (emptied first).  --scale multiplies the number of runs
 * (0.1 for a quick look; the figures are then noisier).  --part run
 * measures 0-3 and 5 only, the parts that execute i386 programs, and --part
 * convert 4 only, which does not: on a machine whose kernel cannot execute
 * i386 programs, `make bench` times the conversion on the machine itself
 * and the rest in the VM of tools/run-in-vm.
 *
 * This file reads the command line, runs the parts and prints the
 * machine, the table and the details; harness.c runs and times programs
 * and keeps the table; each part is a file of its own, its top comment
 * saying what it measures and how:
 *
 *  0. the cost of one i386 system call here   measure_syscall.c
 *  1. start-up                                measure_startup.c
 *  2. heap (brk, malloc of libc.so.4)         measure_heap.c
 *  3. memory of a running program             measure_memory.c
 *  4. conversion                              measure_conversion.c
 *
 * Prints the machine, one table (measurement, median A, median B, A/B,
 * goal, verdict, runs) and the details of memory and size series.  Exit
 * status 0 when everything could be measured (goals may be missed: that
 * is a result, not an error), 1 when a program failed.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

struct bench_config config = { .scale = 1.0 };

static char *vm_copies; /* see use_vm_tmpfs */
static const char *part = "all"; /* --part: all, run (0-3, 5) or convert (4) */

/* ------------------------------------------------------------------ */
/* what the measurements share */

char *prog(const char *name)
{
	char *p = xasprintf("%s/%s", config.progs, name);

	if (!file_exists(p))
		die("%s is missing (run `make bench`, which builds it)", p);
	return p;
}

char *in_work(const char *name)
{
	return xasprintf("%s/%s", config.work, name);
}

/* aout2elf -q -f [OPTS...] IN OUT; dies when it fails. */
void convert(const char *in, const char *out, const char *opt1, const char *opt2,
	     const char *opt3)
{
	struct cmd c = cmd_of(config.aout2elf, "-q", "-f", NULL);
	char *why = NULL;

	if (opt1)
		cmd_add(&c, opt1);
	if (opt2)
		cmd_add(&c, opt2);
	if (opt3)
		cmd_add(&c, opt3);
	cmd_add(&c, in);
	cmd_add(&c, out);
	if (!works(c.v, NULL, &why))
		die("converting %s: %s", in, why);
	cmd_free(&c);
}

const char *const kinds[NKINDS] = {
	[KIND_QMAGIC] = "qmagic",
	[KIND_ZMAGIC] = "zmagic",
	[KIND_NMAGIC] = "nmagic",
	[KIND_OMAGIC] = "omagic",
};

/* ------------------------------------------------------------------ */
/* the machine, printed above the table */

static char *load_before;

static void machine(void)
{
	struct utsname u;
	char model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	time_t t = time(NULL);
	char date[64];

	if (f) {
		while (fgets(line, sizeof line, f))
			if (!strncmp(line, "model name", 10)) {
				char *p = strchr(line, ':');
				if (p) {
					snprintf(model, sizeof model, "%s", p + 2);
					model[strcspn(model, "\n")] = 0;
				}
				break;
			}
		fclose(f);
	}
	uname(&u);
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
	char *mmin = read_text("/proc/sys/vm/mmap_min_addr");
	mmin[strcspn(mmin, "\n")] = 0;
	printf("aout2elf benchmark, %s\n", date);
	printf("machine: Linux %s %s, %d CPUs, %s; vm.mmap_min_addr=%s; %s\n",
	       u.release, u.machine, config.ncpus, model, mmin,
	       geteuid() == 0 ? "run as root" : "run as an ordinary user");
	printf("load average before: %s", load_before);
	char *load = read_text("/proc/loadavg");
	printf("load average after:  %s", load);
	if (vm_copies)
		printf("files: copied into the VM's tmpfs, %s (its 9p view of the "
		       "host drops cached pages at every open)\n", vm_copies);
	if (strcmp(part, "all"))
		printf("part: %s\n", strcmp(part, "run") ?
			"4 (conversion) only; 0-3 and 5 run where i386 programs run" :
			"0-3 and 5 (what executes i386 programs) only; 4 is measured apart");
	printf("corpus: %s; runs scaled by %g; rerun with: make bench\n\n",
	       config.corpus ? config.corpus : "absent", config.scale);
	free(load);
	free(mmin);
}

/*
 * In the VM of tools/run-in-vm the host's files are seen over 9p, which
 * drops a file's cached pages whenever it is opened: every run of a
 * program would read its pages from the host again, a cost no disk has
 * and one that would swamp what is measured.  There the programs, the
 * inputs and the scratch space are copied into the VM's own tmpfs
 * first, where pages stay cached as on a disk.
 */
static const char *into_vm_tmpfs(const char *path, const char *name)
{
	char *copy = xasprintf("%s/%s", vm_copies, name);
	char *why = NULL;

	if (!works(cmd_of("cp", "-a", path, copy, NULL).v, NULL, &why))
		die("copying %s into the VM's tmpfs: %s", path, why);
	return copy;
}

static void use_vm_tmpfs(void)
{
	if (!getenv("AOUT2ELF_IN_VM") || access("/dev/shm", W_OK) != 0)
		return;
	vm_copies = xasprintf("/dev/shm/aout2elf-bench");
	rm_rf(vm_copies);
	mkdir_p(vm_copies);
	config.aout2elf = into_vm_tmpfs(config.aout2elf, "aout2elf");
	config.progs = into_vm_tmpfs(config.progs, "progs");
	config.testdata = into_vm_tmpfs(config.testdata, "testdata");
	if (config.corpus)
		config.corpus = into_vm_tmpfs(config.corpus, "corpus");
	config.work = xasprintf("%s/work", vm_copies);
	mkdir_p(config.work);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "aout2elf", required_argument, NULL, 'a' },
		{ "progs", required_argument, NULL, 'p' },
		{ "testdata", required_argument, NULL, 't' },
		{ "corpus", required_argument, NULL, 'c' },
		{ "work", required_argument, NULL, 'w' },
		{ "scale", required_argument, NULL, 's' },
		{ "part", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': config.aout2elf = optarg; break;
		case 'p': config.progs = optarg; break;
		case 't': config.testdata = optarg; break;
		case 'c': config.corpus = optarg; break;
		case 'w': config.work = optarg; break;
		case 's':
			config.scale = strtod(optarg, NULL);
			if (!(config.scale > 0 && config.scale <= 100))
				die("--scale takes a number in (0, 100]");
			break;
		case 'P':
			part = optarg;
			if (strcmp(part, "run") && strcmp(part, "convert"))
				die("--part takes run or convert");
			break;
		default:
			die("usage: bench --aout2elf PATH --progs DIR --testdata DIR "
			    "--work DIR [--corpus DIR] [--scale X] [--part run|convert]");
		}
	}
	if (!config.aout2elf || !config.progs || !config.testdata || !config.work ||
	    optind != argc)
		die("usage: bench --aout2elf PATH --progs DIR --testdata DIR "
		    "--work DIR [--corpus DIR] [--scale X] [--part run|convert]");
	harness_init();
	config.aout2elf = must_realpath(config.aout2elf);
	config.progs = must_realpath(config.progs);
	config.testdata = must_realpath(config.testdata);
	if (config.corpus && !file_exists(config.corpus))
		config.corpus = NULL;
	if (config.corpus)
		config.corpus = must_realpath(config.corpus);
	rm_rf(config.work);
	mkdir_p(config.work);
	config.work = must_realpath(config.work);
	use_vm_tmpfs();
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	config.ncpus = n > 0 ? (int)n : 1;

	double t0 = now();
	load_before = read_text("/proc/loadavg");
	if (strcmp(part, "convert")) {
		bench_syscall();
		bench_startup();
		bench_heap();
		bench_memory();
	}
	if (strcmp(part, "run"))
		bench_convert();
	if (strcmp(part, "convert"))
		bench_tree();

	machine();
	print_table();
	printf("\nA and B are medians of the runs, measured side by side (A B A B "
	       "...); A/B is the ratio of the medians.\n");
	fputs("\n", stdout);
	print_details();
	printf("whole benchmark: %.0f s\n", now() - t0);
	rm_rf(config.work);
	if (vm_copies)
		rm_rf(vm_copies);
	return 0;
}
