/* a.out images with libentries for the unit tests: see libimg.h. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "files.h"
#include "libimg.h"

#define PAGE 4096u
#define PAGE_UP(x) (((uint64_t)(x) + PAGE - 1) & ~(uint64_t)(PAGE - 1))

void img_zero_data(struct img *m)
{
	memset(m->g.buf + m->g.data_off, 0, m->data_size);
	m->next = m->data_size / 2; /* libentries below, strings above */
	m->tools = 0;
}

void img_program(struct img *m, unsigned magic, uint32_t text, uint32_t data)
{
	struct aoutgen_spec s;

	memset(m, 0, sizeof *m);
	aoutgen_default(&s, magic);
	s.text = text;
	s.data = data;
	s.entry = magic == AOUT_QMAGIC ? 0x1020 : 0;
	aoutgen_build(&s, &m->g);
	m->data_size = data;
	m->data_addr = magic == AOUT_QMAGIC ? (uint32_t)PAGE_UP(0x1000 + text) :
					      text;
	img_zero_data(m);
}

void img_qprogram(struct img *m)
{
	img_program(m, AOUT_QMAGIC, 0x2000, 0x1000);
}

void img_library(struct img *m, uint32_t start, uint32_t version)
{
	struct aoutgen_spec s;

	memset(m, 0, sizeof *m);
	aoutgen_library(&s, start);
	aoutgen_build(&s, &m->g);
	m->data_size = s.data;
	m->data_addr = start + s.text;
	img_zero_data(m);
	aoutgen_put32(&m->g, m->g.text_off + (JUMP(start) - start), version);
}

uint32_t img_str(struct img *m, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off = m->next;

	aoutgen_put_bytes(&m->g, m->g.data_off + off, s, n);
	m->next += (uint32_t)((n + 3) & ~(size_t)3);
	return m->data_addr + off;
}

void img_entry_at(struct img *m, uint32_t off, uint32_t name, uint32_t tools,
		  uint32_t jump, uint32_t version)
{
	size_t o = m->g.data_off + off;

	aoutgen_put32(&m->g, o, name);
	aoutgen_put32(&m->g, o + 4, tools);
	aoutgen_put32(&m->g, o + 8, jump);
	aoutgen_put32(&m->g, o + 12, version);
}

uint32_t img_tools(struct img *m)
{
	if (!m->tools)
		m->tools = img_str(m, TOOLS);
	return m->tools;
}

void img_need(struct img *m, unsigned slot, const char *name, uint32_t jump,
	      uint32_t version)
{
	uint32_t tools = img_tools(m);

	img_entry_at(m, 16 * slot, img_str(m, name), tools, jump, version);
}

int img_parse(struct img *m, enum aout_kind kind)
{
	struct diag d = { "" };
	int rc = aout_parse_kind(m->g.buf, m->g.size, kind, &m->a, &d);

	if (rc) {
		CU_FAIL("the test image does not parse");
		fprintf(stderr, "img_parse: %s\n", d.msg);
		return -1;
	}
	m->parsed = 1;
	return 0;
}

void img_free(struct img *m)
{
	if (m->parsed)
		aout_free(&m->a);
	aoutgen_free(&m->g);
	memset(m, 0, sizeof *m);
}

char *img_write(const struct img *m, const char *dir, const char *name)
{
	char *path = unit_path(dir, name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	CU_ASSERT_EQUAL(unit_write_file(path, m->g.buf, m->g.size, 0644), 0);
	return path;
}

