/* audit_findings: the known-costly patterns in a rig's logs, each with what
 * it costs (the cdpbench scenario that measures it) and what removes it.
 * Patterns are found from the client's own commands, so a rig that never
 * sends one gets no finding for it. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "audit_findings.h"
#include "util.h"

#define CONSOLE_HEAVY 500    /* console events in one run that make Runtime.enable costly */

/* The patterns, in the order the report lists them. */
static const struct pattern {
	const char *id, *title, *scenario, *cost, *remedy;
} patterns[] = {
	{ "network-postdata", "Network.enable without maxPostDataSize", "Network",
	  "Chromium copies every in-memory request body (Uint8Array, ArrayBuffer, string, XHR) "
	  "into Network.requestWillBeSent: uploads of such bodies run at a tenth of their speed "
	  "(cdpbench scenario Network against Network-capped; 0.05-0.09x of no debugger on our "
	  "2-core machine, Network-capped 0.57-1.04x)",
	  "policy network-postdata-cap (rewrites Network.enable with maxPostDataSize 65536; the "
	  "rig's network events keep coming)" },
	{ "fetch-all", "Fetch.enable with a * pattern", "Fetch",
	  "every request is paused until the client answers Fetch.continueRequest: a round trip "
	  "to the test runner per request (cdpbench scenario Fetch)",
	  "no policy: Playwright enables Fetch with * for any page.route, whatever its glob; "
	  "route only in the tests that need it, and page.unroute when done" },
	{ "screencast", "Page.startScreencast", "screencast",
	  "Chrome encodes and sends a JPEG per frame while the page runs (cdpbench scenario "
	  "screencast)",
	  "video: 'off' (or 'retain-on-failure'), or a policy rule that stubs Page.startScreencast" },
	{ "tracing", "Tracing.start", "tracing",
	  "Chrome records trace events for the whole run (cdpbench scenario tracing)",
	  "trace: 'off' (or 'retain-on-failure'), or a policy rule that stubs Tracing.start" },
	{ "console", "Runtime.enable with heavy console traffic", "Runtime",
	  "each console call is serialized and sent as Runtime.consoleAPICalled (cdpbench scenario "
	  "Runtime measures the enable alone)",
	  "log less from the page, or a policy rule that drops Runtime.consoleAPICalled" },
	{ "cache-disabled", "Network.setCacheDisabled {cacheDisabled: true}", "cache-disabled",
	  "every resource is fetched again on every load (cdpbench scenario cache-disabled)",
	  "a policy rule that stubs Network.setCacheDisabled" },
	{ "debugger", "Debugger.enable", "Debugger",
	  "Chrome keeps every script's source and breakpoints ready (cdpbench scenario Debugger)",
	  "a policy rule that stubs Debugger.enable, if no test steps through code" },
	{ "cpu-throttle", "CPU throttling left on", "cpu-throttle",
	  "the page runs slower on purpose (cdpbench scenario cpu-throttle, rate 4)",
	  "Emulation.setCPUThrottlingRate {rate: 1} after the test that needs it" },
	{ "net-emulation", "network emulation left on", "net-emulation",
	  "every request waits out the emulated latency and throughput (cdpbench scenario "
	  "net-emulation)",
	  "Network.emulateNetworkConditions back to no limits after the test that needs it" },
};
#define N_PATTERNS (sizeof patterns / sizeof patterns[0])

static json_t *obj_at(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (!v) {
		v = json_object();
		json_object_set_new(o, k, v);
	}
	return v;
}

static void bump(json_t *o, const char *k, json_int_t by)
{
	json_object_set_new(o, k, json_integer(json_integer_value(json_object_get(o, k)) + by));
}

static double num(const json_t *v, double dflt)
{
	return json_is_number(v) ? json_number_value(v) : dflt;
}

