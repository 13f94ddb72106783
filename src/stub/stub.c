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
#define NR_write 4
#define NR_brk 45
#define NR_munmap 91
#define NR_prctl 172
#define NR_rt_sigaction 174
#define NR_mremap 163
#define NR_mmap2 192
#define NR_seccomp 354

#define EPERM 1
#define EACCES 13
#define EINVAL 22

#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_FIXED_NOREPLACE 0x100000
#define MREMAP_MAYMOVE 1
#define MREMAP_FIXED 2

#define PR_SET_NO_NEW_PRIVS 38
#define PR_SET_MM 35
#define PR_SET_MM_MAP 14

#define AT_NULL 0
#define AT_EXECFN 31

#define SIGSYS 31
#define SA_SIGINFO 0x4
#define SA_RESTORER 0x04000000

long stub_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
void stub_sigreturn(void);

extern const struct stub_header __stub_header;
uint32_t stub_jump_target;

#define PAGE_UP(x) (((x) + STUB_PAGE - 1) & ~(STUB_PAGE - 1))

/* gcc may emit calls to these even in freestanding code. */
void *memcpy(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	char *d = dst;
	while (n--)
		*d++ = (char)c;
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

static const char *prog_name = "a.out program";

static __attribute__((noreturn)) void die(const char *what, uint32_t addr,
					  long err)
{
	struct line l = { .len = 0 };
	put_str(&l, prog_name);
	put_str(&l, ": ");
	put_str(&l, what);
	put_str(&l, " at ");
	put_hex(&l, addr);
	put_str(&l, " failed (error ");
	put_dec(&l, (uint32_t)-err);
	put_str(&l, ")");
	die_line(&l);
}

static __attribute__((noreturn)) void die_low_address(uint32_t addr)
{
	struct line l = { .len = 0 };
	put_str(&l, prog_name);
	put_str(&l, ": needs address ");
	put_hex(&l, addr);
	put_str(&l, ", below vm.mmap_min_addr; allow it with: sysctl -w vm.mmap_min_addr=");
	put_dec(&l, addr & ~(STUB_PAGE - 1));
	die_line(&l);
}

static const struct stub_plan *plan;

/* Step 1: segments to their a.out addresses. */
static void map_image(void)
{
	for (uint32_t i = 0; i < plan->nmaps; i++) {
		const struct stub_map *m = &plan->maps[i];
		long r;

		if (m->kind == STUB_MAP_MOVE)
			r = stub_syscall(NR_mremap, (long)m->src, (long)m->len,
					 (long)m->len, MREMAP_MAYMOVE | MREMAP_FIXED,
					 (long)m->dst, 0);
		else
			r = stub_syscall(NR_mmap2, (long)m->dst, (long)m->len,
					 (long)m->prot,
					 MAP_PRIVATE | MAP_ANONYMOUS |
						 MAP_FIXED_NOREPLACE,
					 -1, 0);
		if ((uint32_t)r == m->dst)
			continue;
		if (r == -EPERM || r == -EACCES)
			die_low_address(plan->min_addr);
		die("mapping the a.out image", m->dst, r);
	}
}

/* ---- brk emulation, for when the kernel will not take our brk ---- */

static uint32_t emu_brk;

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

/* i386 ucontext: uc_mcontext.gregs starts at byte 20. */
enum { REG_EBX = 8, REG_EAX = 11 };

static void on_sigsys(int sig, void *info, void *ucontext)
{
	uint32_t *gregs = (uint32_t *)((char *)ucontext + 20);
	int nr = *(int *)((char *)info + 16); /* si_syscall */

	(void)sig;
	if (nr == NR_brk)
		gregs[REG_EAX] = brk_emulate(gregs[REG_EBX]);
	else
		gregs[REG_EAX] = (uint32_t)-38; /* ENOSYS */
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
 * Trap brk only when it is made from the a.out text, so that children
 * which are not converted a.out programs never see the filter act.
 */
static void install_brk_trap(void)
{
	struct sock_filter f[] = {
		{ BPF_LD_W_ABS, 0, 0, 4 }, /* arch */
		{ BPF_JEQ_K, 0, 6, AUDIT_ARCH_I386 },
		{ BPF_LD_W_ABS, 0, 0, 0 }, /* nr */
		{ BPF_JEQ_K, 0, 4, NR_brk },
		{ BPF_LD_W_ABS, 0, 0, 8 }, /* instruction pointer */
		{ BPF_JGE_K, 0, 2, plan->trap_lo },
		{ BPF_JGE_K, 1, 0, plan->trap_hi },
		{ BPF_RET_K, 0, 0, SECCOMP_RET_TRAP },
		{ BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW },
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };
	struct {
		void (*handler)(int, void *, void *);
		uint32_t flags;
		void (*restorer)(void);
		uint32_t mask[2];
	} sa = { on_sigsys, SA_SIGINFO | SA_RESTORER, stub_sigreturn, { 0, 0 } };
	long r;

	r = stub_syscall(NR_rt_sigaction, SIGSYS, (long)&sa, 0, 8, 0, 0);
	if (r < 0)
		die("installing the brk handler", 0, r);
	r = stub_syscall(NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
	if (r < 0)
		die("setting no_new_privs", 0, r);
	r = stub_syscall(NR_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */, 0,
			 (long)&prog, 0, 0, 0);
	if (r < 0)
		die("installing the brk filter", 0, r);
}

struct prctl_mm_map {
	uint64_t start_code, end_code, start_data, end_data;
	uint64_t start_brk, brk, start_stack;
	uint64_t arg_start, arg_end, env_start, env_end;
	uint64_t auxv;
	uint32_t auxv_size, exe_fd;
};

/*
 * Step 2: brk.  The kernel put brk after the stub, maybe randomized;
 * PR_SET_MM_MAP moves it to the a.out value without privileges.  The
 * kernel refuses values below vm.mmap_min_addr, so the code fields get a
 * second try with the stub's range, and a brk that low is emulated.
 */
static void set_brk(uint32_t stack, uint32_t arg_start, uint32_t arg_end,
		    uint32_t env_end)
{
	struct prctl_mm_map m = {
		.start_code = plan->start_code,
		.end_code = plan->end_code,
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
	long r = stub_syscall(NR_prctl, PR_SET_MM, PR_SET_MM_MAP, (long)&m,
			      sizeof m, 0, 0);

	if (r == -EINVAL) {
		m.start_code = STUB_BASE;
		m.end_code = STUB_BASE + __stub_header.filesz;
		m.start_data = m.end_data = plan->end_data;
		r = stub_syscall(NR_prctl, PR_SET_MM, PR_SET_MM_MAP, (long)&m,
				 sizeof m, 0, 0);
	}
	if (r == 0)
		return;
	emu_brk = plan->brk;
	install_brk_trap();
}

/*
 * Step 3: the a.out frame, built in place.  The strings stay where exec
 * put them; the pointer tables are moved up against them, over the
 * auxiliary vector, exactly as create_aout_tables laid them out.
 */
static uint32_t *build_aout_frame(uint32_t *elf_sp, uint32_t strings)
{
	uint32_t argc = elf_sp[0];
	uint32_t *old_tab = elf_sp + 1;
	uint32_t envc = 0;

	while (old_tab[argc + 1 + envc])
		envc++;

	uint32_t nptr = argc + 1 + envc + 1;
	uint32_t *top = (uint32_t *)(strings & ~3u);
	uint32_t *new_tab = top - nptr;
	uint32_t *sp = new_tab - 3;

	for (uint32_t i = nptr; i-- > 0;)
		new_tab[i] = old_tab[i];
	sp[0] = argc;
	sp[1] = (uint32_t)new_tab;
	sp[2] = (uint32_t)(new_tab + argc + 1);
	return sp;
}

uint32_t *stub_main(uint32_t *elf_sp)
{
	uint32_t argc = elf_sp[0];
	char **argv = (char **)(elf_sp + 1);
	char **envp = argv + argc + 1;
	uint32_t envc = 0, execfn = 0;

	while (envp[envc])
		envc++;
	for (uint32_t *av = (uint32_t *)(envp + envc + 1); av[0] != AT_NULL; av += 2)
		if (av[0] == AT_EXECFN)
			execfn = av[1];

	/* Where exec put the strings: the a.out loader's bprm->p. */
	uint32_t strings = argc ? (uint32_t)argv[0] :
			   envc ? (uint32_t)envp[0] : execfn;
	uint32_t arg_end = strings, env_end;

	for (uint32_t i = 0; i < argc; i++)
		arg_end += str_len(argv[i]) + 1;
	env_end = arg_end;
	for (uint32_t i = 0; i < envc; i++)
		env_end += str_len(envp[i]) + 1;

	if (argc && argv[0][0])
		prog_name = argv[0];
	else if (execfn)
		prog_name = (const char *)execfn;

	plan = (const struct stub_plan *)((const char *)&__stub_header +
					  __stub_header.plan_off);
	map_image();

	uint32_t *sp = build_aout_frame(elf_sp, strings);

	set_brk((uint32_t)sp, strings, arg_end, env_end);
	stub_jump_target = plan->entry;
	return sp;
}
