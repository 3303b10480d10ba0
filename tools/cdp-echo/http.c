/* http: cdp-echo's HTTP side: Chrome's discovery endpoints, with URLs built
 * from the Host header as Chrome does, and the WebSocket upgrade. */
#define _GNU_SOURCE  /* memmem */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "echo.h"

#define HEAD_MAX (16 * 1024)
#define BROWSER_ID "e0000000-0000-4000-8000-000000000001"
#define PAGE_ID "E0000000000000000000000000000001"

struct request {
	char method[16], path[1024], host[256], upgrade[32], key[64];
};

/* Copies header value (trimmed) into out if line is "name: value". */
static void header(const char *line, size_t n, const char *name, char *out, size_t outlen)
{
	size_t nl = strlen(name), vl;

	if (n <= nl || strncasecmp(line, name, nl) || line[nl] != ':')
		return;
	line += nl + 1;
	n -= nl + 1;
	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	vl = n < outlen - 1 ? n : outlen - 1;
	memcpy(out, line, vl);
	out[vl] = '\0';
}

static int parse_head(const char *p, size_t n, struct request *r)
{
	const char *eol = memmem(p, n, "\r\n", 2);

	memset(r, 0, sizeof *r);
	if (!eol || sscanf(p, "%15s %1023s HTTP/1.", r->method, r->path) != 2)
		return -1;
	for (const char *line = eol + 2; line < p + n;) {
		const char *e = memmem(line, (size_t)(p + n - line), "\r\n", 2);
		size_t len = e ? (size_t)(e - line) : (size_t)(p + n - line);
		header(line, len, "host", r->host, sizeof r->host);
		header(line, len, "upgrade", r->upgrade, sizeof r->upgrade);
		header(line, len, "sec-websocket-key", r->key, sizeof r->key);
		line += len + 2;
	}
	return 0;
}

static int reply(struct echo_conn *c, const char *status, const char *type, const char *body)
{
	evbuffer_add_printf(c->out, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			    "Connection: close\r\n\r\n%s", status, type, strlen(body), body);
	c->closing = 1;
	return 0;
}

static void page_json(char *out, size_t outlen, const char *host)
{
	snprintf(out, outlen,
		 "{\"description\":\"\",\"devtoolsFrontendUrl\":\"/devtools/inspector.html?ws=%s"
		 "/devtools/page/" PAGE_ID "\",\"id\":\"" PAGE_ID "\",\"title\":\"cdp-echo\","
		 "\"type\":\"page\",\"url\":\"about:blank\",\"webSocketDebuggerUrl\":\"ws://%s"
		 "/devtools/page/" PAGE_ID "\"}", host, host);
}

/* Is path p, without its query, one of the NULL-ended names (each also with a
 * trailing slash)? */
static int path_is(const char *p, const char *const *names)
{
	size_t n = strcspn(p, "?");

	if (n > 1 && p[n - 1] == '/')
		n--;
	for (; *names; names++)
		if (strlen(*names) == n && !strncmp(p, *names, n))
			return 1;
	return 0;
}

int echo_http(struct echo_conn *c)
{
	static const char *const version[] = { "/json/version", NULL };
	static const char *const list[] = { "/json", "/json/list", NULL };
	static const char *const protocol[] = { "/json/protocol", NULL };
	const char *p = (const char *)c->in + c->in_off;
	size_t avail = c->in_len - c->in_off;
	const char *end = memmem(p, avail, "\r\n\r\n", 4);
	struct request r;
	char host[300], body[2048], page[1024], answer[WSFRAME_ANSWER_MAX];

	if (!end)
		return avail > HEAD_MAX ? -1 : 1;
	if (parse_head(p, (size_t)(end - p), &r) < 0)
		return reply(c, "400 Bad Request", "text/plain", "bad request\n");
	c->in_off += (size_t)(end + 4 - p);
	if (*r.host)
		snprintf(host, sizeof host, "%s", r.host);
	else
		snprintf(host, sizeof host, "127.0.0.1:%d", c->srv->port);
	if (!strncmp(r.path, "/devtools/", 10) && !strcasecmp(r.upgrade, "websocket") && *r.key) {
		evbuffer_add(c->out, answer, wsframe_server_answer(answer, r.key, strlen(r.key)));
		c->upgraded = 1;
		return 0;
	}
	page_json(page, sizeof page, host);
	if (path_is(r.path, version)) {
		snprintf(body, sizeof body,
			 "{\"Browser\":\"cdp-echo/0.1\",\"Protocol-Version\":\"1.3\",\"User-Agent\":"
			 "\"cdp-echo\",\"V8-Version\":\"0\",\"WebKit-Version\":\"0\","
			 "\"webSocketDebuggerUrl\":\"ws://%s/devtools/browser/" BROWSER_ID "\"}\n", host);
		return reply(c, "200 OK", "application/json; charset=UTF-8", body);
	}
	if (path_is(r.path, list)) {
		snprintf(body, sizeof body, "[%s]\n", page);
		return reply(c, "200 OK", "application/json; charset=UTF-8", body);
	}
	if (path_is(r.path, protocol))
		return reply(c, "200 OK", "application/json; charset=UTF-8", "{\"domains\":[]}\n");
	if (!strncmp(r.path, "/json/new", 9)) {
		snprintf(body, sizeof body, "%s\n", page);
		return reply(c, "200 OK", "application/json; charset=UTF-8", body);
	}
	if (!strncmp(r.path, "/json/activate/", 15))
		return reply(c, "200 OK", "text/plain", "Target activated");
	if (!strncmp(r.path, "/json/close/", 12))
		return reply(c, "200 OK", "text/plain", "Target is closing");
	return reply(c, "404 Not Found", "text/plain", "not found\n");
}
