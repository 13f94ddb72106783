/* SHA-256 (FIPS 180-4), for the .comment record of the input's bytes. */
#ifndef AOUT2ELF_SHA256_H
#define AOUT2ELF_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_HEX 65 /* 64 hex digits and the NUL */

/* The digest of buf[0..size) as lowercase hex into hex. */
void sha256_hex(const uint8_t *buf, size_t size, char hex[SHA256_HEX]);

#endif
