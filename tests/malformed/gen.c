/*
 * tests/malformed/gen DIR: writes the crafted a.out files of the
 * malformed-file suite (tests/malformed.sh) into DIR, one file per line of
 * tests/malformed/expected.txt, and prints their names on stdout.
 *
 * Every case starts from a valid base program of one of the four kinds,
 * built here byte by byte (no fixture, no compiler), and then either
 *
 *   - is rebuilt with one layout value changed (the file stays consistent:
 *     these are the edge values that must convert, "OK" in the table), or
 *   - gets one header word or one byte range overwritten, or is cut short,
 *     without moving anything else (the file now lies: these must fail
 *     with exactly the message in the table).
 *
 * Base programs (sizes in bytes):
 *
 *   QMAGIC  a_text 4096 (the 32-byte header included), a_data 4096,
 *           a_bss 4096, a_entry 0x1020, 3 symbols, string table of 23
 *           bytes; file 8251 bytes: text at 0, data at 4096, symbols at
 *           8192, string table at 8228
 *   ZMAGIC  same sizes, a_entry 0x10, text at file offset 1024
 *   NMAGIC, OMAGIC  same sizes, a_entry 0x10, text at file offset 32
 *
 * A case NAME that needs an a.out shared library also gets a folder
 * NAME.lib holding libx.so.1; the test passes it with -L.  Its program is
 * the QMAGIC base with a libentry for libx.so.1 (version 1.0.0, jump
 * table at 0x60000020) at the start of its data.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OMAGIC 0407
#define NMAGIC 0410
#define ZMAGIC 0413
#define QMAGIC 0314
#define M_386 100

/* byte offsets of the header words */
enum { H_INFO = 0, H_TEXT = 4, H_DATA = 8, H_BSS = 12, H_SYMS = 16,
       H_ENTRY = 20, H_TRSIZE = 24, H_DRSIZE = 28 };

#define PAGE 4096u
#define MAXSYMS 4

struct sym {
	uint32_t strx;
	uint8_t type;
	uint32_t value;
};

/* A consistent a.out: build() lays it out exactly as the header says. */
struct layout {
	unsigned magic, machine, flags;
	uint32_t text, data, bss, entry;
	size_t nsyms;
	struct sym syms[MAXSYMS];
	int strtab;               /* write a string table */
	const char *strs;         /* its bytes after the size word */
	size_t strs_len;
	int libentry;             /* a libentry for libx.so.1 in data */
	size_t pad;               /* bytes (0xee) after everything */
};

struct img {
	uint8_t *b;
	size_t n;
};

static const char *outdir;