void audit_findings_watch(json_t *seen, const struct logrec *rec)
{
	static const char *const events[] = {
		"Network.requestWillBeSent", "Runtime.consoleAPICalled", "Fetch.requestPaused",
		"Page.screencastFrame",
	};
	const char *m = rec->method;
	const char *s = rec->session ? rec->session : "";
	json_t *body, *p;

	if (json_object_get(rec->obj, "body"))
		bump(seen, "bodies", 1);
	if (!m)
		return;
	if (!strcmp(rec->kind, "event")) {
		for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
			if (strcmp(m, events[i]))
				continue;
			json_t *e = obj_at(obj_at(seen, "events"), m);
			bump(e, "n", 1);
			bump(e, "bytes", (json_int_t)rec->bytes);
			if ((json_int_t)rec->bytes > json_integer_value(json_object_get(e, "max")))
				json_object_set_new(e, "max", json_integer((json_int_t)rec->bytes));
		}
		return;
	}
	if (strcmp(rec->kind, "command") || !rec->up || rec->by_proxy)
		return;
	if (!strcmp(m, "Page.startScreencast") || !strcmp(m, "Tracing.start")) {
		bump(obj_at(seen, "commands"), m, 1);
		return;
	}
	if (strcmp(m, "Network.setCacheDisabled") && strcmp(m, "Emulation.setCPUThrottlingRate") &&
	    strcmp(m, "Network.emulateNetworkConditions"))
		return;
	body = logrec_body(rec);
	p = json_object_get(body, "params");
	if (!strcmp(m, "Network.setCacheDisabled")) {
		if (json_is_true(json_object_get(p, "cacheDisabled")))
			bump(obj_at(seen, "commands"), m, 1);
	} else if (!strcmp(m, "Emulation.setCPUThrottlingRate")) {
		/* the last rate a session set is the one left on */
		json_object_set_new(obj_at(seen, "cpu"), s,
				    json_real(num(json_object_get(p, "rate"), 1)));
	} else if (p) {
		int on = json_is_true(json_object_get(p, "offline")) ||
			 num(json_object_get(p, "latency"), 0) > 0 ||
			 num(json_object_get(p, "downloadThroughput"), -1) > 0 ||
			 num(json_object_get(p, "uploadThroughput"), -1) > 0;
		json_object_set_new(obj_at(seen, "netem"), s, json_boolean(on));
	}
	json_decref(body);
}

/* Does a Fetch.enable's params text pause every request? */
static int fetch_all(const char *params)
{
	json_t *p = json_loads(params, 0, NULL), *pats = json_object_get(p, "patterns"), *pat;
	size_t i;
	int all = json_is_object(p) && !json_array_size(pats);   /* no patterns: all requests */

	json_array_foreach(pats, i, pat) {
		const char *u = json_string_value(json_object_get(pat, "urlPattern"));
		all |= !u || !strcmp(u, "*");
	}
	json_decref(p);
	return all;
}

/* Does a Network.enable's params text leave request bodies uncapped? */
static int network_uncapped(const char *params)
{
	json_t *p = json_loads(params, 0, NULL);
	int uncapped = json_is_object(p) && !(num(json_object_get(p, "maxPostDataSize"), 0) > 0);

	json_decref(p);
	return uncapped;
}

static void add(json_t *out, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add(json_t *out, const char *id, const char *fmt, ...)
{
	char ev[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ev, sizeof ev, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < N_PATTERNS; i++)
		if (!strcmp(patterns[i].id, id))
			json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "id", id,
				"title", patterns[i].title, "evidence", ev, "cost", patterns[i].cost,
				"scenario", patterns[i].scenario, "remedy", patterns[i].remedy));
}

/* Sessions whose enable of domain matches test(params); their count and one params text. */
static json_int_t enabled_where(const json_t *rig, const char *domain, int (*test)(const char *),
				const char **example)
{
	const char *k;
	json_t *e;
	json_int_t n = 0;

	*example = NULL;
	json_object_foreach(json_object_get(rig, "enables"), k, e) {
		const char *params = json_string_value(json_object_get(e, "params"));
		if (strcmp(json_string_value(json_object_get(e, "domain")), domain) ||
		    (test && !test(params)))
			continue;
		n += json_integer_value(json_object_get(e, "sessions"));
		if (!*example)
			*example = params;
	}
	return n;
}

