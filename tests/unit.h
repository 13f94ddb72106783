/*
 * Shared pieces of the CUnit unit tests: suite registration, assertions
 * that show the values they compared (CUnit's own only show the
 * expression), and (helpers/files.h) temporary folders and whole files.
 */
#ifndef AOUT2ELF_TESTS_UNIT_H
#define AOUT2ELF_TESTS_UNIT_H

#include <stdint.h>

#include <CUnit/CUnit.h>

#include "diag.h"
#include "helpers/files.h"

struct unit_test {
	const char *name;
	CU_TestFunc fn;
};

#define UNIT_TEST(f) { #f, f }
#define UNIT_END { NULL, NULL }

/* 0, or -1 after printing why the suite could not be registered. */
int unit_add_suite(const char *name, CU_InitializeFunc init,
		   CU_CleanupFunc cleanup, const struct unit_test *tests);

/* The suites: each file registers its own. */
int unit_aout_register(void);
int unit_plan_register(void);
int unit_elfwrite_register(void);
int unit_output_register(void);
int unit_libs_register(void);
int unit_libs_search_register(void);
int unit_inroot_register(void);
int unit_batch_register(void);
int unit_oom_register(void);
int unit_shared_libs_register(void);
int unit_syscall_sites_register(void);
int unit_filecap_register(void);
int unit_record_register(void);
int unit_sha256_register(void);
int unit_info_register(void);
int unit_hint_register(void);

/*
 * A struct lib (libs.h) filled in by hand, as libs_resolve would have
 * found the library image g at path (NULL: not found, the rest left 0):
 * parsed as AOUT_SHLIB, start, len and bss_len as uselib maps it.  g must
 * outlive l; 0, or -1 when g does not parse.  unit_lib_release frees what
 * the parse allocated (never path).
 */
struct lib;
struct aoutgen;
int unit_lib_fill(struct lib *l, const char *name, char *path,
		  const struct aoutgen *g);
void unit_lib_release(struct lib *l);

/* Assertions that put the compared values into the failure report. */
CU_BOOL unit_check_u64(uint64_t got, uint64_t want, const char *expr,
		       unsigned line, const char *file, const char *func);
CU_BOOL unit_check_str(const char *got, const char *want, const char *expr,
		       unsigned line, const char *file, const char *func);
CU_BOOL unit_check_has(const char *got, const char *sub, const char *expr,
		       unsigned line, const char *file, const char *func);

/* got == want, unsigned integers up to 64 bits */
#define CHECK_U(got, want) \
	unit_check_u64((uint64_t)(got), (uint64_t)(want), #got " == " #want, \
		       __LINE__, __FILE__, __func__)
/* strcmp(got, want) == 0; NULL fails */
#define CHECK_STR(got, want) \
	unit_check_str((got), (want), #got " equals " #want, __LINE__, \
		       __FILE__, __func__)
/* the diag message, exactly */
#define CHECK_MSG(d, want) \
	unit_check_str((d)->msg, (want), "diag message", __LINE__, __FILE__, \
		       __func__)
/* the diag message contains sub */
#define CHECK_MSG_HAS(d, sub) \
	unit_check_has((d)->msg, (sub), "diag message", __LINE__, __FILE__, \
		       __func__)

#endif
