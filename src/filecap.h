/*
 * --setcap: the file capability that lets an ordinary user run a converted
 * program whose image lies below vm.mmap_min_addr (the stub gives it up
 * again once the image is mapped).
 */
#ifndef AOUT2ELF_FILECAP_H
#define AOUT2ELF_FILECAP_H

#include <stdint.h>

#include "diag.h"

#define FILECAP_XATTR "security.capability"
/* VFS_CAP_REVISION_2: magic_etc, then permitted and inheritable, twice */
#define FILECAP_SIZE 20

/* The xattr's bytes for cap_sys_rawio+ep, as setcap writes them. */
void filecap_rawio_bytes(uint8_t out[FILECAP_SIZE]);

/*
 * Gives the file open at fd cap_sys_rawio+ep: 0, or -1 with *d saying why
 * (needs root; a file system that keeps no capabilities).
 */
int filecap_set_rawio(int fd, struct diag *d);

#endif
