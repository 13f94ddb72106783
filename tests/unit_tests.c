/*
 * The unit test program: registers the suites of each file (unit_aout.c
 * tests src/aout.c, and so on) and runs them with CUnit's basic interface
 * in verbose mode.  The exit status is 0 only if every suite initialised
 * and every assertion passed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "unit.h"

int unit_add_suite(const char *name, CU_InitializeFunc init,
		   CU_CleanupFunc cleanup, const struct unit_test *tests)
{
	CU_pSuite s = CU_add_suite(name, init, cleanup);

	if (!s) {
		fprintf(stderr, "cannot add suite %s: %s\n", name,
			CU_get_error_msg());
		return -1;
	}
	for (const struct unit_test *t = tests; t->name; t++) {
		if (!CU_add_test(s, t->name, t->fn)) {
			fprintf(stderr, "cannot add test %s/%s: %s\n", name,
				t->name, CU_get_error_msg());
			return -1;
		}
	}
	return 0;
}

CU_BOOL unit_check_u64(uint64_t got, uint64_t want, const char *expr,
		       unsigned line, const char *file, const char *func)
{
	char msg[512];

	snprintf(msg, sizeof msg, "%s (got %" PRIu64 " = 0x%" PRIx64
		 ", want %" PRIu64 " = 0x%" PRIx64 ")", expr, got, got, want, want);
	return CU_assertImplementation(got == want ? CU_TRUE : CU_FALSE, line,
				       msg, file, func, CU_FALSE);
}

CU_BOOL unit_check_str(const char *got, const char *want, const char *expr,
		       unsigned line, const char *file, const char *func)
{
	char msg[768];
	CU_BOOL ok = got && want && strcmp(got, want) == 0;

	snprintf(msg, sizeof msg, "%s (got \"%s\", want \"%s\")", expr,
		 got ? got : "(null)", want ? want : "(null)");
	return CU_assertImplementation(ok, line, msg, file, func, CU_FALSE);
}

CU_BOOL unit_check_has(const char *got, const char *sub, const char *expr,
		       unsigned line, const char *file, const char *func)
{
	char msg[768];
	CU_BOOL ok = got && sub && strstr(got, sub) != NULL;

	snprintf(msg, sizeof msg, "%s (got \"%s\", want it to contain \"%s\")",
		 expr, got ? got : "(null)", sub ? sub : "(null)");
	return CU_assertImplementation(ok, line, msg, file, func, CU_FALSE);
}

int main(void)
{
	unsigned fails, tests_failed, suites_failed, asserts, tests_run;
	CU_ErrorCode err;

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
		return 2;
	}
	if (unit_aout_register() || unit_plan_register() ||
	    unit_elfwrite_register() || unit_output_register() ||
	    unit_libs_register() || unit_libs_search_register() ||
	    unit_inroot_register() ||
	    unit_batch_register() || unit_shared_libs_register() ||
	    unit_syscall_sites_register() || unit_oom_register() ||
	    unit_filecap_register() || unit_record_register() ||
	    unit_sha256_register() || unit_info_register() ||
	    unit_hint_register()) {
		CU_cleanup_registry();
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	err = CU_basic_run_tests();
	fails = CU_get_number_of_failures();
	tests_failed = CU_get_number_of_tests_failed();
	suites_failed = CU_get_number_of_suites_failed();
	asserts = CU_get_number_of_asserts();
	tests_run = CU_get_number_of_tests_run();
	CU_cleanup_registry();
	printf("\nunit_tests: %u tests run, %u failed; %u asserts, %u failed; "
	       "%u suites failed to initialise\n", tests_run, tests_failed,
	       asserts, fails, suites_failed);
	if (err != CUE_SUCCESS || fails || tests_failed || suites_failed)
		return 1;
	return 0;
}
