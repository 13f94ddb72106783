/*
 * a.out shared libraries: the records that name them in a program, the
 * search by the name the program gives (-L, --sysroot, the customary
 * directories), one library under several names, and the versions as the
 * program's own crt0 or ld.so judged them (libs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#endif

#include "inroot.h"
#include "libs.h"

const char libs_customary_dirs[] = STUB_CUSTOMARY_DIRS;

#define PAGE_UP(x) (((uint64_t)(x) + AOUT_PAGE - 1) & ~(uint64_t)(AOUT_PAGE - 1))

/* The DLL tools' version fields (their sharedlib.h). */
#define MAJOR(v) (((v) >> 16) & 0xfffu)
#define MINOR(v) ((v) & 0xffffu)
#define SET_MAX 64 /* elements of a __SHARED_LIBRARIES__ set worth believing */
/* Below this every program's own text lies: no library was put there. */
#define LOWEST_LIBRARY 0x10000u

static uint32_t word_at(const struct aout *a, uint32_t addr, int *ok)
{
	size_t avail;
	const uint8_t *p = aout_at(a, addr, &avail);

	*ok = p && avail >= 4;
	return *ok ? le32_at(p) : 0;
}

/* Everything after the last '/' */
static const char *last_component(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash ? slash + 1 : name;
}

/*
 * A string in the image made of file-name characters, shorter than cap,
 * not ending in '/'.
 */
static int name_at(const struct aout *a, uint32_t addr, char *out, size_t cap)
{
	size_t avail;
	const uint8_t *p = aout_at(a, addr, &avail);
	size_t n = 0;

	if (!p)
		return 0;
	for (; n < avail && n < cap && p[n]; n++)
		if (!(p[n] >= 'a' && p[n] <= 'z') && !(p[n] >= 'A' && p[n] <= 'Z') &&
		    !(p[n] >= '0' && p[n] <= '9') && !strchr("._+-/", p[n]))
			return 0;
	if (n == 0 || n >= cap || n >= avail || p[n - 1] == '/')
		return 0;
	memcpy(out, p, n);
	out[n] = 0;
	return 1;
}

/* A printable string in the image, copied to out (LIBS_AVERS_MAX). */
static int avers_at(const struct aout *a, uint32_t addr, char *out)
{
	size_t avail;
	const uint8_t *p = aout_at(a, addr, &avail);
	size_t n = 0;

	if (!p)
		return 0;
	while (n < avail && n < LIBS_AVERS_MAX - 1 && p[n] >= 0x20 && p[n] < 0x7f)
		n++;
	if (n == 0 || n >= avail || p[n] != 0)
		return 0;
	memcpy(out, p, n + 1);
	return 1;
}

/* A version word: a major of 1 or more, nothing above the CLASSIC bit. */
static int version_ok(uint32_t vers, unsigned max_major)
{
	return MAJOR(vers) != 0 && MAJOR(vers) <= max_major &&
	       (vers & ~(LIBS_CLASSIC_BIT | 0x0fffffffu)) == 0;
}

/*
 * The four words of a libentry, each test as cheap as it goes: jump tables
 * at or above jump_lo, names shorter than name_cap.  out may be NULL.
 */
static int libentry(const struct aout *a, const uint8_t *p, uint32_t jump_lo,
		    unsigned max_major, size_t name_cap, struct lib_need *out)
{
	uint32_t jump = le32_at(p + 8), vers = le32_at(p + 12);
	struct lib_need scratch = { .version = 0 }, *need = out ? out : &scratch;

	if (jump < jump_lo || jump >= IMAGE_LIMIT || !version_ok(vers, max_major) ||
	    !avers_at(a, le32_at(p + 4), need->avers) ||
	    !name_at(a, le32_at(p), need->name, name_cap))
		return 0;
	need->jump_table = jump;
	need->version = vers & 0x0fffffffu;
	need->exact = (vers & LIBS_CLASSIC_BIT) != 0;
	return 1;
}

/* Appends need unless out has its name already (the first one counts). */
static size_t add_need(struct lib_need *out, size_t n, size_t max,
		       const struct lib_need *need)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(out[i].name, need->name))
			return n;
	if (n < max)
		out[n++] = *need;
	return n;
}

