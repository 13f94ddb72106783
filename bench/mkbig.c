/*
 * mkbig: write a valid Linux i386 a.out executable of exactly SIZE bytes,
 * for the conversion-throughput measurements of `make bench`.
 *
 *	mkbig -m qmagic|omagic SIZE OUT
 *
 * The header is the one testdata/mkaout writes (machine 100, no symbols,
 * no relocations); the text is zeros except for the code at the entry
 * point, "movl $1, %eax; xorl %ebx, %ebx; int $0x80" (exit(0)), so the
 * program also runs once converted.
 *
 *  qmagic  SIZE a multiple of 4096, at least 4096: the header is the first
 *          32 bytes of the text page at 0x1000, entry 0x1020; a_data is
 *          4096 when SIZE is at least 8192 (else 0), a_text the rest.
 *  omagic  SIZE at least 64: header, then the text from file offset 32 at
 *          address 0 (entry 0), a_text = SIZE - 32 rounded down to 4, and
 *          the rest (0 to 3 bytes) as data.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096u
#define OMAGIC 0407u
#define QMAGIC 0314u
#define M_386 100u

static const unsigned char exit0[] = {
	0xb8, 0x01, 0x00, 0x00, 0x00, /* movl $1, %eax */
	0x31, 0xdb,                   /* xorl %ebx, %ebx */
	0xcd, 0x80,                   /* int $0x80 */
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void __attribute__((noreturn)) fail(const char *what, const char *why)
{
	fprintf(stderr, "mkbig: %s: %s\n", what, why);
	exit(1);
}

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr, "usage: mkbig -m qmagic|omagic SIZE OUT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned magic;
	char *end;

	if (argc != 5 || strcmp(argv[1], "-m"))
		usage();
	if (!strcmp(argv[2], "qmagic"))
		magic = QMAGIC;
	else if (!strcmp(argv[2], "omagic"))
		magic = OMAGIC;
	else
		usage();
	errno = 0;
	unsigned long long size = strtoull(argv[3], &end, 0);
	if (errno || *end || end == argv[3] || size > (1ull << 30))
		fail(argv[3], "not a size up to 1 GiB");

	uint32_t a_text, a_data, entry;
	size_t code_off; /* file offset of the entry code */

	if (magic == QMAGIC) {
		if (size < PAGE || size % PAGE)
			fail(argv[3], "a QMAGIC size is a multiple of 4096");
		a_data = size >= 2 * PAGE ? PAGE : 0;
		a_text = (uint32_t)size - a_data;
		entry = 0x1020;
		code_off = 32;
	} else {
		if (size < 64)
			fail(argv[3], "an OMAGIC size is at least 64");
		a_text = (uint32_t)((size - 32) & ~3ull);
		a_data = (uint32_t)(size - 32 - a_text);
		entry = 0;
		code_off = 32;
	}

	unsigned char *buf = calloc(1, (size_t)size);
	if (!buf)
		fail(argv[4], "out of memory");
	put32(buf + 0, magic | M_386 << 16);
	put32(buf + 4, a_text);
	put32(buf + 8, a_data);
	put32(buf + 12, 0); /* a_bss */
	put32(buf + 16, 0); /* a_syms */
	put32(buf + 20, entry);
	memcpy(buf + code_off, exit0, sizeof exit0);

	int fd = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		fail(argv[4], strerror(errno));
	for (size_t done = 0; done < size;) {
		ssize_t w = write(fd, buf + done, (size_t)size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			fail(argv[4], w < 0 ? strerror(errno) : "short write");
		done += (size_t)w;
	}
	if (close(fd) < 0)
		fail(argv[4], strerror(errno));
	free(buf);
	return 0;
}
