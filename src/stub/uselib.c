/*
 * uselib(2), as load_aout_library in ia32_aout.c did it, trapped and
 * answered by do_uselib: an embedded library, known by the final
 * component of the path given (path_readable checks that path without
 * opening it), is moved from its staging (place_embedded) or mapped
 * afresh (refresh_embedded); any other is looked for on disk
 * (search_dirs: open_library, may_use_library) and mapped from its file
 * (load_library_file), its call sites rewritten (patch_sites).  Called
 * from the SIGSYS handler, or by the a.out code (site_thunks.S).
 * Failures are the kernel's errors, for the program's crt0 or ld.so to
 * report; AOUT_LIBRARY_DEBUG=1 has each uselib say where it looked
 * (say).  Once ld.so is mapped, its open of /etc/ld.so.cache and
 * /etc/ld.so.conf is trapped too, or called (do_open_from_ldso).
 */
#include "../aout_format.h"
#include "../syscall_sites.h"
#include "stub.h"

#define O_LIBRARY (O_RDONLY | O_NONBLOCK | O_CLOEXEC)
#define RWX (STUB_PROT_R | STUB_PROT_W | STUB_PROT_X)

static const char customary_dirs[] = STUB_CUSTOMARY_DIRS;

const char *env_libpath, *env_ldpath, *exec_fn;
int lib_debug;

/* Part of the AOUT_LIBRARY_DEBUG line, written as it comes. */
static void say(const char *s)
{
	if (lib_debug)
		stub_syscall(NR_write, 2, (long)s, (long)str_len(s), 0, 0, 0);
}

/* The line's end: the result of the uselib (returned), and the newline. */
static long said(long r)
{
	if (lib_debug) {
		struct line l = { .len = 0 };

		put_str(&l, r ? ": error " : ": loaded");
		if (r)
			put_dec(&l, (uint32_t)-r);
		put_str(&l, "\n");
		l.buf[l.len] = 0;
		say(l.buf);
	}
	return r;
}

static const char *base_name(const char *path)
{
	const char *b = path;

	for (; *path; path++)
		if (*path == '/')
			b = path + 1;
	return b;
}

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

/*
 * A library mapped from its file calls the stub where it made the calls
 * the stub answers (syscall_sites.h): uselib, and ld.so's open.  Its
 * text lies at start, QMAGIC's behind the header.
 */
static int ldso_open_patched;

static void patch_sites(const char *name, uint32_t magic, uint32_t start,
			uint32_t text)
{
	uint32_t skip = magic == AOUT_QMAGIC ? AOUT_HEADER_SIZE : 0;
	uint8_t *code = (uint8_t *)(start + skip);
	uint32_t len = text > skip ? text - skip : 0;

	syscall_sites_patch(code, len, start + skip, NR_uselib,
			    (uint32_t)stub_uselib_thunk);
	syscall_sites_patch(code, len, start + skip, NR_readdir,
			    (uint32_t)stub_readdir_thunk);
	if (str_eq(name, "ld.so"))
		ldso_open_patched = syscall_sites_patch(code, len, start + skip, NR_open,
							(uint32_t)stub_open_thunk) > 0;
}

