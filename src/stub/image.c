/*
 * Step 1 of start-up: the a.out segments at their addresses.  map_image
 * moves each staged segment down (move_pages, or moves_joined for
 * segments that continue one another), maps bss as zero pages
 * (map_zero_pages, with the hole up to 64 KiB that hybrid brk needs), and
 * where the data size limit refuses them, releases the staging first
 * (release_staging).  A failure says why: an address below
 * vm.mmap_min_addr (with both ways to allow it), the data size limit, or
 * the error.
 */
#include "stub.h"

/*
 * MREMAP_DONTUNMAP leaves the staging mapped (emptied: its pages moved,
 * what is read there comes from the file again) instead of taking it
 * apart: splitting the stub's mapping from the text behind it and
 * removing the data's costs more than the move itself (make bench, the
 * start-up rows, "converted / native").  Linux 5.13 and later take it for
 * a file mapping; older kernels say EINVAL.  The staging left counts
 * against RLIMIT_AS and (the data) RLIMIT_DATA, so a limit the program
 * fits in without it says ENOMEM.  Either way the plain move follows, and
 * its error is the one reported.
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
 * once, which saves a call at every start; older kernels refuse with
 * EFAULT and get one call each.
 */
static uint32_t moves_joined(const struct start *s, uint32_t i)
{
	const struct stub_plan *plan = the_plan();
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
static int hole_follows(const struct stub_map *m)
{
	uint32_t end = m->dst + m->len;

	return end == PAGE_UP(the_plan()->brk) && end < PRCTL_MIN;
}

/* 1 if no page of [addr, addr+len) is mapped. */
static int unmapped(const struct start *s, uint32_t addr, uint32_t len)
{
	unsigned char in_core;

	for (uint32_t a = addr; a - addr < len; a += STUB_PAGE)
		if (start_call(s, NR_mincore, (long)a, STUB_PAGE, (long)&in_core, 0, 0,
			       0) != -ENOMEM)
			return 0;
	return 1;
}

/*
 * Zero pages at dst, never over a mapping.  Where MAP_FIXED_NOREPLACE is
 * taken as a hint (valgrind; kernels before 4.17 and qemu-user put the
 * pages elsewhere only when the range is taken), the range is looked at
 * page by page and then mapped with MAP_FIXED.
 */
static long map_anon_at(const struct start *s, uint32_t dst, uint32_t len,
			uint32_t prot)
{
	long r = start_call(s, NR_mmap2, (long)dst, (long)len, (long)prot,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	long got = placed(r, dst, len);

	if (got != -EEXIST || r == -EEXIST || !unmapped(s, dst, len))
		return got;
	return placed(start_call(s, NR_mmap2, (long)dst, (long)len, (long)prot,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
		      dst, len);
}

static long map_zero(const struct start *s, const struct stub_map *m, uint32_t len)
{
	return map_anon_at(s, m->dst, len, m->prot);
}

/*
 * Where no mremap to dst is taken (valgrind takes none to page 0), the
 * pages are copied into fresh ones; the low-address and memory errors
 * would only come back.
 */
static long copy_pages(const struct start *s, const struct stub_map *m, long moved)
{
	if ((uint32_t)moved == m->dst || moved == -EPERM || moved == -EACCES ||
	    moved == -ENOMEM)
		return moved;
	long r = map_anon_at(s, m->dst, m->len, STUB_PROT_R | STUB_PROT_W);

	if (r < 0)
		return moved;
	/* address 0 is a real address here (ZMAGIC, OMAGIC, NMAGIC) */
	// cppcheck-suppress nullPointer
	memcpy((void *)m->dst, (const void *)m->src, m->len);
	start_call(s, NR_mprotect, (long)m->dst, (long)m->len, (long)m->prot, 0, 0, 0);
	start_call(s, NR_munmap, (long)m->src, (long)m->len, 0, 0, 0, 0);
	return r;
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
	const struct stub_plan *plan = the_plan();
	int any = 0;

	for (uint32_t j = 0; j < i; j++)
		if (plan->maps[j].kind == STUB_MAP_MOVE) {
			start_call(s, NR_munmap, (long)plan->maps[j].src,
				   (long)plan->maps[j].len, 0, 0, 0, 0);
			any = 1;
		}
	return any;
}

/* vm.mmap_min_addr as /proc says it; 0 where it cannot be read. */
static int read_min_addr(uint32_t *v)
{
	char buf[16];
	long fd = stub_syscall(NR_open, (long)"/proc/sys/vm/mmap_min_addr",
			       O_RDONLY | O_CLOEXEC, 0, 0, 0, 0);
	long n = fd < 0 ? -1 : stub_syscall(NR_read, fd, (long)buf, sizeof buf, 0, 0, 0);

	if (fd >= 0)
		stub_syscall(NR_close, fd, 0, 0, 0, 0, 0);
	if (n <= 0 || buf[0] < '0' || buf[0] > '9')
		return 0;
	*v = 0;
	for (long i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		*v = *v * 10 + (uint32_t)(buf[i] - '0');
	return 1;
}

/*
 * Both ways to let it map there: the file capability for this program
 * alone (caps.c gives it up once the image is mapped), or the sysctl,
 * which lowers every program's protection against NULL pointers.
 */
static __attribute__((noreturn)) void die_low_address(uint32_t addr)
{
	struct line l = { .len = 0 };
	long per = stub_syscall_via(0, NR_personality, 0xffffffffL, 0, 0, 0, 0, 0);
	uint32_t min;

	put_str(&l, PROG_NAME);
	/* setarch -Z: exec mapped page 0, for good (the a.out loader reset
	 * the personality first); the sysctl would change nothing.  A
	 * personality() refused by a filter (-EPERM) says no flags. */
	if (addr < STUB_PAGE && per >= 0 && (per & PER_MMAP_PAGE_ZERO)) {
		put_str(&l, ": needs address 0, which exec gave to page zero "
			    "(personality MMAP_PAGE_ZERO, setarch -Z); run it without");
		die_line(&l);
	}
	put_str(&l, ": needs address ");
	put_hex(&l, addr);
	put_str(&l, ", below vm.mmap_min_addr");
	if (read_min_addr(&min)) {
		put_str(&l, " (");
		put_dec(&l, min);
		put_str(&l, ")");
	}
	put_str(&l, "; allow it for this program with: setcap cap_sys_rawio+ep ");
	put_str(&l, exec_fn ? exec_fn : PROG_NAME);
	put_str(&l, ", or for all programs with: sysctl -w vm.mmap_min_addr=");
	put_dec(&l, addr & ~(STUB_PAGE - 1));
	die_line(&l);
}

/*
 * load_aout_binary refused a program whose data and bss exceed
 * RLIMIT_DATA (exec failed with ENOMEM); here the kernel's count of
 * private writable memory refuses the bss mapping, so say which it is.
 */
static __attribute__((noreturn)) void die_no_memory(void)
{
	const struct stub_plan *plan = the_plan();
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

int map_image(const struct start *s)
{
	const struct stub_plan *plan = the_plan();
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
			r = copy_pages(s, m, move_pages(s, m->src, m->len, m->dst));
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
		die_at("mapping the a.out image", m->dst, r);
	}
	return hole_premapped;
}