static void die(const char *what)
{
	fprintf(stderr, "gen: %s: %s\n", what, strerror(errno));
	exit(99);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t text_off(unsigned magic)
{
	return magic == ZMAGIC ? 1024 : magic == QMAGIC ? 0 : 32;
}

/* the program's data address (N_DATADDR, or text end for O/NMAGIC) */
static uint32_t data_addr(const struct layout *l)
{
	uint32_t t = l->magic == QMAGIC ? PAGE : 0;

	if (l->magic == OMAGIC || l->magic == NMAGIC)
		return t + l->text;
	return (t + l->text + PAGE - 1) & ~(PAGE - 1);
}

/* "_start", "_main", "_data": the base string table after its size word */
static const char base_strs[] = "_start\0_main\0_data";
#define BASE_STRS_LEN sizeof base_strs /* 19, the last NUL included */

static struct layout base(unsigned magic)
{
	struct layout l = { 0 };

	l.magic = magic;
	l.machine = M_386;
	l.text = PAGE;
	l.data = PAGE;
	l.bss = PAGE;
	l.entry = magic == QMAGIC ? 0x1020 : 0x10;
	l.nsyms = 3;
	l.syms[0] = (struct sym){ 4, 0x05, l.entry };      /* _start, N_TEXT|N_EXT */
	l.syms[1] = (struct sym){ 11, 0x05, l.entry + 4 }; /* _main */
	l.syms[2] = (struct sym){ 17, 0x07, data_addr(&l) }; /* _data, N_DATA|N_EXT */
	l.strtab = 1;
	l.strs = base_strs;
	l.strs_len = BASE_STRS_LEN;
	return l;
}

static struct img build(const struct layout *l)
{
	uint32_t toff = text_off(l->magic);
	size_t symsz = l->nsyms * 12;
	size_t strsz = l->strtab ? 4 + l->strs_len : 0;
	size_t n = toff + l->text + l->data + symsz + strsz + l->pad;
	struct img im;

	im.n = n;
	im.b = calloc(n ? n : 1, 1);
	if (!im.b)
		die("calloc");
	uint8_t *h = im.b; /* the header: at 0 for every kind */
	put32(h + H_INFO, l->magic | l->machine << 16 | (uint32_t)l->flags << 24);
	put32(h + H_TEXT, l->text);
	put32(h + H_DATA, l->data);
	put32(h + H_BSS, l->bss);
	put32(h + H_SYMS, (uint32_t)symsz);
	put32(h + H_ENTRY, l->entry);

	/* text: 0x90 (nop) filler, exit(0) at the entry */
	uint32_t tstart = toff + (l->magic == QMAGIC ? 32 : 0);
	memset(im.b + tstart, 0x90, toff + l->text - tstart);
	static const uint8_t exit0[] = { 0xb8, 1, 0, 0, 0, 0x31, 0xdb, 0xcd, 0x80 };
	uint32_t tbase = l->magic == QMAGIC ? PAGE : 0;
	if (l->entry >= tbase && l->entry - tbase + sizeof exit0 <= l->text &&
	    toff + (l->entry - tbase) >= tstart)
		memcpy(im.b + toff + (l->entry - tbase), exit0, sizeof exit0);

	/* data: a byte pattern, or a libentry */
	uint8_t *d = im.b + toff + l->text;
	for (uint32_t i = 0; i < l->data; i++)
		d[i] = (uint8_t)(0x40 + i % 61);
	if (l->libentry) {
		uint32_t da = data_addr(l);

		memset(d, 0, 0x200);
		put32(d + 0, da + 0x100);   /* name */
		put32(d + 4, da + 0x120);   /* tools version */
		put32(d + 8, 0x60000020);   /* jump table */
		put32(d + 12, 0x00010000);  /* version 1.0.0 */
		strcpy((char *)d + 0x100, "libx.so.1");
		strcpy((char *)d + 0x120, "tools-2.11");
	}

	uint8_t *s = d + l->data;
	for (size_t i = 0; i < l->nsyms; i++, s += 12) {
		put32(s, l->syms[i].strx);
		s[4] = l->syms[i].type;
		put32(s + 8, l->syms[i].value);
	}
	if (l->strtab) {
		put32(s, (uint32_t)strsz);
		memcpy(s + 4, l->strs, l->strs_len);
		s += strsz;
	}
	memset(s, 0xee, l->pad);
	return im;
}

/* where the parts of a build(l) image are */
static size_t sym_off(const struct layout *l)
{
	return text_off(l->magic) + l->text + l->data;
}

static size_t str_off(const struct layout *l)
{
	return sym_off(l) + l->nsyms * 12;
}

static void set_hdr(struct img *im, unsigned field, uint32_t v)
{
	put32(im->b + field, v);
}

static void set_word(struct img *im, size_t off, uint32_t v)
{
	if (off + 4 > im->n) {
		fprintf(stderr, "gen: word at %zu outside the image\n", off);
		exit(99);
	}
	put32(im->b + off, v);
}

static void cut(struct img *im, size_t n)
{
	if (n > im->n) {
		fprintf(stderr, "gen: cut at %zu beyond %zu\n", n, im->n);
		exit(99);
	}
	im->n = n;
}

static void write_file(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		die(path);
	if (n && fwrite(b, 1, n, f) != n)
		die(path);
	if (fclose(f))
		die(path);
}

static char *path_of(const char *name)
{
	size_t n = strlen(outdir) + strlen(name) + 2;
	char *p = malloc(n);

	if (!p)
		die("malloc");
	snprintf(p, n, "%s/%s", outdir, name);
	return p;
}

static void emit_bytes(const char *name, const void *b, size_t n)
{
	char *p = path_of(name);

	write_file(p, b, n);
	free(p);
	printf("%s\n", name);
}

static void emit(const char *name, struct img im)
{
	emit_bytes(name, im.b, im.n);
	free(im.b);
}

static struct img qbase(void)
{
	struct layout l = base(QMAGIC);
	return build(&l);
}

/* A program that needs libx.so.1, and NAME.lib/libx.so.1 = lib. */
static void emit_with_lib(const char *name, struct img lib)
{
	struct layout l = base(QMAGIC);
	char dirname[256], *dir, *file;

	l.libentry = 1;
	emit(name, build(&l));
	snprintf(dirname, sizeof dirname, "%s.lib", name);
	dir = path_of(dirname);
	if (mkdir(dir, 0755) && errno != EEXIST)
		die(dir);
	file = malloc(strlen(dir) + 16);
	if (!file)
		die("malloc");
	sprintf(file, "%s/libx.so.1", dir);
	write_file(file, lib.b, lib.n);
	free(lib.b);
	free(file);
	free(dir);
}

/* libx.so.1 version 1.0.0: text at 0x60000000, jump table at +0x20 */
static struct layout lib_layout(unsigned magic)
{
	struct layout l = { 0 };

	l.magic = magic;
	l.machine = M_386;
	l.text = PAGE;
	l.data = PAGE;
	l.entry = 0x60000000;
	if (magic == QMAGIC)
		l.entry = 0x60000020; /* as the real QMAGIC libraries have it */
	return l;
}

static struct img lib_img(const struct layout *l)
{
	struct img im = build(l);

	/* version word, first word of the jump table (0x60000020) */
	put32(im.b + text_off(l->magic) + 0x20, 0x00010000);
	return im;
}

/* "NAME" formatted, for cases generated in loops */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static const char *nm(const char *fmt, ...)
{
	static char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return buf;
}

/*
 * --big MIB FILE: a valid stripped QMAGIC program with MIB MiB of data;
 * --many-symbols N FILE: one with N symbols without names.  Both are
 * written sparse: the parts that are zeros are holes.
 */
static int big(const char *path, unsigned long mib, unsigned long nsyms)
{
	struct layout l = base(QMAGIC);
	uint8_t word[4];
	FILE *f;

	l.nsyms = 0;
	l.strtab = 0;
	struct img im = build(&l); /* header, text and the first data page */
	uint64_t data = mib ? (uint64_t)mib << 20 : PAGE;
	uint64_t symsz = (uint64_t)nsyms * 12;

	if (data > 0x7fff0000u || symsz > 0x7fff0000u) {
		fprintf(stderr, "gen: too big\n");
		return 2;
	}
	put32(im.b + H_DATA, (uint32_t)data);
	put32(im.b + H_SYMS, (uint32_t)symsz);
	f = fopen(path, "wb");
	if (!f)
		die(path);
	if (fwrite(im.b, 1, im.n, f) != im.n)
		die(path);
	if (nsyms) {
		/* holes for the symbols (all n_strx 0), then the size word 4 */
		if (fseeko(f, (off_t)(PAGE + data + symsz), SEEK_SET))
			die(path);
		put32(word, 4);
		if (fwrite(word, 1, 4, f) != 4)
			die(path);
	} else if (ftruncate(fileno(f), (off_t)(PAGE + data))) {
		die(path);
	}
	if (fclose(f))
		die(path);
	free(im.b);
	return 0;
}

/* header-field edge values */
static const uint32_t edges[] = { 0, 1, 4095, 4096, 0x80000000u, 0xffffffffu };
static const char *const edge_names[] = { "0", "1", "4095", "4096", "2p31",
					  "2p32m1" };
#define NEDGES (sizeof edges / sizeof edges[0])

int main(int argc, char **argv)
{
	struct layout l, q = base(QMAGIC);
	struct img im;

	if (argc == 4 && !strcmp(argv[1], "--big"))
		return big(argv[3], strtoul(argv[2], NULL, 0), 0);
	if (argc == 4 && !strcmp(argv[1], "--many-symbols"))
		return big(argv[3], 0, strtoul(argv[2], NULL, 0));
	if (argc != 2) {
		fprintf(stderr, "usage: gen DIR\n"
				"       gen --big MIB FILE\n"
				"       gen --many-symbols N FILE\n");
		return 2;
	}
	outdir = argv[1];
	if (mkdir(outdir, 0755) && errno != EEXIST)
		die(outdir);

	/* ---- the valid bases and legal edge values: must convert ---- */
	emit("ok-qmagic", qbase());
	l = base(ZMAGIC), emit("ok-zmagic", build(&l));
	l = base(NMAGIC), emit("ok-nmagic", build(&l));
	l = base(OMAGIC), emit("ok-omagic", build(&l));
	l = q, l.machine = 0, emit("ok-machine-0", build(&l));
	l = q, l.flags = 0xff, emit("ok-flags-255", build(&l));
	l = q, l.nsyms = 0, l.strtab = 0, emit("ok-stripped", build(&l));
	/* stripped, whatever follows is not judged */
	l = q, l.nsyms = 0, l.strtab = 0, l.pad = 100,
	emit("ok-stripped-trailing-garbage", build(&l));
	l = q, l.pad = 1, emit("ok-trailing-byte", build(&l));
	/* a_syms 0 in a file that still has its symbols and strings */
	im = qbase(), set_hdr(&im, H_SYMS, 0), emit("ok-syms-0-patched", im);
	/* the smallest QMAGIC program: its text is its header */
	l = q, l.text = 32, l.data = 0, l.bss = 0, l.entry = 0x1000, l.nsyms = 0,
	l.strtab = 0, emit("ok-q-text-32", build(&l));
	l = q, l.text = 4095, emit("ok-q-text-4095", build(&l));
	l = q, l.text = 4097, emit("ok-q-text-4097", build(&l));
	l = q, l.data = 0, l.syms[2].value = 0x2000, emit("ok-data-0", build(&l));
	l = q, l.data = 1, emit("ok-data-1", build(&l));
	l = q, l.data = 4095, emit("ok-data-4095", build(&l));
	l = q, l.bss = 0, emit("ok-bss-0", build(&l));
	l = q, l.bss = 1, emit("ok-bss-1", build(&l));
	l = q, l.bss = 4095, emit("ok-bss-4095", build(&l));
	/* brk = 0x3000 + a_bss reaches 0x80000000 exactly: still below */
	l = q, l.bss = 0x80000000u - 0x3000, emit("ok-bss-to-limit", build(&l));
	l = base(ZMAGIC), l.bss = 0x80000000u - 0x2000,
	emit("ok-z-bss-to-limit", build(&l));
	l = q, l.entry = 0x1000, emit("ok-entry-text-start", build(&l));
	l = q, l.entry = 0x1fff, emit("ok-entry-text-last", build(&l));
	l = base(ZMAGIC), l.entry = 0, emit("ok-z-entry-0", build(&l));
	l = base(ZMAGIC), l.entry = 0xfff, emit("ok-z-entry-fff", build(&l));
	l = q, l.nsyms = 1, emit("ok-one-symbol", build(&l));
	/* all names empty (n_strx 0): a string table of just its size word */
	l = q, l.syms[0].strx = l.syms[1].strx = l.syms[2].strx = 0, l.strs_len = 0,
	emit("ok-strx-0-strtab-4", build(&l));
	/* the last name is the empty string at the final NUL */
	l = q, l.syms[2].strx = 22, emit("ok-strx-last-nul", build(&l));
	l = lib_layout(QMAGIC), emit_with_lib("ok-lib-qmagic", lib_img(&l));
	l = lib_layout(ZMAGIC), emit_with_lib("ok-lib-zmagic", lib_img(&l));

	/* ---- not a.out at all ---- */
	emit_bytes("empty", "", 0);
	{
		uint8_t elf[64] = { 0x7f, 'E', 'L', 'F', 1, 1, 1 };
		elf[16] = 2, elf[18] = 3; /* ET_EXEC, EM_386 */
		emit_bytes("elf", elf, sizeof elf);
		emit_bytes("elf-magic-only", elf, 4);
		emit_bytes("elf-3-bytes", elf, 3);
	}
	emit_bytes("shell-script", "#!/bin/sh\necho hello\n", 21);
	emit_bytes("one-byte", "\314", 1);
	emit_bytes("two-bytes", "\314\0", 2);
	im = qbase(), cut(&im, 31), emit("header-31-bytes", im);
	/* big-endian QMAGIC header */
	im = qbase(), set_hdr(&im, H_INFO, 0xcc006400u), emit("magic-big-endian", im);
	for (size_t i = 0; i < NEDGES; i++) {
		/* the whole a_info word; its low 16 bits are the magic */
		im = qbase(), set_hdr(&im, H_INFO, edges[i]);
		emit(nm("info-%s", edge_names[i]), im);
	}
	im = qbase(), set_hdr(&im, H_INFO, 0x640000 | 0411),
	emit("magic-0411", im);

	/* ---- machine type ---- */
	static const unsigned machines[] = { 1, 2, 3, 99, 101, 255 };
	for (size_t i = 0; i < sizeof machines / sizeof *machines; i++) {
		im = qbase(), set_hdr(&im, H_INFO, QMAGIC | machines[i] << 16);
		emit(nm("machine-%u", machines[i]), im);
	}

	/* ---- relocation sizes ---- */
	for (size_t i = 1; i < NEDGES; i++) {
		im = qbase(), set_hdr(&im, H_TRSIZE, edges[i]);
		emit(nm("trsize-%s", edge_names[i]), im);
		im = qbase(), set_hdr(&im, H_DRSIZE, edges[i]);
		emit(nm("drsize-%s", edge_names[i]), im);
	}
	l = base(OMAGIC);
	im = build(&l), set_hdr(&im, H_TRSIZE, 8), set_hdr(&im, H_DRSIZE, 16);
	emit("omagic-object-file", im);

	/* ---- a_text: QMAGIC text holds the header ---- */
	for (size_t i = 0; i < NEDGES; i++) {
		if (edges[i] == 4096)
			continue; /* the base */
		im = qbase(), set_hdr(&im, H_TEXT, edges[i]);
		emit(nm("q-text-%s", edge_names[i]), im);
	}
	im = qbase(), set_hdr(&im, H_TEXT, 31), emit("q-text-31", im);
	/* text 0 of the other kinds: the entry cannot be inside */
	l = base(ZMAGIC), im = build(&l), set_hdr(&im, H_TEXT, 0);
	emit("z-text-0", im);
	l = base(OMAGIC), im = build(&l), set_hdr(&im, H_TEXT, 0);
	emit("o-text-0", im);
	l = base(NMAGIC), im = build(&l), set_hdr(&im, H_TEXT, 0x80000000u);
	emit("n-text-2p31", im);

	/* ---- a_data ---- */
	im = qbase(), set_hdr(&im, H_DATA, 0x80000000u), emit("q-data-2p31", im);
	im = qbase(), set_hdr(&im, H_DATA, 0xffffffffu), emit("q-data-2p32m1", im);
	im = qbase(), set_hdr(&im, H_DATA, 4097 + 36 + 23),
	emit("q-data-one-too-many", im);

	/* ---- a_bss: the image must end at or below 0x80000000 ---- */
	im = qbase(), set_hdr(&im, H_BSS, 0x80000000u - 0x3000 + 1),
	emit("q-bss-past-limit", im);
	im = qbase(), set_hdr(&im, H_BSS, 0x80000000u), emit("q-bss-2p31", im);
	im = qbase(), set_hdr(&im, H_BSS, 0xffffffffu), emit("q-bss-2p32m1", im);
	/* N_BSSADDR + a_bss wraps to exactly 0 in 32 bits */
	im = qbase(), set_hdr(&im, H_BSS, 0xffffd000u), emit("q-bss-wraps-32", im);
	l = base(ZMAGIC), im = build(&l), set_hdr(&im, H_BSS, 0x80000000u - 0x2000 + 1);
	emit("z-bss-past-limit", im);
	l = base(OMAGIC), im = build(&l), set_hdr(&im, H_BSS, 0x7ffff000u);
	emit("o-bss-past-limit", im);
	l = base(NMAGIC), im = build(&l), set_hdr(&im, H_BSS, 0xffffffffu);
	emit("n-bss-2p32m1", im);

	/* ---- a_entry: inside text only ---- */
	static const uint32_t qentries[] = { 0, 1, 0xfff, 0x2000, 0x2020,
					     0x80000000u, 0xffffffffu };
	for (size_t i = 0; i < sizeof qentries / sizeof *qentries; i++) {
		im = qbase(), set_hdr(&im, H_ENTRY, qentries[i]);
		emit(nm("q-entry-0x%x", qentries[i]), im);
	}
	l = base(ZMAGIC), im = build(&l), set_hdr(&im, H_ENTRY, 0x1000);
	emit("z-entry-0x1000", im);
	l = base(NMAGIC), im = build(&l), set_hdr(&im, H_ENTRY, 0x1000);
	emit("n-entry-0x1000", im);
	l = base(OMAGIC), im = build(&l), set_hdr(&im, H_ENTRY, 0xffffffffu);
	emit("o-entry-0xffffffff", im);

	/* ---- a_syms ---- */
	static const uint32_t symsz[] = { 1, 11, 13, 35, 37, 4095, 4096,
					  0x80000000u, 0xffffffffu };
	for (size_t i = 0; i < sizeof symsz / sizeof *symsz; i++) {
		im = qbase(), set_hdr(&im, H_SYMS, symsz[i]);
		emit(nm("syms-%u", symsz[i]), im);
	}

	/* ---- truncation at every boundary of the QMAGIC base (8251 bytes) ---- */
	static const size_t qcuts[] = { 32, 33, 4095, 4096, 4097, 8191, 8192,
					8200, 8227 };
	for (size_t i = 0; i < sizeof qcuts / sizeof *qcuts; i++) {
		im = qbase(), cut(&im, qcuts[i]);
		emit(nm("cut-q-%zu", qcuts[i]), im);
	}
	/* the string table: size word, then the strings */
	im = qbase(), cut(&im, str_off(&q)), emit("cut-q-before-size-word", im);
	im = qbase(), cut(&im, str_off(&q) + 2), emit("cut-q-half-size-word", im);
	im = qbase(), cut(&im, str_off(&q) + 4), emit("cut-q-after-size-word", im);
	im = qbase(), cut(&im, str_off(&q) + 12), emit("cut-q-mid-strings", im);
	im = qbase(), cut(&im, im.n - 1), emit("cut-q-last-nul", im);
	/* ZMAGIC: the header page, then text at 1024 */
	static const size_t zcuts[] = { 32, 512, 1023, 1024, 5120 };
	for (size_t i = 0; i < sizeof zcuts / sizeof *zcuts; i++) {
		l = base(ZMAGIC), im = build(&l), cut(&im, zcuts[i]);
		emit(nm("cut-z-%zu", zcuts[i]), im);
	}
	l = base(NMAGIC), im = build(&l), cut(&im, 4128), emit("cut-n-4128", im);
	l = base(OMAGIC), im = build(&l), cut(&im, 32), emit("cut-o-32", im);
	l = base(OMAGIC), im = build(&l), cut(&im, str_off(&l) + 3);
	emit("cut-o-in-size-word", im);

	/* ---- sums that overflow 32 bits ---- */
	/* 0xfffff000 + 0x2000 = 0x1000 in 32 bits */
	im = qbase(), set_hdr(&im, H_TEXT, 0xfffff000u), set_hdr(&im, H_DATA, 0x2000);
	emit("sum-text-data-wraps", im);
	/* text + data + syms = 2^32 + 37: 37 in 32 bits, less than the file */
	im = qbase(), set_hdr(&im, H_DATA, 0xfffff001u), emit("sum-data-syms-wraps", im);
	im = qbase(), set_hdr(&im, H_TEXT, 0xffffffffu), set_hdr(&im, H_DATA, 0xffffffffu),
	set_hdr(&im, H_SYMS, 0xfffffff0u), emit("sum-all-huge", im);
	l = base(ZMAGIC), im = build(&l), set_hdr(&im, H_TEXT, 0xfffffc00u);
	emit("sum-z-txtoff-text-wraps", im); /* 1024 + a_text = 2^32 */
	/* N_STROFF + string table size wraps to 10 in 32 bits */
	im = qbase(), set_word(&im, str_off(&q), (uint32_t)(0x100000000ull - str_off(&q) + 10));
	emit("sum-strtab-wraps", im);

	/* ---- the string table's size word ---- */
	static const uint32_t strsizes[] = { 0, 1, 3, 4, 22, 24, 4095, 4096,
					     0x80000000u, 0xffffffffu };
	for (size_t i = 0; i < sizeof strsizes / sizeof *strsizes; i++) {
		im = qbase(), set_word(&im, str_off(&q), strsizes[i]);
		emit(nm("strsize-%u", strsizes[i]), im);
	}
	/* symbols but no string table at all */
	l = q, l.strtab = 0, emit("no-strtab", build(&l));
	/* the last name has no NUL: the table ends one byte early */
	l = q, l.strs_len = BASE_STRS_LEN - 1, emit("unterminated-last-name", build(&l));
	/* a table without any NUL after the size word */
	l = q, l.strs = "_start_main_data", l.strs_len = 16, l.syms[1].strx = 10,
	l.syms[2].strx = 15, emit("unterminated-all-names", build(&l));

	/* ---- n_strx ---- */
	static const uint32_t strxs[] = { 1, 3, 23, 24, 4095, 4096, 0x80000000u,
					  0xffffffffu };
	for (size_t i = 0; i < sizeof strxs / sizeof *strxs; i++) {
		im = qbase(), set_word(&im, sym_off(&q), strxs[i]);
		emit(nm("strx-%u", strxs[i]), im);
	}
	/* the third symbol, so that the index in the message is checked */
	im = qbase(), set_word(&im, sym_off(&q) + 24, 23), emit("strx-sym2-23", im);
	im = qbase(), set_word(&im, sym_off(&q) + 12, 2), emit("strx-sym1-2", im);

	/*
	 * 70000 symbols, every one named by the same 64 KiB string, and as
	 * many more each starting one byte further into it: legal, and not
	 * 9 GiB of names in the output (each name copied per symbol).
	 */
	{
		enum { NSYMS = 140000, NAME = 65536 };
		size_t symoff = PAGE + PAGE, stroff = symoff + 12u * NSYMS;
		struct img big = { calloc(stroff + 4 + NAME + 1, 1), stroff + 4 + NAME + 1 };

		if (!big.b)
			die("calloc");
		put32(big.b + H_INFO, QMAGIC | M_386 << 16);
		set_hdr(&big, H_TEXT, PAGE);
		set_hdr(&big, H_DATA, PAGE);
		set_hdr(&big, H_SYMS, 12u * NSYMS);
		set_hdr(&big, H_ENTRY, 0x1020);
		for (size_t i = 0; i < NSYMS; i++) {
			uint8_t *n = big.b + symoff + 12 * i;

			put32(n, 4 + (i < NSYMS / 2 ? 0 : (uint32_t)(i - NSYMS / 2) % NAME));
			n[4] = 0x05; /* N_TEXT | N_EXT */
			put32(n + 8, 0x1020);
		}
		put32(big.b + stroff, 4 + NAME + 1);
		memset(big.b + stroff + 4, 'a', NAME);
		emit("ok-names-shared", big);
	}

	/* ---- shared libraries (passed with -L NAME.lib) ---- */
	l = lib_layout(OMAGIC), emit_with_lib("lib-omagic", lib_img(&l));
	l = lib_layout(NMAGIC), emit_with_lib("lib-nmagic", lib_img(&l));
	l = lib_layout(ZMAGIC), l.entry = 0x60000020;
	emit_with_lib("lib-zmagic-entry-unaligned", lib_img(&l));
	l = lib_layout(QMAGIC), l.flags = 1;
	emit_with_lib("lib-flags-1", lib_img(&l));
	l = lib_layout(QMAGIC), l.flags = 0xff;
	emit_with_lib("lib-flags-255", lib_img(&l));
	emit_with_lib("lib-empty", (struct img){ calloc(1, 1), 0 });
	l = lib_layout(QMAGIC), im = lib_img(&l), cut(&im, 4096);
	emit_with_lib("lib-truncated", im);
	l = lib_layout(QMAGIC), im = lib_img(&l), set_hdr(&im, H_TRSIZE, 4);
	emit_with_lib("lib-relocations", im);
	l = lib_layout(QMAGIC), l.machine = 7;
	emit_with_lib("lib-machine-7", lib_img(&l));
	/* the library's image, bss included, must end at or below 0x80000000 */
	l = lib_layout(QMAGIC), l.bss = 0x20000000u - 0x2000;
	emit_with_lib("ok-lib-bss-to-limit", lib_img(&l));
	l = lib_layout(QMAGIC), l.bss = 0x20000000u - 0x2000 + 1;
	emit_with_lib("lib-bss-past-limit", lib_img(&l));
	l = lib_layout(QMAGIC), l.bss = 0xfffff000u;
	emit_with_lib("lib-bss-0xfffff000", lib_img(&l));
	/* text + data + bss rounded up is 2^32 + 0x2000 */
	l = lib_layout(QMAGIC), l.bss = 0xfffff001u;
	emit_with_lib("lib-bss-0xfffff001", lib_img(&l));
	l = lib_layout(QMAGIC), l.bss = 0xffffffffu;
	emit_with_lib("lib-bss-2p32m1", lib_img(&l));

	if (fflush(stdout))
		die("stdout");
	return 0;
}
