/* access: which Host and Origin headers and tokens the proxy accepts, as Chrome
 * does, and the request target it passes on. Pure. */
#ifndef CDPPROXY_ACCESS_H
#define CDPPROXY_ACCESS_H

#include <stddef.h>

#define ACCESS_MAX_ALLOW 16

struct access_list {
	const char *name[ACCESS_MAX_ALLOW];
	size_t n;
};

/* Host (with or without :port) is an IP literal, "localhost", or a name in
 * allow (compared without the port, case-insensitively). Anti DNS-rebinding. */
int access_host_ok(const char *host, const struct access_list *allow);
/* A request with no Origin is an automation client and is fine; one with an
 * Origin (a web page) must be the proxy's own (http:// and the request's
 * Host, as Chrome allows its own: the dashboard at /proxy/), or be in allow
 * exactly, or allow holds "*". */
int access_origin_ok(const char *origin, const char *host, const struct access_list *allow);
/* Is addr (a --listen host) a loopback address or "localhost"? */
int access_is_loopback(const char *addr);
/* Does the request carry the token: "Authorization: Bearer TOKEN" (auth is
 * the header's value, or NULL), or token=TOKEN in query (the URL arguments
 * as "a=1&token=x", or NULL)? Compared in constant time. */
int access_token_ok(const char *token, const char *auth, const char *query);
/* One URL argument of n bytes (as lws decoded it: it may hold '&'): 1 when
 * it is token=TOKEN, -1 when it is token= something else, 0 when it is no
 * token= argument. Compared in constant time. */
int access_token_arg(const char *token, const char *arg, size_t n);
/* The request target to pass on: target (the n bytes the client sent
 * between method and version) as it is, less every argument that lws reads
 * as token=... (arguments follow the first '?' and are separated by '&' or
 * ';'; %XX in the name decoded, but an encoded '=' is no '='), each with
 * the separator before it (after it, for the first). The proxy's own secret
 * is neither logged nor passed on; every other byte is. Writes out (n + 1
 * bytes suffice, NUL-terminated) and returns its length. */
size_t access_strip_token(const char *target, size_t n, char *out);
/* Adds name; -1 when the list is full. */
int access_add(struct access_list *l, const char *name);

#endif
