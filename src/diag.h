/* Error reports travel up as one sentence; the command line adds "aout2elf: FILE: ". */
#ifndef AOUT2ELF_DIAG_H
#define AOUT2ELF_DIAG_H

struct diag {
	char msg[256];
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int diag_set(struct diag *d, const char *fmt, ...);

#endif
