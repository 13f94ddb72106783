/*
 * mkaout: turn a static i386 ELF executable, linked at the addresses the
 * kernel's a.out loader used (testdata/aout-*.ld), into a Linux a.out
 * executable, for the end-to-end tests of aout2elf.
 *
 *	mkaout -m omagic|nmagic|zmagic|qmagic [-s] IN.elf OUT
 *	mkaout -m zmagic|qmagic -l [-s] IN.elf OUT
 *
 * -s writes a symbol table (struct nlist) and string table after the data;
 * without it the a.out is stripped (a_syms 0, nothing after the data).
 *
 * -l writes an a.out shared library ("jump table" library, as uselib(2)
 * and load_aout_library loaded it) instead of an executable: its image
 * starts at BASE, the page the lowest ELF section is in (the library's
 * linker script, testdata/aout-lib.ld, links it at its fixed address),
 * instead of 0x1000 or 0.  QMAGIC: the header is at BASE, the code from
 * BASE + 32, a_entry is BASE + 32; ZMAGIC: the text from file offset 1024
 * at BASE, a_entry is BASE (load_aout_library wants it page aligned).
 * Data follows at BASE + a_text, bss at BASE + a_text + a_data, as for
 * the executables; the ELF entry point is not used.
 *
 * The file it writes, by magic (N_TXTADDR/N_DATADDR/N_BSSADDR as in the
 * kernel's <linux/a.out.h>):
 *
 *  QMAGIC 0314: header at file offset 0, mapped at 0x1000 with the text,
 *	so the code starts at 0x1020; a_text (header included) and a_data are
 *	multiples of 4096; data at 0x1000 + a_text, file offset a_text.
 *  ZMAGIC 0413: header zero-padded to 1024; text from file offset 1024 at
 *	address 0; a_text and a_data multiples of 4096; data at a_text.
 *  NMAGIC 0410: text from file offset 32 at address 0, a_text padded to a
 *	multiple of 4096 (data is copied right after it, at a_text); a_data
 *	exact.
 *  OMAGIC 0407: text from file offset 32 at address 0, a_text the 4-aligned
 *	end of the text; data right after it; a_data exact.
 *
 * For all, bss starts at N_BSSADDR = N_DATADDR + a_data and a_bss is what
 * reaches from there to the ELF's _end (0 when the ELF bss fits in the
 * padding of the data).  The brk at entry is N_BSSADDR + a_bss: when the
 * ELF has a 4-byte data object aout_expected_brk, mkaout stores that value
 * in it.
 *
 * ELF sections are taken by their flags: allocated and not writable is
 * text, writable with contents is data, SHT_NOBITS is bss.  Every one must
 * lie where its a.out segment goes; mkaout says so and fails otherwise.
 */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The format written out here again, not taken from src/aout_format.h: a
 * fixture builder that shared the reader's definitions would share its
 * mistakes, and the tests could not see them.
 */
#define OMAGIC 0407
#define NMAGIC 0410
#define ZMAGIC 0413
#define QMAGIC 0314
#define M_386 100

#define HDR_SIZE 32u
#define NLIST_SIZE 12u
#define PAGE 4096u
#define ZMAGIC_TXTOFF 1024u

#define N_UNDF 0x00
#define N_EXT 0x01
#define N_ABS 0x02
#define N_TEXT 0x04
#define N_DATA 0x06
#define N_BSS 0x08
#define N_FN 0x1f

#define BRK_SYMBOL "aout_expected_brk"

/* Nothing a fixture needs comes near this; it bounds every buffer. */
#define MAX_IMAGE (256u * 1024 * 1024)

struct buf {
	unsigned char *p;
	size_t len, cap;
};

struct job {
	const char *in, *out;
	char *tmp; /* OUT.tmp while writing */
	int fd;
	Elf *elf;
	unsigned char *text, *data; /* images, zero-filled */
	struct buf syms, strs;
};

static struct job job = { .fd = -1 };

static void cleanup(void)
{
	if (job.tmp) {
		unlink(job.tmp);
		free(job.tmp);
		job.tmp = NULL;
	}
	if (job.elf)
		elf_end(job.elf);
	job.elf = NULL;
	if (job.fd >= 0)
		close(job.fd);
	job.fd = -1;
	free(job.text);
	free(job.data);
	free(job.syms.p);
	free(job.strs.p);
	job.text = job.data = job.syms.p = job.strs.p = NULL;
}

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	fputs("mkaout: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cleanup();
	exit(1);
}

