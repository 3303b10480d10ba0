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

size_t access_strip_token(char *query)
{
	char *w = query;
	int kept = 0;

	/* n '&' make n + 1 arguments, empty ones included: all but token=
	 * ones come out as they went in, in order. */
	for (const char *p = query; ; p++) {
		size_t n = strcspn(p, "&");
		if (strncmp(p, "token=", 6)) {
			if (kept++)
				*w++ = '&';
			memmove(w, p, n);
			w += n;
		}
		p += n;
		if (!*p)
			break;
	}
	*w = '\0';
	return (size_t)(w - query);
}

size_t access_encode(const char *in, size_t n, int in_query, char *out, size_t outlen)
{
	/* RFC 3986 pchar less '%' (lws has decoded every %XX already) and
	 * '&' ';' '+' (lws reads them as separators or a space), and '?' in
	 * arguments only. */
	static const char keep[] = "-._~!$'()*,=:@/";
	static const char hex[] = "0123456789ABCDEF";
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];
		int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			    (c && strchr(keep, c)) || (c == '?' && in_query);
		if (w + (plain ? 1 : 3) >= outlen)
			return (size_t)-1;
		if (plain) {
			out[w++] = (char)c;
		} else {
			out[w++] = '%';
			out[w++] = hex[c >> 4];
			out[w++] = hex[c & 15];
		}
	}
	if (w >= outlen)
		return (size_t)-1;
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
