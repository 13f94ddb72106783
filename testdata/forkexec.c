/*
 * forkexec PATH: forks; the child execs PATH with the arguments
 * "PATH child" and the same environment; the parent waits for it and exits
 * with the child's exit status (128 + the signal if it was killed).  It
 * prints nothing itself unless something fails.
 *
 * Its own statuses: 120 = no PATH given, 121 = fork failed, 122 = waitpid
 * failed, 126 = execve failed (from the child).
 */
#include "fixture.h"

int fixture_main(uint32_t *entry_sp)
{
	uint32_t argc = entry_sp[0];
	char **argv = (char **)entry_sp[1];
	char **envp = (char **)entry_sp[2];

	if (argc < 2) {
		fx_puts(2, "usage: forkexec PATH\n");
		return 120;
	}
	long pid = sys_fork();
	if (pid < 0) {
		fx_puts(2, "forkexec: fork failed: ");
		fx_putdec(2, (uint32_t)-pid);
		fx_puts(2, "\n");
		return 121;
	}
	if (pid == 0) {
		char *cargv[3] = { argv[1], "child", NULL };
		long r = sys_execve(argv[1], cargv, envp);
		fx_puts(2, "forkexec: execve ");
		fx_puts(2, argv[1]);
		fx_puts(2, " failed: ");
		fx_putdec(2, (uint32_t)-r);
		fx_puts(2, "\n");
		sys_exit(126);
	}
	int status = 0;
	long w;
	do
		w = sys_waitpid(pid, &status, 0);
	while (w == -4); /* EINTR */
	if (w != pid) {
		fx_puts(2, "forkexec: waitpid failed: ");
		fx_putdec(2, (uint32_t)-w);
		fx_puts(2, "\n");
		return 122;
	}
	if (FX_WIFEXITED(status))
		return FX_WEXITSTATUS(status) + 0;
	fx_puts(2, "forkexec: child killed by signal ");
	fx_putdec(2, (uint32_t)FX_WTERMSIG(status));
	fx_puts(2, "\n");
	return 128 + FX_WTERMSIG(status);
}
