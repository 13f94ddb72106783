/*
 * Writing the output atomically: a temporary file beside OUTPUT (without
 * a name where the file system allows), then link or rename, so that a
 * failed conversion leaves neither a partial file nor a changed one; and
 * on a signal that ends the process, the temporary file removed first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/fs.h>

#include "output.h"

/* The temporary file being written, for on_fatal_signal. */
static char *volatile current_temp;

static void on_fatal_signal(int sig)
{
	char *t = current_temp;

	/* only calls that are async-signal-safe */
	if (t)
		unlink(t);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_unless_ignored(int sig)
{
	struct sigaction was;

	if (sigaction(sig, NULL, &was) == 0 && was.sa_handler != SIG_IGN)
		signal(sig, on_fatal_signal);
}

void output_remove_temp_on_signals(void)
{
	static const int sigs[] = { SIGINT,    SIGTERM, SIGHUP,  SIGQUIT,
				    SIGUSR1,   SIGUSR2, SIGALRM, SIGPIPE,
				    SIGVTALRM, SIGPROF, SIGXCPU, SIGIO,
				    SIGPWR,    SIGSTKFLT };

	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		catch_unless_ignored(sigs[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		catch_unless_ignored(sig);
	/* A write past RLIMIT_FSIZE then fails with EFBIG, and is reported. */
	signal(SIGXFSZ, SIG_IGN);
}

mode_t output_mode(mode_t input_mode, mode_t umask_bits)
{
	mode_t m = input_mode & 0777;

	m |= (m & 0444) >> 2;
	return m & ~umask_bits;
}

/*
 * ".NAME.aout2elf-XXXXXX" beside path; NAME cut short where the whole
 * would pass NAME_MAX (255), or a long OUTPUT could never be replaced.
 */
#define TEMP_BASE_MAX (255 - sizeof ".aout2elf-XXXXXX" - 1)

/*
 * Between making a temporary file and telling current_temp, a signal
 * would leave the file behind: every signal waits across the two.
 * Returns the mask to put back.
 */
static sigset_t block_signals(void)
{
	sigset_t all, old;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	return old;
}

static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dirlen;
	size_t baselen = strlen(base);
	size_t n = dirlen + baselen + 32;
	char *t = malloc(n);

	if (baselen > TEMP_BASE_MAX)
		baselen = TEMP_BASE_MAX;
	if (t)
		snprintf(t, n, "%.*s.%.*s.aout2elf-XXXXXX", (int)dirlen, path,
			 (int)baselen, base);
	return t;
}

/* The folder path lies in: ".", "/" or what comes before the last '/'. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/*
 * An append-only folder (chattr +a) takes a new name but lets none be
 * renamed or removed: the named temporary file could neither be put over
 * OUTPUT nor taken away again.  1 if path's folder is one.
 */
static int folder_append_only(const char *path)
{
	char dir[4096]; /* not malloc'ed: asking costs no allocation that may fail */
	const char *slash = strrchr(path, '/');
	size_t n = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);

	if (n >= sizeof dir)
		return 0;
	memcpy(dir, slash ? path : ".", n);
	dir[n] = '\0';

	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	int flags = 0;
	int yes = fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 &&
		  (flags & FS_APPEND_FL);

	if (fd >= 0)
		close(fd);
	return yes;
}

/*
 * A file without a name in path's folder (O_TMPFILE), linked into place
 * when it is whole: a conversion killed even by SIGKILL leaves nothing,
 * and a new OUTPUT costs no rename.  The link goes through /proc/self/fd
 * (linkat with AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH before Linux
 * 6.10), so without /proc, or where the file system has no O_TMPFILE,
 * -1: the named temporary file is used instead.
 */
static int open_anonymous(const char *path)
{
#ifdef O_TMPFILE
	static int have_proc = -1;
	char *dir;
	int fd;

	if (have_proc < 0)
		have_proc = access("/proc/self/fd", X_OK) == 0;
	if (!have_proc)
		return -1;
	dir = folder_of(path);
	if (!dir)
		return -1;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	free(dir);
	return fd;
#else
	(void)path;
	return -1;
#endif
}

int output_name_listed(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : NULL;
	DIR *d = slash && !dir ? NULL : opendir(dir ? dir : ".");
	struct dirent *de;
	int found = !d;

	while (d && !found && (de = readdir(d)) != NULL)
		found = !strcmp(de->d_name, slash ? slash + 1 : path);
	if (d)
		closedir(d);
	free(dir);
	return found;
}

/*
 * The name in folder fd that name is a spelling of: name itself if the
 * folder lists it, else the listed one equal to it but for case; NULL
 * (and errno) if there is none or the folder cannot be read.  fd is
 * taken over (closed).
 */
static char *listed_as(int fd, const char *name)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	char *found = NULL;

	if (!d) {
		close(fd);
		return NULL;
	}
	while (!found && (de = readdir(d)) != NULL)
		if (!strcmp(de->d_name, name))
			found = strdup(name);
	rewinddir(d);
	while (!found && (de = readdir(d)) != NULL)
		if (!strcasecmp(de->d_name, name))
			found = strdup(de->d_name);
	closedir(d);
	return found;
}

