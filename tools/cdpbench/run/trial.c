/* trial: one measurement: a fresh Chromium (or the native client), the
 * scenario's CDP commands, the bench page's transfers, and its sample. */
#include "trial.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cdp.h"
#include "child.h"
#include "collect.h"
#include "httpc.h"
#include "launch.h"
#include "replay.h"
#include "util.h"

#define LOCAL "127.0.0.1"
#define POLL_US 50000            /* how often the sink is asked for the page's result */
#define SETUP_TIMEOUT_MS 15000   /* target discovery, connecting, command answers */

/* Everything one trial starts, so that one place stops it. */
struct run {
	const struct bench_config *cfg;
	struct lws_context *ctx;
	int sink_port;
	struct launch chrome;
	struct child proxy;
	struct cdp cdp;
	int cdp_used;
	uint64_t t0;
	json_t *phases;
	char proxy_log[BENCH_PATH_MAX];   /* the proxy's --log of a scenario with a proxy_flag, or "" */
};

static void phase(struct run *r, const char *name)
{
	json_object_set_new(r->phases, name,
			    json_real((double)(util_mono_us() - r->t0) / 1000.0));
}

/* The page's webSocketDebuggerUrl and target id from DevTools (or the proxy)
 * on port: the first page target, or a new one. */
static int page_target(int port, char *ws_url, size_t urllen, char *target, size_t tlen,
		       char *err, size_t errlen)
{
	uint64_t deadline = util_mono_us() + 5000000;
	int status;
	char *body;

	while (util_mono_us() < deadline) {
		json_t *list, *t;
		size_t i;

		if (httpc_get(LOCAL, port, "GET", "/json/list", 5000, &status, &body, err, errlen) < 0)
			return -1;
		if (status != 200) {   /* a 403 or 503 is an answer, not a wait */
			snprintf(err, errlen, "GET /json/list on port %d: HTTP %d: %.160s", port,
				 status, body ? body : "");
			free(body);
			return -1;
		}
		list = json_loads(body, 0, NULL);
		free(body);
		json_array_foreach(list, i, t) {
			const char *type = json_string_value(json_object_get(t, "type"));
			const char *ws = json_string_value(json_object_get(t, "webSocketDebuggerUrl"));
			const char *id = json_string_value(json_object_get(t, "id"));
			if (type && !strcmp(type, "page") && ws && id) {
				snprintf(ws_url, urllen, "%s", ws);
				snprintf(target, tlen, "%s", id);
				json_decref(list);
				return 0;
			}
		}
		json_decref(list);
		child_sleep_ms(50);
	}
	snprintf(err, errlen, "no page target appeared in /json/list on port %d", port);
	return -1;
}

/* Runs the loop (or sleeps) until the page's result is at the sink; the sink's
 * record of the trial, or NULL with a reason in err. */
static json_t *await_result(struct run *r, const char *trial_id, uint64_t deadline,
			    char *err, size_t errlen)
{
	char path[160], why[300], *body;
	uint64_t next_poll = 0;
	int status;

	snprintf(path, sizeof path, "/trial?id=%s&forget=1", trial_id);
	for (;;) {
		uint64_t now;

		if (r->cdp_used)
			cdp_service(r->ctx, 20);
		else
			child_sleep_ms(20);
		now = util_mono_us();
		if (now >= next_poll) {
			json_t *rec;
			next_poll = now + POLL_US;
			if (httpc_get(LOCAL, r->sink_port, "GET", path, 5000, &status, &body, err,
				      errlen) < 0)
				return NULL;
			rec = json_loads(body, 0, NULL);
			free(body);
			if (rec && json_is_object(json_object_get(rec, "result")))
				return rec;
			json_decref(rec);
		}
		if (r->chrome.pid && !launch_alive(&r->chrome, why, sizeof why)) {
			snprintf(err, errlen, "%s before the page reported", why);
			return NULL;
		}
		if (r->proxy.pid && !child_alive(&r->proxy)) {
			child_last_line(&r->proxy, why, sizeof why);
			snprintf(err, errlen, "cdpproxy exited: %s", why);
			return NULL;
		}
		if (r->cdp_used && r->cdp.closed) {
			snprintf(err, errlen, "the CDP connection closed: %s", r->cdp.why);
			return NULL;
		}
		if (now >= deadline) {
			snprintf(err, errlen, "no result from the page within %.0f s",
				 (double)(deadline - r->t0) / 1e6);
			return NULL;
		}
	}
}

