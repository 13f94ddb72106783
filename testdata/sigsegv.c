/*
 * sigsegv: installs its own SIGSEGV handler (rt_sigaction, SA_SIGINFO,
 * its own sa_restorer), writes to the unmapped address 0x7f000000, and the
 * handler prints "caught SIGSEGV" and exits 42.
 *
 * Other statuses: 1 = rt_sigaction failed, 2 = the write did not fault,
 * 43 = the handler got the wrong signal number or fault address.
 */
#include "fixture.h"

#define TARGET 0x7f000000u

static void handler(int sig, void *info, void *uctx)
{
	const struct k_siginfo *si = info;

	(void)uctx;
	if (sig != SIGSEGV || !si || si->si_signo != SIGSEGV || si->si_addr != TARGET) {
		fx_puts(2, "sigsegv: handler got signal ");
		fx_putdec(2, (uint32_t)sig);
		fx_puts(2, " for address ");
		fx_puthex(2, si ? si->si_addr : 0);
		fx_puts(2, ", expected 11 for 0x7f000000\n");
		sys_exit(43);
	}
	fx_puts(1, "caught SIGSEGV\n");
	sys_exit(42);
}

int fixture_main(uint32_t *entry_sp)
{
	struct k_sigaction sa;

	(void)entry_sp;
	memset(&sa, 0, sizeof sa);
	sa.handler = handler;
	sa.flags = SA_SIGINFO | SA_RESTORER;
	sa.restorer = fixture_rt_sigreturn;
	long r = sys_rt_sigaction(SIGSEGV, &sa, NULL);
	if (r != 0) {
		fx_puts(2, "sigsegv: rt_sigaction failed: ");
		fx_putdec(2, (uint32_t)-r);
		fx_puts(2, "\n");
		return 1;
	}
	*(volatile uint32_t *)TARGET = 1;
	fx_puts(2, "sigsegv: writing to 0x7f000000 did not fault\n");
	return 2;
}
