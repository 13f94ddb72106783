/*
 * --setcap: security.capability on the output, written as setcap(8) does
 * for "cap_sys_rawio+ep" (revision 2, the format every kernel since 2.6.25
 * reads; the kernel itself turns it into revision 3 for a root that is
 * not the init namespace's).  Set on the temporary output, before it gets
 * its name, so that a refusal leaves nothing behind.
 */
#include <errno.h>
#include <string.h>
#include <sys/xattr.h>
#include <linux/capability.h>

#include "filecap.h"

_Static_assert(FILECAP_SIZE == XATTR_CAPS_SZ_2, "revision 2's size");

/* v little-endian at p: the kernel reads the xattr as __le32 words */
static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void filecap_rawio_bytes(uint8_t out[FILECAP_SIZE])
{
	memset(out, 0, FILECAP_SIZE);
	put_le32(out, VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE);
	/* data[0].permitted: capabilities 0 to 31; inheritable and the
	 * second word stay empty */
	put_le32(out + 4, 1u << CAP_SYS_RAWIO);
}

int filecap_set_rawio(int fd, struct diag *d)
{
	uint8_t value[FILECAP_SIZE];

	filecap_rawio_bytes(value);
	if (fsetxattr(fd, FILECAP_XATTR, value, sizeof value, 0) == 0)
		return 0;
	if (errno == EPERM)
		return diag_set(d, "cannot give it CAP_SYS_RAWIO (--setcap): %s; "
				   "only root (CAP_SETFCAP) can", strerror(errno));
	if (errno == EOPNOTSUPP)
		return diag_set(d, "cannot give it CAP_SYS_RAWIO (--setcap): its "
				   "file system keeps no file capabilities (%s)",
				strerror(errno));
	return diag_set(d, "cannot give it CAP_SYS_RAWIO (--setcap): %s",
			strerror(errno));
}