/* Attaches to the page, sends the scenario's commands, and waits for every answer. */
static int attach(struct run *r, const struct scenario *sc, int port, char *err, size_t errlen)
{
	char ws_url[1024], target[128];
	uint64_t deadline;

	if (page_target(port, ws_url, sizeof ws_url, target, sizeof target, err, errlen) < 0)
		return -1;
	if (cdp_open(&r->cdp, r->ctx, ws_url, SETUP_TIMEOUT_MS, err, errlen) < 0)
		return -1;
	r->cdp_used = 1;
	phase(r, "attached_ms");
	for (size_t i = 0; i < sc->ncmds; i++) {
		char *params = replay_bind_target(sc->cmds[i].params, target);
		cdp_send(&r->cdp, sc->cmds[i].method, params);
		free(params);
	}
	/* a --trial-timeout longer than that is a machine known to be slow */
	deadline = util_mono_us() + (uint64_t)(r->cfg->trial_timeout_s * 1000 > SETUP_TIMEOUT_MS ?
					       r->cfg->trial_timeout_s * 1000 : SETUP_TIMEOUT_MS) * 1000ull;
	while (r->cdp.inflight && !r->cdp.closed && util_mono_us() < deadline)
		cdp_service(r->ctx, 20);
	if (r->cdp.inflight) {
		snprintf(err, errlen, "%llu of the scenario's commands were not answered: %s",
			 (unsigned long long)r->cdp.inflight,
			 r->cdp.closed ? r->cdp.why : "timed out");
		return -1;
	}
	/* Drain what enabling set off (execution contexts, frame events) before loading. */
	for (uint64_t until = util_mono_us() + 50000; util_mono_us() < until; )
		cdp_service(r->ctx, 20);
	phase(r, "enabled_ms");
	return 0;
}

/* The native client: the same transfers over one kept-alive connection, with
 * the result posted to the sink as the page would. */
static int native_transfers(struct run *r, const char *body, const char *trial_id,
			    char *err, size_t errlen)
{
	const struct bench_config *cfg = r->cfg;
	int n = cfg->warmup_transfers + cfg->transfers, download = !strcmp(body, "download");
	json_t *result = json_pack("{s:s,s:s,s:I,s:n,s:[]}", "trial", trial_id, "body", body,
				   "bytes", (json_int_t)cfg->bytes, "error", "transfers");
	struct httpc h;
	struct httpc_resp resp;
	char path[256], *text;
	int status, rc = -1;

	if (!strcmp(body, "pageload")) {
		snprintf(err, errlen, "native loads no pages: pageload needs a browser");
		json_decref(result);
		return -1;
	}
	if (httpc_connect(&h, LOCAL, r->sink_port, 60000, err, errlen) < 0) {
		json_decref(result);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		uint64_t t0 = util_mono_us(), got;
		json_t *ans;
		double ms;

		if (download)
			snprintf(path, sizeof path, "/download?bytes=%llu&trial=%s&i=%d",
				 (unsigned long long)cfg->bytes, trial_id, i);
		else
			snprintf(path, sizeof path, "/upload?trial=%s&i=%d", trial_id, i);
		if (httpc_exchange(&h, download ? "GET" : "POST", path, NULL, download ? 0 : cfg->bytes,
				   4096, &resp, err, errlen) < 0) {
			httpc_resp_free(&resp);   /* what came before the failure */
			goto out;
		}
		ms = (double)(util_mono_us() - t0) / 1000.0;
		ans = json_loads(resp.body, 0, NULL);
		got = download ? resp.body_bytes : (uint64_t)json_integer_value(json_object_get(ans, "bytes"));
		json_array_append_new(json_object_get(result, "transfers"), json_pack(
			"{s:i,s:b,s:I,s:I,s:f,s:f}", "i", i, "warmup", i < cfg->warmup_transfers,
			"bytes", (json_int_t)(download ? resp.body_bytes : cfg->bytes),
			"sink_bytes", (json_int_t)got, "ms", ms,
			"mbps", ms > 0 ? (double)cfg->bytes * 8 / (ms * 1000) : 0.0));
		json_decref(ans);
		httpc_resp_free(&resp);
	}
	text = json_dumps(result, JSON_COMPACT);
	snprintf(path, sizeof path, "/result?trial=%s", trial_id);
	rc = httpc_exchange(&h, "POST", path, text, strlen(text), 4096, &resp, err, errlen);
	status = resp.status;
	httpc_resp_free(&resp);
	free(text);
	if (rc == 0 && status != 200) {
		snprintf(err, errlen, "the sink answered %d to the result", status);
		rc = -1;
	}
out:
	httpc_close(&h);
	json_decref(result);
	return rc;
}

