/* util: allocation that aborts on failure, time, and size parsing. */
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

static void *check(void *p, size_t n)
{
	if (!p && n) {
		fprintf(stderr, "cdpproxy: out of memory allocating %zu bytes\n", n);
		abort();
	}
	return p;
}

void *xmalloc(size_t n) { return check(malloc(n ? n : 1), n); }
void *xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1), n * size); }
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1), n); }
char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

size_t util_copy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
	return n;
}

char *util_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (n + 65536 > cap)
			buf = xrealloc(buf, cap = cap * 2 + 65536);
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t util_now_us(void) { return clock_ns(CLOCK_REALTIME) / 1000u; }
uint64_t util_mono_us(void) { return clock_ns(CLOCK_MONOTONIC) / 1000u; }
uint64_t util_mono_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

int util_parse_hostport(const char *flag, const char *s, char *host, size_t hostlen, int *port,
			char *err, size_t errlen)
{
	const char *colon = strrchr(s, ':');
	char *end;
	long p;

	if (!colon || colon == s || (size_t)(colon - s) >= hostlen) {
		snprintf(err, errlen, "%s wants HOST:PORT, not '%s'", flag, s);
		return -1;
	}
	p = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || p < 0 || p > 65535) {
		snprintf(err, errlen, "%s: '%s' is not a port number", flag, colon + 1);
		return -1;
	}
	if (s[0] == '[' && colon[-1] == ']' && colon - s > 2)   /* [v6]:port */
		snprintf(host, hostlen, "%.*s", (int)(colon - s - 2), s + 1);
	else
		snprintf(host, hostlen, "%.*s", (int)(colon - s), s);
	*port = (int)p;
	return 0;
}

int util_parse_long(const char *flag, const char *s, long lo, long hi, long *out, char *err,
		    size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		if (hi == LONG_MAX)
			snprintf(err, errlen, "%s wants a number of at least %ld, not '%s'", flag, lo, s);
		else
			snprintf(err, errlen, "%s wants a number from %ld to %ld, not '%s'", flag, lo, hi,
				 s);
		return -1;
	}
	*out = v;
	return 0;
}

int util_parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	static const struct { const char *suffix; uint64_t mult; } units[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1ull << 10 }, { "kb", 1ull << 10 }, { "kib", 1ull << 10 },
		{ "m", 1ull << 20 }, { "mb", 1ull << 20 }, { "mib", 1ull << 20 },
		{ "g", 1ull << 30 }, { "gb", 1ull << 30 }, { "gib", 1ull << 30 },
	};
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s || *s < '0' || *s > '9') {
		snprintf(err, errlen, "'%s' is not a size (e.g. 1048576, 64KiB, 256MiB)", s ? s : "");
		return -1;
	}
	v = strtoull(s, &end, 10);
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (errno || v > UINT64_MAX / units[i].mult)
			break;
		*out = v * units[i].mult;
		return 0;
	}
	snprintf(err, errlen, "'%s' is not a size (e.g. 1048576, 64KiB, 256MiB)", s);
	return -1;
}

long util_send_some(int fd, const void *p, size_t len)
{
	ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n >= 0)
		return (long)n;
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, nothing past U+10FFFF), or 0 when it is not one. */
size_t util_utf8_seq(const unsigned char *p, size_t left)
{
	unsigned char c = p[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

json_t *util_json_bytes(const void *p, size_t n)
{
	static const char replacement[] = "\xef\xbf\xbd";   /* U+FFFD */
	const unsigned char *s = p;
	size_t i = 0, w = 0, k;
	char *out;
	json_t *j;

	while (i < n && (k = util_utf8_seq(s + i, n - i)))
		i += k;
	if (i == n)   /* the usual case: valid already */
		return json_stringn_nocheck(n ? p : "", n);
	out = xmalloc(n * 3 + 1);   /* each bad byte becomes 3 */
	memcpy(out, s, i);
	w = i;
	while (i < n) {
		if ((k = util_utf8_seq(s + i, n - i))) {
			memcpy(out + w, s + i, k);
			w += k;
			i += k;
		} else {
			memcpy(out + w, replacement, 3);
			w += 3;
			i++;
		}
	}
	j = json_stringn_nocheck(out, w);
	free(out);
	return j;
}

json_t *util_json_str(const char *s)
{
	return s ? util_json_bytes(s, strlen(s)) : json_string("");
}
