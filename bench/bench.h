/*
 * What the parts of bench share: the configuration that bench.c reads
 * from its command line, the harness (harness.c: running programs,
 * timing them side by side, the table) and the measurements
 * (measure_*.c), one entry point each.
 */
#ifndef AOUT2ELF_BENCH_H
#define AOUT2ELF_BENCH_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

/* ---- configuration (bench.c) ---- */

struct bench_config {
	const char *aout2elf;	/* the converter measured */
	const char *progs;	/* benchprog's builds, mkbig, syscost */
	const char *testdata;	/* the dyn fixture and libtiny.so.1 */
	const char *corpus;	/* ../shared/corpus, or NULL where absent */
	const char *work;	/* scratch space */
	double scale;		/* --scale: multiplies every number of runs */
	int ncpus;
};

extern struct bench_config config;

/* The a.out kinds benchprog-small is built as, in the order measured. */
enum aout_kind { KIND_QMAGIC, KIND_ZMAGIC, KIND_NMAGIC, KIND_OMAGIC, NKINDS };
extern const char *const kinds[NKINDS];

char *prog(const char *name);
char *in_work(const char *name);
void convert(const char *in, const char *out, const char *opt1, const char *opt2,
	     const char *opt3);

/* ---- the harness (harness.c) ---- */

void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...);
void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...);
void *xcalloc(size_t n, size_t size);
char *__attribute__((format(printf, 1, 2))) xasprintf(const char *fmt, ...);
double now(void);
double median(const double *v, int n);
char *fmt_time(double s);

int file_exists(const char *path);
char *must_realpath(const char *p);
void rm_rf(const char *path);
void mkdir_p(const char *path);
void copy_file(const char *from, const char *to);
off_t file_size(const char *path);
char *read_text(const char *path);

/* An argv built up word by word. */
struct cmd {
	char **v;
	int n, cap;
};

void cmd_add(struct cmd *c, const char *w);
struct cmd cmd_of(const char *first, ...);
void cmd_free(struct cmd *c);

void harness_init(void);
pid_t start(char *const argv[], int in, int out, int err);
int wait_for(pid_t pid, struct rusage *ru);
char *describe_status(int status);
int run_capture(char *const argv[], char **out);
int works(char *const argv[], const char *expect, char **why);

/* One of the programs a measurement runs side by side, and its times. */
struct variant {
	const char *name;
	struct cmd cmd;
	void (*before)(struct variant *); /* untimed preparation, or NULL */
	double *t;
	int n;
};

int scaled(int rounds);
void measure(struct variant *v, int nv, int rounds, int warmup);
double med(const struct variant *v);

/* A row of the table; NULL cells print as "-". */
struct row {
	char *name, *a, *b, *ratio, *goal, *verdict, *runs;
	int section; /* a heading, not a measurement */
};

struct row *add_row(const char *name);
void section(const char *name);
void ratio_row(const char *name, double a, double b, double goal, int runs);
void faults_row(const char *name, char *const a[], char *const b[]);
void skip_row(const char *name, const char *why);
void print_table(void);
void __attribute__((format(printf, 1, 2))) detail(const char *fmt, ...);
void print_details(void);

/* ---- the measurements, in the order of the table ---- */

void bench_syscall(void);	/* measure_syscall.c */
void bench_startup(void);	/* measure_startup.c */
void bench_heap(void);		/* measure_heap.c */
void bench_memory(void);	/* measure_memory.c */
void bench_convert(void);	/* measure_conversion.c */
void bench_tree(void);		/* measure_tree.c */

#endif
