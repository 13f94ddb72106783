/*
 * selfstatus: what the process holds once the a.out code runs, for the
 * file-capability test (tests/e2e-caps.sh).  Prints /proc/self/status
 * (its Cap* lines), then for each argument:
 *   ioperm  "ioperm: 0", or "ioperm: -ERRNO": whether it may reach the
 *           parallel port as the Jaguar SDK's debuggers did (CAP_SYS_RAWIO)
 *   wait    reads standard input until its end, so that the test can look
 *           at the running process from outside (/proc/PID, ptrace)
 * Exit status 0, or 1 if /proc/self/status cannot be read.
 */
#include "fixture.h"

#define SYS_ioperm 101

int fixture_main(uint32_t *entry_sp)
{
	uint32_t argc = entry_sp[0];
	char **argv = (char **)entry_sp[1];
	static char buf[4096];
	long fd = sys3(SYS_open, (long)"/proc/self/status", 0, 0), n;

	if (fd < 0)
		return 1;
	while ((n = sys3(SYS_read, fd, (long)buf, sizeof buf)) > 0)
		sys_write(1, buf, (size_t)n);
	sys1(SYS_close, fd);
	for (uint32_t i = 1; i < argc; i++)
		if (fx_streq(argv[i], "ioperm")) {
			long r = sys3(SYS_ioperm, 0x378, 3, 1);

			fx_puts(1, r < 0 ? "ioperm: -" : "ioperm: ");
			fx_putdec(1, (uint32_t)(r < 0 ? -r : r));
			fx_puts(1, "\n");
		} else if (fx_streq(argv[i], "wait")) {
			while (sys3(SYS_read, 0, (long)buf, sizeof buf) > 0)
				;
		}
	return 0;
}