/* Where a's data is, and how much of it the file holds. */
struct data_view {
	const uint8_t *p;
	size_t len;
	uint32_t addr;
};

static struct data_view data_of(const struct aout *a)
{
	struct data_view v = { NULL, 0, 0 };
	size_t avail = 0;

	v.addr = a->kind == AOUT_SHLIB ? aout_lib_start(a) + a->h.text :
		 a->magic == AOUT_QMAGIC ? (uint32_t)aout_dataddr(a) :
					   (uint32_t)aout_txtaddr(a) + a->h.text;
	v.p = aout_at(a, v.addr, &avail);
	v.len = !v.p ? 0 : avail < a->h.data ? avail : a->h.data;
	return v;
}

/* The libentry element e of a set points to, if it is one (16 bytes in data). */
static int set_element(const struct aout *a, const struct data_view *v,
		       uint32_t e, uint32_t jump_lo, struct lib_need *out)
{
	if (e < v->addr || e - v->addr > v->len || v->len - (e - v->addr) < 16)
		return 0;
	return libentry(a, v->p + (e - v->addr), jump_lo, 0xfff, LIBS_NAME_MAX, out);
}

/*
 * The set at data offset off, if it is one: N, N pointers to libentries
 * (a program's first one may be crt0's dummy), 0.  Appends its entries to
 * out when it is; the number of entries it holds.
 */
static size_t set_at(const struct aout *a, const struct data_view *v, size_t off,
		     uint32_t jump_lo, struct lib_need *out, size_t *n, size_t max)
{
	size_t count = le32_at(v->p + off), found = 0;
	const uint8_t *elem = v->p + off + 4;

	if (count == 0 || count > SET_MAX || v->len - off < 4 * (count + 2) ||
	    le32_at(elem + 4 * count) != 0)
		return 0;
	for (size_t i = 0; i < count; i++) {
		if (set_element(a, v, le32_at(elem + 4 * i), jump_lo, NULL))
			found++;
		else if (i != 0 || a->kind == AOUT_SHLIB)
			return 0;
	}
	for (size_t i = 0; found && i < count; i++) {
		struct lib_need need;

		if (set_element(a, v, le32_at(elem + 4 * i), jump_lo, &need))
			*n = add_need(out, *n, max, &need);
	}
	return found;
}

size_t libs_scan(const struct aout *a, struct lib_need *out, size_t max)
{
	struct data_view v = data_of(a);
	size_t n = 0, sets = 0;
	/* a program's libraries lie above its image, a library's anywhere */
	uint32_t above = a->kind == AOUT_SHLIB ? AOUT_PAGE :
			 (uint32_t)((uint64_t)v.addr + a->h.data + a->h.bss);

	if ((uint64_t)v.addr + a->h.data + a->h.bss > IMAGE_LIMIT)
		above = IMAGE_LIMIT;
	for (size_t off = 0; off + 12 <= v.len; off += 4)
		sets += set_at(a, &v, off, above, out, &n, max);
	if (sets)
		return n;

	/*
	 * No set: every word of the data is a candidate, so the cheap tests
	 * on the jump table address and version come first, straight from
	 * the bytes; the pointers are followed only for what passes them.
	 */
	for (size_t off = 0; off + 16 <= v.len && n < max; off += 4) {
		struct lib_need need;

		if (!libentry(a, v.p + off, 0x40000000u, 255, STUB_LIB_NAME, &need))
			continue;
		n = add_need(out, n, max, &need);
		off += 12;
	}
	return n;
}

/* needle (its NUL included when with_nul) in a's text and data */
static int holds(const struct aout *a, const char *needle, int with_nul)
{
	const uint8_t *p = a->buf + a->text_off;
	size_t len = (size_t)a->h.text + a->h.data;

	return memmem(p, len, needle, strlen(needle) + (with_nul ? 1 : 0)) != NULL;
}

int libs_wants_ldso(const struct aout *a)
{
	return holds(a, "/lib/ld.so", 1);
}

enum libs_loader libs_loader_of(const struct aout *a)
{
	if (libs_wants_ldso(a))
		return LIBS_LDSO;
	/* the warning only libc 4.4's crt0 prints */
	if (holds(a, ": incompatible minor version numbers (", 0))
		return LIBS_CRT0_SLACKWARE;
	return LIBS_CRT0_SLS;
}