/*
 * path as the file system lists it: links and ".." resolved (realpath),
 * then every name spelt as its folder lists it; malloc'ed, or NULL.
 */
static char *listed_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *file = slash ? slash + 1 : path;
	char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
	char *real = dir ? realpath(dir, NULL) : NULL;
	size_t cap = real ? strlen(real) + strlen(file) + 2 : 0, len = 1;
	char *out = real ? malloc(cap) : NULL, *save = NULL;
	int ok = out != NULL;

	free(dir);
	if (ok)
		memcpy(out, "/", 2);
	/* the names of the folder's real path, then the file's own */
	for (char *name = ok ? strtok_r(real, "/", &save) : NULL; ok;
	     name = name ? strtok_r(NULL, "/", &save) : NULL) {
		const char *want = name ? name : file;
		int fd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		char *as = fd >= 0 ? listed_as(fd, want) : NULL;

		/* ASCII case: the listed name is as long as the one asked for */
		ok = as && strlen(as) == strlen(want);
		if (ok)
			len += (size_t)snprintf(out + len, cap - len, "%s%s", as,
						name ? "/" : "");
		free(as);
		if (!name)
			break;
	}
	free(real);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * "prog" and "PROG" on a file system that ignores case: one file, which
 * a FUSE one (exFAT) gives an inode number for each spelling of a name,
 * its folders' included.  There the two paths, spelt as the folders list
 * them, are told apart instead.
 */
#define FUSE_SUPER_MAGIC 0x65735546

static int other_spelling(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	struct statfs fs;
	char *la, *lb;
	int same;

	if (strcasecmp(sa ? sa + 1 : a, sb ? sb + 1 : b) != 0 || statfs(a, &fs) != 0 ||
	    fs.f_type != FUSE_SUPER_MAGIC)
		return 0;
	la = listed_path(a);
	lb = la ? listed_path(b) : NULL;
	same = lb && !strcmp(la, lb);
	free(la);
	free(lb);
	return same;
}

int output_open(const char *path, const struct stat *input,
		const char *input_path, int force, struct output *o,
		struct diag *d)
{
	struct stat st;
	int exists;

	memset(o, 0, sizeof *o);
	o->fd = -1;
	exists = lstat(path, &st) == 0;
	if (exists) {
		struct stat target = st;

		/* through a symbolic link too: stat what it points to */
		if (S_ISLNK(st.st_mode) && stat(path, &target) != 0)
			target.st_ino = 0;
		if ((target.st_dev == input->st_dev && target.st_ino == input->st_ino) ||
		    (input_path && other_spelling(path, input_path)))
			return diag_set(d, "is the input file; refusing to overwrite it");
		if (S_ISDIR(target.st_mode) && !S_ISLNK(st.st_mode))
			return diag_set(d, "is a directory");
		/* a device, a FIFO, a socket: rename would put a file in its place */
		if (target.st_ino && !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode))
			return diag_set(d, "is not a regular file; refusing to replace it");
		if (!force)
			return diag_set(d, "already exists (use -f to replace it)");
	}
	o->force = force;
	o->path = strdup(path);
	if (!o->path) {
		output_abort(o);
		return diag_set(d, "out of memory");
	}
	/* an OUTPUT to replace keeps the named way: link, then rename over it */
	o->fd = exists ? -1 : open_anonymous(path);
	if (o->fd >= 0)
		return 0;
	if (folder_append_only(path)) {
		output_abort(o);
		return diag_set(d, exists ? "its directory is append-only: it "
					    "cannot be replaced" :
					    "its directory is append-only and has "
					    "no O_TMPFILE: nothing can be renamed "
					    "there");
	}
	o->tmp = temp_name(path);
	if (!o->tmp) {
		output_abort(o);
		return diag_set(d, "out of memory");
	}
	sigset_t old = block_signals();

	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	int e = errno;

	if (o->fd >= 0)
		current_temp = o->tmp;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (o->fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		output_abort(o);
		return diag_set(d, "cannot create a file beside it: %s", strerror(e));
	}
	return 0;
}

