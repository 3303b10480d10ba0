/* selfdomain: the proxy's own CDP domain, CDPProxy, answered in band by
 * the proxy itself: a test steers its own A/B run through the CDP session
 * it already has. */
#include "selfdomain.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

#define SELFDOMAIN_PREFIX "CDPProxy."
#define SELFDOMAIN_KNOWN "CDPProxy.getPolicy, CDPProxy.setPolicy {name | policy}, " \
			 "CDPProxy.getStats {session?} and CDPProxy.mark {label}"

/* JSON-RPC's codes, as Chrome answers them. */
enum { ERR_NO_METHOD = -32601, ERR_PARAMS = -32602 };

int selfdomain_owns(const char *method, size_t len)
{
	return len > sizeof SELFDOMAIN_PREFIX - 1 &&
	       !memcmp(method, SELFDOMAIN_PREFIX, sizeof SELFDOMAIN_PREFIX - 1);
}

/* Makes res an error answer: code, and the message as printf formats it. */
__attribute__((format(printf, 3, 4)))
static void fail(struct selfdomain_result *res, int code, const char *fmt, ...)
{
	va_list ap;

	res->code = code;
	va_start(ap, fmt);
	vsnprintf(res->message, sizeof res->message, fmt, ap);
	va_end(ap);
}

/* CDPProxy.setPolicy {name} or {policy: {...}}: the policy, for the caller
 * to switch to. */
static void set_policy(struct core_conn *cc, json_t *params, struct selfdomain_result *res)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	json_t *doc = json_object_get(params, "policy");

	if (!name == !doc) {
		fail(res, ERR_PARAMS, "CDPProxy.setPolicy takes {name: \"no-network\"} or "
		     "{policy: {...}}, one of the two");
		return;
	}
	res->policy = name ? core_policy_by_name(cc->core, name, res->message, sizeof res->message) :
		policy_parse(doc, "CDPProxy.setPolicy", "CDPProxy.setPolicy", res->message,
			     sizeof res->message);
	if (!res->policy)
		res->code = ERR_PARAMS;
}

/* CDPProxy.getStats {session?}: the proxy's counters, and this
 * connection's sessions (or the one asked for). */
static void get_stats(struct core_conn *cc, json_t *params, struct selfdomain_result *res)
{
	json_t *want = json_object_get(params, "session");
	json_t *st = stats_json(cc->core->stats), *all = sessions_json(&cc->sessions), *se;
	size_t i;

	if (want && !json_is_string(want)) {
		json_decref(st);
		json_decref(all);
		fail(res, ERR_PARAMS, "CDPProxy.getStats: session is a session id (a string)");
		return;
	}
	if (want) {
		json_t *one = NULL;
		json_array_foreach(all, i, se)
			if (json_equal(json_object_get(se, "sessionId"), want))
				one = json_incref(se);
		json_decref(all);
		if (!one) {
			json_decref(st);
			fail(res, ERR_PARAMS, "CDPProxy.getStats: no session '%.100s' on this connection",
			     json_string_value(want));
			return;
		}
		json_object_set_new(st, "session", one);
	} else {
		json_object_set_new(st, "sessions", all);
	}
	json_object_set_new(st, "conn", json_integer((json_int_t)cc->id));
	json_object_set_new(st, "policy", core_policy_json(cc->core));
	res->result = st;
}

/* CDPProxy.mark {label}: a "mark" record in the log, between the
 * session's messages, to cut a log into a test's phases. */
static void mark(struct core_conn *cc, const char *sid, json_t *params, struct selfdomain_result *res)
{
	json_t *label = json_object_get(params, "label");

	if (!json_is_string(label)) {
		fail(res, ERR_PARAMS, "CDPProxy.mark takes {label: \"...\"}");
		return;
	}
	if (json_string_length(label) > SELFDOMAIN_LABEL_MAX) {
		fail(res, ERR_PARAMS, "CDPProxy.mark: label longer than %d bytes", SELFDOMAIN_LABEL_MAX);
		return;
	}
	cc->core->marks++;
	if (cc->core->tail)
		tail_note(cc->core->tail, "mark", cc->id, json_string_value(label), cc->core->read_wall_us);
	if (cc->core->log) {
		json_t *f = json_object();
		json_object_set(f, "label", label);
		if (*sid)
			json_object_set_new(f, "session", json_string(sid));
		/* The command's read time: messages read after it sort after it. */
		log_event_at(cc->core->log, cc->core->read_wall_us, cc->id, "mark", f);
	}
	res->result = json_object();
}

void selfdomain_command(struct core_conn *cc, const char *method, const char *sid,
			const char *buf, const struct scan_span *params,
			struct selfdomain_result *res)
{
	const char *m = method + sizeof SELFDOMAIN_PREFIX - 1;
	json_t *p;

	res->result = NULL;
	res->code = 0;
	res->message[0] = '\0';
	res->policy = NULL;
	/* Params past the bound are not even parsed: a 200 MiB label must not
	 * hold up the loop. */
	if (params->len > SELFDOMAIN_PARAMS_MAX) {
		fail(res, ERR_PARAMS, "%.100s: params longer than %d bytes", method,
		     SELFDOMAIN_PARAMS_MAX);
		return;
	}
	p = sessions_object_at(buf, params);
	if (!strcmp(m, "getPolicy"))
		res->result = core_policy_json(cc->core);
	else if (!strcmp(m, "setPolicy"))
		set_policy(cc, p, res);
	else if (!strcmp(m, "getStats"))
		get_stats(cc, p, res);
	else if (!strcmp(m, "mark"))
		mark(cc, sid, p, res);
	else
		fail(res, ERR_NO_METHOD, "'%.100s' wasn't found: cdpproxy answers " SELFDOMAIN_KNOWN,
		     method);
	json_decref(p);
}
