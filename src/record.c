/*
 * The .comment record of a converted program read back: its version and
 * options, the a.out it was made from, the libraries it carries; and the
 * dates in it, ISO 8601 in UTC, or the seconds of older records.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfwrite.h"
#include "record.h"

void record_time_iso(char out[RECORD_TIME_MAX], const struct timespec *t)
{
	struct tm tm;
	time_t sec = t->tv_sec;

	if (!gmtime_r(&sec, &tm)) {
		snprintf(out, RECORD_TIME_MAX, "%lld.%09ld", (long long)t->tv_sec,
			 (long)t->tv_nsec);
		return;
	}
	snprintf(out, RECORD_TIME_MAX, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (long)t->tv_nsec);
}

/* exactly n decimal digits at s, into *v */
static int digits(const char *s, int n, long *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

size_t record_time_parse(const char *s, struct timespec *t)
{
	long y, mo, d, h, mi, sec, nsec;
	struct tm tm = { 0 };

	/* YYYY-MM-DDTHH:MM:SS.NNNNNNNNNZ, 30 bytes */
	if (!digits(s, 4, &y) && s[4] == '-' && !digits(s + 5, 2, &mo) &&
	    s[7] == '-' && !digits(s + 8, 2, &d) && s[10] == 'T' &&
	    !digits(s + 11, 2, &h) && s[13] == ':' && !digits(s + 14, 2, &mi) &&
	    s[16] == ':' && !digits(s + 17, 2, &sec) && s[19] == '.' &&
	    !digits(s + 20, 9, &nsec) && s[29] == 'Z') {
		if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
		    sec > 60)
			return 0;
		tm.tm_year = (int)y - 1900;
		tm.tm_mon = (int)mo - 1;
		tm.tm_mday = (int)d;
		tm.tm_hour = (int)h;
		tm.tm_min = (int)mi;
		tm.tm_sec = (int)sec;
		t->tv_sec = timegm(&tm);
		t->tv_nsec = nsec;
		return 30;
	}
	/* SEC.NSEC: what aout2elf 1.0 wrote */
	long long ss;
	int end = -1;

	if (sscanf(s, "%lld.%9ld%n", &ss, &nsec, &end) != 2 || end < 0 || nsec < 0 ||
	    s[0] < '0' || s[0] > '9')
		return 0;
	t->tv_sec = (time_t)ss;
	t->tv_nsec = nsec;
	return (size_t)end;
}

void record_from_write(char *out, size_t cap, const char *format, uint64_t size,
		       const char sha256[SHA256_HEX])
{
	snprintf(out, cap, RECORD_FROM "%s (%llu bytes, sha256 %s)", format,
		 (unsigned long long)size, sha256);
}

int record_from_parse(const char *s, struct record_from *f)
{
	unsigned long long size;
	int end = -1;

	_Static_assert(sizeof f->format == 8, "the %7[A-Za-z] below fills format");
	_Static_assert(SHA256_HEX == 65, "the %64[0-9a-f] below fills sha256");
	if (sscanf(s, RECORD_FROM "%7[A-Za-z] (%llu bytes, sha256 %64[0-9a-f])%n",
		   f->format, &size, f->sha256, &end) != 3 ||
	    end < 0 || s[end] || strlen(f->sha256) != 64 ||
	    strncmp(s, RECORD_FROM, strlen(RECORD_FROM)) != 0)
		return -1;
	f->size = size;
	return 0;
}

/* "aout2elf VERSION" or "aout2elf VERSION (OPTIONS)" */
static int parse_head(const char *head, struct record *r)
{
	static const char name[] = "aout2elf ";
	const char *v = head + strlen(name), *sp;
	size_t vlen;

	if (strncmp(head, name, strlen(name)) != 0)
		return -1;
	sp = strchr(v, ' ');
	vlen = sp ? (size_t)(sp - v) : strlen(v);
	if (!vlen || vlen >= sizeof r->version)
		return -1;
	memcpy(r->version, v, vlen);
	r->version[vlen] = 0;
	if (!sp)
		return 0;
	size_t olen = strlen(sp + 2);

	if (sp[1] != '(' || olen < 2 || sp[2 + olen - 1] != ')' ||
	    olen - 1 >= sizeof r->options)
		return -1;
	memcpy(r->options, sp + 2, olen - 1);
	r->options[olen - 1] = 0;
	return 0;
}

int record_parse(const char *c, size_t size, struct record *r)
{
	memset(r, 0, sizeof *r);
	if (!size || c[size - 1] || parse_head(c, r))
		goto bad;
	for (size_t at = strlen(c) + 1; at < size; at += strlen(c + at) + 1) {
		const char *s = c + at;

		if (!strncmp(s, RECORD_FROM, strlen(RECORD_FROM)) && !r->has_from &&
		    r->nlibs == 0) {
			if (record_from_parse(s, &r->from))
				goto bad;
			r->has_from = 1;
		} else if (r->nlibs == STUB_MAX_LIBS ||
			   conv_embeds_parse(s, &r->libs[r->nlibs++])) {
			goto bad;
		}
	}
	return 0;
bad:
	record_free(r);
	return -1;
}

void record_free(struct record *r)
{
	for (size_t i = 0; i < r->nlibs; i++)
		free(r->libs[i].path);
	memset(r, 0, sizeof *r);
}

int record_read(const char *path, struct record *r)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	size_t size = 0;
	char *c;
	int rc;

	memset(r, 0, sizeof *r);
	if (fd < 0)
		return -1;
	if (!elfw_is_converted(fd)) {
		close(fd);
		return -1;
	}
	c = elfw_read_comment(fd, &size);
	close(fd);
	rc = c && record_parse(c, size, r) == 0 ? 0 : 1;
	free(c);
	return rc;
}
