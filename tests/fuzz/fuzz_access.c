/* fuzz_access: libFuzzer driver for the access checks (Host, Origin, token,
 * loopback) and the token= strip of a request target, each against a plain
 * restatement of what access.h promises. */
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

/* An argument as lws reads it: %XX decoded, but an encoded '=' made '_'. */
static size_t lws_decoded(const char *p, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		const char *h1 = i + 2 < n ? strchr(hex, p[i + 1] | 0x20) : NULL;
		const char *h2 = h1 ? strchr(hex, p[i + 2] | 0x20) : NULL;
		if (p[i] == '%' && h1 && h2 && p[i + 1] && p[i + 2]) {
			char c = (char)((h1 - hex) << 4 | (h2 - hex));
			out[w++] = c == '=' ? '_' : c;
			i += 2;
		} else {
			out[w++] = p[i];
		}
	}
	return w;
}

/* The arguments after the first '?' of t[0..n), split at '&' and ';', as
 * one string of "LEN:BYTES" each (*len its length), the token= ones (as lws
 * reads them) left out when drop_tokens. */
static char *args_of(const char *t, size_t n, int drop_tokens, size_t *len)
{
	const char *q = memchr(t, '?', n), *end = t + n;
	char *out = malloc(3 * n + 24), *dec = malloc(n + 1), *w = out;

	for (const char *p = q ? q + 1 : end; q; ) {
		const char *e = p;
		while (e < end && *e != '&' && *e != ';')
			e++;
		size_t dn = lws_decoded(p, (size_t)(e - p), dec);
		if (!(drop_tokens && dn >= 6 && !memcmp(dec, "token=", 6))) {
			w += sprintf(w, "%zu:", (size_t)(e - p));
			memcpy(w, p, (size_t)(e - p));
			w += e - p;
		}
		if (e == end)
			break;
		p = e + 1;
	}
	*len = (size_t)(w - out);
	free(dec);
	return out;
}

/* access_strip_token: the path as it was, then the arguments but token=
 * ones, byte for byte and in order; no '?' when none is left. */
static void check_strip(const char *t, size_t n)
{
	char *out = malloc(n + 1), *want, *got;
	size_t len = access_strip_token(t, n, out), wl, gl;
	const char *q = memchr(t, '?', n), *oq = memchr(out, '?', len);
	size_t path = q ? (size_t)(q - t) : n;

	if (len > n || memcmp(out, t, path) || (len > path && (!oq || (size_t)(oq - out) != path)))
		fail("strip changed the path", t);
	want = args_of(t, n, 1, &wl);
	got = args_of(out, len, 0, &gl);
	if (wl != gl || memcmp(want, got, wl))
		fail("strip did not keep exactly the arguments but token= ones, in order", t);
	if (q && !wl && len != path)
		fail("no argument left, but the '?' stayed", out);
	free(want);
	free(got);
	free(out);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct access_list hosts, origins;
	const uint8_t *p = data, *end = data + size;
	size_t hl, ol, al, ql, pl;
	char *host, *origin, *auth, *query, *path;

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
	check_strip(path, pl);

	free(query);
	free(auth);
	free(origin);
	free(host);
	return 0;
}
