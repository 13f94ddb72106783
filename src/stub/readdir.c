/*
 * readdir(2), the old one-entry call of i386 Linux that libc.so.4's
 * readdir() makes (`mov $89,%eax ... int $0x80`): its call sites call
 * do_readdir (syscall_sites.h), which asks the kernel first and, where
 * the host has no such call (qemu-user answers ENOSYS, valgrind knows
 * none), reads one entry
 * with getdents64 and moves the directory's offset to the next, as
 * fs/readdir.c's old_readdir left it.
 */
#include "stub.h"

/* struct old_linux_dirent of fs/readdir.c */
struct old_dirent {
	uint32_t d_ino;
	uint32_t d_offset;
	uint16_t d_namlen;
	char d_name[1];
};

/* struct linux_dirent64 */
struct dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};

static long seek_to(uint32_t fd, uint64_t off, uint64_t *now, int whence)
{
	return stub_syscall(NR__llseek, fd, (long)(uint32_t)(off >> 32), (long)(uint32_t)off,
			    (long)now, whence, 0);
}

long do_readdir(uint32_t fd, void *dirent, uint32_t count)
{
	struct old_dirent *d = dirent;
	long r = under_valgrind() ? -ENOSYS :
				    stub_syscall(NR_readdir, fd, (long)d, count, 0, 0, 0);

	if (r != -ENOSYS)
		return r;

	/* room for one entry of the longest name (255 bytes) */
	uint64_t buf[(sizeof(struct dirent64) + 256 + 7) / 8 + 1];
	uint64_t pos;

	r = seek_to(fd, 0, &pos, SEEK_CUR);
	if (r < 0)
		return r;
	r = stub_syscall(NR_getdents64, fd, (long)buf, sizeof buf, 0, 0, 0);
	if (r <= 0)
		return r; /* 0: the end, as old_readdir says it */

	const struct dirent64 *e = (const struct dirent64 *)buf;
	uint32_t n = (uint32_t)str_len(e->d_name);

	/* as the kernel's; an offset past 32 bits (qemu on a 64-bit host
	 * gets ext4's 64-bit hashes) is only shown cut, the seek keeps it */
	if (e->d_ino != (uint32_t)e->d_ino)
		return -EOVERFLOW;
	d->d_ino = (uint32_t)e->d_ino;
	d->d_offset = (uint32_t)pos;
	d->d_namlen = (uint16_t)n;
	memcpy(d->d_name, e->d_name, n + 1);
	/* getdents64 may have read more entries: the next call starts after this one */
	seek_to(fd, (uint64_t)e->d_off, &pos, SEEK_SET);
	return 1;
}