enum libs_verdict libs_judge(enum libs_loader loader, uint32_t found,
			     const struct lib_need *need)
{
	/* only the SLS crt0 knows the CLASSIC bit: the very word it linked */
	if (loader == LIBS_CRT0_SLS && need->exact)
		return found == (need->version | LIBS_CLASSIC_BIT) ? LIBS_FITS :
								   LIBS_REFUSED_EXACT;
	if (MAJOR(found) != MAJOR(need->version))
		return LIBS_REFUSED_MAJOR;
	if (MINOR(found) >= MINOR(need->version))
		return LIBS_FITS;
	if (loader == LIBS_CRT0_SLS)
		return LIBS_REFUSED_OLDER;
	/* ld.so looks at x of major.x.y only */
	if (loader == LIBS_LDSO && MINOR(found) / 100 >= MINOR(need->version) / 100)
		return LIBS_OLDER_QUIET;
	return LIBS_OLDER_WARNED;
}

int libs_is_library(const struct aout *a)
{
	const struct aout_header *h = &a->h;
	uint64_t end = aout_lib_start(a) +
		       PAGE_UP((uint64_t)h->text + h->data + h->bss);
	struct aout prog;

	if (a->kind != AOUT_SHLIB || aout_lib_start(a) < LOWEST_LIBRARY ||
	    end > IMAGE_LIMIT)
		return 0;
	/* load_aout_library took any entry; as a program it must be in the text */
	if (aout_parse_opts(a->buf, a->size, AOUT_EXEC, AOUT_PARSE_NO_SYMBOLS,
			    &prog, NULL) == 0) {
		aout_free(&prog);
		return 0;
	}
	return 1;
}

void libs_version_str(uint32_t v, char *buf, size_t cap)
{
	snprintf(buf, cap, "%u.%u.%u", MAJOR(v), MINOR(v) / 100, MINOR(v) % 100);
}

static void free_lib(struct lib *l)
{
	aout_free(&l->a);
	input_free(&l->in);
	free(l->path);
	l->path = NULL;
}

void libs_free(struct libset *set)
{
	for (size_t i = 0; i < set->n; i++)
		free_lib(&set->libs[i]);
	set->n = 0;
}

/* One more line in set->warnings; a line that does not fit is cut. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void warn(struct libset *set, const char *fmt, ...)
{
	size_t used = strlen(set->warnings), cap = sizeof set->warnings;
	va_list ap;

	if (used + 2 > cap)
		return;
	va_start(ap, fmt);
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): a false alarm */
	if (vsnprintf(set->warnings + used, cap - used - 1, fmt, ap) < 0)
		set->warnings[used] = 0;
	va_end(ap);
	used += strlen(set->warnings + used);
	memcpy(set->warnings + used, "\n", 2);
}

/* ---- the search ---- */

struct search {
	const char *const *dirs;
	size_t ndirs;
	const char *sysroot; /* NULL: none */
	int root;            /* sysroot's descriptor, -1 when not resolving in it */
};

/* One place the library may be. */
struct place {
	char *file;   /* malloc'ed; "SYSROOT/..." for one inside the sysroot */
	size_t shown; /* the length of file's start that "not found" names */
	size_t rel;   /* in_root: file + rel is the path inside the sysroot */
	int in_root;
};

static void free_places(struct place *pl, size_t n)
{
	for (size_t i = 0; pl && i < n; i++)
		free(pl[i].file);
	free(pl);
}

/* sysroot without its trailing slashes ("/" becomes "") */
static size_t root_len(const char *sysroot)
{
	size_t n = strlen(sysroot);

	while (n && sysroot[n - 1] == '/')
		n--;
	return n;
}

/*
 * One more place: name in dir, or (dir NULL) name as it is; under root
 * (NULL: on the host) as a path inside it.
 */