static int count_true(const json_t *o, int (*test)(const json_t *))
{
	const char *k;
	json_t *v;
	int n = 0;

	json_object_foreach((json_t *)o, k, v)
		n += test(v);
	return n;
}

static int rate_on(const json_t *v)
{
	return num(v, 1) > 1;
}

static int is_on(const json_t *v)
{
	return json_is_true(v);
}

json_t *audit_findings(const struct audit_rig *r, const json_t *rig)
{
	json_t *out = json_array(), *seen = r->seen, *ev = json_object_get(seen, "events");
	json_t *cmds = json_object_get(seen, "commands");
	const char *ex;
	json_int_t n, k;

	if (json_object_get(rig, "bodies_logged") == json_false()) {
		/* Without params nothing can be said of maxPostDataSize or the patterns. */
	} else {
		if ((n = enabled_where(rig, "Network", network_uncapped, &ex))) {
			json_t *rw = json_object_get(ev, "Network.requestWillBeSent");
			add(out, "network-postdata", "Network.enable %s in %lld session%s; "
			    "Network.requestWillBeSent: %lld events, %lld bytes, the largest %lld bytes",
			    ex, (long long)n, n == 1 ? "" : "s",
			    (long long)json_integer_value(json_object_get(rw, "n")),
			    (long long)json_integer_value(json_object_get(rw, "bytes")),
			    (long long)json_integer_value(json_object_get(rw, "max")));
		}
		if ((n = enabled_where(rig, "Fetch", fetch_all, &ex)))
			add(out, "fetch-all", "Fetch.enable %s in %lld session%s; %lld requests paused",
			    ex, (long long)n, n == 1 ? "" : "s", (long long)json_integer_value(
			    json_object_get(json_object_get(ev, "Fetch.requestPaused"), "n")));
	}
	if ((n = json_integer_value(json_object_get(cmds, "Page.startScreencast"))))
		add(out, "screencast", "Page.startScreencast sent %lld time%s; %lld frames",
		    (long long)n, n == 1 ? "" : "s", (long long)json_integer_value(
		    json_object_get(json_object_get(ev, "Page.screencastFrame"), "n")));
	if ((n = json_integer_value(json_object_get(cmds, "Tracing.start"))))
		add(out, "tracing", "Tracing.start sent %lld time%s", (long long)n, n == 1 ? "" : "s");
	k = json_integer_value(json_object_get(json_object_get(ev, "Runtime.consoleAPICalled"), "n"));
	if ((n = enabled_where(rig, "Runtime", NULL, &ex)) && k >= CONSOLE_HEAVY)
		add(out, "console", "Runtime enabled in %lld sessions; %lld console events, %lld bytes",
		    (long long)n, (long long)k, (long long)json_integer_value(json_object_get(
		    json_object_get(ev, "Runtime.consoleAPICalled"), "bytes")));
	if ((n = json_integer_value(json_object_get(cmds, "Network.setCacheDisabled"))))
		add(out, "cache-disabled", "Network.setCacheDisabled {\"cacheDisabled\":true} sent %lld "
		    "time%s", (long long)n, n == 1 ? "" : "s");
	if ((n = enabled_where(rig, "Debugger", NULL, &ex)))
		add(out, "debugger", "Debugger.enable in %lld session%s", (long long)n, n == 1 ? "" : "s");
	if ((n = count_true(json_object_get(seen, "cpu"), rate_on)))
		add(out, "cpu-throttle", "Emulation.setCPUThrottlingRate above 1 at the end of %lld "
		    "session%s", (long long)n, n == 1 ? "" : "s");
	if ((n = count_true(json_object_get(seen, "netem"), is_on)))
		add(out, "net-emulation", "Network.emulateNetworkConditions with limits at the end of "
		    "%lld session%s", (long long)n, n == 1 ? "" : "s");
	return out;
}

/* What --bench quotes for a finding: per body, the first of its scenarios the
 * report has. Patterns not listed quote their own scenario with u8. */
