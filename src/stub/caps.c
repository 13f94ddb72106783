/*
 * A converted program that needs an address below vm.mmap_min_addr can be
 * given the right to map it for itself alone: the file capability
 * CAP_SYS_RAWIO (setcap cap_sys_rawio+ep PROG, or aout2elf --setcap).
 * The stub needs it only to map the image (map_image) and the pages up to
 * 64 KiB of a hybrid brk (set_brk); drop_gained_capabilities then takes
 * every capability away again, before the a.out code runs and before
 * anything the stub does for it (uselib, the SIGSYS handler).  With
 * --keep-rawio (STUB_F_KEEP_RAWIO) the program keeps CAP_SYS_RAWIO for
 * itself (ioperm, iopl), and nothing else.
 *
 * Only capabilities exec gave are dropped: the kernel says so with
 * AT_SECURE, which it sets whenever an ordinary user's exec gains
 * permitted capabilities (cap_bprm_creds_from_file), and the stub has
 * trusted nothing from the environment then (see stub_main).  Root's own
 * capabilities, and ambient ones an ordinary user passes on, are not
 * gained by exec and stay, as under the a.out loader; so does a setuid
 * program's euid and all that comes with it.
 */
#include "stub.h"

#define CAP_SYS_RAWIO_BIT (1u << 17)

/*
 * While it holds a capability its user lacks, the kernel keeps the
 * user's ptrace (and /proc/PID/mem, environ) out of it
 * (cap_ptrace_access_check); older kernels also made such an exec
 * non-dumpable (commit_creds: no core dump, /proc/PID owned by root),
 * where Linux 5.10 and 6.18 leave it dumpable.  Once every capability is
 * gone, neither protects anything: the uid and gid never changed, and
 * nothing the capability gave remains (the image came from the file,
 * only mapped lower than the user could), so the process is made
 * dumpable as any program of that user is.  Not where exec keeps it
 * non-dumpable for its own reason: a file its user may execute but not
 * read (would_dump), whose bytes a core dump or ptrace would give away;
 * or a setgid start.
 */
static void dumpable_again(const struct start *s, const uint32_t *auxv)
{
	uint32_t gid = 0, egid = 1;

	for (const uint32_t *av = auxv; av[0] != AT_NULL; av += 2)
		if (av[0] == AT_GID)
			gid = av[1];
		else if (av[0] == AT_EGID)
			egid = av[1];
	if (gid == egid &&
	    start_call(s, NR_access, (long)"/proc/self/exe", R_OK, 0, 0, 0, 0) == 0)
		start_call(s, NR_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0, 0);
}

static __attribute__((noreturn)) void die_keeping(const struct start *s, long err)
{
	struct line l = { .len = 0 };

	commit(s);
	put_str(&l, PROG_NAME);
	put_str(&l, ": cannot give up the capabilities it was started with (error ");
	put_dec(&l, (uint32_t)-err);
	put_str(&l, ")");
	die_line(&l);
}

void drop_gained_capabilities(const struct start *s, const uint32_t *auxv)
{
	struct cap_header h = { .version = LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct cap_data c[2];
	uint32_t secure = 0, uid = 0, euid = 1, keep;
	long r;

	for (const uint32_t *av = auxv; av[0] != AT_NULL; av += 2)
		if (av[0] == AT_SECURE)
			secure = av[1];
		else if (av[0] == AT_UID)
			uid = av[1];
		else if (av[0] == AT_EUID)
			euid = av[1];
	/* a setuid start (or another LSM's AT_SECURE, holding nothing) */
	if (!secure || uid != euid ||
	    start_call(s, NR_capget, (long)&h, (long)c, 0, 0, 0, 0) < 0 ||
	    (c[0].permitted | c[1].permitted) == 0)
		return;
	keep = (the_plan()->flags & STUB_F_KEEP_RAWIO) ? c[0].permitted & CAP_SYS_RAWIO_BIT : 0;
	/* ambient is empty after a gaining exec; cleared all the same
	 * (EINVAL: a kernel older than 4.3, which has none) */
	r = start_call(s, NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0, 0);
	if (r < 0 && r != -EINVAL)
		die_keeping(s, r);
	c[0] = (struct cap_data){ .effective = keep, .permitted = keep, .inheritable = 0 };
	c[1] = (struct cap_data){ .effective = 0, .permitted = 0, .inheritable = 0 };
	r = start_call(s, NR_capset, (long)&h, (long)c, 0, 0, 0, 0);
	if (r < 0)
		die_keeping(s, r);
	if (!keep)
		dumpable_again(s, auxv);
}