static long load_library_file(int fd, const char *name, struct stub_lib *out)
{
	uint8_t hb[AOUT_HEADER_SIZE];
	long n = stub_syscall(NR_read, fd, (long)hb, AOUT_HEADER_SIZE, 0, 0, 0);

	if (n != (long)AOUT_HEADER_SIZE)
		return -ENOEXEC;
	struct aout_header h = aout_header_at(hb);
	uint32_t magic = AOUT_INFO_MAGIC(h.info);
	uint32_t txtoff = aout_text_offset(magic);
	long size = stub_syscall(NR_lseek, fd, 0, SEEK_END, 0, 0, 0);

	if ((magic != AOUT_ZMAGIC && magic != AOUT_QMAGIC) || h.trsize || h.drsize ||
	    ((h.entry & 0xfff) && magic == AOUT_ZMAGIC) || AOUT_INFO_FLAGS(h.info) ||
	    (uint64_t)size < (uint64_t)h.text + h.data + h.syms + txtoff)
		return -ENOEXEC;

	uint32_t start = aout_library_base(h.entry);
	uint32_t len = PAGE_UP(h.text + h.data);
	uint32_t bss_end = PAGE_UP(h.text + h.data + h.bss);
	long r;

	/*
	 * Above IMAGE_LIMIT live the stub and the stack: never map over them.
	 * The a.out kernel's vm_brk found no room there either: ENOMEM.
	 */
	if ((uint64_t)h.text + h.data + h.bss > IMAGE_LIMIT ||
	    (uint64_t)start + bss_end > IMAGE_LIMIT)
		return -ENOMEM;

	if (txtoff & (STUB_PAGE - 1)) {
		/* Not page aligned in the file: the kernel copied it. */
		r = map_anon(start, bss_end);
		if (r)
			return r;
		stub_syscall(NR_lseek, fd, (long)txtoff, SEEK_SET, 0, 0, 0);
		/* read_code's result was ignored: a short read leaves zeros */
		for (uint32_t got = 0; got < h.text + h.data && n > 0; got += (uint32_t)n)
			n = stub_syscall(NR_read, fd, (long)(start + got),
					 (long)(h.text + h.data - got), 0, 0, 0);
	} else {
		r = stub_syscall(NR_mmap2, (long)start, (long)(h.text + h.data), RWX,
				 MAP_PRIVATE | MAP_FIXED, fd, 0);
		if ((uint32_t)r != start)
			return r;
		r = map_lib_bss(start, len, bss_end - len);
		if (r)
			return r;
	}
	patch_sites(name, magic, start, h.text);
	out->start = start;
	out->len = len;
	return 0;
}

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

/* what goes before the next place in the AOUT_LIBRARY_DEBUG line */
static const char *sep;

