/* client: who a WebSocket client is, told from its upgrade request. Pure. */
#include "client.h"

#include <string.h>

#include "util.h"

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

const char *client_library(const struct client_hello *h, const char **by)
{
	/* By User-Agent: what each library puts there by default. */
	static const struct { const char *prefix, *library; } agents[] = {
		{ "Playwright/", "playwright" },
		{ "Puppeteer", "puppeteer" },
		{ "chromedriver", "chromedriver" },
	};
	const char *ua = h->user_agent, *origin = h->origin;

	*by = "user-agent";
	for (size_t i = 0; i < sizeof agents / sizeof agents[0]; i++)
		if (starts(ua, agents[i].prefix))
			return agents[i].library;
	if (strstr(ua, " websockets/"))   /* "Python/3.11 websockets/10.4" */
		return "python-websockets";
	*by = "handshake";
	if (starts(origin, "devtools://"))
		return "devtools-frontend";
	if (strstr(ua, "Mozilla/"))
		return "browser";
	if (!*ua && !*origin && h->pragma)
		return "chromedriver";
	/* websocket-client sends an Origin made of its own Host header. */
	if (!*ua && starts(origin, "http://") && *h->host && !strcmp(origin + 7, h->host))
		return "python-websocket-client";
	if (!*ua && !*origin && !h->pragma)
		return h->extensions ? "node-ws" : "chrome-remote-interface";
	*by = "none";
	return "unknown";
}

void client_on_command(struct client_id *c, const char *method, size_t len)
{
	static const char *const first[] = { "Target.attachToBrowserTarget", "session.status",
					     "session.new" };

	if (c->commands++)
		return;
	for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
		if (strlen(first[i]) == len && !memcmp(first[i], method, len))
			c->bidi_mapper = 1;
}

json_t *client_json(const struct client_id *c)
{
	json_t *j = json_pack("{s:s, s:s, s:o, s:o}", "library", c->library ? c->library : "unknown",
			      "by", c->by ? c->by : "none",
			      "user_agent", c->user_agent ? util_json_str(c->user_agent) : json_null(),
			      "remote", util_json_str(c->remote));

	if (c->bidi_mapper)
		json_object_set_new(j, "bidi_mapper", json_true());
	if (c->host_conn)
		json_object_set_new(j, "host_conn", json_integer((json_int_t)c->host_conn));
	return j;
}
