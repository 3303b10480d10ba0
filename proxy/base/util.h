/* util: allocation that aborts on failure, time, size parsing, and a
 * non-blocking send. */
#ifndef CDPPROXY_UTIL_H
#define CDPPROXY_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Copies src into dst (size bytes), cut to fit, always NUL-terminated: for
 * the hot path, where snprintf's format parsing shows in profiles. */
size_t util_copy(char *dst, const char *src, size_t size);

/* Reads a whole file into a new buffer (NUL-terminated, *len without the
 * NUL); NULL with "cannot read PATH: reason" in err. */
char *util_read_file(const char *path, size_t *len, char *err, size_t errlen);

/* Offers len bytes to a non-blocking socket: returns how many it took (0
 * when it is full or interrupted), or -1 on an error. No SIGPIPE. */
long util_send_some(int fd, const void *p, size_t len);

/* Microseconds: wall clock since the epoch, and a monotonic clock; and the
 * monotonic clock in nanoseconds. */
uint64_t util_now_us(void);
uint64_t util_mono_us(void);
uint64_t util_mono_ns(void);

/* Splits "HOST:PORT" (flag names the option in err's "FLAG wants HOST:PORT"):
 * host (hostlen bytes) and a port 0 to 65535. 0, or -1 with a reason in err. */
int util_parse_hostport(const char *flag, const char *s, char *host, size_t hostlen, int *port,
			char *err, size_t errlen);

/* A whole number from lo to hi (flag names the option in err's "FLAG wants a
 * number ..."; hi LONG_MAX: no upper bound). 0, or -1 with a reason in err. */
int util_parse_long(const char *flag, const char *s, long lo, long hi, long *out, char *err,
		    size_t errlen);

/* Parses "256MiB", "32M", "1048576", "64k" into bytes (k/K/KiB = 1024, ...).
 * Returns 0, or -1 with a reason in err. */
int util_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);
/* The largest message size cdpproxy's --max-message and the wrapper's
 * CDPPROXY_MAX_MESSAGE take: Chrome sends at most 256 MiB, and a buffer of
 * the size plus a read must be one the machine could hold. */
#define UTIL_MAX_MESSAGE_LIMIT (4ull << 30)
#define UTIL_MAX_MESSAGE_LIMIT_TEXT "4GiB"

/* The length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, nothing past U+10FFFF; left bytes there), or 0. */
size_t util_utf8_seq(const unsigned char *p, size_t left);
/* A JSON string of any n bytes, never NULL: each byte sequence that is not
 * valid UTF-8 becomes U+FFFD, NUL bytes stay (jansson keeps the length).
 * For every JSON built from what a client, Chrome or a file sent. */
json_t *util_json_bytes(const void *p, size_t n);
/* The same for a NUL-terminated string (NULL gives ""). */
json_t *util_json_str(const char *s);

#endif