static int place_add(struct place *pl, size_t *n, const char *root,
		     const char *dir, const char *name)
{
	struct place *p = &pl[*n];
	size_t rlen = root ? root_len(root) : 0;
	size_t len = rlen + (dir ? strlen(dir) : 0) + 2 + strlen(name);

	p->file = malloc(len);
	if (!p->file)
		return -1;
	if (dir)
		snprintf(p->file, len, "%.*s%s/%s", (int)rlen, root ? root : "",
			 dir, name);
	else
		snprintf(p->file, len, "%.*s%s%s", (int)rlen, root ? root : "",
			 root && name[0] != '/' ? "/" : "", name);
	p->in_root = root != NULL;
	p->rel = rlen;
	p->shown = dir ? rlen + strlen(dir) : strlen(p->file);
	(*n)++;
	return 0;
}

/*
 * The places of libs_resolve's search for name, in order: malloc'ed, *n
 * of them; NULL without memory.
 */
static struct place *search_places(const char *name, const struct search *s,
				   size_t *n)
{
	const char *base = last_component(name);
	size_t cap = 2 + s->ndirs;
	struct place *pl;
	char *custom = strdup(libs_customary_dirs), *save = NULL;

	for (const char *c = libs_customary_dirs; *c; c++)
		cap += *c == ':';
	pl = calloc(cap, sizeof *pl);
	*n = 0;
	if (!pl || !custom)
		goto fail;
	if (base != name && place_add(pl, n, s->sysroot, NULL, name))
		goto fail;
	for (size_t i = 0; i < s->ndirs; i++)
		if (place_add(pl, n, NULL, s->dirs[i], base))
			goto fail;
	for (char *dir = strtok_r(custom, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save))
		if (place_add(pl, n, s->sysroot, dir, base))
			goto fail;
	free(custom);
	return pl;
fail:
	free(custom);
	free_places(pl, *n);
	return NULL;
}

/*
 * "PLACE:PLACE:...", what the places name, those inside the sysroot as
 * gcc writes them, "=/lib", with " (= is SYSROOT)" after them; malloc'ed,
 * NULL without memory.
 */
static char *places_list(const struct place *pl, size_t n, const char *sysroot)
{
	size_t len = sysroot ? strlen(sysroot) + 10 : 1, used = 0;
	char *list;

	for (size_t i = 0; i < n; i++)
		len += pl[i].shown + 2;
	list = malloc(len);
	if (!list)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t from = pl[i].in_root ? pl[i].rel : 0;

		if (pl[i].in_root)
			list[used++] = '=';
		memcpy(list + used, pl[i].file + from, pl[i].shown - from);
		used += pl[i].shown - from;
		list[used++] = ':';
	}
	list[used ? used - 1 : 0] = 0;
	if (sysroot)
		snprintf(list + strlen(list), len - strlen(list), " (= is %s)",
			 sysroot);
	return list;
}

/* path inside the directory root, its symbolic links resolved there */
static int open_in_root(int root, const char *path)
{
#if defined(SYS_openat2) && defined(RESOLVE_IN_ROOT)
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT };

	return (int)syscall(SYS_openat2, root, path, &how, sizeof how);
#else
	(void)root;
	(void)path;
	errno = ENOSYS;
	return -1;
#endif
}

/*
 * Without openat2: the same resolution in user space (inroot.c), after
 * the sysroot's own real path, as /proc would name it.
 */
static char *place_path_resolved(const struct place *p, const struct search *s)
{
	char *top = realpath(s->sysroot, NULL);
	char *in = top ? inroot_resolve(s->root, p->file + p->rel) : NULL;
	char *path = NULL;

	if (in) {
		/* no doubled slash: the sysroot "/", or the sysroot itself */
		const char *head = strcmp(top, "/") ? top : "";
		const char *tail = *head && !strcmp(in, "/") ? "" : in;
		size_t len = strlen(head) + strlen(tail) + 1;

		path = malloc(len);
		if (path)
			snprintf(path, len, "%s%s", head, tail);
		else
			errno = ENOMEM;
	}
	free(top);
	free(in);
	return path;
}

/*
 * The file a place is, as a host path (malloc'ed); NULL with errno when
 * it cannot be reached.  Inside the sysroot, its links resolved there and
 * read back through /proc; without /proc, the plain concatenation.
 */
