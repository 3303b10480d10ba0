/* discovery: rewrites Chrome's /json answers so clients come back through the proxy. */
#include "discovery.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util.h"

int discovery_rewrites(const char *path)
{
	static const char *const paths[] = { "/json", "/json/list", "/json/version", "/json/new" };
	size_t n = strlen(path);

	if (n > 1 && path[n - 1] == '/')   /* Playwright asks for /json/version/ */
		n--;
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
		if (strlen(paths[i]) == n && !strncmp(path, paths[i], n))
			return 1;
	return 0;
}

/* Replaces the host in s between offset `from` and the first byte of stop
 * (or the end) by host. Returns a new string. */
static char *replace_host(const char *s, size_t from, const char *host, const char *stop)
{
	size_t end = from + strcspn(s + from, stop);
	size_t hl = strlen(host), tail = strlen(s + end);
	char *out = xmalloc(from + hl + tail + 1);

	memcpy(out, s, from);
	memcpy(out + from, host, hl);
	memcpy(out + from + hl, s + end, tail + 1);
	return out;
}

static void rewrite_ws_url(json_t *target, const char *host)
{
	json_t *v = json_object_get(target, "webSocketDebuggerUrl");
	const char *s = json_string_value(v);
	const char *p = s ? strstr(s, "://") : NULL;
	char *out;

	if (!p)
		return;
	/* A URL's authority ends at '/', '?' or '#' (RFC 3986), not at '&'. */
	out = replace_host(s, (size_t)(p + 3 - s), host, "/?#");
	json_string_set(v, out);
	free(out);
}

static void rewrite_frontend_url(json_t *target, const char *host)
{
	json_t *v = json_object_get(target, "devtoolsFrontendUrl");
	const char *s = json_string_value(v);
	const char *q = s ? strchr(s, '?') : NULL;

	/* The parameter is ws= or wss=, after the '?' or a '&'. */
	for (const char *p = q; p && *p; p = strchr(p + 1, '&')) {
		size_t k = strncmp(p + 1, "ws=", 3) == 0 ? 3 : strncmp(p + 1, "wss=", 4) == 0 ? 4 : 0;
		if (k) {
			char *out = replace_host(s, (size_t)(p + 1 + k - s), host, "/&#");
			json_string_set(v, out);
			free(out);
			return;
		}
	}
}

char *discovery_rewrite(const char *body, size_t len, const char *proxy_host, size_t *outlen)
{
	json_t *root = json_loadb(body, len, 0, NULL);
	size_t i;
	json_t *t;
	char *out;

	if (!root)
		return NULL;
	if (json_is_object(root)) {
		rewrite_ws_url(root, proxy_host);
		rewrite_frontend_url(root, proxy_host);
	}
	json_array_foreach(root, i, t) {
		rewrite_ws_url(t, proxy_host);
		rewrite_frontend_url(t, proxy_host);
	}
	out = json_dumps(root, JSON_INDENT(3) | JSON_PRESERVE_ORDER);
	json_decref(root);
	*outlen = strlen(out);
	return out;
}
