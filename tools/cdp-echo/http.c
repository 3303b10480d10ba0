/* http: cdp-echo's HTTP side: Chrome's discovery endpoints, with URLs built
 * from the Host header as Chrome does, and the WebSocket upgrade. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "echo.h"

#define BROWSER_ID "e0000000-0000-4000-8000-000000000001"
#define PAGE_ID "E0000000000000000000000000000001"

static int reply(struct echo_conn *c, int status, const char *type, const char *body)
{
	evserve_http_head(&c->conn, status, type, strlen(body), 0);
	evbuffer_add(c->conn.out, body, strlen(body));
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
	struct httpmsg *m = &c->http;
	const char *host, *upgrade, *key, *path;
	char own[300], body[2048], page[1024], answer[WSFRAME_ANSWER_MAX], err[200];
	long used;

	if (c->in_off == c->in_len)
		return 1;  /* no bytes: not the end of the stream */
	if ((used = httpmsg_feed(m, (const char *)c->in + c->in_off, c->in_len - c->in_off, err,
				 sizeof err)) < 0)
		return reply(c, 400, "text/plain", "bad request\n");
	c->in_off += (size_t)used;
	if (!m->done)
		return 1;
	path = m->target;
	key = httpmsg_header(m, "sec-websocket-key");
	upgrade = httpmsg_header(m, "upgrade");
	if (m->upgrade && !strncmp(path, "/devtools/", 10) && upgrade && !strcasecmp(upgrade, "websocket") &&
	    key && *key) {
		evbuffer_add(c->conn.out, answer, wsframe_server_answer(answer, key, strlen(key)));
		c->upgraded = 1;
		return 0;
	}
	/* Chrome builds its URLs from Host; a long one is cut to fit the answers. */
	if ((host = httpmsg_header(m, "host")) && *host)
		snprintf(own, sizeof own, "%.255s", host);
	else
		snprintf(own, sizeof own, "127.0.0.1:%d", c->conn.srv->port);
	host = own;
	page_json(page, sizeof page, host);
	if (path_is(path, version)) {
		snprintf(body, sizeof body,
			 "{\"Browser\":\"cdp-echo/0.1\",\"Protocol-Version\":\"1.3\",\"User-Agent\":"
			 "\"cdp-echo\",\"V8-Version\":\"0\",\"WebKit-Version\":\"0\","
			 "\"webSocketDebuggerUrl\":\"ws://%s/devtools/browser/" BROWSER_ID "\"}\n", host);
		return reply(c, 200, "application/json; charset=UTF-8", body);
	}
	if (path_is(path, list)) {
		snprintf(body, sizeof body, "[%s]\n", page);
		return reply(c, 200, "application/json; charset=UTF-8", body);
	}
	if (path_is(path, protocol))
		return reply(c, 200, "application/json; charset=UTF-8", "{\"domains\":[]}\n");
	if (!strncmp(path, "/json/new", 9)) {
		snprintf(body, sizeof body, "%s\n", page);
		return reply(c, 200, "application/json; charset=UTF-8", body);
	}
	if (!strncmp(path, "/json/activate/", 15))
		return reply(c, 200, "text/plain", "Target activated");
	if (!strncmp(path, "/json/close/", 12))
		return reply(c, 200, "text/plain", "Target is closing");
	return reply(c, 404, "text/plain", "not found\n");
}