static long open_library(const char *path)
{
	say(sep);
	say(path);
	sep = ", ";
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

/*
 * sys_uselib opened the library to read and to execute (MAY_EXEC): a
 * folder, a device or a file the caller may not execute, or one on a
 * noexec mount, was EACCES.  faccessat2 (Linux 5.8) answers that for the
 * open file with the effective ids, noexec included; before it, an x bit
 * anywhere in the mode has to do.
 */
static long may_use_library(long fd)
{
	uint32_t st[STAT64_WORDS];

	if (stub_syscall(NR_fstat64, fd, (long)st, 0, 0, 0, 0) < 0 ||
	    (st[STAT64_MODE] & S_IFMT) != S_IFREG)
		return -EACCES;
	long r = stub_syscall(NR_faccessat2, fd, (long)"", X_OK,
			      AT_EACCESS | AT_EMPTY_PATH, 0, 0);

	if (r == -ENOSYS || r == -EINVAL)
		return (st[STAT64_MODE] & 0111) ? 0 : -EACCES;
	return r ? -EACCES : 0;
}

/* 0 loaded from fd, <0 error; closes fd. */
static long load_from(long fd, const char *name, struct stub_lib *l)
{
	long r = load_library_file((int)fd, name, l);

	stub_syscall(NR_close, fd, 0, 0, 0, 0, 0);
	return r;
}

#define ORIGIN "$ORIGIN"
#define ORIGIN_LEN (sizeof ORIGIN - 1)

/*
 * The folder of the running program, for a paths entry "$ORIGIN/...":
 * what /proc/self/exe points to, or without /proc the name exec was
 * given (AT_EXECFN), up to its last '/'.  Found once; 0 if neither.
 */
static char origin[256];
static long origin_len; /* 0 until found: never 0 then */

static long origin_dir(void)
{
	if (origin_len)
		return origin_len;
	long n = stub_syscall(NR_readlink, (long)"/proc/self/exe", (long)origin,
			      sizeof origin - 1, 0, 0, 0);

	if (n <= 0 && exec_fn && str_len(exec_fn) < sizeof origin) {
		n = (long)str_len(exec_fn);
		memcpy(origin, exec_fn, (size_t)n);
	}
	while (n > 0 && origin[n - 1] != '/')
		n--;
	if (n > 1) /* the folder without its '/', but "/" stays "/" */
		n--;
	else if (n <= 0) { /* a bare name: the current folder */
		origin[0] = '.';
		n = 1;
	}
	return origin_len = n;
}

/*
 * Tries each folder of a ':' list, passing over what uselib() would refuse
 * (EACCES): >0 not found, 0 loaded, <0 error.  Entries starting with
 * $ORIGIN (--shared-libs) are tried where origins, and only there.
 */
static long search_dirs(const char *list, const char *name, struct stub_lib *l,
			int origins)
{
	char path[512], dir[512];

	while (list && *list) {
		const char *end = list;

		while (*end && *end != ':')
			end++;

		const char *d = list;
		size_t dlen = (size_t)(end - list);
		int is_origin = str_prefix(list, ORIGIN);

		if (is_origin) {
			size_t o = (size_t)origin_dir();

			if (o + dlen - ORIGIN_LEN >= sizeof dir)
				dlen = 0;
			else {
				memcpy(dir, origin, o);
				memcpy(dir + o, list + ORIGIN_LEN, dlen - ORIGIN_LEN);
				dlen = o + dlen - ORIGIN_LEN;
				d = dir;
			}
		}
		if (dlen && is_origin == origins &&
		    join_path(path, sizeof path, d, dlen, name)) {
			long fd = open_library(path);

			if (fd >= 0 && may_use_library(fd) == 0)
				return load_from(fd, name, l);
			if (fd >= 0) /* not one uselib() would take: look on */
				stub_syscall(NR_close, fd, 0, 0, 0, 0, 0);
			else if (open_ends_search(fd))
				return fd;
		}
		list = *end ? end + 1 : end;
	}
	return 1;
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
 * Whether the string the program gave can be read, as the kernel's
 * getname read it: 0, or its error (EFAULT, ENAMETOOLONG past PATH_MAX).
 * Read through process_vm_readv on the stub's own process, a page at a
 * time (a page is read whole or not at all), so that a bad pointer
 * fails the call and not the stub, and no file is opened: 1 where a
 * sandbox or an emulator refuses the call.
 */
static long path_readable(const char *path)
{
	char chunk[64];
	uint32_t at = (uint32_t)path, len = 0;
	long pid = stub_syscall(NR_getpid, 0, 0, 0, 0, 0, 0);

	while (len < PATH_MAX) {
		uint32_t want = STUB_PAGE - at % STUB_PAGE;

		if (want > sizeof chunk)
			want = sizeof chunk;
		if (want > PATH_MAX - len)
			want = PATH_MAX - len;
		struct iovec local = { (uintptr_t)&chunk[0], want };
		struct iovec remote = { at, want };
		long got = stub_syscall(NR_process_vm_readv, pid, (long)&local, 1,
					(long)&remote, 1, 0);

		if (got == -EFAULT || got == 0)
			return -EFAULT;
		if (got < 0)
			return 1;
		for (long i = 0; i < got; i++)
			if (!chunk[i])
				return 0;
		at += (uint32_t)got;
		len += (uint32_t)got;
	}
	return -ENAMETOOLONG;
}

/*
 * An embedded library is the one the conversion chose: it is known by
 * the final component of the path, whatever the folders say (crt0s
 * and ld.so tried /usr/lib/, /lib/, //, ld.so.conf's folders...), and
 * no file is opened for it.  Its names share one staging: the entry of
 * the first keeps whether it is mapped.
 */
static struct stub_lib *embedded(const char *name)
{
	const struct stub_plan *plan = the_plan();
	uint32_t n = plan->nlibs < STUB_MAX_LIBS ? plan->nlibs : STUB_MAX_LIBS;
	struct stub_lib *l = 0;

	if (!libs_copied) {
		memcpy(libs, plan->libs, sizeof libs);
		libs_copied = 1;
	}
	for (uint32_t i = 0; i < n && !l; i++)
		if (str_eq(libs[i].name, name))
			l = &libs[i];
	for (uint32_t i = 0; l && l->stage && i < n; i++)
		if (libs[i].stage == l->stage)
			return &libs[i];
	return l;
}

/* Length of path's folder part, without the '/'s that end it. */
static size_t dir_len(const char *path)
{
	size_t n = (size_t)(base_name(path) - path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return n;
}

/*
 * Whether path lies in a folder of LD_LIBRARY_PATH.  ld.so 1.x and the
 * Slackware crt0 walk that list themselves, a uselib() per folder, and go
 * on past ENOENT: such a path is answered for itself alone, as the kernel
 * did, so that the caller reaches (and names) the folder that has it.
 */
static int in_ld_library_path(const char *path)
{
	size_t n = dir_len(path);

	for (const char *e = env_ldpath; n && e && *e;) {
		size_t len = 0;

		while (e[len] && e[len] != ':')
			len++;
		size_t elen = len, i = 0;

		while (elen > 1 && e[elen - 1] == '/')
			elen--;
		while (i < n && elen == n && e[i] == path[i])
			i++;
		if (elen == n && i == n)
			return 1;
		e += len + (e[len] == ':');
	}
	return 0;
}

/*
 * Any other library is looked for by its name: in AOUT_LIBRARY_PATH,
 * then at the path the program gave (where load_aout_library opened it),
 * then, unless that path is one of the caller's own walk through
 * LD_LIBRARY_PATH, in the -L folders of the conversion and the customary
 * ones.  Where it is nowhere, uselib fails as the kernel did for the path
 * given (ENOENT, mostly), and the program's crt0 or ld.so says so in its
 * own words.
 */
long do_uselib(const char *path)
{
	long r = path_readable(path);

	if (r > 0) { /* the kernel's answer to a path it could not read */
		r = stub_syscall(NR_open, (long)path, O_LIBRARY, 0, 0, 0, 0);
		if (r >= 0)
			stub_syscall(NR_close, r, 0, 0, 0, 0, 0);
		r = r == -EFAULT || r == -ENAMETOOLONG ? r : 0;
	}
	say(PROG_NAME);
	say(": uselib ");
	if (r < 0) {
		say("of a path it cannot read");
		return said(r);
	}
	say(path);
	say(": looked in ");
	sep = "";

	const char *name = base_name(path);
	struct stub_lib scratch = { .mapped = 0 }, *l = embedded(name);

	if (l && l->stage) {
		say("the embedded ");
		say(l->name);
		r = l->mapped ? refresh_embedded(l) : place_embedded(l);
	} else { /* mapped afresh at every call, as the kernel did */
		long miss = -ENOENT;

		l = l ? l : &scratch;
		r = search_dirs(env_libpath, name, l, 0);
		/* the copies --shared-libs wrote are the ones the conversion chose */
		if (r > 0)
			r = search_dirs(the_plan()->paths, name, l, 1);
		if (r > 0) {
			long fd = open_library(path);

			/* the kernel's answer for the path given, EACCES too */
			if (fd >= 0 && (r = may_use_library(fd)) == 0)
				r = load_from(fd, name, l);
			else if (fd >= 0)
				stub_syscall(NR_close, fd, 0, 0, 0, 0, 0);
			else if (open_ends_search(fd))
				r = fd;
			miss = fd;
		}
		if (r > 0 && in_ld_library_path(path))
			r = miss;
		if (r > 0)
			r = search_dirs(the_plan()->paths, name, l, 0);
		if (r > 0)
			r = search_dirs(customary_dirs, name, l, 0);
		if (r > 0)
			r = miss;
	}
	if (r < 0)
		return said(r);
	/* unless its open calls the stub, embedded or mapped here */
	if (!l->mapped && str_eq(name, "ld.so") &&
	    !(l->stage ? (the_plan()->flags & STUB_F_LDSO_PATCHED) != 0 :
			 ldso_open_patched))
		install_ldso_traps(l);
	l->mapped = 1;
	return said(0);
}

/*
 * ld.so 1.x reads /etc/ld.so.cache and /etc/ld.so.conf; today's are
 * glibc's: ld.so would complain on stderr that the cache is corrupt, and
 * take the words of the conf ("include", ...) for folders to search.
 * Without either it silently searches its folders, and uselib() above
 * finds the libraries.
 */
long do_open_from_ldso(const char *path, long flags, long mode)
{
	if (str_eq(path, "/etc/ld.so.cache") || str_eq(path, "/etc/ld.so.conf"))
		return -ENOENT;
	return stub_syscall(NR_open, (long)path, flags, mode, 0, 0, 0);
}