/* Starts what the scenario needs and brings the page's record back. */
static json_t *run_scenario(struct run *r, const struct scenario *sc, const char *body,
			    const char *trial_id, char *err, size_t errlen)
{
	const struct bench_config *cfg = r->cfg;
	char url[512], proxy_bin[BENCH_PATH_MAX + 16], upstream[32], *argv[12];
	int loads = cfg->warmup_transfers + cfg->transfers + 1;
	/* a page load is 200 requests, not the body: 5 s each, for a busy machine */
	double bits = (double)cfg->bytes * 8 * loads, pages = strcmp(body, "pageload") ? 0 : 5.0 * loads;
	uint64_t deadline = r->t0 + (uint64_t)(cfg->trial_timeout_s > 0 ? cfg->trial_timeout_s :
					      20 + bits / 5e6 + pages +
					      (cfg->measure_ms + cfg->warmup_ms) / 1000.0) * 1000000;
	struct launch_opts lo = { cfg->chromium, NULL, 0, 0, NULL };
	int port, argc = 0;

	snprintf(url, sizeof url, "http://" LOCAL ":%d/bench.html?trial=%s&body=%s&bytes=%llu&n=%d"
		 "&warmup=%d&wms=%d&ms=%d&max=%d", r->sink_port, trial_id, body,
		 (unsigned long long)cfg->bytes, cfg->transfers, cfg->warmup_transfers, cfg->warmup_ms,
		 cfg->measure_ms, cfg->max_transfers);
	if (sc->kind == SCENARIO_NATIVE) {
		if (native_transfers(r, body, trial_id, err, errlen) < 0)
			return NULL;
		return await_result(r, trial_id, deadline, err, errlen);
	}
	lo.no_debugging = sc->kind == SCENARIO_NONE;
	lo.url = lo.no_debugging ? url : NULL;
	if (launch_start_opts(&r->chrome, &lo, err, errlen) < 0)
		return NULL;
	phase(r, "launched_ms");
	if (sc->kind == SCENARIO_NONE)
		return await_result(r, trial_id, deadline, err, errlen);
	port = r->chrome.port;
	if (sc->via_proxy) {
		snprintf(proxy_bin, sizeof proxy_bin, "%s/cdpproxy", cfg->bindir);
		snprintf(upstream, sizeof upstream, LOCAL ":%d", r->chrome.port);
		argv[argc++] = proxy_bin;
		argv[argc++] = "--listen";
		argv[argc++] = LOCAL ":0";
		argv[argc++] = "--upstream";
		argv[argc++] = upstream;
		if (sc->policy) {
			argv[argc++] = "--policy";
			argv[argc++] = sc->policy;
		}
		if (sc->proxy_flag) {
			const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
			snprintf(r->proxy_log, sizeof r->proxy_log, "%s/cdpbench-%ld-%s.jsonl", tmp, (long)getpid(),
				 trial_id);
			argv[argc++] = "--log";
			argv[argc++] = r->proxy_log;
			argv[argc++] = (char *)sc->proxy_flag;
		}
		argv[argc] = NULL;
		if (child_start(&r->proxy, "cdpproxy", argv, SETUP_TIMEOUT_MS, err, errlen) < 0)
			return NULL;
		port = r->proxy.port;
	}
	if (attach(r, sc, port, err, errlen) < 0)
		return NULL;
	{
		char params[700];
		snprintf(params, sizeof params, "{\"url\":\"%s\"}", url);
		cdp_send(&r->cdp, "Page.navigate", params);
	}
	return await_result(r, trial_id, deadline, err, errlen);
}

void trial_run(const struct bench_config *cfg, struct lws_context *ctx, int sink_port,
	       const struct scenario *sc, const char *body, const char *trial_id,
	       struct bench_sample *out)
{
	struct run r;
	json_t *record;
	char err[400] = "";

	memset(&r, 0, sizeof r);
	memset(out, 0, sizeof *out);
	r.cfg = cfg;
	r.ctx = ctx;
	r.sink_port = sink_port;
	r.t0 = util_mono_us();
	r.phases = json_object();
	out->ran = 1;
	out->page_mbps = out->sink_mbps = NAN;
	out->detail = json_object();
	record = run_scenario(&r, sc, body, trial_id, err, sizeof err);
	phase(&r, "reported_ms");
	if (r.cdp_used) {
		json_object_set_new(out->detail, "cdp", cdp_stats_json(&r.cdp));
		cdp_close(&r.cdp);
	}
	child_stop(&r.proxy);
	if (*r.proxy_log) {   /* its size says what the flag logged; the file goes */
		struct stat st;
		if (stat(r.proxy_log, &st) == 0)
			json_object_set_new(out->detail, "proxy_log_bytes", json_integer((json_int_t)st.st_size));
		unlink(r.proxy_log);
	}
	/* The measurement is over: no need to wait for a graceful shutdown. */
	if (r.chrome.pid > 0)
		kill(-r.chrome.pid, SIGKILL);
	launch_stop(&r.chrome);
	if (record)
		collect_sample(body, cfg->transfers, record, out);
	else
		snprintf(out->error, sizeof out->error, "%s", err);
	out->seconds = (double)(util_mono_us() - r.t0) / 1e6;
	json_object_set_new(out->detail, "phases", r.phases);
	json_decref(record);
}