static void __attribute__((noreturn)) fail_elf(const char *what)
{
	fail("%s: %s: %s", job.in, what, elf_errmsg(-1));
}

static void __attribute__((noreturn)) usage(void)
{
	fail("usage: mkaout -m omagic|nmagic|zmagic|qmagic [-l] [-s] IN.elf OUT");
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > MAX_IMAGE)
		fail("%s: symbol or string table too large", job.in);
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		unsigned char *q = realloc(b->p, cap);
		if (!q)
			fail("out of memory");
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void *zalloc(uint64_t n)
{
	void *p = calloc(1, n ? (size_t)n : 1);
	if (!p)
		fail("out of memory");
	return p;
}

static int parse_magic(const char *s, unsigned *magic)
{
	static const struct {
		const char *name;
		unsigned magic;
	} t[] = {
		{ "omagic", OMAGIC }, { "nmagic", NMAGIC },
		{ "zmagic", ZMAGIC }, { "qmagic", QMAGIC },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (!strcmp(s, t[i].name)) {
			*magic = t[i].magic;
			return 0;
		}
	}
	return -1;
}

enum kind { K_NONE, K_TEXT, K_DATA, K_BSS };

static enum kind section_kind(const GElf_Shdr *sh)
{
	if (!(sh->sh_flags & SHF_ALLOC) || sh->sh_size == 0)
		return K_NONE;
	if (sh->sh_type == SHT_NOBITS)
		return K_BSS;
	if (sh->sh_flags & SHF_WRITE)
		return K_DATA;
	return K_TEXT;
}

static const char *section_name(size_t shstrndx, const GElf_Shdr *sh)
{
	const char *n = elf_strptr(job.elf, shstrndx, sh->sh_name);
	return n ? n : "?";
}

/* Copy the contents of section scn into image, which starts at base. */
static void copy_section(Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			 unsigned char *image, uint64_t base, uint64_t size)
{
	Elf_Data *d = NULL;

	if (sh->sh_addr < base || sh->sh_addr + sh->sh_size > base + size)
		fail("%s: section %s [0x%llx, 0x%llx) is outside its a.out segment [0x%llx, 0x%llx)",
		     job.in, name, (unsigned long long)sh->sh_addr,
		     (unsigned long long)(sh->sh_addr + sh->sh_size),
		     (unsigned long long)base, (unsigned long long)(base + size));
	while ((d = elf_getdata(scn, d)) != NULL) {
		if (!d->d_buf || d->d_size == 0)
			continue;
		if ((uint64_t)d->d_off + d->d_size > sh->sh_size)
			fail("%s: section %s: data beyond its size", job.in, name);
		memcpy(image + (sh->sh_addr - base) + (uint64_t)d->d_off, d->d_buf, d->d_size);
	}
	if (elf_errno())
		fail_elf("elf_getdata");
}

static uint8_t nlist_type(const GElf_Sym *sym)
{
	uint8_t type;
	int bind = GELF_ST_BIND(sym->st_info);

	if (GELF_ST_TYPE(sym->st_info) == STT_FILE)
		return N_FN;
	if (sym->st_shndx == SHN_ABS) {
		type = N_ABS;
	} else if (sym->st_shndx == SHN_UNDEF || sym->st_shndx == SHN_COMMON) {
		type = N_UNDF;
	} else {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(job.elf, sym->st_shndx == SHN_XINDEX ? 0 : sym->st_shndx);
		if (!scn || !gelf_getshdr(scn, &sh))
			type = N_ABS;
		else if (!(sh.sh_flags & SHF_ALLOC))
			type = N_ABS;
		else if (sh.sh_flags & SHF_EXECINSTR)
			type = N_TEXT;
		else if (sh.sh_type == SHT_NOBITS)
			type = N_BSS;
		else if (sh.sh_flags & SHF_WRITE)
			type = N_DATA;
		else
			type = N_TEXT; /* read-only data lives in the a.out text */
	}
	if (bind == STB_GLOBAL || bind == STB_WEAK)
		type |= N_EXT;
	return type;
}

