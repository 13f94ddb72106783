/* vminit: PID 1 of the i386 VM (tools/run-in-vm).
 *
 * Some machines cannot execute i386 programs at all (a hypervisor that runs
 * 64-bit user code only: execve of any ELF32 fails with ENOEXEC).  There the
 * tests that run converted programs boot a Debian kernel under QEMU instead,
 * with the host's root file system shared read-write over 9p, and this
 * program is that kernel's init: it loads the 9p modules from the initramfs,
 * mounts the host's root, enters it, runs one job script and powers off.
 *
 * Kernel command line after "--": the job folder (a host path).  The job is
 * JOBDIR/job (an executable script that tools/run-in-vm wrote); its standard
 * output and error go to JOBDIR/out, and its exit status (128 + N for a
 * signal N), as a decimal number, to JOBDIR/status.
 *
 * The i386 VM (tools/setup-vm --i386) boots Debian's i386 kernel, which
 * cannot run the host's x86-64 programs, so there is no entering the
 * host's root.  Its initramfs brings a static i386 busybox as /bin/busybox
 * instead: then the host's root is mounted at /host, and its top-level
 * folders that are not programs or system state (/work, /tmp, /home, ...)
 * are bound to the same paths here, so that a job finds its files where
 * the host has them and runs with busybox's sh and tools.
 */
/* The i386 build lists and stats 9p files, whose inode numbers need 64 bits. */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char *what, const char *arg)
{
	/* the console is the VM's serial port: the host shows it on failure */
	dprintf(2, "vminit: %s%s%s: %s\n", what, arg ? " " : "", arg ? arg : "",
		strerror(errno));
}

static void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	_exit(1);	/* the kernel panics, and QEMU runs with -no-reboot */
}

/* The modules are /modules/NN-name.ko: the numbers give the load order. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void load_modules(void)
{
	struct dirent **names;
	int n = scandir("/modules", &names, NULL, by_name);

	for (int i = 0; i < n; i++) {
		char path[512];

		if (names[i]->d_name[0] != '.') {
			snprintf(path, sizeof path, "/modules/%s", names[i]->d_name);
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) != 0 &&
				       errno != EEXIST))
				say("cannot load", path);
			if (fd >= 0)
				close(fd);
		}
		free(names[i]);
	}
	free(names);
}

static void mount_or_say(const char *src, const char *dir, const char *type,
			 unsigned long flags, const char *opts)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, flags, opts) != 0)
		say("cannot mount", dir);
}

static void link_or_say(const char *target, const char *path)
{
	if (symlink(target, path) != 0 && errno != EEXIST)
		say("cannot make", path);
}

static int run_and_wait(char *const argv[])
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

/* The host's own programs and system state stay behind: not bound. */
static int host_only(const char *name)
{
	static const char *const skip[] = {
		"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc",
		"proc", "sys", "dev", "run", "boot", "host", "modules", "init",
		"lost+found",
	};

	if (name[0] == '.')
		return 1;
	for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
		if (strcmp(name, skip[i]) == 0)
			return 1;
	return 0;
}

static void bind_host_folders(void)
{
	DIR *d = opendir("/host");
	struct dirent *e;

	if (!d) {
		say("cannot read", "/host");
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char src[512], dst[512];
		struct stat st;

		if (host_only(e->d_name))
			continue;
		snprintf(src, sizeof src, "/host/%s", e->d_name);
		snprintf(dst, sizeof dst, "/%s", e->d_name);
		if (stat(src, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		mkdir(dst, 0755);
		if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
			say("cannot bind", dst);
	}
	closedir(d);
}

static void write_status(const char *jobdir, int status)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/status", jobdir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		say("cannot write", path);
		return;
	}
	dprintf(fd, "%d\n", status);
	fsync(fd);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] != '/') {
		dprintf(2, "vminit: no job folder on the kernel command line\n");
		power_off();
	}
	const char *jobdir = argv[1];

	mount_or_say("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	load_modules();
	/* msize 8215: QEMU reports a file's st_blksize as the largest multiple
	 * of the host's (4096) that fits in a message less its 24-byte header,
	 * so this keeps st_blksize what it is on the host.  Old stdio sizes its
	 * buffers by it, and so where malloc puts things: gforth's image must
	 * land at the address it was saved for.  cache=mmap: reads and writes
	 * go straight to the host (cache=loose writes back later, and the
	 * late write moves a file's mtime past files made after it), and
	 * the page cache serves only mmap, as executables need. */
	mount_or_say("hostroot", "/host", "9p", 0,
		     "trans=virtio,version=9p2000.L,msize=8215,access=client,"
		     "cache=mmap");
	int busybox = access("/bin/busybox", X_OK) == 0;
	if (busybox) {
		char *install[] = { "/bin/busybox", "--install", "-s", "/bin", NULL };

		if (!run_and_wait(install))
			say("cannot install the applets of", "/bin/busybox");
		bind_host_folders();
	} else if (chdir("/host") != 0 || chroot(".") != 0 || chdir("/") != 0) {
		say("cannot enter", "/host");
		power_off();
	}
	/* The host's mounts do not come over 9p: the guest makes its own.
	 * /tmp stays the host's: a job may live anywhere, /tmp included.
	 * (In the busybox VM, /dev is mounted already and stays.) */
	mount_or_say("proc", "/proc", "proc", 0, NULL);
	mount_or_say("sysfs", "/sys", "sysfs", 0, NULL);
	mount_or_say("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (!busybox)
		mount_or_say("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	/* what udev would add: bash's <(...) and /dev/stdin need them */
	link_or_say("/proc/self/fd", "/dev/fd");
	link_or_say("/proc/self/fd/0", "/dev/stdin");
	link_or_say("/proc/self/fd/1", "/dev/stdout");
	link_or_say("/proc/self/fd/2", "/dev/stderr");
	mount_or_say("devpts", "/dev/pts", "devpts", 0, "ptmxmode=0666");
	mount_or_say("tmpfs", "/dev/shm", "tmpfs", 0, NULL);
	mount_or_say("tmpfs", "/run", "tmpfs", 0, "mode=0755");

	char job[4096], out[4096];
	snprintf(job, sizeof job, "%s/job", jobdir);
	snprintf(out, sizeof out, "%s/out", jobdir);

	pid_t pid = fork();
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || fd < 0) {
			say("cannot open", out);
			_exit(125);
		}
		dup2(in, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		setsid();
		execl(job, job, (char *)NULL);
		say("cannot run", job);
		_exit(126);
	}
	/* orphans are reaped on the way, and whatever still runs when the
	 * job ends is ended by the power-off */
	int status = 125;
	for (;;) {
		int st;
		pid_t done = wait(&st);

		if (done < 0 && errno != EINTR)
			break;
		if (done == pid) {
			status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
	}
	write_status(jobdir, status);
	power_off();
}
