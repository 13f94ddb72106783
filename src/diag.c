#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

/* Returns -1 so that callers can write "return diag_set(...)". */
int diag_set(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return -1;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof d->msg, fmt, ap);
	va_end(ap);
	return -1;
}