static const struct quote {
	const char *id, *body, *what, *scenarios[3];
} quotes[] = {
	{ "network-postdata", "u8", "u8 uploads", { "Network", "playwright" } },
	{ "network-postdata", "u8", "u8 uploads under policy network-postdata-cap",
	  { "pw-postdata-cap" } },
	{ "network-postdata", "download", "downloads", { "Network", "playwright" } },
	{ "network-postdata", "download", "downloads under policy network-postdata-cap",
	  { "pw-postdata-cap", "Network-capped" } },
	{ "network-postdata", "download", "downloads under policy network-buffer-cap",
	  { "pw-buffer-cap" } },
	{ "fetch-all", "u8", "u8 uploads", { "Fetch", "playwright-route" } },
	{ "fetch-all", "blob", "Blob uploads", { "Fetch", "playwright-route" } },
	{ "fetch-all", "u8", "u8 uploads under policy fetch-routes-only",
	  { "pw-route-routes-only" } },
	{ "fetch-all", "blob", "Blob uploads under policy fetch-routes-only",
	  { "pw-route-routes-only" } },
};
#define N_QUOTES (sizeof quotes / sizeof quotes[0])

static const json_t *bench_cell(const json_t *bench, const char *scenario, const char *body)
{
	size_t k;
	json_t *c;

	json_array_foreach(json_object_get(bench, "cells"), k, c)
		if (!strcmp(json_string_value(json_object_get(c, "scenario")), scenario) &&
		    !strcmp(json_string_value(json_object_get(c, "body")), body) &&
		    json_is_number(json_object_get(c, "ratio_to_none")))
			return c;
	return NULL;
}

/* "u8 uploads at 0.06x [0.05, 0.08] of no debugger (scenario Network: slower)",
 * after "; " if *o is past start, appended to buf at *o, if bench has one of
 * q's scenarios with q's body. */
static void quote(char *buf, size_t len, size_t start, size_t *o, const json_t *bench,
		  const struct quote *q)
{
	const json_t *c = NULL, *ci;
	const char *sc = NULL, *verdict;
	char range[64] = " (no interval: one round)", word[48] = "";
	double lo, hi;

	for (size_t i = 0; i < 3 && q->scenarios[i] && !c; i++)
		c = bench_cell(bench, sc = q->scenarios[i], q->body);
	if (!c || *o >= len)
		return;
	ci = json_object_get(c, "ratio_ci");
	lo = num(json_object_get(ci, "lo"), NAN);
	hi = num(json_object_get(ci, "hi"), NAN);
	if (!isnan(lo) && !isnan(hi))
		snprintf(range, sizeof range, " [%.2f, %.2f]", lo, hi);
	verdict = json_string_value(json_object_get(json_object_get(c, "verdict"), "verdict"));
	if (verdict)
		snprintf(word, sizeof word, ": %s", verdict);
	*o += (size_t)snprintf(buf + *o, len - *o, "%s%s at %.2fx%s of no debugger (cdpbench "
			       "scenario %s%s)", *o > start ? "; " : "", q->what,
			       json_number_value(json_object_get(c, "ratio_to_none")), range, sc, word);
}

void audit_findings_cite(json_t *findings, const json_t *bench, const char *source)
{
	size_t i;
	json_t *f;

	json_array_foreach(findings, i, f) {
		const char *id = json_string_value(json_object_get(f, "id"));
		const char *own[3] = { json_string_value(json_object_get(f, "scenario")), NULL, NULL };
		char buf[1024];
		size_t o = (size_t)snprintf(buf, sizeof buf, "%s: ", source), start = o;
		int listed = 0;

		for (size_t q = 0; q < N_QUOTES; q++)
			if (id && !strcmp(quotes[q].id, id)) {
				listed = 1;
				quote(buf, sizeof buf, start, &o, bench, &quotes[q]);
			}
		if (!listed && own[0]) {
			struct quote q = { id, "u8", "u8 uploads", { own[0], NULL, NULL } };
			quote(buf, sizeof buf, start, &o, bench, &q);
		}
		if (o > start && o < sizeof buf)
			json_object_set_new(f, "measured", json_string(buf));
	}
}