static char *place_path(const struct place *p, struct search *s)
{
	char link[64], real[PATH_MAX];
	ssize_t len;
	int fd;

	if (!p->in_root || s->root < 0)
		return strdup(p->file);
	fd = open_in_root(s->root, p->file + p->rel);
	if (fd < 0 && errno == ENOSYS)
		return place_path_resolved(p, s);
	if (fd < 0)
		return NULL;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	len = readlink(link, real, sizeof real - 1);
	close(fd);
	if (len <= 0 || (size_t)len >= sizeof real - 1 || real[0] != '/')
		return strdup(p->file);
	real[len] = 0;
	return strdup(real);
}

/* Opens the sysroot to resolve in; -1 with *d when it cannot be. */
static int search_open(struct search *s, const char *const *dirs, size_t ndirs,
		       const char *sysroot, struct diag *d)
{
	s->dirs = dirs;
	s->ndirs = ndirs;
	s->sysroot = sysroot;
	s->root = -1;
	if (!sysroot)
		return 0;
	s->root = open(sysroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->root < 0)
		return diag_set(d, "the old system's root %s: %s", sysroot,
				strerror(errno));
	return 0;
}

static void search_close(struct search *s)
{
	if (s->root >= 0)
		close(s->root);
	s->root = -1;
}

/*
 * After input_read failed (see input.h): whether the search looks in the
 * next folder.  As the stub's search at run time: on past a file that
 * cannot be opened, or is not a regular file (a folder of that name is not
 * the library), but not when the process or the system is out of
 * something (the next folder would fail alike) nor past a file that was
 * opened and could not be read.  Unlike it, a library without execute
 * permission is taken: embedded, its bytes are all that counts.  st is
 * NULL where the file was never opened.
 */
static int search_goes_on(int err, const struct stat *st)
{
	if (err || !st)
		return err != EMFILE && err != ENFILE && err != ENOMEM;
	return !S_ISREG(st->st_mode);
}

