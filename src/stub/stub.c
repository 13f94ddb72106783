/*
 * The runtime stub of a converted program: freestanding i386 C, no libc.
 *
 * The kernel loads a converted program as an ordinary static ELF: the stub
 * at STUB_BASE and the a.out segments at staging addresses.  Before the
 * a.out code runs, the stub recreates what the kernel's a.out loader
 * (load_aout_binary in ia32_aout.c) would have set up:
 *
 *   1. the segments, moved from staging to their a.out addresses;
 *   2. bss as zero pages, and brk exactly at N_BSSADDR + a_bss;
 *   3. the stack frame of create_aout_tables: argc, argv, envp, the two
 *      pointer arrays, the strings right after them, no auxiliary vector.
 *
 * Every failure ends the program with one line on stderr and status 127,
 * like a loader that could not start it; never with a bare signal.
 */
#include <stddef.h>
#include <stdint.h>

#include "../stub_abi.h"

#define NR_exit_group 252
#define NR_read 3
#define NR_open 5
#define NR_close 6
#define NR_lseek 19
#define NR_uselib 86
#define NR_write 4
#define NR_brk 45
#define NR_munmap 91
#define NR_prctl 172
#define NR_rt_sigaction 174
#define NR_rt_sigprocmask 175
#define SIG_UNBLOCK 1
#define NR_mremap 163
#define NR_mmap2 192
#define NR_seccomp 354

#define EPERM 1
#define ENOENT 2
#define ENOEXEC 8
#define EACCES 13
#define EFAULT 14
#define EINVAL 22
#define EINTR 4

#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_FIXED_NOREPLACE 0x100000
#define MREMAP_MAYMOVE 1
#define MREMAP_FIXED 2
#define MREMAP_DONTUNMAP 4

#define PR_SET_NO_NEW_PRIVS 38
#define PR_GET_SECCOMP 21
#define PR_SET_MM 35
#define PR_SET_MM_MAP 14
#define PR_SET_MM_MAP_SIZE 15

#define AT_NULL 0
#define AT_SECURE 23
#define AT_EXECFN 31
#define AT_SYSINFO 32
#define AT_SYSINFO_EHDR 33

#define SIGSYS 31
#define SA_SIGINFO 0x4
#define SA_RESTORER 0x04000000
#define SA_NODEFER 0x40000000

long stub_syscall_via(uint32_t gate, long nr, long a1, long a2, long a3, long a4,
		      long a5, long a6);
void stub_sigreturn(void);
void stub_sigreturn_vdso(void);

extern const struct stub_header __stub_header;
uint32_t stub_sysinfo; /* __kernel_vsyscall: sysenter/syscall, not int $0x80 */

/*
 * Start-up writes none of the stub's own variables until it knows that
 * something will be trapped: the first write to a page of the stub costs a
 * page fault (a private copy of the page), and a program with nothing
 * trapped never needs the stub again.  What start-up knows stays on the
 * stack in a struct start, and commit() hands it to the handler's side.
 */
struct start {
	uint32_t gate;       /* __kernel_vsyscall, or 0 for int $0x80 */
	uint32_t vdso;       /* the vDSO's ELF header (AT_SYSINFO_EHDR), or 0 */
	const char *name;    /* the program, for messages (0: PROG_NAME says one) */
	const char *libpath; /* AOUT_LIBRARY_PATH, or 0 */
	const char *ldpath;  /* LD_LIBRARY_PATH, or 0 */
	uint32_t *sp_low;    /* lowest %esp of a start_call (see stack_dirty) */
};

/* *low = the lowest %esp seen so far (0: none yet); see stack_dirty. */
static inline void note_sp(uint32_t *low)
{
	uint32_t sp;

	__asm__ volatile("movl %%esp, %0" : "=r"(sp));
	if (sp < *low || !*low)
		*low = sp;
}

/* Lowest %esp of a stub_syscall; a variable, so read only once committed. */
static uint32_t syscall_sp_low;

static long stub_syscall(long nr, long a1, long a2, long a3, long a4, long a5,
			 long a6)
{
	note_sp(&syscall_sp_low);
	return stub_syscall_via(stub_sysinfo, nr, a1, a2, a3, a4, a5, a6);
}

static long start_call(const struct start *s, long nr, long a1, long a2, long a3,
		       long a4, long a5, long a6)
{
	note_sp(s->sp_low);
	return stub_syscall_via(s->gate, nr, a1, a2, a3, a4, a5, a6);
}

#define PAGE_UP(x) (((x) + STUB_PAGE - 1) & ~(STUB_PAGE - 1))

/*
 * gcc may emit calls to these even in freestanding code.  rep movsb and
 * rep stosb, not byte loops: brk_hybrid clears a page per brk call that
 * shrinks the heap, which a byte loop made about a microsecond of every
 * such call.  DF is clear: the ABI, and signal delivery clears it.
 */
void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

static size_t str_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* A one-line message assembled in a fixed buffer: no allocation here. */
struct line {
	char buf[512];
	size_t len;
};

static void put_str(struct line *l, const char *s)
{
	while (*s && l->len < sizeof l->buf - 1)
		l->buf[l->len++] = *s++;
}

static void put_hex(struct line *l, uint32_t v)
{
	char tmp[11] = "0x";
	for (int i = 0; i < 8; i++)
		tmp[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 0xf];
	tmp[10] = 0;
	put_str(l, tmp);
}

static void put_dec(struct line *l, uint32_t v)
{
	char tmp[11];
	int i = 10;
	tmp[i] = 0;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_str(l, tmp + i);
}

static __attribute__((noreturn)) void die_line(struct line *l)
{
	l->buf[l->len++] = '\n';
	stub_syscall(NR_write, 2, (long)l->buf, (long)l->len, 0, 0, 0);
	for (;;)
		stub_syscall(NR_exit_group, 127, 0, 0, 0, 0, 0);
}

static const char *prog_name; /* set by commit(), before any message */
#define PROG_NAME (prog_name ? prog_name : "a.out program")

static __attribute__((noreturn)) void die(const char *what, uint32_t addr,
					  long err)
{
	struct line l = { .len = 0 };
	put_str(&l, PROG_NAME);
	put_str(&l, ": ");
	put_str(&l, what);
	put_str(&l, " at ");
	put_hex(&l, addr);
	put_str(&l, " failed (error ");
	put_dec(&l, (uint32_t)-err);
	put_str(&l, ")");
	die_line(&l);
}

#define NR_personality 136
#define PER_MMAP_PAGE_ZERO 0x0100000

static __attribute__((noreturn)) void die_low_address(uint32_t addr)
{
	struct line l = { .len = 0 };
	put_str(&l, PROG_NAME);
	/* setarch -Z: exec mapped page 0, for good (the a.out loader reset
	 * the personality first); the sysctl would change nothing */
	if (addr < STUB_PAGE &&
	    (stub_syscall_via(0, NR_personality, 0xffffffffL, 0, 0, 0, 0, 0) &
	     PER_MMAP_PAGE_ZERO)) {
		put_str(&l, ": needs address 0, which exec gave to page zero "
			    "(personality MMAP_PAGE_ZERO, setarch -Z); run it without");
		die_line(&l);
	}
	put_str(&l, ": needs address ");
	put_hex(&l, addr);
	put_str(&l, ", below vm.mmap_min_addr; allow it with: sysctl -w vm.mmap_min_addr=");
	put_dec(&l, addr & ~(STUB_PAGE - 1));
	die_line(&l);
}

/*
 * The plan the converter appended to the stub, read where it lies (a
 * pointer to it would be one more variable to write).  The empty asm hides
 * from the compiler that the plan lies beyond __stub_header.
 */
static inline struct stub_plan *the_plan(void)
{
	uintptr_t p = (uintptr_t)&__stub_header;

	__asm__("" : "+r"(p));
	return (struct stub_plan *)(p + __stub_header.plan_off);
}
#define plan (the_plan())

static const char *env_libpath, *env_ldpath;

/*
 * Before a start-up failure is reported, or the handler is installed.
 * The vDSO lies below IMAGE_LIMIT where the mmap layout is the legacy one
 * (ulimit -s unlimited, setarch -L): calls the stub made through it would
 * come from the program's range, which dispatch and the filter trap.  The
 * stub then makes its calls with int $0x80, from its own code.
 */
static void commit(const struct start *s)
{
	stub_sysinfo = s->gate >= IMAGE_LIMIT ? s->gate : 0;
	prog_name = s->name;
	env_libpath = s->libpath;
	env_ldpath = s->ldpath;
}

/*
 * MREMAP_DONTUNMAP leaves the staging mapped (emptied: its pages moved,
 * what is read there comes from the file again) instead of taking it
 * apart: splitting the stub's mapping from the text behind it and
 * removing the data's costs more than the move itself (about 3 us of a
 * start of 165-190 here).  Linux 5.13 and later take it for a file mapping;
 * older kernels say EINVAL.  The staging left counts against RLIMIT_AS
 * and (the data) RLIMIT_DATA, so a limit the program fits in without it
 * says ENOMEM.  Either way the plain move follows, and its error is the
 * one reported.
 */
static long move_pages(const struct start *s, uint32_t src, uint32_t len,
		       uint32_t dst)
{
	long r = start_call(s, NR_mremap, (long)src, (long)len, (long)len,
			    MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
			    (long)dst, 0);

	if ((uint32_t)r != dst)
		r = start_call(s, NR_mremap, (long)src, (long)len, (long)len,
			       MREMAP_MAYMOVE | MREMAP_FIXED, (long)dst, 0);
	return r;
}

/*
 * Moves that continue one another (QMAGIC's text and data) are first
 * tried as one mremap: Linux 6.17 and later move several mappings at
 * once, which saves a call that costs several microseconds; older kernels
 * refuse with EFAULT and get one call each.
 */
static uint32_t moves_joined(const struct start *s, uint32_t i)
{
	const struct stub_map *m = &plan->maps[i];
	uint32_t len = m->len, n = 1;

	for (; i + n < plan->nmaps; n++) {
		const struct stub_map *next = &plan->maps[i + n];

		if (next->kind != STUB_MAP_MOVE || next->src != m->src + len ||
		    next->dst != m->dst + len)
			break;
		len += next->len;
	}
	if (n > 1 && (uint32_t)move_pages(s, m->src, len, m->dst) == m->dst)
		return n;
	return 0;
}

/*
 * A brk below 64 KiB will most likely be hybrid (see set_brk), which
 * needs zero pages from the brk page up to 64 KiB: they are mapped with
 * bss, in the same call, and given back if the kernel takes the exact brk.
 */
#define PRCTL_MIN STUB_BRK_FLOOR

static int hole_follows(const struct stub_map *m)
{
	uint32_t end = m->dst + m->len;

	return end == PAGE_UP(plan->brk) && end < PRCTL_MIN;
}

