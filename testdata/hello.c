/*
 * hello: the simplest a.out fixture.  Prints "hello from a.out", and
 * argv[1] on a second line when there is one; exits 0.
 */
#include "fixture.h"

int fixture_main(uint32_t *entry_sp)
{
	uint32_t argc = entry_sp[0];
	char **argv = (char **)entry_sp[1]; /* the a.out frame: argc, argv, envp */

	fx_puts(1, "hello from a.out\n");
	if (argc > 1 && argv[1]) {
		fx_puts(1, argv[1]);
		fx_puts(1, "\n");
	}
	return 0;
}