int libs_shadowed(const char *name, const char *path,
		  const char *const *dirs, size_t ndirs, const char *sysroot)
{
	struct search s;
	struct diag why;
	size_t n = 0;
	struct place *pl = search_open(&s, dirs, ndirs, sysroot, &why) ? NULL :
			   search_places(name, &s, &n);
	int shadowed = 0;

	for (size_t i = 0; pl && i < n && !shadowed; i++) {
		char *here = place_path(&pl[i], &s);
		struct stat st;
		int fd;

		if (!here)
			continue;
		if (!strcmp(here, path)) {
			free(here);
			break;
		}
		/* what find_lib would take: a regular file it can open */
		fd = open(here, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		shadowed = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
		if (fd >= 0)
			close(fd);
		free(here);
	}
	free_places(pl, n);
	search_close(&s);
	return shadowed;
}

/* Reads and parses the library at one place: 0, 1 to go on, -1 with *d. */
static int try_place(const struct place *p, struct search *s,
		     unsigned parse_flags, struct lib *l, struct diag *d)
{
	struct diag why;
	char *path = place_path(p, s);

	if (!path) {
		if (search_goes_on(errno, NULL))
			return 1;
		if (errno == ENOMEM)
			return diag_set(d, "out of memory");
		return diag_set(d, "%s: %s", p->file, strerror(errno));
	}
	if (input_read(path, &l->in, &why)) {
		int on = search_goes_on(errno, &l->in.st);

		if (!on)
			diag_set(d, "%s: %s", path, why.msg);
		free(path);
		return on ? 1 : -1;
	}
	if (aout_parse_opts(l->in.buf, l->in.size, AOUT_SHLIB, parse_flags,
			    &l->a, &why)) {
		input_free(&l->in);
		diag_set(d, "%s: not an a.out shared library: %s", path, why.msg);
		free(path);
		return -1;
	}
	l->path = path;
	return 0;
}

/* Looks for name in its places: 0 found, 1 if it is nowhere, -1 with *d. */
static int find_lib(const char *name, struct search *s, unsigned parse_flags,
		    struct lib *l, struct diag *d)
{
	size_t n;
	struct place *pl = search_places(name, s, &n);
	int rc = 1;

	if (!pl)
		return diag_set(d, "out of memory");
	for (size_t i = 0; i < n && rc > 0; i++)
		rc = try_place(&pl[i], s, parse_flags, l, d);
	if (rc > 0) {
		char *list = places_list(pl, n, s->sysroot);

		if (!list)
			rc = diag_set(d, "out of memory");
		else
			diag_set(d, "needs the a.out library %s, not found in %s; "
				    "give its directory with -L DIR, or the old "
				    "system's root with --sysroot DIR", name, list);
		free(list);
	}
	free_places(pl, n);
	return rc;
}

/* ---- versions ---- */

static int refuse(const struct lib *l, uint32_t have, const struct lib_need *need,
		  enum libs_loader loader, enum libs_verdict v, struct diag *d)
{
	char hs[32], ws[32], how[80];

	libs_version_str(have, hs, sizeof hs);
	libs_version_str(need->version, ws, sizeof ws);
	if (loader == LIBS_LDSO)
		snprintf(how, sizeof how, "its ld.so refuses it (\"Require major "
			 "version %u and found %u\")", MAJOR(need->version),
			 MAJOR(have));
	else
		snprintf(how, sizeof how, "its crt0 refuses it (\"Incompatible "
			 "version.\")");
	if (v == LIBS_REFUSED_MAJOR)
		return diag_set(d, "%s is version %s, the program needs major "
				   "version %u; %s", l->path, hs,
				MAJOR(need->version), how);
	if (v == LIBS_REFUSED_EXACT)
		return diag_set(d, "%s is version %s (0x%08x), the program needs "
				   "exactly %s (0x%08x); %s", l->path, hs, have, ws,
				need->version | LIBS_CLASSIC_BIT, how);
	return diag_set(d, "%s is version %s, older than the %s that the program "
			   "needs; %s", l->path, hs, ws, how);
}

/* An older library the program runs with: what its loader says of it. */
static void warn_older(struct libset *set, const struct lib *l, uint32_t have,
		       const struct lib_need *need, enum libs_loader loader,
		       enum libs_verdict v)
{
	char hs[32], ws[32], says[LIBS_NAME_MAX + LIBS_AVERS_MAX + 80];

	libs_version_str(have, hs, sizeof hs);
	libs_version_str(need->version, ws, sizeof ws);
	if (v == LIBS_OLDER_QUIET)
		snprintf(says, sizeof says, "its ld.so says nothing (it compares "
			 "only x of major.x.y)");
	else if (loader == LIBS_LDSO)
		snprintf(says, sizeof says, "its ld.so warns \"Desire minor "
			 "version >= %u and found %u\"", MINOR(need->version) / 100,
			 MINOR(have) / 100);
	else
		snprintf(says, sizeof says, "its crt0 warns \"Warning: <program>: "
			 "%s: incompatible minor version numbers (%s).\"",
			 need->name, need->avers);
	warn(set, "%s is version %s, older than the %s that the program needs: "
		  "it runs, and %s", l->path, hs, ws, says);
}

/* The version l has where need looks, judged as loader will. */
static int check_version(struct libset *set, const struct lib *l,
			 const struct lib_need *need, const char *needed_by,
			 enum libs_loader loader, struct diag *d)
{
	int ok;
	uint32_t have = word_at(&l->a, need->jump_table, &ok);
	enum libs_verdict v;

	if (!ok)
		return diag_set(d, "%s: the jump table 0x%08x that %s uses is not "
				   "in this library (0x%08x-0x%08x)", l->path,
				need->jump_table, needed_by, l->start,
				l->start + l->len);
	v = libs_judge(loader, have, need);
	if (v >= LIBS_REFUSED_MAJOR)
		return refuse(l, have, need, loader, v, d);
	if (v != LIBS_FITS)
		warn_older(set, l, have, need, loader, v);
	return 0;
}

/* ---- the set ---- */

/* name, which add_lib made sure fits, into a struct lib's name */
static void copy_name(char to[STUB_LIB_NAME], const char *name)
{
	size_t n = strnlen(name, STUB_LIB_NAME - 1);

	memcpy(to, name, n);
	to[n] = 0;
}

/* The same file, or the same bytes: one library. */
static int same_library(const struct lib *a, const struct lib *b)
{
	if (a->in.st.st_dev == b->in.st.st_dev && a->in.st.st_ino == b->in.st.st_ino)
		return 1;
	return a->in.size == b->in.size && !memcmp(a->in.buf, b->in.buf, a->in.size);
}

static int has_name(const struct lib *l, const char *name)
{
	if (!strcmp(l->name, name))
		return 1;
	for (size_t i = 0; i < l->naliases; i++)
		if (!strcmp(l->aliases[i], name))
			return 1;
	return 0;
}

/* Finds a new library and fills in where it maps; 0, 1 missing, -1. */
static int load_lib(struct lib *l, const char *name, struct search *s,
		    unsigned parse_flags, struct diag *d)
{
	int r = find_lib(name, s, parse_flags, l, d);

	if (r)
		return r;
	const struct aout_header *h = &l->a.h;
	uint64_t end = aout_lib_start(&l->a) +
		       PAGE_UP((uint64_t)h->text + h->data + h->bss);

	if (end > IMAGE_LIMIT)
		return diag_set(d, "%s ends at 0x%llx, beyond 0x%x", l->path,
				(unsigned long long)end, IMAGE_LIMIT);
	l->start = aout_lib_start(&l->a);
	l->len = (uint32_t)PAGE_UP((uint64_t)h->text + h->data);
	l->bss_len = (uint32_t)(end - l->start - l->len);
	return 0;
}

/* The library in set that l, just found, already is, or NULL. */
static struct lib *found_before(struct libset *set, const struct lib *l)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->libs[i].path && same_library(&set->libs[i], l))
			return &set->libs[i];
	return NULL;
}

