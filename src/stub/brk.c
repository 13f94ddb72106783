/*
 * Step 2 of start-up, and every brk call the stub answers.
 *
 * The kernel put brk after the stub, maybe randomized; set_brk moves it
 * to the a.out value by PR_SET_MM_MAP, without privileges.  The kernel
 * refuses any field below the LSM's mmap_min_addr (64 KiB on most
 * kernels), so fields that low are raised to 64 KiB: for code that only
 * shows in /proc/PID/stat; for the data end it means brk cannot shrink
 * below 64 KiB, into bss, which the a.out loader would have allowed.
 * The data and brk fields are tried exactly first, for kernels whose
 * floor is lower; code below 64 KiB shows the stub's range either way.
 *
 * A brk below 64 KiB is "hybrid": the kernel's brk is set to 64 KiB with
 * the pages up to it mapped, and only brk calls with an argument of at
 * most 64 KiB are trapped and answered by brk_hybrid; a heap that grows
 * past 64 KiB is the kernel's own from there, at no cost per call.  The
 * one difference from the a.out loader: while brk is below 64 KiB, the
 * pages between it and 64 KiB are accessible.  Where the kernel refuses
 * even that, every brk call is trapped and brk_emulate answers it.
 */
#include "stub.h"

static uint32_t emu_brk;
int hybrid_brk;
int emulating_brk;

static uint32_t heap_prot(void)
{
	return STUB_PROT_R | STUB_PROT_W |
	       ((the_plan()->flags & STUB_F_NOEXEC) ? 0 : STUB_PROT_X);
}

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
	uint32_t top = PAGE_UP(the_plan()->brk);

	if (top < PRCTL_MIN && !hole_premapped &&
	    placed(start_call(s, NR_mmap2, (long)top, (long)(PRCTL_MIN - top),
			      (long)heap_prot(),
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0),
		   top, PRCTL_MIN - top) < 0)
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
	const struct stub_plan *plan = the_plan();

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
 * Returns 1 if brk calls are to be trapped; only then does it touch the
 * stub's variables.  A 64-bit kernel's struct prctl_mm_map is tried
 * first; only where every try is refused is the kernel asked its size, so
 * that a 64-bit kernel pays no call for an i386 kernel's.
 */
int set_brk(const struct start *s, int hole_premapped, uint32_t stack,
	    uint32_t arg_start, uint32_t arg_end, uint32_t env_end)
{
	const struct stub_plan *plan = the_plan();
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
 * The pages from the a.out brk up to 64 KiB stay mapped.  The kernel
 * gives whole pages back when brk shrinks and hands out zero pages when
 * it grows again, so pages given back below 64 KiB are cleared at once:
 * a grow past 64 KiB is the kernel's own (the filter lets it through) and
 * hands them out again as they are.  A memset of a page costs far less
 * than the page fault a fresh page would (and at most 60 KiB stay
 * resident).
 */
uint32_t brk_hybrid(uint32_t want)
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
	if (want < the_plan()->end_data)
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

/*
 * Nothing can trap brk (qemu-user, a sandbox): the kernel's brk stays
 * where set_brk left it, 64 KiB for a hybrid brk, after the stub where
 * the kernel refused every PR_SET_MM_MAP.  The program asks for its brk
 * first (sbrk(0)) and grows it from there, so it runs all the same.
 */
void brk_untrapped(void)
{
	emulating_brk = 0;
	hybrid_brk = 0;
}

/* The kernel's sys_brk, applied to anonymous pages we own. */
uint32_t brk_emulate(uint32_t want)
{
	uint32_t old_top = PAGE_UP(emu_brk), new_top = PAGE_UP(want);
	uint32_t prot = STUB_PROT_R | STUB_PROT_W;

	if (!(the_plan()->flags & STUB_F_NOEXEC))
		prot |= STUB_PROT_X;
	if (want < the_plan()->end_data || want >= IMAGE_LIMIT)
		return emu_brk;
	if (new_top > old_top) {
		long r = stub_syscall(NR_mmap2, (long)old_top,
				      (long)(new_top - old_top), (long)prot,
				      MAP_PRIVATE | MAP_ANONYMOUS |
					      MAP_FIXED_NOREPLACE,
				      -1, 0);
		if (placed(r, old_top, new_top - old_top) < 0)
			return emu_brk;
	} else if (new_top < old_top) {
		stub_syscall(NR_munmap, (long)new_top, (long)(old_top - new_top),
			     0, 0, 0, 0);
	}
	emu_brk = want;
	return emu_brk;
}
