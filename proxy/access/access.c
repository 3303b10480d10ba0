/* access: which Host and Origin headers and tokens the proxy accepts, as Chrome
 * does, and the request target it passes on. Pure. */
#include "access.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int access_add(struct access_list *l, const char *name)
{
	if (l->n == ACCESS_MAX_ALLOW)
		return -1;
	l->name[l->n++] = name;
	return 0;
}

int access_host_ok(const char *host, const struct access_list *allow)
{
	char name[256];
	unsigned char addr[16];
	size_t n;

	if (!host || !*host)
		return 1;   /* HTTP/1.0 without Host: nothing to rebind */
	if (host[0] == '[') {   /* [v6]:port */
		n = strcspn(host + 1, "]");
		if (host[1 + n] != ']' || n >= sizeof name)
			return 0;
		snprintf(name, sizeof name, "%.*s", (int)n, host + 1);
		return inet_pton(AF_INET6, name, addr) == 1;
	}
	n = strcspn(host, ":");
	if (n >= sizeof name)
		return 0;
	snprintf(name, sizeof name, "%.*s", (int)n, host);
	if (inet_pton(AF_INET, name, addr) == 1 || !strcasecmp(name, "localhost"))
		return 1;
	for (size_t i = 0; i < allow->n; i++)
		if (!strcasecmp(name, allow->name[i]))
			return 1;
	return 0;
}

int access_is_loopback(const char *addr)
{
	unsigned char a[16];

	if (!strcasecmp(addr, "localhost"))
		return 1;
	if (inet_pton(AF_INET6, addr, a) == 1)   /* ::1, however written */
		return !memcmp(a, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16);
	return inet_pton(AF_INET, addr, a) == 1 && a[0] == 127;
}

/* Equal strings, in time that depends on the length of b only. */
static int same_secret(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);
	unsigned char diff = (unsigned char)(alen != blen);

	for (size_t i = 0; i < blen; i++)
		diff |= (unsigned char)(b[i] ^ (i < alen ? a[i] : 0));
	return diff == 0;
}

int access_token_arg(const char *token, const char *arg, size_t n)
{
	if (n < 6 || memcmp(arg, "token=", 6))
		return 0;
	return same_secret(arg + 6, n - 6, token) ? 1 : -1;
}

int access_token_ok(const char *token, const char *auth, const char *query)
{
	if (auth && !strncasecmp(auth, "Bearer ", 7) && same_secret(auth + 7, strlen(auth + 7), token))
		return 1;
	for (const char *p = query; p && *p; p += strcspn(p, "&"), p += *p == '&') {
		if (access_token_arg(token, p, strcspn(p, "&")) == 1)
			return 1;
	}
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Does the argument arg[0..n) read, as lws decodes it, "token=..."? */
static int is_token_arg(const char *arg, size_t n)
{
	static const char want[] = "token=";
	size_t i = 0;

	for (size_t k = 0; k < sizeof want - 1; k++) {
		char c;
		if (i + 2 < n && arg[i] == '%' && hexval(arg[i + 1]) >= 0 && hexval(arg[i + 2]) >= 0) {
			c = (char)(hexval(arg[i + 1]) << 4 | hexval(arg[i + 2]));
			if (c == '=')   /* lws makes an encoded '=' in a name '_' */
				return 0;
			i += 3;
		} else if (i < n) {
			c = arg[i++];
		} else {
			return 0;
		}
		if (c != want[k])
			return 0;
	}
	return 1;
}

size_t access_strip_token(const char *target, size_t n, char *out)
{
	const char *q = memchr(target, '?', n), *end = target + n;
	size_t w, kept = 0;

	if (!q) {
		memcpy(out, target, n);
		out[n] = '\0';
		return n;
	}
	w = (size_t)(q + 1 - target);
	memcpy(out, target, w);
	/* n separators make n + 1 arguments, empty ones included: all but
	 * token= ones come out as they went in, in order, each after the
	 * separator that came before it. */
	for (const char *p = q + 1, *sep = NULL; ; ) {
		const char *e = p;
		while (e < end && *e != '&' && *e != ';')
			e++;
		if (!is_token_arg(p, (size_t)(e - p))) {
			if (kept++)
				out[w++] = sep ? *sep : '&';
			memcpy(out + w, p, (size_t)(e - p));
			w += (size_t)(e - p);
		}
		if (e == end)
			break;
		sep = e;
		p = e + 1;
	}
	if (!kept)
		w--;   /* no argument left: no '?' either */
	out[w] = '\0';
	return w;
}

int access_origin_ok(const char *origin, const char *host, const struct access_list *allow)
{
	if (!origin || !*origin)
		return 1;
	if (host && *host && !strncmp(origin, "http://", 7) && !strcmp(origin + 7, host))
		return 1;
	for (size_t i = 0; i < allow->n; i++)
		if (!strcmp(allow->name[i], "*") || !strcmp(allow->name[i], origin))
			return 1;
	return 0;
}
