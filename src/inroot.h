/*
 * A path inside a directory tree resolved as openat2's RESOLVE_IN_ROOT
 * resolves it, for where openat2 is missing (Linux before 5.6, qemu-user,
 * a sandbox answering ENOSYS): so that --sysroot finds the same library,
 * by the same name, on every machine.
 */
#ifndef AOUT2ELF_INROOT_H
#define AOUT2ELF_INROOT_H

/* The kernel's limit of symbolic links in one lookup (MAXSYMLINKS). */
#define INROOT_MAX_LINKS 40

/*
 * path (relative, or absolute meaning from root) inside the directory
 * open as root, its symbolic links followed there: absolute targets start
 * again at root, and ".." never climbs above it.  The result is the path
 * from root ("/lib/libc.so.4.4.1"; "/" for root itself), malloc'ed; NULL
 * with errno when a component is missing or path empty (ENOENT), not a directory
 * (ENOTDIR), the links loop (ELOOP), or the path is too long.
 */
char *inroot_resolve(int root, const char *path);

#endif
