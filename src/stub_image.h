/* The runtime stub, linked at STUB_BASE, as bytes (src/stub_image.c is generated). */
#ifndef AOUT2ELF_STUB_IMAGE_H
#define AOUT2ELF_STUB_IMAGE_H

#include <stddef.h>

extern const unsigned char stub_image[];
extern const size_t stub_image_size;

#endif