/* Links the O_TMPFILE file at path; 0, or an errno (EEXIST: path exists). */
static int link_anonymous(int fd, const char *path)
{
	char proc[32];

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) < 0 ? errno : 0;
}

/*
 * The anonymous output, into place.  If OUTPUT appeared since output_open
 * and may be replaced, the file gets a temporary name first (the named
 * way's), and rename puts it over OUTPUT.  0, or an errno.
 */
static int link_into_place(struct output *o)
{
	int e = link_anonymous(o->fd, o->path);

	if (e != EEXIST || !o->force)
		return e;
	char *t = temp_name(o->path);

	if (!t)
		return ENOMEM;
	/* mkostemp's names, for a link instead of a new file */
	char *x = t + strlen(t) - 6;

	sigset_t old = block_signals();

	for (uint32_t tries = 0; tries < 100; tries++) {
		uint32_t r = (uint32_t)rand() ^ (uint32_t)getpid() ^ tries * 2654435761u;

		for (int i = 0; i < 6; i++, r /= 62)
			x[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[r % 62];
		e = link_anonymous(o->fd, t);
		if (e != EEXIST)
			break;
	}
	if (!e)
		current_temp = t;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (!e) {
		if (rename(t, o->path) < 0) {
			e = errno;
			unlink(t);
		}
		current_temp = NULL;
	}
	free(t);
	return e;
}

/* output_commit for a file without a name: linked while still open. */
static int commit_anonymous(struct output *o, int e, struct diag *d)
{
	if (!e)
		e = link_into_place(o);
	/* close reports write errors only on file systems (NFS) that have no
	 * O_TMPFILE, and so never get here */
	close(o->fd);
	o->fd = -1;
	free(o->path);
	o->path = NULL;
	if (e)
		return diag_set(d, "%s", e == EEXIST ?
				"already exists (use -f to replace it)" :
				strerror(e));
	return 0;
}

/* The folder that holds path, open and flock'ed; -1 if it cannot be. */
static int lock_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) :
			    NULL;
	int fd = slash && !dir ? -1 : open(dir ? dir : ".",
					   O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	free(dir);
	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Where the file system has no hard links (vfat, exFAT, many FUSE ones):
 * a rename that does not replace, else a look and then a rename, with
 * the folder locked so that another aout2elf (a batch's other worker,
 * writing "prog" where "Prog" is the same file) cannot make the file in
 * between; any other program still could.  0, or an errno.
 */
static int rename_noreplace(const char *from, const char *to)
{
	struct stat st;
	int lock, e;

	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return errno;
	lock = lock_folder(to);
	if (lstat(to, &st) == 0)
		e = EEXIST;
	else
		e = rename(from, to) < 0 ? errno : 0;
	if (lock >= 0)
		close(lock);
	return e;
}

int output_commit(struct output *o, mode_t mode, struct diag *d)
{
	int e = 0;

	if (fchmod(o->fd, mode) < 0)
		e = errno;
	if (!o->tmp)
		return commit_anonymous(o, e, d);
	if (close(o->fd) < 0 && !e)
		e = errno; /* NFS and friends report write errors here */
	o->fd = -1;
	if (e) {
		output_abort(o);
		return diag_set(d, "%s", strerror(e));
	}
	if (o->force) {
		if (rename(o->tmp, o->path) < 0)
			e = errno;
	} else if (link(o->tmp, o->path) < 0) {
		/* link, not rename: it fails if OUTPUT appeared meanwhile */
		e = errno;
		if (e == EPERM || e == ENOSYS || e == EOPNOTSUPP)
			e = rename_noreplace(o->tmp, o->path);
	} else {
		unlink(o->tmp);
	}
	if (e) {
		output_abort(o);
		return diag_set(d, "%s", e == EEXIST ?
				"already exists (use -f to replace it)" :
				strerror(e));
	}
	current_temp = NULL;
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return 0;
}

void output_abort(struct output *o)
{
	current_temp = NULL;
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->fd = -1;
	o->tmp = o->path = NULL;
}