/*
 * The library of set that need names: known by that name, found again
 * under another (then named so too), or new; NULL with *d on failure.
 */
static struct lib *lib_for(struct libset *set, const struct lib_need *need,
			   struct search *s, int missing_ok, struct diag *d)
{
	struct lib fresh, *l;
	int r;

	for (size_t i = 0; i < set->n; i++)
		if (has_name(&set->libs[i], need->name))
			return &set->libs[i];
	memset(&fresh, 0, sizeof fresh);
	copy_name(fresh.name, need->name);
	r = load_lib(&fresh, need->name, s, set->parse_flags, d);
	if (r < 0 || (r > 0 && !missing_ok)) {
		free_lib(&fresh);
		return NULL;
	}
	l = r == 0 ? found_before(set, &fresh) : NULL;
	if (l || set->n == STUB_MAX_LIBS) {
		free_lib(&fresh);
		if (!l)
			diag_set(d, "needs more than %d a.out libraries",
				 STUB_MAX_LIBS);
		else if (l->naliases == LIBS_MAX_ALIASES)
			diag_set(d, "names %s under more than %d names", l->path,
				 LIBS_MAX_ALIASES + 1);
		else {
			copy_name(l->aliases[l->naliases++], need->name);
			return l;
		}
		return NULL;
	}
	l = &set->libs[set->n++];
	*l = fresh; /* the buffers go with it */
	if (r == 0 && need->version) {
		int ok;

		l->version = word_at(&l->a, need->jump_table, &ok);
	}
	return l;
}

static int add_lib(struct libset *set, const struct lib_need *need,
		   const char *needed_by, struct search *s, enum libs_loader loader,
		   int missing_ok, struct diag *d)
{
	struct lib *l;

	if (strlen(need->name) >= STUB_LIB_NAME)
		return diag_set(d, "needs the a.out library %s, whose name is longer "
				   "than the %d characters aout2elf can carry",
				need->name, STUB_LIB_NAME - 1);
	l = lib_for(set, need, s, missing_ok, d);
	if (!l)
		return -1;
	if (l->path && need->version &&
	    check_version(set, l, need, needed_by, loader, d))
		return -1;
	if (need->version > l->needed) {
		l->needed = need->version;
		snprintf(l->needed_by, sizeof l->needed_by, "%s", needed_by);
	}
	l->exact |= need->exact;
	return 0;
}

/* The library of set that a library's libentry names, path or file name. */
static const struct lib *named(const struct libset *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (has_name(&set->libs[i], name))
			return &set->libs[i];
	for (size_t i = 0; i < set->n; i++) {
		const struct lib *l = &set->libs[i];

		if (!strcmp(last_component(l->name), last_component(name)))
			return l;
		for (size_t k = 0; k < l->naliases; k++)
			if (!strcmp(last_component(l->aliases[k]), last_component(name)))
				return l;
	}
	return NULL;
}

