/* fuzz_access: libFuzzer driver for the access checks (Host, Origin, token,
 * loopback), the token= strip and the request target encoder, each against
 * a plain restatement of what access.h promises. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "access.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TOKEN "s3cret"

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_access: %s: '%s'\n", what, detail);
	abort();
}

/* The next '\n'-separated part of the input, NUL-terminated (up to its
 * first NUL, as a header lws hands over would be). */
static char *part(const uint8_t **p, const uint8_t *end, size_t *rawlen)
{
	const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n = (size_t)((nl ? nl : end) - *p);
	char *s = malloc(n + 1);

	memcpy(s, *p, n);
	s[n] = '\0';
	*rawlen = n;
	*p = nl ? nl + 1 : end;
	return s;
}

/* Host: accepted only when empty, or its name (before ':', or inside [])
 * is an IP literal, localhost or the allowed name. */
static void check_host(const char *host, const struct access_list *allow)
{
	char name[300];
	unsigned char a[16];
	size_t n;

	if (!access_host_ok(host, allow) || !*host)
		return;
	if (host[0] == '[') {
		n = strcspn(host + 1, "]");
		snprintf(name, sizeof name, "%.*s", (int)(n < 299 ? n : 299), host + 1);
		if (inet_pton(AF_INET6, name, a) != 1)
			fail("host_ok accepted a bracketed non-IPv6", host);
		return;
	}
	n = strcspn(host, ":");
	if (n >= sizeof name)
		fail("host_ok accepted a name of 300 bytes or more", host);
	snprintf(name, sizeof name, "%.*s", (int)n, host);
	if (inet_pton(AF_INET, name, a) != 1 && strcasecmp(name, "localhost") &&
	    strcasecmp(name, "proxy.lan"))
		fail("host_ok accepted a name that is not an IP, localhost or allowed", host);
}

/* The arguments of q ('&'-separated, n '&' make n + 1) but token= ones,
 * joined by '&' again. */
static char *expected_strip(const char *q)
{
	char *out = malloc(strlen(q) + 1), *w = out;
	int kept = 0;

	for (const char *p = q; ; ) {
		const char *amp = strchr(p, '&');
		size_t n = amp ? (size_t)(amp - p) : strlen(p);
		if (!(n >= 6 && !memcmp(p, "token=", 6))) {
			if (kept++)
				*w++ = '&';
			memcpy(w, p, n);
			w += n;
		}
		if (!amp)
			break;
		p = amp + 1;
	}
	*w = '\0';
	return out;
}

/* Does q hold the argument "token=TOKEN" exactly? */
static int has_token_arg(const char *q)
{
	for (const char *p = q; ; ) {
		size_t n = strcspn(p, "&");
		if (n == strlen("token=" TOKEN) && !memcmp(p, "token=" TOKEN, n))
			return 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static int unhex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* access_encode: only safe ASCII and %XX come out, and decoding them gives
 * the input back, byte for byte. */
static void check_encode(const char *in, size_t n, int query)
{
	size_t cap = n * 3 + 1, len, d = 0;
	char *out = malloc(cap);
	unsigned char *back = malloc(n + 1);

	len = access_encode(in, n, query, out, cap);
	if (len == (size_t)-1 || len != strlen(out))
		fail("encode failed with room for 3 bytes each", in);
	if (n && access_encode(in, n, query, out, len) != (size_t)-1)
		fail("encode claims to fit a buffer one byte short", in);
	len = access_encode(in, n, query, out, cap);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)out[i];
		if (c == '%') {
			int hi = i + 2 < len ? unhex(out[i + 1]) : -1;
			int lo = i + 2 < len ? unhex(out[i + 2]) : -1;
			if (hi < 0 || lo < 0)
				fail("encode wrote a bad %XX", out);
			back[d++] = (unsigned char)(hi << 4 | lo);
			i += 2;
			continue;
		}
		if (c <= ' ' || c >= 0x7f || strchr("&#+;%\"<>\\^`{|}[]", c) || (!query && c == '?'))
			fail("encode let a byte through that changes how the target reads", out);
		back[d++] = c;
	}
	if (d != n || memcmp(back, in, n))
		fail("encoded target does not decode to the input", in);
	free(back);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct access_list hosts, origins;
	const uint8_t *p = data, *end = data + size;
	size_t hl, ol, al, ql, pl;
	char *host, *origin, *auth, *query, *path, *copy, *want;

	if (!hosts.n) {
		access_add(&hosts, "proxy.lan");
		access_add(&origins, "http://ok.test");
	}
	host = part(&p, end, &hl);
	origin = part(&p, end, &ol);
	auth = part(&p, end, &al);
	query = part(&p, end, &ql);
	path = (char *)p;   /* the rest, NULs and all */
	pl = (size_t)(end - p);

	check_host(host, &hosts);
	if (access_origin_ok(origin, "127.0.0.1:9223", &origins) != (!*origin || !strcmp(origin, "http://ok.test") ||
							   !strcmp(origin, "http://127.0.0.1:9223")))
		fail("origin_ok disagrees with: empty or exactly the allowed one", origin);
	{
		unsigned char a[16];
		static const unsigned char v6_loopback[16] = { [15] = 1 };
		int want_lb = !strcasecmp(host, "localhost") ||
			      (inet_pton(AF_INET, host, a) == 1 && a[0] == 127) ||
			      (inet_pton(AF_INET6, host, a) == 1 && !memcmp(a, v6_loopback, 16));
		if (access_is_loopback(host) != want_lb)
			fail("is_loopback disagrees with: localhost, 127/8 or ::1", host);
	}
	{
		int bearer = !strncasecmp(auth, "Bearer ", 7) && !strcmp(auth + 7, TOKEN);
		if (access_token_ok(TOKEN, auth, query) != (bearer || has_token_arg(query)))
			fail("token_ok disagrees with: Bearer TOKEN or an argument token=TOKEN", query);
	}
	{
		int want_arg = ql < 6 || memcmp(query, "token=", 6) ? 0 :
			       ql == 6 + strlen(TOKEN) && !memcmp(query + 6, TOKEN, strlen(TOKEN)) ? 1 : -1;
		if (access_token_arg(TOKEN, query, ql) != want_arg)
			fail("token_arg disagrees with: 0 no token=, 1 token=TOKEN exactly, -1 else", query);
	}
	copy = strdup(query);
	want = expected_strip(query);
	if (access_strip_token(copy) != strlen(want) || strcmp(copy, want))
		fail("strip did not keep exactly the arguments but token= ones, in order", query);
	free(want);
	free(copy);

	check_encode(path, pl, 0);
	check_encode(path, pl, 1);
	check_encode(query, ql, 1);

	free(query);
	free(auth);
	free(origin);
	free(host);
	return 0;
}