static long map_zero(const struct start *s, const struct stub_map *m, uint32_t len)
{
	return start_call(s, NR_mmap2, (long)m->dst, (long)len, (long)m->prot,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}

/*
 * load_aout_binary refused a program whose data and bss exceed
 * RLIMIT_DATA (exec failed with ENOMEM); here the kernel's count of
 * private writable memory refuses the bss mapping, so say which it is.
 */
#define NR_ugetrlimit 191
#define RLIMIT_DATA 2
#define ENOMEM 12

static __attribute__((noreturn)) void die_no_memory(void)
{
	uint32_t lim[2] = { 0xffffffffu, 0xffffffffu };
	struct line l = { .len = 0 };

	stub_syscall(NR_ugetrlimit, RLIMIT_DATA, (long)lim, 0, 0, 0, 0);
	put_str(&l, PROG_NAME);
	put_str(&l, lim[0] == 0xffffffffu ? ": no memory for its data and bss (" :
					     ": its data and bss (");
	put_dec(&l, (plan->end_data - plan->start_data) + (plan->brk - plan->start_brk));
	if (lim[0] != 0xffffffffu) {
		/* the stub's pages are private and writable too */
		put_str(&l, " bytes) and the stub's ");
		put_dec(&l, PAGE_UP(__stub_header.bss_size));
		put_str(&l, " exceed the data size limit (ulimit -d: ");
		put_dec(&l, lim[0]);
	}
	put_str(&l, " bytes)");
	die_line(&l);
}

static long map_zero_pages(const struct start *s, const struct stub_map *m,
			   int *hole_premapped)
{
	long r;

	if (!hole_follows(m))
		return map_zero(s, m, m->len);
	r = map_zero(s, m, PRCTL_MIN - m->dst);
	*hole_premapped = (uint32_t)r == m->dst;
	/* the data size limit counts the hole: brk is trapped without it */
	if (r == -ENOMEM)
		r = map_zero(s, m, m->len);
	return r;
}

/* Unmaps the staging of the moves before plan->maps[i]; 1 if there were any. */
static int release_staging(const struct start *s, uint32_t i)
{
	int any = 0;

	for (uint32_t j = 0; j < i; j++)
		if (plan->maps[j].kind == STUB_MAP_MOVE) {
			start_call(s, NR_munmap, (long)plan->maps[j].src,
				   (long)plan->maps[j].len, 0, 0, 0, 0);
			any = 1;
		}
	return any;
}

/*
 * Step 1: segments to their a.out addresses.  Returns 1 if the zero pages
 * from brk up to 64 KiB were mapped with bss (see hole_follows).
 */
static int map_image(const struct start *s)
{
	int hole_premapped = 0;

	for (uint32_t i = 0; i < plan->nmaps; i++) {
		const struct stub_map *m = &plan->maps[i];
		uint32_t joined;
		long r;

		if (m->kind == STUB_MAP_MOVE && (joined = moves_joined(s, i)) > 0) {
			i += joined - 1;
			continue;
		}
		if (m->kind == STUB_MAP_MOVE) {
			r = move_pages(s, m->src, m->len, m->dst);
		} else {
			r = map_zero_pages(s, m, &hole_premapped);
			/* what the data size limit refuses may fit without the
			 * staging the moves left (see move_pages) */
			if (r == -ENOMEM && release_staging(s, i))
				r = map_zero_pages(s, m, &hole_premapped);
		}
		if ((uint32_t)r == m->dst)
			continue;
		commit(s);
		if (r == -EPERM || r == -EACCES)
			die_low_address(plan->min_addr);
		if (r == -ENOMEM)
			die_no_memory();
		die("mapping the a.out image", m->dst, r);
	}
	return hole_premapped;
}

/* ---- brk emulation, for when the kernel will not take our brk ---- */

static uint32_t emu_brk;
/*
 * Hybrid brk (PROTO): the kernel's brk starts at PRCTL_MIN (64 KiB), the
 * pages from the a.out brk up to there are mapped at start, and only brk
 * calls whose argument is at most PRCTL_MIN are trapped: they are
 * answered here; everything above is the kernel's own brk.
 */
static int hybrid_brk;

static uint32_t heap_prot(void)
{
	return STUB_PROT_R | STUB_PROT_W |
	       ((plan->flags & STUB_F_NOEXEC) ? 0 : STUB_PROT_X);
}

/*
 * The pages from the a.out brk up to 64 KiB stay mapped.  The kernel
 * gives whole pages back when brk shrinks and hands out zero pages when
 * it grows again, so pages given back below 64 KiB are cleared at once:
 * a grow past 64 KiB is the kernel's own (the filter lets it through) and
 * hands them out again as they are.  A memset of a page costs far less
 * than the page fault a fresh page would (and at most 60 KiB stay
 * resident).
 */
static uint32_t brk_hybrid(uint32_t want)
{
	uint32_t kbrk = (uint32_t)stub_syscall(NR_brk, 0, 0, 0, 0, 0, 0);
	uint32_t cur = kbrk > PRCTL_MIN ? kbrk : emu_brk;

	/* dispatch traps every brk; a parent's filter may trap any, too */
	if (want > PRCTL_MIN) {
		uint32_t got = (uint32_t)stub_syscall(NR_brk, (long)want, 0, 0, 0, 0, 0);

		/* refused: brk stays where it was, below 64 KiB (under the
		 * filter, which does not trap this call, the kernel says 64 KiB) */
		return kbrk <= PRCTL_MIN && got != want ? cur : got;
	}
	if (want < plan->end_data)
		return cur;
	if (kbrk > PRCTL_MIN)
		stub_syscall(NR_brk, PRCTL_MIN, 0, 0, 0, 0, 0);
	uint32_t old_top = PAGE_UP(cur > PRCTL_MIN ? PRCTL_MIN : cur);
	uint32_t new_top = PAGE_UP(want);

	/* address 0 is a real address here (ZMAGIC, OMAGIC, NMAGIC) */
	if (new_top < old_top)
		// cppcheck-suppress nullPointer
		memset((void *)new_top, 0, old_top - new_top);
	emu_brk = want;
	return want;
}

/* The kernel's sys_brk, applied to anonymous pages we own. */
static uint32_t brk_emulate(uint32_t want)
{
	uint32_t old_top = PAGE_UP(emu_brk), new_top = PAGE_UP(want);
	uint32_t prot = STUB_PROT_R | STUB_PROT_W;

	if (!(plan->flags & STUB_F_NOEXEC))
		prot |= STUB_PROT_X;
	if (want < plan->end_data || want >= IMAGE_LIMIT)
		return emu_brk;
	if (new_top > old_top) {
		long r = stub_syscall(NR_mmap2, (long)old_top,
				      (long)(new_top - old_top), (long)prot,
				      MAP_PRIVATE | MAP_ANONYMOUS |
					      MAP_FIXED_NOREPLACE,
				      -1, 0);
		if ((uint32_t)r != old_top)
			return emu_brk;
	} else if (new_top < old_top) {
		stub_syscall(NR_munmap, (long)new_top, (long)(old_top - new_top),
			     0, 0, 0, 0);
	}
	emu_brk = want;
	return emu_brk;
}

/* ---- uselib(2), as load_aout_library in ia32_aout.c did it ---- */

static const char customary_dirs[] = STUB_CUSTOMARY_DIRS;

static int str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static int str_prefix(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

static const char *base_name(const char *path)
{
	const char *b = path;

	for (; *path; path++)
		if (*path == '/')
			b = path + 1;
	return b;
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#define RWX (STUB_PROT_R | STUB_PROT_W | STUB_PROT_X)

static long map_anon(uint32_t addr, uint32_t len)
{
	long r = stub_syscall(NR_mmap2, (long)addr, (long)len, RWX,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	return (uint32_t)r == addr ? 0 : r;
}

/* The library's bss past its last file page, like vm_brk in the kernel. */
static long map_lib_bss(uint32_t start, uint32_t len, uint32_t bss_len)
{
	return bss_len ? map_anon(start + len, bss_len) : 0;
}

static long load_library_file(int fd, struct stub_lib *out)
{
	unsigned char h[32];
	long n = stub_syscall(NR_read, fd, (long)h, 32, 0, 0, 0);

	if (n != 32)
		return -ENOEXEC;
	uint32_t info = rd32(h), text = rd32(h + 4), data = rd32(h + 8);
	uint32_t bss = rd32(h + 12), syms = rd32(h + 16), entry = rd32(h + 20);
	uint32_t magic = info & 0xffff;
	uint32_t txtoff = magic == 0413 ? 1024 : 0;
	long size = stub_syscall(NR_lseek, fd, 0, 2 /* SEEK_END */, 0, 0, 0);

	if ((magic != 0413 && magic != 0314) || rd32(h + 24) || rd32(h + 28) ||
	    ((entry & 0xfff) && magic == 0413) || (info >> 24) ||
	    (uint64_t)size < (uint64_t)text + data + syms + txtoff)
		return -ENOEXEC;

	uint32_t start = entry & 0xfffff000u;
	uint32_t len = PAGE_UP(text + data);
	uint32_t bss_end = PAGE_UP(text + data + bss);
	long r;

	/* Above IMAGE_LIMIT live the stub and the stack: never map over them. */
	if ((uint64_t)text + data + bss > IMAGE_LIMIT ||
	    (uint64_t)start + bss_end > IMAGE_LIMIT)
		return -ENOEXEC;

	if (txtoff & (STUB_PAGE - 1)) {
		/* Not page aligned in the file: the kernel copied it. */
		r = map_anon(start, bss_end);
		if (r)
			return r;
		stub_syscall(NR_lseek, fd, (long)txtoff, 0, 0, 0, 0);
		for (uint32_t got = 0; got < text + data;) {
			n = stub_syscall(NR_read, fd, (long)(start + got),
					 (long)(text + data - got), 0, 0, 0);
			if (n <= 0)
				return n ? n : -ENOEXEC;
			got += (uint32_t)n;
		}
	} else {
		r = stub_syscall(NR_mmap2, (long)start, (long)(text + data), RWX,
				 MAP_PRIVATE | MAP_FIXED, fd, 0);
		if ((uint32_t)r != start)
			return r;
		r = map_lib_bss(start, len, bss_end - len);
		if (r)
			return r;
	}
	out->start = start;
	out->len = len;
	return 0;
}

static void install_ldso_traps(const struct stub_lib *l);

/* Joins dir and name into buf; 0 when it does not fit. */
static int join_path(char *buf, size_t cap, const char *dir, size_t dirlen,
		     const char *name)
{
	size_t n = str_len(name);

	if (dirlen + 1 + n + 1 > cap)
		return 0;
	memcpy(buf, dir, dirlen);
	buf[dirlen] = '/';
	memcpy(buf + dirlen + 1, name, n + 1);
	return 1;
}

#define O_LIBRARY (0 /* O_RDONLY */ | 04000 /* O_NONBLOCK */ | 0x80000 /* O_CLOEXEC */)
#define ENFILE 23
#define EMFILE 24

static long open_library(const char *path)
{
	return stub_syscall(NR_open, (long)path, O_LIBRARY, 0, 0, 0, 0);
}

/*
 * A failed open that ends the search: the process or the system is out
 * of something, and uselib() said so (another folder would fail alike).
 * Anything else (no such file, a folder we may not search) looks on.
 */
static int open_ends_search(long r)
{
	return r == -EMFILE || r == -ENFILE || r == -ENOMEM;
}

#define NR_fstat64 197
#define NR_faccessat2 439
#define ENOSYS 38
#define S_IFMT 0170000
#define S_IFREG 0100000
#define X_OK 1
#define AT_EACCESS 0x200
#define AT_EMPTY_PATH 0x1000

/*
 * sys_uselib opened the library to read and to execute (MAY_EXEC): a
 * folder, a device or a file the caller may not execute, or one on a
 * noexec mount, was EACCES.  faccessat2 (Linux 5.8) answers that for the
 * open file with the effective ids, noexec included; before it, an x bit
 * anywhere in the mode has to do.
 */
static long may_use_library(long fd)
{
	uint32_t st[32]; /* i386 struct stat64: 96 bytes, st_mode at 16 */

	if (stub_syscall(NR_fstat64, fd, (long)st, 0, 0, 0, 0) < 0 ||
	    (st[4] & S_IFMT) != S_IFREG)
		return -EACCES;
	long r = stub_syscall(NR_faccessat2, fd, (long)"", X_OK,
			      AT_EACCESS | AT_EMPTY_PATH, 0, 0);

	if (r == -ENOSYS || r == -EINVAL)
		return (st[4] & 0111) ? 0 : -EACCES;
	return r ? -EACCES : 0;
}

/* 0 loaded from fd, <0 error; closes fd. */
static long load_from(long fd, struct stub_lib *l)
{
	long r = load_library_file((int)fd, l);

	stub_syscall(NR_close, fd, 0, 0, 0, 0, 0);
	return r;
}

/*
 * Tries each folder of a ':' list, passing over what uselib() would refuse
 * (EACCES): >0 not found, 0 loaded, <0 error.
 */
static long search_dirs(const char *list, const char *name, struct stub_lib *l)
{
	char path[512];

	while (list && *list) {
		const char *end = list;

		while (*end && *end != ':')
			end++;
		if (end > list &&
		    join_path(path, sizeof path, list, (size_t)(end - list), name)) {
			long fd = open_library(path);

			if (fd >= 0 && may_use_library(fd) == 0)
				return load_from(fd, l);
			if (fd >= 0) /* not one uselib() would take: look on */
				stub_syscall(NR_close, fd, 0, 0, 0, 0, 0);
			else if (open_ends_search(fd))
				return fd;
		}
		list = *end ? end + 1 : end;
	}
	return 1;
}

static __attribute__((noreturn)) void die_no_library(const char *name)
{
	struct line l = { .len = 0 };

	put_str(&l, PROG_NAME);
	put_str(&l, ": cannot find the a.out library ");
	put_str(&l, name);
	put_str(&l, "; looked in ");
	if (env_libpath) {
		put_str(&l, "AOUT_LIBRARY_PATH (");
		put_str(&l, env_libpath);
		put_str(&l, "), ");
	}
	if (env_ldpath) {
		put_str(&l, "LD_LIBRARY_PATH (");
		put_str(&l, env_ldpath);
		put_str(&l, "), ");
	}
	if (plan->paths[0]) {
		put_str(&l, plan->paths);
		put_str(&l, ":");
	}
	put_str(&l, customary_dirs);
	die_line(&l);
}

/*
 * The plan's libraries, copied where the stub may write: the plan shares
 * its pages with the stub's code, which may be mapped read-only.
 */
static struct stub_lib libs[STUB_MAX_LIBS];
static int libs_copied;

/* An embedded library's first uselib(): from its staging to its address. */
static long place_embedded(const struct stub_lib *l)
{
	long r = stub_syscall(NR_mremap, (long)l->stage, (long)l->len,
			      (long)l->len, MREMAP_MAYMOVE | MREMAP_FIXED,
			      (long)l->start, 0);

	return (uint32_t)r == l->start ? map_lib_bss(l->start, l->len, l->bss_len) : r;
}

#define NR_mprotect 125
#define NR_madvise 219
#define MADV_DONTNEED 4

/*
 * Another uselib() of it: the kernel mapped the library afresh, its data
 * as the file has it, its bss zero, all of it RWX.  Its pages are still
 * the converted file's, mapped privately (and zero pages for the bss):
 * dropping them brings the file's bytes back, and zeros.
 */
static long refresh_embedded(const struct stub_lib *l)
{
	long r = stub_syscall(NR_mprotect, (long)l->start,
			      (long)(l->len + l->bss_len), RWX, 0, 0, 0);

	return r ? r : stub_syscall(NR_madvise, (long)l->start,
				    (long)(l->len + l->bss_len), MADV_DONTNEED,
				    0, 0, 0);
}

/*
 * The library is looked for by its name: in AOUT_LIBRARY_PATH, then at
 * the path the program gave (where load_aout_library opened it: ld.so's
 * own search, LD_LIBRARY_PATH included), then in LD_LIBRARY_PATH's
 * folders, the -L folders of the conversion and the customary ones.  An
 * embedded library is the one the conversion chose; it is mapped
 * whatever the path says.
 */
static long do_uselib(const char *path)
{
	/* the kernel's answer to a path the program cannot read, before the
	 * stub reads it; and the given path, for the search below */
	long given = open_library(path);

	if (given == -EFAULT)
		return -EFAULT;

	const char *name = base_name(path);
	struct stub_lib scratch = { .mapped = 0 }, *l = &scratch;
	long r = 1;

	if (!libs_copied) {
		memcpy(libs, plan->libs, sizeof libs);
		libs_copied = 1;
	}
	for (uint32_t i = 0; i < plan->nlibs && i < STUB_MAX_LIBS; i++)
		if (str_eq(libs[i].name, name))
			l = &libs[i];
	if (l->stage) {
		if (given >= 0)
			stub_syscall(NR_close, given, 0, 0, 0, 0, 0);
		r = l->mapped ? refresh_embedded(l) : place_embedded(l);
	} else { /* mapped afresh at every call, as the kernel did */
		r = search_dirs(env_libpath, name, l);
		if (given >= 0) {
			/* the kernel's answer for the path given, EACCES too */
			if (r > 0 && (r = may_use_library(given)) == 0)
				r = load_from(given, l);
			else
				stub_syscall(NR_close, given, 0, 0, 0, 0, 0);
		} else if (r > 0 && open_ends_search(given)) {
			r = given;
		}
		/*
		 * ld.so tries LD_LIBRARY_PATH's folders in turn, and where the
		 * kernel failed one it went on to the next: the path given may
		 * be the first of several.
		 */
		if (r > 0)
			r = search_dirs(env_ldpath, name, l);
		if (r > 0)
			r = search_dirs(plan->paths, name, l);
		if (r > 0)
			r = search_dirs(customary_dirs, name, l);
		if (r > 0)
			die_no_library(name);
	}
	if (r < 0)
		return r;
	if (!l->mapped && str_eq(name, "ld.so"))
		install_ldso_traps(l);
	l->mapped = 1;
	return 0;
}

/*
 * ld.so 1.x reads /etc/ld.so.cache; today's file is a glibc cache, and
 * ld.so would complain on stderr that it is corrupt.  Without a cache it
 * silently searches its folders, and uselib() above finds the libraries.
 */
static long do_open_from_ldso(const char *path, long flags, long mode)
{
	if (str_eq(path, "/etc/ld.so.cache"))
		return -ENOENT;
	return stub_syscall(NR_open, (long)path, flags, mode, 0, 0, 0);
}

/* i386 ucontext: uc_mcontext.gregs starts at byte 20. */
enum { REG_ES = 2, REG_DS = 3, REG_EDI = 4, REG_ESI = 5, REG_EBP = 6,
       REG_EBX = 8, REG_EDX = 9, REG_ECX = 10, REG_EAX = 11, REG_EIP = 14,
       REG_CS = 15, REG_EFL = 16, REG_SS = 18, REG_FPSTATE = 19 };

#define SYS_USER_DISPATCH 2 /* si_code of a dispatched call */
static int dispatch_takes(int nr, uint32_t arg0);

static int emulating_brk;
static int ldso_trapped;

/*
 * ---- the program's own SIGSYS ----
 *
 * The stub's handler must stay SIGSYS's while anything is trapped, so the
 * program's signal(), sigaction() and rt_sigaction() for SIGSYS are
 * trapped too and kept here, and a SIGSYS that is not a trap (kill,
 * raise) is passed on to what the program asked for.
 */
struct k_sigaction {
	uint32_t handler, flags, restorer, mask[2];
};

struct k_old_sigaction {
	uint32_t handler, mask, flags, restorer;
};

#define SIG_DFL 0u
#define SIG_IGN 1u
#define SA_RESETHAND 0x80000000u
#define SYS_SECCOMP 1 /* si_code of a seccomp trap */
#define NR_signal 48
#define NR_sigaction 67
#define NR_getpid 20
#define NR_kill 37

static struct k_sigaction prog_sigsys; /* what exec left: SIG_DFL or SIG_IGN */

static void trap_exec_from_now(void);

static int is_sigsys_action(int nr, uint32_t arg0)
{
	return (nr == NR_signal || nr == NR_sigaction || nr == NR_rt_sigaction) &&
	       arg0 == SIGSYS;
}

/*
 * The kernel's sys_signal, sys_sigaction, sys_rt_sigaction, on prog_sigsys,
 * in its order: act is read (-EFAULT before anything changes), the action
 * set, oact written (-EFAULT after).  The same call for signal 0 checks
 * act without changing anything (refused after act is read); the same
 * call for SIGSYS with no act checks oact by writing the real action, the
 * stub's, into it, which is then overwritten.
 */
static long sigsys_action(int nr, const uint32_t *g)
{
	struct k_sigaction old = prog_sigsys, act;
	uint32_t pact = g[REG_ECX], poact = g[REG_EDX], size = g[REG_ESI];

	if (nr == NR_signal) {
		prog_sigsys = (struct k_sigaction){ g[REG_ECX],
						    SA_RESETHAND | SA_NODEFER, 0,
						    { 0, 0 } };
		trap_exec_from_now();
		return (long)old.handler;
	}
	if (nr == NR_rt_sigaction && size != 8) /* sigsetsize */
		return -EINVAL;
	if (pact && stub_syscall(nr, 0, (long)pact, 0, (long)size, 0, 0) == -EFAULT)
		return -EFAULT;
	if (pact && nr == NR_sigaction) {
		const struct k_old_sigaction *o = (const void *)pact;

		act = (struct k_sigaction){ o->handler, o->flags, o->restorer,
					    { o->mask, 0 } };
	} else if (pact) {
		act = *(const struct k_sigaction *)pact;
	}
	if (pact) {
		prog_sigsys = act;
		trap_exec_from_now();
	}
	if (!poact)
		return 0;
	if (stub_syscall(nr, SIGSYS, 0, (long)poact, (long)size, 0, 0) == -EFAULT)
		return -EFAULT;
	if (nr == NR_sigaction)
		*(struct k_old_sigaction *)poact =
			(struct k_old_sigaction){ old.handler, old.mask[0], old.flags,
						  old.restorer };
	else
		*(struct k_sigaction *)poact = old;
	return 0;
}

#define SIG_BLOCK 0
#define SIGSYS_BIT (1u << (SIGSYS - 1))

static uint32_t prog_blocks_sigsys; /* SIGSYS_BIT if the program blocked it */
static int sigsys_waiting;          /* sent while the program had it blocked */
static int32_t waiting_info[32];     /* the siginfo it came with */
static int release_waiting;         /* unblocked: deliver it on the way back */

static void raise_sigsys(void)
{
	stub_syscall(NR_kill, stub_syscall(NR_getpid, 0, 0, 0, 0, 0, 0), SIGSYS, 0,
		     0, 0, 0);
}

/*
 * A handler without SA_SIGINFO, called as the kernel's old i386 frame called
 * it: the signal number, then struct sigcontext itself, which programs
 * of the a.out era read (void handler(int, struct sigcontext)) and
 * change for sigreturn to restore.  The copy is made at the bottom of
 * the stack, where the handler finds its arguments, and copied back into
 * the ucontext that rt_sigreturn restores.  sc: uc_mcontext, 22 words.
 */
static void call_old_style(uint32_t handler, uint32_t sig, uint32_t *sc)
{
	uint32_t frame[1 + 22];

	frame[0] = sig;
	memcpy(frame + 1, sc, sizeof frame - 4);
	uint32_t *src = frame;

	__asm__ volatile("subl $92, %%esp\n\t"
			 "movl %%eax, %%esi\n\t"
			 "movl %%esp, %%edi\n\t"
			 "movl $23, %%ecx\n\t"
			 "cld\n\t"
			 "rep movsl\n\t"
			 "movl %%eax, %%ebx\n\t" /* the handler keeps ebx */
			 "call *%%edx\n\t"
			 "movl %%esp, %%esi\n\t"
			 "movl %%ebx, %%edi\n\t"
			 "movl $23, %%ecx\n\t"
			 "cld\n\t"
			 "rep movsl\n\t"
			 "addl $92, %%esp"
			 : "+a"(src), "+d"(handler)
			 :
			 : "ebx", "ecx", "esi", "edi", "memory", "cc");
	memcpy(sc, frame + 1, sizeof frame - 4);
}

/* A SIGSYS somebody sent: what the program's disposition says. */
static void pass_on_sigsys(int sig, void *info, void *ucontext)
{
	uint32_t handler = prog_sigsys.handler;

	if (prog_blocks_sigsys) {
		if (!sigsys_waiting) /* delivered when the program unblocks it */
			memcpy(waiting_info, info, sizeof waiting_info);
		sigsys_waiting = 1;
		return;
	}
	if (handler == SIG_IGN)
		return;
	if (handler == SIG_DFL) {
		/* die of it: SIGSYS is not blocked here (SA_NODEFER) */
		struct k_sigaction dfl = { SIG_DFL, 0, 0, { 0, 0 } };

		stub_syscall(NR_rt_sigaction, SIGSYS, (long)&dfl, 0, 8, 0, 0);
		raise_sigsys();
		return;
	}
	uint32_t flags = prog_sigsys.flags, was = prog_blocks_sigsys;
	uint32_t block[2] = { prog_sigsys.mask[0] & ~SIGSYS_BIT, prog_sigsys.mask[1] };

	if (flags & SA_RESETHAND)
		prog_sigsys.handler = SIG_DFL;
	/*
	 * What the kernel blocks while the handler runs: its sa_mask, and
	 * SIGSYS unless SA_NODEFER (SIGSYS in the stub's record only).  The
	 * stub's own sigreturn puts the mask back; the record, here.
	 */
	if (block[0] | block[1])
		stub_syscall(NR_rt_sigprocmask, SIG_BLOCK, (long)block, 0, 8, 0, 0);
	if (!(flags & SA_NODEFER) || (prog_sigsys.mask[0] & SIGSYS_BIT))
		prog_blocks_sigsys = SIGSYS_BIT;
	if (flags & SA_SIGINFO)
		((void (*)(int, void *, void *))handler)(sig, info, ucontext);
	else
		call_old_style(handler, (uint32_t)sig, (uint32_t *)((char *)ucontext + 20));
	prog_blocks_sigsys = was;
	if (sigsys_waiting && !was) { /* sent while the handler ran */
		sigsys_waiting = 0;
		pass_on_sigsys(SIGSYS, waiting_info, ucontext);
	}
}

/*
 * ---- SIGSYS stays unblocked ----
 *
 * A trap that finds SIGSYS blocked kills the program: the kernel resets a
 * forced signal that is blocked to SIG_DFL.  Programs block every signal
 * for good reasons (sigfillset() and then sigprocmask(), a handler's
 * sa_mask, sigsuspend()), and a malloc() that calls brk would then die.
 * So wherever brk is trapped, every call that sets the signal mask or a
 * handler's mask is trapped as well and made without SIGSYS in the mask.  What the program asked for is kept here and shown back to it by
 * the calls that report a mask; a SIGSYS sent meanwhile waits here until
 * the program unblocks it.
 */
#define NR_sgetmask 68
#define NR_ssetmask 69
#define NR_sigsuspend 72
#define NR_sigprocmask 126
#define NR_rt_sigsuspend 179
#define SIG_SETMASK 2
#define BAD_HOW 0x7fffffff
#define ENOSYS 38

static uint32_t sa_mask_sigsys[2]; /* bit sig-1: that handler's mask held SIGSYS */

static int is_mask_call(int nr, uint32_t arg0)
{
	if (nr == NR_sigaction || nr == NR_rt_sigaction)
		return arg0 != SIGSYS; /* SIGSYS's own: is_sigsys_action */
	return nr == NR_sgetmask || nr == NR_ssetmask || nr == NR_sigsuspend ||
	       nr == NR_sigprocmask || nr == NR_rt_sigprocmask ||
	       nr == NR_rt_sigsuspend;
}

/*
 * -EFAULT if the program's sigset at p cannot be read.  sigprocmask and
 * rt_sigprocmask read the set before they look at how, so a call with a
 * bad how checks the pointer and changes nothing; the stub then reads the
 * set itself without faulting in its handler.
 */
static long unreadable_set(int nr, uint32_t p)
{
	return stub_syscall(nr, BAD_HOW, (long)p, 0, 8, 0, 0) == -EFAULT ? -EFAULT : 0;
}

/*
 * rt_sigreturn sets the mask from the frame of the trap, which would undo
 * a change made from the handler: put the mask now in force there.
 */
static void keep_mask(void *ucontext)
{
	uint32_t now[2] = { 0, 0 };
	/* i386 ucontext: flags, link, the 12-byte stack, the 88-byte mcontext */
	uint32_t *uc_sigmask = (uint32_t *)((char *)ucontext + 108);

	stub_syscall(NR_rt_sigprocmask, SIG_BLOCK, 0, (long)now, 8, 0, 0);
	uc_sigmask[0] = now[0] & ~SIGSYS_BIT;
	uc_sigmask[1] = now[1];
}

/* sigprocmask, rt_sigprocmask, ssetmask: what the program blocks now. */
static void set_blocks_sigsys(uint32_t how, uint32_t asked)
{
	if (how == SIG_BLOCK)
		prog_blocks_sigsys |= asked;
	else if (how == SIG_UNBLOCK)
		prog_blocks_sigsys &= ~asked;
	else
		prog_blocks_sigsys = asked;
}

/*
 * The kernel delivers a signal that waited as the call that unblocks it
 * returns, in the program's context: on_sigsys does, once the call's
 * result is in place.
 */
static void release_waiting_sigsys(void)
{
	if (sigsys_waiting && !prog_blocks_sigsys)
		release_waiting = 1;
}

static long procmask_call(int nr, const uint32_t *g, void *ucontext)
{
	uint32_t how = g[REG_EBX], set = g[REG_ECX], oset = g[REG_EDX];
	uint32_t size = nr == NR_rt_sigprocmask ? g[REG_ESI] : 4;
	uint32_t was = prog_blocks_sigsys, asked = 0, want[2] = { 0, 0 };
	long r;

	if (nr == NR_rt_sigprocmask && size != 8)
		return -EINVAL;
	if (set) {
		if (unreadable_set(nr, set))
			return -EFAULT;
		want[0] = ((const uint32_t *)set)[0];
		if (size == 8)
			want[1] = ((const uint32_t *)set)[1];
		asked = want[0] & SIGSYS_BIT;
		want[0] &= ~SIGSYS_BIT;
	}
	r = stub_syscall(nr, (long)how, set ? (long)want : 0, (long)oset, (long)size, 0, 0);
	/* EFAULT for an old set it cannot write: the kernel changed the mask first */
	if (r < 0 && !(r == -EFAULT && set))
		return r;
	if (oset && r == 0)
		*(uint32_t *)oset |= was;
	if (set) {
		set_blocks_sigsys(how, asked);
		keep_mask(ucontext);
		release_waiting_sigsys();
	}
	return r;
}

/* sigaction and rt_sigaction for any signal but SIGSYS: sa_mask without it. */
static long handler_mask_call(int nr, const uint32_t *g)
{
	uint32_t sig = g[REG_EBX], act = g[REG_ECX], oact = g[REG_EDX];
	uint32_t size = nr == NR_rt_sigaction ? g[REG_ESI] : 0;
	uint32_t word = (sig - 1) / 32, bit = 1u << ((sig - 1) % 32), asked = 0;
	struct k_sigaction rt;
	struct k_old_sigaction old;
	void *copy = 0;
	long r;

	if (sig < 1 || sig > 64 || (nr == NR_rt_sigaction && size != 8))
		return stub_syscall(nr, (long)sig, (long)act, (long)oact, (long)size, 0, 0);
	/* signal 0 is refused after act has been read: a check of the pointer */
	if (act && stub_syscall(nr, 0, (long)act, 0, (long)size, 0, 0) == -EFAULT)
		return -EFAULT;
	if (act && nr == NR_rt_sigaction) {
		rt = *(const struct k_sigaction *)act;
		asked = rt.mask[0] & SIGSYS_BIT;
		rt.mask[0] &= ~SIGSYS_BIT;
		copy = &rt;
	} else if (act) {
		old = *(const struct k_old_sigaction *)act;
		asked = old.mask & SIGSYS_BIT;
		old.mask &= ~SIGSYS_BIT;
		copy = &old;
	}
	r = stub_syscall(nr, (long)sig, (long)copy, (long)oact, (long)size, 0, 0);
	if (r < 0)
		return r;
	if (oact && (sa_mask_sigsys[word] & bit)) {
		if (nr == NR_rt_sigaction)
			((struct k_sigaction *)oact)->mask[0] |= SIGSYS_BIT;
		else
			((struct k_old_sigaction *)oact)->mask |= SIGSYS_BIT;
	}
	if (act)
		sa_mask_sigsys[word] = asked ? sa_mask_sigsys[word] | bit :
					       sa_mask_sigsys[word] & ~bit;
	return r;
}

/* The calls of is_mask_call, made for the program from the handler. */
/*
 * sigsuspend and rt_sigsuspend: the temporary mask is the program's while
 * it waits, SIGSYS in the stub's record.  A SIGSYS waiting in the stub
 * that the mask lets through is delivered at once, and the call returns
 * EINTR, as for any signal that ends the wait.  One sent
 * while the mask blocks it waits, and ends the call all the same (a
 * spurious wake-up, which sigsuspend loops take in their stride).
 */
static long suspend_call(int nr, uint32_t *set, const uint32_t *g, void *ucontext)
{
	uint32_t was = prog_blocks_sigsys;
	long r;

	prog_blocks_sigsys = set[0] & SIGSYS_BIT;
	set[0] &= ~SIGSYS_BIT;
	if (sigsys_waiting && !prog_blocks_sigsys) {
		sigsys_waiting = 0;
		pass_on_sigsys(SIGSYS, waiting_info, ucontext);
		r = -EINTR;
	} else if (nr == NR_sigsuspend) {
		r = stub_syscall(nr, (long)g[REG_EBX], (long)g[REG_ECX], (long)set[0],
				 0, 0, 0);
	} else {
		r = stub_syscall(nr, (long)set, 8, 0, 0, 0, 0);
	}
	prog_blocks_sigsys = was;
	return r;
}

static long mask_call(int nr, const uint32_t *g, void *ucontext)
{
	uint32_t set[2];
	long r;

	switch (nr) {
	case NR_sigaction:
	case NR_rt_sigaction:
		return handler_mask_call(nr, g);
	case NR_sigprocmask:
	case NR_rt_sigprocmask:
		return procmask_call(nr, g, ucontext);
	case NR_sgetmask:
		r = stub_syscall(nr, 0, 0, 0, 0, 0, 0);
		return r == -ENOSYS ? r : (long)((uint32_t)r | prog_blocks_sigsys);
	case NR_ssetmask:
		r = stub_syscall(nr, (long)(g[REG_EBX] & ~SIGSYS_BIT), 0, 0, 0, 0, 0);
		if (r == -ENOSYS)
			return r;
		r = (long)((uint32_t)r | prog_blocks_sigsys);
		set_blocks_sigsys(SIG_SETMASK, g[REG_EBX] & SIGSYS_BIT);
		keep_mask(ucontext);
		release_waiting_sigsys();
		return r;
	case NR_sigsuspend: /* i386: (history0, history1, mask) */
		set[0] = g[REG_EDX];
		set[1] = 0;
		return suspend_call(nr, set, g, ucontext);
	default: /* rt_sigsuspend */
		if (g[REG_ECX] != 8)
			return -EINVAL;
		if (unreadable_set(NR_rt_sigprocmask, g[REG_EBX]))
			return -EFAULT;
		set[0] = ((const uint32_t *)g[REG_EBX])[0];
		set[1] = ((const uint32_t *)g[REG_EBX])[1];
		return suspend_call(nr, set, g, ucontext);
	}
}

/*
 * exec keeps a SIGSYS that is ignored or blocked, but the real SIGSYS is
 * the stub's and never blocked: the program's wish is made real for the
 * exec, and undone if the exec fails.
 */
#define NR_execve 11

static void install_sigsys_handler(struct k_sigaction *was);

static int exec_keeps_sigsys(int nr)
{
	return nr == NR_execve && (prog_sigsys.handler == SIG_IGN || prog_blocks_sigsys);
}

static long exec_call(const uint32_t *g)
{
	struct k_sigaction ign = { SIG_IGN, 0, 0, { 0, 0 } };
	uint32_t set[2] = { SIGSYS_BIT, 0 };
	int ignored = prog_sigsys.handler == SIG_IGN;
	long r;

	if (ignored)
		stub_syscall(NR_rt_sigaction, SIGSYS, (long)&ign, 0, 8, 0, 0);
	if (prog_blocks_sigsys)
		stub_syscall(NR_rt_sigprocmask, SIG_BLOCK, (long)set, 0, 8, 0, 0);
	r = stub_syscall(NR_execve, (long)g[REG_EBX], (long)g[REG_ECX],
			 (long)g[REG_EDX], 0, 0, 0);
	if (prog_blocks_sigsys)
		stub_syscall(NR_rt_sigprocmask, SIG_UNBLOCK, (long)set, 0, 8, 0, 0);
	if (ignored)
		install_sigsys_handler(0);
	return r;
}

/*
 * SIGSYS: a call trapped by syscall user dispatch, by our seccomp filter
 * or by one a converted parent left behind (filters are inherited):
 * emulate what the kernel no longer does, and make any other trapped call
 * from here, where nothing traps it.  Any other SIGSYS was sent by
 * somebody and is the program's.
 */
/* int $0x80, sysenter, syscall: what a call can be rerun by stepping back 2 */
static int is_syscall_insn(const uint8_t *p)
{
	return (p[0] == 0xcd && p[1] == 0x80) ||
	       (p[0] == 0x0f && (p[1] == 0x34 || p[1] == 0x05));
}

#define NR_getuid32 199

/*
 * kill(getpid(), SIGSYS) under dispatch: made from this handler, the
 * SIGSYS would arrive in the handler's context, not the program's.  The
 * kernel would return 0 and deliver it on the way back to the program:
 * so does this, with the siginfo kill gives (SI_USER, pid, uid).
 */
static void sigsys_to_itself(uint32_t *g, void *ucontext)
{
	int32_t si[32] = { SIGSYS, 0, 0 /* SI_USER */,
			   (int32_t)g[REG_EBX],
			   (int32_t)stub_syscall(NR_getuid32, 0, 0, 0, 0, 0, 0) };

	g[REG_EAX] = 0;
	pass_on_sigsys(SIGSYS, si, ucontext);
}

/*
 * rt_sigreturn is a system call of its own, and on a VM a dear one: a
 * trapped call took 1.4-1.46 times as long returning by it (make bench,
 * row "trapped call", on the VM this was written on).
 * For a trap answered by registers alone the stub returns by itself
 * (stub_resume), restoring what rt_sigreturn would: the FPU state, the
 * general registers, eflags and %eip.  Not where rt_sigreturn does more:
 * the signal mask (unchanged by the handler: SA_NODEFER and no sa_mask),
 * a signal stack that delivery disarmed (SS_AUTODISARM), segment
 * registers other than the ones delivery loaded, a frame without FPU
 * state; nor with the trap flag set (a program single-stepping itself:
 * popfl would let it trap one instruction early).
 */
#define SS_AUTODISARM (1u << 31)
#define EFLAGS_TF 0x100u

void stub_resume(void *ucontext) __attribute__((noreturn));

static uint32_t segment(int which)
{
	uint32_t v = 0;

	if (which == REG_DS)
		__asm__("movl %%ds, %0" : "=r"(v));
	else if (which == REG_ES)
		__asm__("movl %%es, %0" : "=r"(v));
	else if (which == REG_CS)
		__asm__("movl %%cs, %0" : "=r"(v));
	else
		__asm__("movl %%ss, %0" : "=r"(v));
	return v & 0xffff;
}

static int can_resume(const void *ucontext)
{
	const uint32_t *g = (const uint32_t *)((const char *)ucontext + 20);
	uint32_t ss_flags = *(const uint32_t *)((const char *)ucontext + 12);
	static const uint8_t segs[] = { REG_DS, REG_ES, REG_CS, REG_SS };

	if (!g[REG_FPSTATE] || (ss_flags & SS_AUTODISARM) || (g[REG_EFL] & EFLAGS_TF))
		return 0;
	for (size_t i = 0; i < sizeof segs; i++)
		if ((g[segs[i]] & 0xffff) != segment(segs[i]))
			return 0;
	return 1;
}

/* A trapped call whose answer is its return value alone. */
static uint32_t answer(int nr, const uint32_t *g)
{
	if (nr == NR_brk && hybrid_brk)
		return brk_hybrid(g[REG_EBX]);
	if (nr == NR_brk && emulating_brk)
		return brk_emulate(g[REG_EBX]);
	if (nr == NR_uselib && (plan->flags & STUB_F_DYNAMIC))
		return (uint32_t)do_uselib((const char *)g[REG_EBX]);
	if (nr == NR_open && ldso_trapped)
		return (uint32_t)do_open_from_ldso((const char *)g[REG_EBX],
						   (long)g[REG_ECX], (long)g[REG_EDX]);
	return (uint32_t)stub_syscall(nr, (long)g[REG_EBX], (long)g[REG_ECX],
				      (long)g[REG_EDX], (long)g[REG_ESI],
				      (long)g[REG_EDI], (long)g[REG_EBP]);
}

static void on_sigsys(int sig, void *info, void *ucontext)
{
	uint32_t *g = (uint32_t *)((char *)ucontext + 20);
	int code = *(int *)((char *)info + 8); /* si_code */
	int nr = *(int *)((char *)info + 16);  /* si_syscall */

	if (code != SYS_SECCOMP && code != SYS_USER_DISPATCH) {
		pass_on_sigsys(sig, info, ucontext);
		return;
	}
	if (code == SYS_USER_DISPATCH && nr == NR_kill && g[REG_ECX] == SIGSYS &&
	    g[REG_EBX] == (uint32_t)stub_syscall(NR_getpid, 0, 0, 0, 0, 0, 0)) {
		sigsys_to_itself(g, ucontext);
		return;
	}
	if (code == SYS_USER_DISPATCH && !dispatch_takes(nr, g[REG_EBX]) &&
	    is_syscall_insn((const uint8_t *)g[REG_EIP] - 2)) {
		g[REG_EIP] -= 2; /* back onto the int $0x80, now under the filter */
		if (can_resume(ucontext))
			stub_resume(ucontext);
		return;
	}
	int by_registers = 0; /* the answer is in g alone: see can_resume */

	if (is_sigsys_action(nr, g[REG_EBX]))
		g[REG_EAX] = (uint32_t)sigsys_action(nr, g);
	else if (is_mask_call(nr, g[REG_EBX]))
		g[REG_EAX] = (uint32_t)mask_call(nr, g, ucontext);
	else if (exec_keeps_sigsys(nr))
		g[REG_EAX] = (uint32_t)exec_call(g);
	else {
		g[REG_EAX] = answer(nr, g);
		by_registers = 1;
	}
	if (release_waiting) {
		release_waiting = 0;
		sigsys_waiting = 0;
		pass_on_sigsys(SIGSYS, waiting_info, ucontext);
		by_registers = 0;
	}
	if (by_registers && can_resume(ucontext))
		stub_resume(ucontext);
}

/*
 * SA_NODEFER: a call the stub makes for the program from this handler may
 * block (read, wait4), and a signal handler of the program that runs
 * meanwhile may make a trapped call of its own; a SIGSYS that arrived
 * blocked would be fatal.  The handler is reentrant for that reason.
 */
static void install_sigsys_handler(struct k_sigaction *was)
{
	struct {
		void (*handler)(int, void *, void *);
		uint32_t flags;
		void (*restorer)(void);
		uint32_t mask[2];
	} sa = { on_sigsys, SA_SIGINFO | SA_RESTORER | SA_NODEFER,
		 stub_sysinfo ? stub_sigreturn_vdso : stub_sigreturn, { 0, 0 } };
	long r = stub_syscall(NR_rt_sigaction, SIGSYS, (long)&sa, (long)was, 8, 0, 0);

	if (r < 0)
		die("installing the SIGSYS handler", 0, r);
}

/*
 * A trap that finds SIGSYS blocked kills the program (the kernel resets a
 * forced signal that is blocked to its default action), and a blocked
 * mask is inherited across exec: a program started with SIGSYS blocked
 * would die at its first trapped call.  So SIGSYS is let through, and the
 * calls that report the mask show the program what it inherited.
 */
static void unblock_sigsys(void)
{
	uint32_t set[2] = { SIGSYS_BIT, 0 }, was[2] = { 0, 0 };
	long r = stub_syscall(NR_rt_sigprocmask, SIG_UNBLOCK, (long)set, (long)was, 8,
			      0, 0);

	if (r < 0)
		die("unblocking SIGSYS", 0, r);
	if (emulating_brk) /* the mask calls are the stub's: they report it */
		prog_blocks_sigsys = was[0] & SIGSYS_BIT;
}

struct sock_filter {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};

struct sock_fprog {
	uint16_t len;
	struct sock_filter *filter;
};

#define BPF_LD_W_ABS 0x20
#define BPF_JEQ_K 0x15
#define BPF_JGE_K 0x35
#define BPF_RET_K 0x06
#define SECCOMP_RET_TRAP 0x00030000u
#define SECCOMP_RET_ALLOW 0x7fff0000u
#define AUDIT_ARCH_I386 0x40000003u

/*
 * A seccomp filter that traps system call nr only when it is made from
 * [ip_lo, ip_hi), so that children which are not converted a.out programs
 * never see it act (filters are inherited across fork and exec).
 */
struct trap_rule {
	uint32_t nr, ip_lo, ip_hi;
	uint32_t arg_min, arg_max; /* trapped only for args[0] in [min, max] */
};

/* uselib, and for the a.out's code and the libraries': brk, signal, 8 mask calls, execve */
#define MAX_RULES (1 + 2 * 11)
#define BPF_JGT_K 0x25
/* header, one test per call, a block of at most 6 per rule and 2 per call */
#define MAX_INSNS (4 + MAX_RULES * (1 + 6 + 2))

static int any_arg(const struct trap_rule *r)
{
	return r->arg_min == 0 && r->arg_max == 0xffffffffu;
}

/* Rules for one call come one after another: the end of those from i. */
static unsigned call_end(const struct trap_rule *r, unsigned n, unsigned i)
{
	unsigned e = i + 1;

	while (e < n && r[e].nr == r[i].nr)
		e++;
	return e;
}

static int same_tests(const struct trap_rule *a, unsigned alen,
		      const struct trap_rule *b, unsigned blen)
{
	if (alen != blen)
		return 0;
	for (unsigned i = 0; i < alen; i++)
		if (a[i].ip_lo != b[i].ip_lo || a[i].ip_hi != b[i].ip_hi ||
		    a[i].arg_min != b[i].arg_min || a[i].arg_max != b[i].arg_max)
			return 0;
	return 1;
}

static unsigned rule_insns(const struct trap_rule *r)
{
	return any_arg(r) ? 3 : 6;
}

static uint8_t jump(unsigned from, unsigned to)
{
	return (uint8_t)(to - from - 1);
}

/* One call's tests at f[at]: an IP range, then maybe args[0], per rule. */
static unsigned emit_tests(struct sock_filter *f, unsigned at,
			   const struct trap_rule *r, unsigned len)
{
	unsigned trap = at + 1, k = at;

	for (unsigned i = 0; i < len; i++)
		trap += rule_insns(&r[i]);
	for (unsigned i = 0; i < len; i++, at = k) {
		unsigned next = at + rule_insns(&r[i]);

		f[k++] = (struct sock_filter){ BPF_LD_W_ABS, 0, 0, 8 }; /* ip */
		f[k] = (struct sock_filter){ BPF_JGE_K, 0, jump(k, next), r[i].ip_lo };
		k++;
		if (any_arg(&r[i])) {
			f[k] = (struct sock_filter){ BPF_JGE_K, jump(k, next), jump(k, trap),
						     r[i].ip_hi };
			k++;
			continue;
		}
		f[k] = (struct sock_filter){ BPF_JGE_K, jump(k, next), 0, r[i].ip_hi };
		k++;
		f[k++] = (struct sock_filter){ BPF_LD_W_ABS, 0, 0, 16 }; /* args[0] */
		f[k] = (struct sock_filter){ BPF_JGT_K, jump(k, next), 0, r[i].arg_max };
		k++;
		f[k] = (struct sock_filter){ BPF_JGE_K, jump(k, trap), jump(k, next),
					     r[i].arg_min };
		k++;
	}
	f[k++] = (struct sock_filter){ BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW };
	f[k++] = (struct sock_filter){ BPF_RET_K, 0, 0, SECCOMP_RET_TRAP };
	return k;
}

/*
 * The filter tests nr first, one comparison per call, so that the kernel
 * finds every other call always allowed and caches that (it then runs no
 * filter for them at all).  Calls trapped under the same tests (the mask
 * calls: any argument from the a.out's or the libraries' code) share them:
 * the kernel's cost of attaching a filter grows with its length.
 */
static void install_traps(const struct trap_rule *rules, unsigned n)
{
	struct sock_filter f[MAX_INSNS];
	unsigned tests_at[MAX_RULES], ncalls = 0, k;

	_Static_assert(MAX_INSNS <= 256, "a BPF jump reaches 255 insns at most");
	if (n > MAX_RULES)
		die("too many seccomp rules", 0, -EINVAL);
	for (unsigned i = 0; i < n; i = call_end(rules, n, i))
		ncalls++;
	k = 3 + ncalls + 1;
	for (unsigned i = 0, c = 0; i < n; i = call_end(rules, n, i), c++) {
		unsigned len = call_end(rules, n, i) - i;

		tests_at[c] = 0;
		for (unsigned j = 0, d = 0; j < i; j = call_end(rules, n, j), d++)
			if (same_tests(&rules[j], call_end(rules, n, j) - j, &rules[i], len)) {
				tests_at[c] = tests_at[d];
				break;
			}
		if (!tests_at[c]) {
			tests_at[c] = k;
			k = emit_tests(f, k, &rules[i], len);
		}
	}
	f[0] = (struct sock_filter){ BPF_LD_W_ABS, 0, 0, 4 }; /* arch */
	f[1] = (struct sock_filter){ BPF_JEQ_K, 0, jump(1, 3 + ncalls), AUDIT_ARCH_I386 };
	f[2] = (struct sock_filter){ BPF_LD_W_ABS, 0, 0, 0 }; /* nr */
	for (unsigned i = 0, c = 0; i < n; i = call_end(rules, n, i), c++)
		f[3 + c] = (struct sock_filter){ BPF_JEQ_K, jump(3 + c, tests_at[c]), 0,
						 rules[i].nr };
	f[3 + ncalls] = (struct sock_filter){ BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW };

	struct sock_fprog prog = { (uint16_t)k, f };
	long r = stub_syscall(NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);

	if (r < 0)
		die("setting no_new_privs", 0, r);
	/*
	 * SPEC_ALLOW: this filter is no sandbox, so the program must not pay
	 * for the speculative-store-bypass mitigation a filter otherwise turns
	 * on; kernels before 4.17 do not know the flag.
	 */
	r = stub_syscall(NR_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */,
			 4 /* SECCOMP_FILTER_FLAG_SPEC_ALLOW */, (long)&prog, 0, 0, 0);
	if (r == -EINVAL)
		r = stub_syscall(NR_seccomp, 1, 0, (long)&prog, 0, 0, 0);
	if (r < 0)
		die("installing the seccomp filter", 0, r);
}

/*
 * ---- trapping brk cheaply: syscall user dispatch, then the filter ----
 *
 * Attaching a seccomp filter costs more than a trivial program takes to
 * run (about 40 us on the VM this was written on: the BPF JIT, and the
 * kernel's table of the filter's verdict for every system call).
 * Syscall user dispatch (Linux 5.11) costs one prctl: from then on every
 * system call made below IMAGE_LIMIT is a SIGSYS instead, which the stub
 * makes itself from the handler (the stub and the vDSO lie above, in the
 * range that is let through).  That is paid per call, so the stub stops
 * after DISPATCH_BUDGET calls, or at the first call it cannot make for the
 * program from inside a signal handler: it attaches the filter, turns
 * dispatch off and sends the program back onto its int $0x80, which the
 * kernel now runs under the filter.  A program that makes few system
 * calls never pays for a filter; one that makes many pays for both, the
 * dispatched calls costing about as much as the filter.
 */
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_OFF 0
#define PR_SYS_DISPATCH_ON 1
#define DISPATCH_BUDGET 8

static int dispatching;
static unsigned dispatch_left;
static unsigned trap_rules(struct trap_rule *rules);

/*
 * Calls that do the same made from the handler as from the program: none
 * that reads or changes the signal mask, the signal stack or the handlers
 * (sigreturn would undo or confuse it), creates a process or thread
 * (dispatch is not inherited; the filter is), or works on the registers.
 */
static const uint8_t plain_calls[] = {
	1 /* exit */, 3 /* read */, 4 /* write */, 5 /* open */, 6 /* close */,
	7 /* waitpid */, 8 /* creat */, 9 /* link */, 10 /* unlink */,
	11 /* execve */, 12 /* chdir */, 13 /* time */, 14 /* mknod */,
	15 /* chmod */, 16 /* lchown */, 18 /* oldstat */, 19 /* lseek */,
	20 /* getpid */, 24 /* getuid */, 27 /* alarm */, 28 /* oldfstat */,
	29 /* pause */, 30 /* utime */, 33 /* access */, 36 /* sync */,
	37 /* kill */, 38 /* rename */, 39 /* mkdir */, 40 /* rmdir */,
	41 /* dup */, 42 /* pipe */, 43 /* times */, 47 /* getgid */,
	49 /* geteuid */, 50 /* getegid */, 54 /* ioctl */, 55 /* fcntl */,
	57 /* setpgid */, 60 /* umask */, 63 /* dup2 */, 64 /* getppid */,
	65 /* getpgrp */, 66 /* setsid */, 76 /* getrlimit */,
	77 /* getrusage */, 78 /* gettimeofday */, 83 /* symlink */,
	84 /* oldlstat */, 85 /* readlink */, 89 /* readdir */, 90 /* mmap */,
	91 /* munmap */, 92 /* truncate */, 93 /* ftruncate */, 94 /* fchmod */,
	99 /* statfs */, 100 /* fstatfs */, 102 /* socketcall */,
	104 /* setitimer */, 105 /* getitimer */, 106 /* stat */,
	107 /* lstat */, 108 /* fstat */, 109 /* olduname */, 114 /* wait4 */,
	122 /* uname */, 125 /* mprotect */, 133 /* fchdir */,
	140 /* _llseek */, 141 /* getdents */, 142 /* _newselect */,
	143 /* flock */, 144 /* msync */, 145 /* readv */, 146 /* writev */,
	162 /* nanosleep */, 163 /* mremap */, 168 /* poll */, 183 /* getcwd */,
	191 /* ugetrlimit */, 192 /* mmap2 */, 195 /* stat64 */,
	196 /* lstat64 */, 197 /* fstat64 */, 199 /* getuid32 */,
	200 /* getgid32 */, 201 /* geteuid32 */, 202 /* getegid32 */,
	220 /* getdents64 */, 221 /* fcntl64 */, 252 /* exit_group */,
};

static void stop_dispatch(void)
{
	if (!dispatching)
		return;
	struct trap_rule rules[MAX_RULES];

	install_traps(rules, trap_rules(rules));
	long r = stub_syscall(NR_prctl, PR_SET_SYSCALL_USER_DISPATCH,
			      PR_SYS_DISPATCH_OFF, 0, 0, 0, 0);
	if (r < 0)
		die("turning syscall user dispatch off", 0, r);
	dispatching = 0;
}

/*
 * Handlers of other signals are also set from the handler: sigreturn does
 * not restore them, and programs commonly set a few right at start.
 */
static int plain_call(int nr, uint32_t arg0)
{
	if (nr == NR_signal || nr == NR_sigaction || nr == NR_rt_sigaction)
		return arg0 != SIGSYS; /* for SIGSYS: is_sigsys_action */
	for (size_t i = 0; i < sizeof plain_calls; i++)
		if (plain_calls[i] == nr)
			return 1;
	return 0;
}

/*
 * A dispatched call: 1 if the handler is to make it, 0 if it is to be
 * rerun.  A brk past 64 KiB (hybrid) is the kernel's own under the filter
 * and counts against the budget like any call: a program that makes
 * nothing but brk calls (a malloc loop) would otherwise stay under
 * dispatch for good, each of its brk calls a SIGSYS however high its heap.
 */
static int dispatch_takes(int nr, uint32_t arg0)
{
	int brk_trapped = nr == NR_brk && (!hybrid_brk || arg0 <= PRCTL_MIN);

	if (brk_trapped || is_sigsys_action(nr, arg0) || is_mask_call(nr, arg0))
		return 1; /* what the filter would trap anyway */
	if (dispatch_left > 0 && (nr == NR_brk || plain_call(nr, arg0))) {
		dispatch_left--;
		return 1;
	}
	stop_dispatch();
	return 0;
}

/* 1 if dispatch now stands in for the filter (trap_rules builds it later). */
static int start_dispatch(void)
{
	/* The stub's own calls, through the vDSO or its own int $0x80, must be
	 * let through (commit() gives up a vDSO below IMAGE_LIMIT). */
	if (stub_sysinfo != 0 && stub_sysinfo < IMAGE_LIMIT)
		return 0;
	dispatch_left = DISPATCH_BUDGET;
	dispatching = 1;
	if (stub_syscall(NR_prctl, PR_SET_SYSCALL_USER_DISPATCH,
			 PR_SYS_DISPATCH_ON, IMAGE_LIMIT,
			 0xffffffffu - IMAGE_LIMIT, 0, 0) == 0)
		return 1;
	dispatching = 0;
	return 0;
}

static void install_ldso_traps(const struct stub_lib *l)
{
	struct trap_rule r = { NR_open, l->start, l->start + l->len, 0, 0xffffffffu };

	install_traps(&r, 1);
	ldso_trapped = 1;
}

struct prctl_mm_map {
	uint64_t start_code, end_code, start_data, end_data;
	uint64_t start_brk, brk, start_stack;
	uint64_t arg_start, arg_end, env_start, env_end;
	uint64_t auxv;
	uint32_t auxv_size, exe_fd;
};

/*
 * The same as an i386 kernel has it: its auxv is a 4-byte pointer, so the
 * struct is 100 bytes, not the 104 of a 64-bit kernel, and each kernel
 * takes only its own size (EINVAL otherwise, as for a refused value).
 */
struct prctl_mm_map_i386 {
	uint64_t fields[11];
	uint32_t auxv, auxv_size, exe_fd;
};
_Static_assert(sizeof(struct prctl_mm_map) == 104, "the 64-bit kernel's layout");
_Static_assert(sizeof(struct prctl_mm_map_i386) == 100, "the i386 kernel's layout");

/*
 * Step 2: brk.  The kernel put brk after the stub, maybe randomized;
 * PR_SET_MM_MAP moves it to the a.out value without privileges.  The
 * kernel refuses any field below the LSM's mmap_min_addr (64 KiB on most
 * kernels), so fields that low are raised to 64 KiB: for code that only
 * shows in /proc/PID/stat; for the data end it means brk cannot shrink
 * below 64 KiB, into bss, which the a.out loader would have allowed.
 *
 * The data and brk fields are tried exactly first, for kernels whose
 * floor is lower; code below 64 KiB shows the stub's range either way.
 *
 * A brk below 64 KiB is "hybrid": the kernel's brk is set to 64 KiB with
 * the pages up to it mapped, and only brk calls with an argument of at
 * most 64 KiB are trapped and answered by brk_hybrid; a heap that grows
 * past 64 KiB is the kernel's own from there, at no cost per call.  The
 * one difference from the a.out loader: while brk is below 64 KiB, the
 * pages between it and 64 KiB are accessible.
 */
static uint32_t at_least_prctl_min(uint32_t v)
{
	return v < PRCTL_MIN ? PRCTL_MIN : v;
}

/* PR_SET_MM_MAP with m laid out for a kernel whose struct is size bytes. */
static long set_mm(const struct start *s, const struct prctl_mm_map *m,
		   uint32_t size)
{
	struct prctl_mm_map_i386 k;

	if (size != sizeof(k))
		return start_call(s, NR_prctl, PR_SET_MM, PR_SET_MM_MAP, (long)m,
				  sizeof *m, 0, 0);
	memcpy(k.fields, m, sizeof k.fields);
	k.auxv = 0;
	k.auxv_size = 0;
	k.exe_fd = m->exe_fd;
	return start_call(s, NR_prctl, PR_SET_MM, PR_SET_MM_MAP, (long)&k, sizeof k,
			  0, 0);
}

static int set_hybrid_brk(const struct start *s, struct prctl_mm_map *m,
			  uint32_t size, int hole_premapped)
{
	uint32_t top = PAGE_UP(plan->brk);

	if (top < PRCTL_MIN && !hole_premapped &&
	    (uint32_t)start_call(s, NR_mmap2, (long)top, (long)(PRCTL_MIN - top),
				 (long)heap_prot(),
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
				 -1, 0) != top)
		return -1;
	m->start_brk = m->brk = PRCTL_MIN;
	if (set_mm(s, m, size) == 0) {
		hybrid_brk = 1;
		return 0;
	}
	if (top < PRCTL_MIN)
		start_call(s, NR_munmap, (long)top, (long)(PRCTL_MIN - top), 0, 0, 0, 0);
	return -1;
}

/*
 * brk by prctl for a kernel whose struct prctl_mm_map is size bytes: 0 if
 * the kernel took it, exact or raised; 1 if hybrid; -1 if it refused.
 * With *hole_premapped, the hole is given back unless hybrid keeps it.
 */
static int brk_by_prctl(const struct start *s, struct prctl_mm_map m,
			uint32_t size, int *hole_premapped)
{
	/* Exact, where the kernel's floor is lower than 64 KiB; then raised. */
	if (plan->start_data >= 0x1000 && set_mm(s, &m, size) == 0) {
		if (*hole_premapped)
			start_call(s, NR_munmap, (long)PAGE_UP(plan->brk),
				   (long)(PRCTL_MIN - PAGE_UP(plan->brk)), 0, 0, 0, 0);
		return 0;
	}
	m.start_data = at_least_prctl_min(plan->start_data);
	m.end_data = at_least_prctl_min(plan->end_data);
	m.start_brk = at_least_prctl_min(plan->start_brk);
	if (plan->brk >= PRCTL_MIN && set_mm(s, &m, size) == 0)
		return 0;
	if (plan->brk < PRCTL_MIN) {
		if (set_hybrid_brk(s, &m, size, *hole_premapped) == 0)
			return 1;
		*hole_premapped = 0; /* set_hybrid_brk gave it back */
	}
	return -1;
}

/*
 * Step 2: brk.  Returns 1 if brk calls are to be trapped; only then does
 * it touch the stub's variables.  A 64-bit kernel's struct prctl_mm_map
 * is tried first; only where every try is refused is the kernel asked
 * its size, so that a 64-bit kernel pays no call for an i386 kernel's.
 */
static int set_brk(const struct start *s, int hole_premapped, uint32_t stack,
		   uint32_t arg_start, uint32_t arg_end, uint32_t env_end)
{
	int code_low = plan->start_code < PRCTL_MIN;
	uint32_t size = 0;
	int r;
	struct prctl_mm_map m = {
		.start_code = code_low ? STUB_BASE : plan->start_code,
		.end_code = code_low ? STUB_BASE + __stub_header.filesz :
				       plan->end_code,
		.start_data = plan->start_data,
		.end_data = plan->end_data,
		.start_brk = plan->start_brk,
		.brk = plan->brk,
		.start_stack = stack,
		.arg_start = arg_start,
		.arg_end = arg_end,
		.env_start = arg_end,
		.env_end = env_end,
		.exe_fd = (uint32_t)-1,
	};

	r = brk_by_prctl(s, m, sizeof m, &hole_premapped);
	if (r < 0 &&
	    start_call(s, NR_prctl, PR_SET_MM, PR_SET_MM_MAP_SIZE, (long)&size,
		       0, 0, 0) == 0 &&
	    size == sizeof(struct prctl_mm_map_i386))
		r = brk_by_prctl(s, m, size, &hole_premapped);
	if (r == 0)
		return 0;
	/* hybrid, or the kernel refused: brk calls are trapped */
	emu_brk = plan->brk;
	emulating_brk = 1;
	return 1;
}

/*
 * Step 3: the a.out frame, built in place.  The strings stay where exec
 * put them; the pointer tables are moved up against them, over the
 * auxiliary vector, exactly as create_aout_tables laid them out.
 */
static uint32_t *aout_frame_sp(uint32_t argc, uint32_t envc, uint32_t strings)
{
	uint32_t nptr = argc + 1 + envc + 1;
	uint32_t *top = (uint32_t *)(strings & ~3u);

	return top - nptr - 3;
}

static void build_aout_frame(const uint32_t *elf_sp, uint32_t *sp)
{
	uint32_t argc = elf_sp[0];
	const uint32_t *old_tab = elf_sp + 1;
	uint32_t *new_tab = sp + 3;
	uint32_t envc = 0;

	while (old_tab[argc + 1 + envc])
		envc++;
	/* new_tab lies above old_tab: copied from the top down */
	for (uint32_t i = argc + 1 + envc + 1; i-- > 0;)
		new_tab[i] = old_tab[i];
	sp[0] = argc;
	sp[1] = (uint32_t)new_tab;
	sp[2] = (uint32_t)(new_tab + argc + 1);
}

/* Rules trapping nr, args[0] in [arg_min, arg_max], from the a.out code and the libraries'. */
static unsigned add_image_rules(struct trap_rule *r, unsigned n, uint32_t nr,
				uint32_t arg_min, uint32_t arg_max)
{
	r[n++] = (struct trap_rule){ nr, plan->trap_lo, plan->trap_hi, arg_min, arg_max };
	if (plan->lib_hi > plan->lib_lo)
		r[n++] = (struct trap_rule){ nr, plan->lib_lo, plan->lib_hi, arg_min,
					     arg_max };
	return n;
}

/*
 * Once the program ignores SIGSYS (the stub's handler stays SIGSYS's
 * real one), its execve is trapped from then on, so that exec_call can
 * hand SIG_IGN on to the new program, as the kernel would.  Where brk is
 * trapped, execve always is (trap_rules).
 */
static int exec_trapped;

static void trap_exec_from_now(void)
{
	struct trap_rule r[2];

	if (emulating_brk || exec_trapped || prog_sigsys.handler != SIG_IGN)
		return;
	install_traps(r, add_image_rules(r, 0, NR_execve, 0, 0xffffffffu));
	exec_trapped = 1;
}

/*
 * What the filter traps, from the plan and the way brk was set: built
 * when the stub attaches the filter, at start or when dispatch hands over.
 */
static unsigned trap_rules(struct trap_rule *rules)
{
	unsigned nrules = 0;

	if (plan->flags & STUB_F_DYNAMIC)
		rules[nrules++] = (struct trap_rule){ NR_uselib, 0, IMAGE_LIMIT,
						      0, 0xffffffffu };
	if (emulating_brk)
		nrules = add_image_rules(rules, nrules, NR_brk, 0,
					 hybrid_brk ? PRCTL_MIN : 0xffffffffu);
	if (nrules) {
		/*
		 * Where brk is trapped, a trap can come at any time, so SIGSYS
		 * must never be blocked: every handler and mask call is the
		 * stub's.  Otherwise (a dynamic program with an exact brk) the
		 * traps come while ld.so maps the libraries, before the
		 * program's own code runs, and only what concerns SIGSYS itself
		 * is: a handler per call would cost 4-5 us, and programs set
		 * a handler for every signal at start.
		 */
		static const uint8_t mask_calls[] = {
			NR_sgetmask, NR_ssetmask, NR_sigsuspend, NR_sigprocmask,
			NR_rt_sigprocmask, NR_rt_sigsuspend,
		};
		uint32_t sig_min = emulating_brk ? 0 : SIGSYS;
		uint32_t sig_max = emulating_brk ? 0xffffffffu : SIGSYS;

		nrules = add_image_rules(rules, nrules, NR_signal, SIGSYS, SIGSYS);
		nrules = add_image_rules(rules, nrules, NR_sigaction, sig_min, sig_max);
		nrules = add_image_rules(rules, nrules, NR_rt_sigaction, sig_min, sig_max);
		/*
		 * execve, to hand an ignored or blocked SIGSYS on (exec_call):
		 * here only where the mask calls are trapped too.  Elsewhere
		 * the program may really block SIGSYS, and a trapped execve
		 * would then kill it; there execve is trapped only once the
		 * program ignores SIGSYS (trap_exec_from_now).
		 */
		if (emulating_brk)
			nrules = add_image_rules(rules, nrules, NR_execve, 0, 0xffffffffu);
		for (size_t i = 0; emulating_brk && i < sizeof mask_calls; i++)
			nrules = add_image_rules(rules, nrules, mask_calls[i], 0,
						 0xffffffffu);
	}
	return nrules;
}

/*
 * Step 0, under --no-randomize.  The a.out loader left the stack at the
 * top of the address space (at most 8 KiB lower) and mmap's base fixed;
 * the ELF loader puts both at random, and only exec decides that.  So the
 * stub execs the same file again, by the name it was started by and with
 * the same strings (the new frame is then laid out the same), under
 * ADDR_NO_RANDOMIZE, as setarch -R would.  The second start finds the
 * mark and takes both bits off again, so that what the program starts
 * is randomised as usual.  Where that exec cannot be made (the name no
 * longer leads to this file, an fd that exec closed) the program runs
 * as it was started.
 */
#define NR_stat64 195

/* 1 if path is the file that runs; where /proc is missing, taken as it. */
static int runs_from(const struct start *s, const char *path)
{
	uint32_t a[24], b[24]; /* struct stat64: st_dev at 0, st_ino at 88 */

	if (start_call(s, NR_stat64, (long)path, (long)a, 0, 0, 0, 0) < 0)
		return 0;
	if (start_call(s, NR_stat64, (long)"/proc/self/exe", (long)b, 0, 0, 0, 0) < 0)
		return 1;
	return a[0] == b[0] && a[1] == b[1] && a[22] == b[22] && a[23] == b[23];
}

/* Bytes of the vDSO's own mapping: its one PT_LOAD, from 0, page-rounded. */
static uint32_t vdso_size(uint32_t ehdr)
{
	const uint8_t *e = (const uint8_t *)ehdr;
	uint32_t phoff = rd32(e + 28), phnum = e[44] | (uint32_t)e[45] << 8;

	if (rd32(e) != 0x464c457fu || e[4] != 1 || phnum > 16)
		return 0;
	for (uint32_t i = 0; i < phnum; i++) {
		const uint8_t *ph = e + phoff + 32 * i;
		if (rd32(ph) == 1 /* PT_LOAD */)
			return PAGE_UP(rd32(ph + 8) + rd32(ph + 20));
	}
	return 0;
}

#define NR_mincore 218

/*
 * The a.out loader mapped no vDSO, so an unrandomised program's first
 * mmap got the pages right below mmap's base; the ELF loader has put the
 * vDSO and its data pages (vvar) there, and every address mmap gives
 * would be lower by their size.  Where nothing is randomised
 * (--no-randomize), the vDSO moves to STUB_VDSO (by mremap, which the
 * kernel follows: signals still return through it) and its data pages,
 * which only its clock functions read and the stub does not call, are
 * unmapped: they are the mapped pages right below it, as nothing else is
 * mapped in that area yet.  mmap then gives the program the addresses the
 * a.out loader gave it (tests/aout-kernel.sh compares them).
 */
static void vdso_out_of_the_way(struct start *s)
{
	uint32_t base = s->vdso, size, below = 0;
	unsigned char in_core;

	if (!base || base == STUB_VDSO || !(size = vdso_size(base)))
		return;
	if ((uint32_t)start_call(s, NR_mremap, (long)base, (long)size, (long)size,
				 MREMAP_MAYMOVE | MREMAP_FIXED, STUB_VDSO, 0) != STUB_VDSO)
		return;
	if (s->gate >= base && s->gate < base + size)
		s->gate += STUB_VDSO - base;
	s->vdso = STUB_VDSO;
	while (below < 16 * STUB_PAGE &&
	       start_call(s, NR_mincore, (long)(base - below - STUB_PAGE),
			  STUB_PAGE, (long)&in_core, 0, 0, 0) == 0)
		below += STUB_PAGE;
	if (below)
		start_call(s, NR_munmap, (long)(base - below), (long)below, 0, 0, 0, 0);
}

static void start_unrandomized(struct start *s, uint32_t *elf_sp,
			       uint32_t execfn)
{
	const uint32_t bits = STUB_PER_ADDR_NO_RANDOMIZE | STUB_PER_NORANDOM_MARK;
	long per = start_call(s, NR_personality, 0xffffffffL, 0, 0, 0, 0, 0);

	if (per < 0)
		return;
	if (per & STUB_PER_NORANDOM_MARK) {
		start_call(s, NR_personality, per & ~(long)bits, 0, 0, 0, 0, 0);
		vdso_out_of_the_way(s);
		return;
	}
	if (per & STUB_PER_ADDR_NO_RANDOMIZE) {
		vdso_out_of_the_way(s);
		return;
	}
	if (!execfn || !runs_from(s, (const char *)execfn))
		return;
	/*
	 * Exec only with the mark really set: a start without it would exec
	 * again, for ever, where personality() is refused (Docker's seccomp
	 * profile allows only a few values) or has no effect.
	 */
	start_call(s, NR_personality, per | (long)bits, 0, 0, 0, 0, 0);
	long now = start_call(s, NR_personality, 0xffffffffL, 0, 0, 0, 0, 0);

	if (now < 0 || (now & (long)bits) != (long)bits)
		return;
	start_call(s, NR_execve, (long)execfn, (long)(elf_sp + 1),
		   (long)(elf_sp + 1 + elf_sp[0] + 1), 0, 0, 0);
	start_call(s, NR_personality, per, 0, 0, 0, 0, 0);
}

/*
 * Below its frame, the a.out loader's stack was fresh pages: zero.  Here
 * the rest of the ELF frame (argc, the pointer arrays, the auxiliary
 * vector, AT_RANDOM's bytes, the platform string) and the stub's own
 * calls lie there, and a program that reads a local it never set would
 * find them.  _start clears them once the stub has returned: from below
 * the deepest %esp a system call was made from (STACK_MARGIN covers the
 * gate's frames and the leaf functions that make none) up to the highest
 * byte exec wrote under the strings, or the a.out frame if that is lower.
 * Between those items and the strings lies the gap by which exec
 * randomizes the stack, up to 8 KiB never written: clearing it too would
 * cost a page fault for each fresh page, as asking which pages are there
 * (mincore) costs a call.
 */
#define STACK_MARGIN 256u
#define AT_PLATFORM 15
#define AT_BASE_PLATFORM 24
#define AT_RANDOM 25

struct stack_dirty {
	uint32_t low, high; /* [low, high): what _start clears */
};

static struct stack_dirty stack_dirty(const uint32_t *auxv, uint32_t sp_low,
				      uint32_t aout_sp)
{
	const uint32_t *av = auxv;
	uint32_t top;

	while (av[0] != AT_NULL)
		av += 2;
	top = (uint32_t)(av + 2);
	for (av = auxv; av[0] != AT_NULL; av += 2) {
		uint32_t end = 0;

		/* these lie under the strings (AT_EXECFN points into them) */
		if (av[0] == AT_RANDOM)
			end = av[1] + 16;
		else if (av[0] == AT_PLATFORM || av[0] == AT_BASE_PLATFORM)
			end = av[1] + (uint32_t)str_len((const char *)av[1]) + 1;
		if (end > top)
			top = end;
	}
	/* what reaches into the a.out frame is overwritten by it; the word
	 * under the frame is a_entry, for _start's ret */
	if (top > aout_sp - 4)
		top = aout_sp - 4;
	return (struct stack_dirty){ (sp_low - STACK_MARGIN) & ~3u, (top + 3) & ~3u };
}

/*
 * The filter from the start.  Its rules live in this frame, not in
 * stub_main's: every start would otherwise reach 460 bytes further down
 * the stack, and the deeper the stub reaches below the ELF frame, the
 * more often it crosses into a page exec never touched (a fault, and a
 * page, each time).
 */
static void start_filter(void)
{
	struct trap_rule rules[MAX_RULES];

	install_traps(rules, trap_rules(rules));
	/* started with SIGSYS ignored: exec hands that on too */
	trap_exec_from_now();
}

uint32_t *stub_main(uint32_t *elf_sp)
{
	uint32_t argc = elf_sp[0];
	char **argv = (char **)(elf_sp + 1);
	char **envp = argv + argc + 1;
	uint32_t envc = 0, execfn = 0, secure = 0;
	uint32_t sp_low = (uint32_t)elf_sp;
	struct start s = { .gate = 0, .vdso = 0, .name = 0, .libpath = 0, .ldpath = 0,
			   .sp_low = &sp_low };

	while (envp[envc])
		envc++;
	for (uint32_t *av = (uint32_t *)(envp + envc + 1); av[0] != AT_NULL; av += 2)
		if (av[0] == AT_EXECFN)
			execfn = av[1];
		else if (av[0] == AT_SYSINFO)
			s.gate = av[1];
		else if (av[0] == AT_SYSINFO_EHDR)
			s.vdso = av[1];
		else if (av[0] == AT_SECURE)
			secure = av[1];

	/*
	 * Where exec put the strings: the a.out loader's bprm->p.  exec copied
	 * them end to end, the arguments first, so each part ends where its
	 * last string does: two strings are measured, not every one.
	 */
	uint32_t strings = argc ? (uint32_t)argv[0] :
			   envc ? (uint32_t)envp[0] : execfn;
	uint32_t arg_end = argc ? (uint32_t)argv[argc - 1] +
					  str_len(argv[argc - 1]) + 1 :
				  strings;
	uint32_t env_end = envc ? (uint32_t)envp[envc - 1] +
					  str_len(envp[envc - 1]) + 1 :
				  arg_end;

	/*
	 * Read before build_aout_frame moves the pointer arrays over these.
	 * Not in a setuid or setgid program (AT_SECURE): whoever runs it would
	 * choose the libraries it maps, as ld.so never let them.
	 */
	for (uint32_t i = 0; i < envc && (plan->flags & STUB_F_DYNAMIC) && !secure;
	     i++)
		if (str_prefix(envp[i], "AOUT_LIBRARY_PATH="))
			s.libpath = envp[i] + 18;
		else if (str_prefix(envp[i], "LD_LIBRARY_PATH="))
			s.ldpath = envp[i] + 16;
	if (argc && argv[0][0])
		s.name = argv[0];
	else if (execfn)
		s.name = (const char *)execfn;

	if (plan->flags & STUB_F_NORANDOM)
		start_unrandomized(&s, elf_sp, execfn);

	int hole_premapped = map_image(&s);
	uint32_t *sp = aout_frame_sp(argc, envc, strings);

	int brk_trapped = set_brk(&s, hole_premapped, (uint32_t)sp, strings,
				  arg_end, env_end);

	int committed = 0;

	if (brk_trapped || (plan->flags & STUB_F_DYNAMIC)) {
		commit(&s);
		committed = 1;
		install_sigsys_handler(&prog_sigsys);
		unblock_sigsys();
		/* Static programs: only brk is trapped, and dispatch may do it. */
		if ((plan->flags & STUB_F_DYNAMIC) || !start_dispatch())
			start_filter();
	} else if (start_call(&s, NR_prctl, PR_GET_SECCOMP, 0, 0, 0, 0, 0) == 2) {
		/*
		 * A converted parent's filter, inherited across exec: it traps
		 * by address, and this program's code lies where the parent's
		 * did, so some of its calls are trapped too.  Without a
		 * handler, SIGSYS would kill it; on_sigsys makes them.
		 */
		commit(&s);
		committed = 1;
		install_sigsys_handler(&prog_sigsys);
		unblock_sigsys();
	}
	/* the stub's variables are only read once written (see struct start) */
	if (committed && syscall_sp_low < sp_low)
		sp_low = syscall_sp_low;
	/* before build_aout_frame moves the pointer arrays over the auxv */
	struct stack_dirty dirty = stack_dirty((uint32_t *)(envp + envc + 1), sp_low,
					       (uint32_t)sp);

	build_aout_frame(elf_sp, sp);
	sp[-1] = plan->entry; /* where _start returns to, below the frame */
	sp[-2] = dirty.low;   /* _start clears from here, */
	sp[-3] = (dirty.high - dirty.low) / 4; /* so many words, then sp[-2..-3] */
	return sp;
}