/* Build job.syms and job.strs from .symtab; returns the number of symbols. */
static size_t build_symbols(void)
{
	Elf_Scn *scn = NULL;
	size_t count = 0;
	unsigned char size4[4] = { 0 };

	buf_add(&job.strs, size4, 4); /* total size, filled in below */
	while ((scn = elf_nextscn(job.elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			fail_elf("gelf_getshdr");
		if (sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			fail_elf("elf_getdata(.symtab)");
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			unsigned char e[NLIST_SIZE];
			const char *name;
			uint32_t strx = 0;
			int type;

			if (!gelf_getsym(d, (int)i, &sym))
				fail_elf("gelf_getsym");
			type = GELF_ST_TYPE(sym.st_info);
			if (type == STT_SECTION)
				continue;
			name = elf_strptr(job.elf, sh.sh_link, sym.st_name);
			if (name && *name) {
				strx = (uint32_t)job.strs.len;
				buf_add(&job.strs, name, strlen(name) + 1);
			}
			put32(e, strx);
			e[4] = nlist_type(&sym);
			e[5] = 0; /* n_other */
			put16(e + 6, 0); /* n_desc */
			put32(e + 8, type == STT_FILE ? 0 : (uint32_t)sym.st_value);
			buf_add(&job.syms, e, NLIST_SIZE);
			count++;
		}
	}
	put32(job.strs.p, (uint32_t)job.strs.len);
	return count;
}

static void write_all(int fd, const void *p, size_t n)
{
	const unsigned char *q = p;
	while (n) {
		ssize_t w = write(fd, q, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			fail("%s: %s", job.tmp, strerror(errno));
		}
		q += w;
		n -= (size_t)w;
	}
}

/*
 * Visits every symbol named name in the symbol table; 0 when there is
 * none (a stripped input).
 */
static size_t for_each_symbol(const char *name,
			      void (*visit)(const GElf_Sym *sym, void *ctx),
			      void *ctx)
{
	Elf_Scn *s = NULL;
	size_t found = 0;

	while ((s = elf_nextscn(job.elf, s)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh))
			fail_elf("gelf_getshdr");
		if (sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		if (!d)
			fail_elf("elf_getdata(.symtab)");
		for (size_t k = 1; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)k, &sym))
				fail_elf("gelf_getsym");
			const char *n = elf_strptr(job.elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name)) {
				visit(&sym, ctx);
				found++;
			}
		}
	}
	return found;
}

struct end_ctx {
	uint64_t alloc_hi, end;
};

/* _end, if global, must not be below the end of the sections. */
static void visit_end(const GElf_Sym *sym, void *ctx)
{
	struct end_ctx *c = ctx;

	if (GELF_ST_BIND(sym->st_info) == STB_LOCAL)
		return;
	if (sym->st_value < c->alloc_hi)
		fail("%s: _end 0x%llx is below the end of the sections 0x%llx",
		     job.in, (unsigned long long)sym->st_value,
		     (unsigned long long)c->alloc_hi);
	c->end = sym->st_value;
}

struct brk_ctx {
	uint64_t dataddr, data_hi, brk;
};

/* aout_expected_brk: a uint32_t in initialised data, patched with brk. */
static void visit_brk(const GElf_Sym *sym, void *ctx)
{
	struct brk_ctx *c = ctx;

	if (sym->st_value < c->dataddr || sym->st_value + 4 > c->data_hi ||
	    (sym->st_size != 0 && sym->st_size != 4))
		fail("%s: %s must be a uint32_t in initialised data", job.in, BRK_SYMBOL);
	put32(job.data + (sym->st_value - c->dataddr), (uint32_t)c->brk);
}

