/*
 * Freestanding i386 support for the a.out test fixtures: no libc, only
 * int $0x80 system calls (the i386 numbers, as an a.out program of the
 * libc4/libc5 era made them).
 *
 * fixture_start.S holds _start, which records the registers the loader
 * left in entry_regs[] and calls
 *
 *	int fixture_main(uint32_t *entry_sp);
 *
 * with the %esp it was entered with; the return value is the exit status.
 * It also holds memset/memcpy (GCC may emit calls to them) and the signal
 * return trampolines.
 *
 * FIXTURE_MAGIC (0407, 0410, 0413 or 0314) is defined by the build for the
 * a.out kind the fixture is linked for; FIXTURE_TEXT_BASE is where the
 * kernel loaded the text (0x1000 for QMAGIC, where the header is mapped
 * too; 0 otherwise) and FIXTURE_CODE_START where _start is (0x1020 / 0).
 */
#ifndef AOUT2ELF_FIXTURE_H
#define AOUT2ELF_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#ifndef FIXTURE_MAGIC
#error "build fixtures with -DFIXTURE_MAGIC=0407|0410|0413|0314"
#endif

#define FIXTURE_OMAGIC 0407
#define FIXTURE_NMAGIC 0410
#define FIXTURE_ZMAGIC 0413
#define FIXTURE_QMAGIC 0314

#if FIXTURE_MAGIC == FIXTURE_QMAGIC
#define FIXTURE_TEXT_BASE 0x1000u
#define FIXTURE_CODE_START 0x1020u
#else
#define FIXTURE_TEXT_BASE 0u
#define FIXTURE_CODE_START 0u
#endif

/* entry_regs[] indexes, in the order _start stores them */
enum {
	REG_EAX, REG_EBX, REG_ECX, REG_EDX, REG_ESI, REG_EDI, REG_EBP,
	REG_EFLAGS, REG_CS, REG_DS, REG_ES, REG_FS, REG_GS, REG_SS,
	REG_COUNT
};
extern uint32_t entry_regs[REG_COUNT];
/* the first word below the entry %esp that is not zero, 0 if none (see
 * fixture_start.S: only where fixture_stack_scan_words is defined) */
extern uint32_t entry_stack_dirty;

/* bss_last: a 4-byte bss variable the linker scripts place after all others */
extern uint32_t bss_last;

/* linker-script symbols */
extern char _start[], _etext[], _edata[], _end[];

int fixture_main(uint32_t *entry_sp);

void *memset(void *s, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);

/* ---- system calls (i386 numbers) ---- */
#define SYS_exit 1
#define SYS_fork 2
#define SYS_read 3
#define SYS_write 4
#define SYS_open 5
#define SYS_close 6
#define SYS_waitpid 7
#define SYS_execve 11
#define SYS_getpid 20
#define SYS_kill 37
#define SYS_brk 45
#define SYS_sigreturn 119
#define SYS_wait4 114
#define SYS_rt_sigreturn 173
#define SYS_rt_sigaction 174
#define SYS_rt_sigprocmask 175
#define SYS_getcwd 183
#define SYS_exit_group 252

static inline long sys0(long n)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "0"(n) : "memory");
	return r;
}

static inline long sys1(long n, long a)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "0"(n), "b"(a) : "memory");
	return r;
}

static inline long sys2(long n, long a, long b)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "0"(n), "b"(a), "c"(b) : "memory");
	return r;
}

static inline long sys3(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "0"(n), "b"(a), "c"(b), "d"(c)
			 : "memory");
	return r;
}

static inline long sys4(long n, long a, long b, long c, long d)
{
	long r;
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "0"(n), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory");
	return r;
}

static inline long sys5(long n, long a, long b, long c, long d, long e)
{
	long r;
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "0"(n), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	return r;
}

static inline __attribute__((noreturn)) void sys_exit(int status)
{
	for (;;)
		sys1(SYS_exit, status);
}

static inline long sys_write(int fd, const void *buf, size_t n)
{
	return sys3(SYS_write, fd, (long)buf, (long)n);
}

static inline long sys_brk(uint32_t addr) { return sys1(SYS_brk, (long)addr); }
static inline long sys_getpid(void) { return sys0(SYS_getpid); }
static inline long sys_fork(void) { return sys0(SYS_fork); }
static inline long sys_kill(long pid, int sig) { return sys2(SYS_kill, pid, sig); }

static inline long sys_execve(const char *path, char *const argv[], char *const envp[])
{
	return sys3(SYS_execve, (long)path, (long)argv, (long)envp);
}

static inline long sys_waitpid(long pid, int *status, int options)
{
	return sys3(SYS_waitpid, pid, (long)status, options);
}

static inline long sys_wait4(long pid, int *status, int options, void *rusage)
{
	return sys4(SYS_wait4, pid, (long)status, options, (long)rusage);
}

static inline long sys_getcwd(char *buf, size_t size)
{
	return sys2(SYS_getcwd, (long)buf, (long)size);
}

/* ---- signals: the kernel's i386 struct sigaction for rt_sigaction ---- */
#define SIGSEGV 11
#define SA_SIGINFO 0x00000004u
#define SA_RESTORER 0x04000000u

struct k_sigaction {
	void (*handler)(int, void *, void *);
	uint32_t flags;
	void (*restorer)(void);
	uint32_t mask[2];
};

/* i386 siginfo_t: si_signo, si_errno, si_code, then si_addr for faults */
struct k_siginfo {
	int32_t si_signo;
	int32_t si_errno;
	int32_t si_code;
	uint32_t si_addr;
};

void fixture_rt_sigreturn(void); /* trampolines in fixture_start.S */
void fixture_sigreturn(void);

static inline long sys_rt_sigaction(int sig, const struct k_sigaction *act,
				    struct k_sigaction *old)
{
	return sys4(SYS_rt_sigaction, sig, (long)act, (long)old, 8);
}

/* ---- wait status ---- */
#define FX_WIFEXITED(s) (((s) & 0x7f) == 0)
#define FX_WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define FX_WTERMSIG(s) ((s) & 0x7f)

/* A file (a /proc one, say) into buf, NUL-terminated: its length, or -1. */
static inline long fx_read_file(const char *path, char *buf, long cap)
{
	long fd = sys3(SYS_open, (long)path, 0, 0), n = 0, r;

	if (fd < 0)
		return -1;
	while (n < cap - 1 && (r = sys3(SYS_read, fd, (long)(buf + n), cap - 1 - n)) > 0)
		n += r;
	sys1(SYS_close, fd);
	buf[n] = 0;
	return n;
}

/* ---- tiny string and output helpers ---- */
static inline size_t fx_strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static inline int fx_streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* 1 if s begins with prefix */
static inline int fx_starts_with(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

static inline void fx_puts(int fd, const char *s)
{
	sys_write(fd, s, fx_strlen(s));
}

/* v as "0x" and 8 hex digits, in b[11] */
static inline const char *fx_hex(char b[11], uint32_t v)
{
	b[0] = '0';
	b[1] = 'x';
	for (int i = 0; i < 8; i++)
		b[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
	b[10] = 0;
	return b;
}

/* v in decimal, at the end of b[11] */
static inline const char *fx_dec(char b[11], uint32_t v)
{
	int i = 10;
	b[i] = 0;
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return b + i;
}

static inline void fx_puthex(int fd, uint32_t v)
{
	char b[11];
	fx_puts(fd, fx_hex(b, v));
}

static inline void fx_putdec(int fd, uint32_t v)
{
	char b[11];
	fx_puts(fd, fx_dec(b, v));
}

#endif
