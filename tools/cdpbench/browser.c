/* browser: the round's Chromium, for --browsers warm. */
#include "browser.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpc.h"

#define LOCAL "127.0.0.1"
#define CALL_TIMEOUT_MS 15000

/* Connects to the browser target: its webSocketDebuggerUrl from /json/version. */
static int connect_browser(struct browser *b, struct lws_context *ctx, char *err, size_t errlen)
{
	char *body = NULL;
	json_t *v;
	const char *ws;
	int status, rc = -1;

	if (httpc_get(LOCAL, b->chrome.port, "GET", "/json/version", 5000, &status, &body, err,
		      errlen) < 0)
		return -1;
	v = json_loads(body ? body : "", 0, NULL);
	ws = json_string_value(json_object_get(v, "webSocketDebuggerUrl"));
	if (status != 200 || !ws)
		snprintf(err, errlen, "GET /json/version on port %d: HTTP %d, no webSocketDebuggerUrl",
			 b->chrome.port, status);
	else
		rc = cdp_open(&b->cdp, ctx, ws, CALL_TIMEOUT_MS, err, errlen);
	json_decref(v);
	free(body);
	return rc;
}

int browser_ensure(struct browser *b, const struct bench_config *cfg, struct lws_context *ctx,
		   char *err, size_t errlen)
{
	struct launch_opts lo = { cfg->chromium, NULL, 0, 0, NULL };
	char why[300];

	if (b->up && browser_alive(b, why, sizeof why))
		return 0;
	browser_stop(b);
	if (launch_start_opts(&b->chrome, &lo, err, errlen) < 0)
		return -1;
	if (connect_browser(b, ctx, err, errlen) < 0) {
		browser_stop(b);
		return -1;
	}
	b->up = 1;
	return 0;
}

int browser_open(struct browser *b, struct lws_context *ctx, const char *url, char *context,
		 size_t clen, char *target, size_t tlen, char *err, size_t errlen)
{
	json_t *res = cdp_call(&b->cdp, ctx, "Target.createBrowserContext", "{}", CALL_TIMEOUT_MS,
			       err, errlen), *p;
	const char *id = json_string_value(json_object_get(res, "browserContextId"));
	char *params;

	if (!id) {
		json_decref(res);
		if (!err[0])
			snprintf(err, errlen, "Target.createBrowserContext: no browserContextId");
		return -1;
	}
	snprintf(context, clen, "%s", id);
	json_decref(res);
	p = json_pack("{s:s,s:s}", "url", url, "browserContextId", context);
	params = json_dumps(p, JSON_COMPACT);
	json_decref(p);
	res = cdp_call(&b->cdp, ctx, "Target.createTarget", params, CALL_TIMEOUT_MS, err, errlen);
	free(params);
	id = json_string_value(json_object_get(res, "targetId"));
	if (id)
		snprintf(target, tlen, "%s", id);
	else if (res)
		snprintf(err, errlen, "Target.createTarget: no targetId");
	json_decref(res);
	if (!id) {
		browser_dispose(b, ctx, context);
		return -1;
	}
	return 0;
}

void browser_dispose(struct browser *b, struct lws_context *ctx, const char *context)
{
	char params[160], err[300];

	if (!b->up || !context[0])
		return;
	snprintf(params, sizeof params, "{\"browserContextId\":\"%s\"}", context);
	json_decref(cdp_call(&b->cdp, ctx, "Target.disposeBrowserContext", params, CALL_TIMEOUT_MS,
			     err, sizeof err));
}

int browser_alive(struct browser *b, char *err, size_t errlen)
{
	if (!launch_alive(&b->chrome, err, errlen))
		return 0;
	if (b->cdp.closed) {
		snprintf(err, errlen, "the browser-level CDP connection closed: %s", b->cdp.why);
		return 0;
	}
	return 1;
}

void browser_stop(struct browser *b)
{
	cdp_close(&b->cdp);   /* safe on one never opened, or closed already */
	/* Nothing of a measurement is under way: no need to wait for a graceful exit. */
	if (b->chrome.pid > 0)
		kill(-b->chrome.pid, SIGKILL);
	launch_stop(&b->chrome);
	memset(b, 0, sizeof *b);
}