/*
 * A library's own libentries: neither crt0 nor ld.so ever loaded them,
 * so they only say what the library was built against.
 */
static void check_library_needs(struct libset *set)
{
	struct lib_need needs[LIBS_MAX_NEEDS];

	for (size_t i = 0; i < set->n; i++) {
		const struct lib *l = &set->libs[i];
		size_t n = l->path ? libs_scan(&l->a, needs, LIBS_MAX_NEEDS) : 0;

		for (size_t j = 0; j < n; j++) {
			const struct lib *t = named(set, needs[j].name);
			char hs[32], ws[32];
			uint32_t have;
			int ok;

			if (t == l || (t && !t->path))
				continue;
			if (!t) {
				warn(set, "%s needs the a.out library %s, which the "
					  "program does not load", l->path,
				     needs[j].name);
				continue;
			}
			have = word_at(&t->a, needs[j].jump_table, &ok);
			libs_version_str(have, hs, sizeof hs);
			libs_version_str(needs[j].version, ws, sizeof ws);
			if (!ok)
				warn(set, "%s needs %s with its jump table at 0x%08x, "
					  "outside %s", l->path, needs[j].name,
				     needs[j].jump_table, t->path);
			else if (libs_judge(LIBS_CRT0_SLS, have, &needs[j]) != LIBS_FITS)
				warn(set, "%s was built against %s %s%s, and %s is "
					  "version %s", l->path, needs[j].name, ws,
				     needs[j].exact ? " exactly" : " or later",
				     t->path, hs);
		}
	}
}

static int check_overlaps(const struct libset *set, uint32_t lo, uint32_t hi,
			  struct diag *d)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct lib *a = &set->libs[i];
		uint64_t a_end = (uint64_t)a->start + a->len + a->bss_len;

		if (!a->path)
			continue;
		if (a_end > IMAGE_LIMIT)
			return diag_set(d, "%s ends at 0x%llx, beyond 0x%x", a->path,
					(unsigned long long)a_end, IMAGE_LIMIT);
		if (a->start < hi && a_end > lo)
			return diag_set(d, "%s (0x%08x-0x%08llx) overlaps the "
					   "program (0x%08x-0x%08x)", a->path,
					a->start, (unsigned long long)a_end, lo, hi);
		for (size_t j = 0; j < i; j++) {
			const struct lib *b = &set->libs[j];
			uint64_t b_end = (uint64_t)b->start + b->len + b->bss_len;

			if (b->path && a->start < b_end && a_end > b->start)
				return diag_set(d, "%s (0x%08x-0x%08llx) overlaps %s "
						   "(0x%08x-0x%08llx)", a->path,
						a->start, (unsigned long long)a_end,
						b->path, b->start,
						(unsigned long long)b_end);
		}
	}
	return 0;
}

int libs_resolve(const struct aout *prog, uint32_t image_lo, uint32_t image_hi,
		 const char *const *dirs, size_t ndirs, const char *sysroot,
		 int missing_ok, struct libset *set, struct diag *d)
{
	struct lib_need needs[LIBS_MAX_NEEDS];
	size_t n = libs_scan(prog, needs, LIBS_MAX_NEEDS);
	enum libs_loader loader = libs_loader_of(prog);
	struct search s;

	set->n = 0;
	set->warnings[0] = 0;
	/* their symbols go nowhere, but -s should not fail on them either */
	set->parse_flags = prog->no_symbols ? AOUT_PARSE_NO_SYMBOLS : 0;
	if (!n)
		return 0;
	if (search_open(&s, dirs, ndirs, sysroot, d))
		return -1;
	if (loader == LIBS_LDSO) {
		struct lib_need ldso = { .name = "ld.so" };

		if (add_lib(set, &ldso, "the program", &s, loader, missing_ok, d))
			goto fail;
	}
	for (size_t i = 0; i < n; i++)
		if (add_lib(set, &needs[i], "the program", &s, loader, missing_ok, d))
			goto fail;
	if (check_overlaps(set, image_lo, image_hi, d))
		goto fail;
	check_library_needs(set);
	search_close(&s);
	return 0;
fail:
	search_close(&s);
	libs_free(set);
	return -1;
}