int main(int argc, char **argv)
{
	unsigned magic = 0;
	int with_syms = 0, have_magic = 0, library = 0;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-s")) {
			with_syms = 1;
		} else if (!strcmp(argv[i], "-l")) {
			library = 1;
		} else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
			if (parse_magic(argv[++i], &magic))
				fail("unknown magic '%s' (omagic, nmagic, zmagic or qmagic)", argv[i]);
			have_magic = 1;
		} else if (!strncmp(argv[i], "-m", 2) && argv[i][2]) {
			if (parse_magic(argv[i] + 2, &magic))
				fail("unknown magic '%s' (omagic, nmagic, zmagic or qmagic)", argv[i] + 2);
			have_magic = 1;
		} else {
			usage();
		}
	}
	if (!have_magic || argc - i != 2)
		usage();
	if (library && magic != QMAGIC && magic != ZMAGIC)
		fail("-l: a.out shared libraries are QMAGIC or ZMAGIC");
	job.in = argv[i];
	job.out = argv[i + 1];

	/* ---- read the ELF ---- */
	if (elf_version(EV_CURRENT) == EV_NONE)
		fail("libelf is out of date");
	job.fd = open(job.in, O_RDONLY);
	if (job.fd < 0)
		fail("%s: %s", job.in, strerror(errno));
	job.elf = elf_begin(job.fd, ELF_C_READ, NULL);
	if (!job.elf)
		fail_elf("elf_begin");
	if (elf_kind(job.elf) != ELF_K_ELF)
		fail("%s: not an ELF file", job.in);

	GElf_Ehdr eh;
	if (!gelf_getehdr(job.elf, &eh))
		fail_elf("gelf_getehdr");
	if (gelf_getclass(job.elf) != ELFCLASS32 || eh.e_machine != EM_386 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		fail("%s: not an i386 ELF32 file", job.in);
	if (eh.e_type != ET_EXEC)
		fail("%s: not an executable (link with -static -no-pie)", job.in);

	size_t shstrndx;
	if (elf_getshdrstrndx(job.elf, &shstrndx))
		fail_elf("elf_getshdrstrndx");

	/* ---- where text, data and bss are ---- */
	uint64_t text_hi = 0, data_lo = UINT64_MAX, data_hi = 0, bss_lo = UINT64_MAX;
	uint64_t alloc_hi = 0, text_lo = UINT64_MAX;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(job.elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			fail_elf("gelf_getshdr");
		uint64_t lo = sh.sh_addr, hi = sh.sh_addr + sh.sh_size;
		switch (section_kind(&sh)) {
		case K_NONE:
			continue;
		case K_TEXT:
			if (lo < text_lo)
				text_lo = lo;
			if (hi > text_hi)
				text_hi = hi;
			break;
		case K_DATA:
			if (lo < data_lo)
				data_lo = lo;
			if (hi > data_hi)
				data_hi = hi;
			break;
		case K_BSS:
			if (lo < bss_lo)
				bss_lo = lo;
			break;
		}
		if (hi > alloc_hi)
			alloc_hi = hi;
	}
	if (text_lo == UINT64_MAX)
		fail("%s: no text", job.in);
	if (alloc_hi > 0xC0000000u)
		fail("%s: image reaches 0x%llx, above the a.out stack", job.in,
		     (unsigned long long)alloc_hi);

	uint64_t txtaddr = magic == QMAGIC ? PAGE : 0;       /* N_TXTADDR */
	if (library)
		txtaddr = text_lo & ~(uint64_t)(PAGE - 1); /* the library's BASE */
	uint64_t code_start = txtaddr + (magic == QMAGIC ? HDR_SIZE : 0);
	if (text_lo < code_start)
		fail("%s: text starts at 0x%llx, below 0x%llx where %s code begins (wrong linker script?)",
		     job.in, (unsigned long long)text_lo, (unsigned long long)code_start,
		     magic == QMAGIC ? "QMAGIC" : "a.out");
	/* load_aout_library mapped a library anywhere (SLS's libemu lay at
	 * 0x10000000); below 64 KiB is where every program's text is */
	if (library && (txtaddr < 0x10000u || alloc_hi > 0x80000000u))
		fail("%s: a library at 0x%llx-0x%llx is outside [0x10000, 0x80000000)",
		     job.in, (unsigned long long)txtaddr, (unsigned long long)alloc_hi);

	uint64_t a_text;
	if (magic == OMAGIC)
		a_text = round_up(text_hi - txtaddr, 4);
	else
		a_text = round_up(text_hi - txtaddr, PAGE);
	uint64_t dataddr = txtaddr + a_text; /* N_DATADDR */

	if (data_lo == UINT64_MAX) {
		data_lo = data_hi = dataddr;
	} else if (magic == OMAGIC ? data_lo != dataddr : data_lo < dataddr) {
		fail("%s: data starts at 0x%llx, but %s data goes at 0x%llx (wrong linker script?)",
		     job.in, (unsigned long long)data_lo, magic == OMAGIC ? "OMAGIC" : "this magic's",
		     (unsigned long long)dataddr);
	}
	if (bss_lo != UINT64_MAX && bss_lo < dataddr)
		fail("%s: bss starts at 0x%llx, inside the text", job.in, (unsigned long long)bss_lo);

	uint64_t a_data = data_hi - dataddr;
	if (magic == ZMAGIC || magic == QMAGIC)
		a_data = round_up(a_data, PAGE);
	uint64_t bssaddr = dataddr + a_data; /* N_BSSADDR */

	/* _end from the symbol table, if there is one */
	struct end_ctx endc = { alloc_hi, alloc_hi };
	for_each_symbol("_end", visit_end, &endc);
	uint64_t end = endc.end;
	uint64_t a_bss = end > bssaddr ? end - bssaddr : 0;
	uint64_t brk = bssaddr + a_bss;

	if (a_text > MAX_IMAGE || a_data > MAX_IMAGE || a_bss > 0xC0000000u)
		fail("%s: segments too large", job.in);
	uint64_t entry = library ? code_start : eh.e_entry;
	if (entry < code_start || entry >= txtaddr + a_text)
		fail("%s: entry 0x%llx is outside the text", job.in,
		     (unsigned long long)entry);

	/* ---- the images ---- */
	job.text = zalloc(a_text);
	job.data = zalloc(a_data);
	scn = NULL;
	while ((scn = elf_nextscn(job.elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			fail_elf("gelf_getshdr");
		const char *name = section_name(shstrndx, &sh);
		switch (section_kind(&sh)) {
		case K_TEXT:
			copy_section(scn, &sh, name, job.text, txtaddr, a_text);
			break;
		case K_DATA:
			copy_section(scn, &sh, name, job.data, dataddr, a_data);
			break;
		default:
			break;
		}
	}

	/* aout_expected_brk */
	struct brk_ctx brkc = { dataddr, data_hi, brk };
	int patched = (int)for_each_symbol(BRK_SYMBOL, visit_brk, &brkc);
	if (patched > 1)
		fail("%s: %s is defined more than once", job.in, BRK_SYMBOL);

	/* ---- header and symbols ---- */
	size_t nsyms = with_syms ? build_symbols() : 0;
	unsigned char hdr[HDR_SIZE];
	put32(hdr + 0, magic | (uint32_t)M_386 << 16);
	put32(hdr + 4, (uint32_t)a_text);
	put32(hdr + 8, (uint32_t)a_data);
	put32(hdr + 12, (uint32_t)a_bss);
	put32(hdr + 16, (uint32_t)(nsyms * NLIST_SIZE));
	put32(hdr + 20, (uint32_t)entry);
	put32(hdr + 24, 0);
	put32(hdr + 28, 0);

	/* ---- write OUT.tmp, then rename ---- */
	job.tmp = malloc(strlen(job.out) + 5);
	if (!job.tmp)
		fail("out of memory");
	strcpy(job.tmp, job.out);
	strcat(job.tmp, ".tmp");
	int ofd = open(job.tmp, O_WRONLY | O_CREAT | O_TRUNC, 0777);
	if (ofd < 0) {
		int e = errno;
		free(job.tmp);
		job.tmp = NULL;
		fail("%s.tmp: %s", job.out, strerror(e));
	}
	if (magic == QMAGIC) {
		/* the header is the first 32 bytes of the text page */
		memcpy(job.text, hdr, HDR_SIZE);
	} else {
		write_all(ofd, hdr, HDR_SIZE);
		if (magic == ZMAGIC) {
			unsigned char pad[ZMAGIC_TXTOFF - HDR_SIZE] = { 0 };
			write_all(ofd, pad, sizeof pad);
		}
	}
	write_all(ofd, job.text, (size_t)a_text);
	write_all(ofd, job.data, (size_t)a_data);
	if (with_syms) {
		if (job.syms.len)
			write_all(ofd, job.syms.p, job.syms.len);
		write_all(ofd, job.strs.p, job.strs.len);
	}
	if (close(ofd) < 0)
		fail("%s: %s", job.tmp, strerror(errno));
	if (rename(job.tmp, job.out) < 0)
		fail("%s: %s", job.out, strerror(errno));
	free(job.tmp);
	job.tmp = NULL;
	cleanup();
	return 0;
}
