/* control: the CDPProxy domain, answered in band by the proxy itself: a
 * test steers its own A/B run through the CDP session it already has. */
#include "control.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

#define CONTROL_PREFIX "CDPProxy."
#define CONTROL_KNOWN "CDPProxy.getPolicy, CDPProxy.setPolicy {name | policy}, " \
		      "CDPProxy.getStats {session?} and CDPProxy.mark {label}"

/* JSON-RPC's codes, as Chrome answers them. */
enum { ERR_NO_METHOD = -32601, ERR_PARAMS = -32602 };

/* A policy name is a file name: longer ones would be cut in the path. */
#define POLICY_NAME_MAX 200

int control_is_ours(const char *method, size_t len)
{
	return len > sizeof CONTROL_PREFIX - 1 &&
	       !memcmp(method, CONTROL_PREFIX, sizeof CONTROL_PREFIX - 1);
}

struct policy *control_policy_by_name(const struct core *core, const char *name,
				      char *err, size_t errlen)
{
	char path[1024];
	const char *dir = core->policy_dir ? core->policy_dir : "policies";

	if (!*name || strchr(name, '/') || name[0] == '.' || strlen(name) > POLICY_NAME_MAX) {
		snprintf(err, errlen, "'%.200s%s' is not a policy name (a file name in %s, without .json, "
			 "of at most %d bytes)", name, strlen(name) > POLICY_NAME_MAX ? "..." : "", dir,
			 POLICY_NAME_MAX);
		return NULL;
	}
	snprintf(path, sizeof path, "%s/%.200s.json", dir, name);
	return policy_load(path, err, errlen);
}

json_t *control_policy_json(const struct core *core)
{
	json_t *j = json_object();

	json_object_set_new(j, "name", util_json_str(core->policy->name));
	json_object_set_new(j, "gen", json_integer((json_int_t)core->policy_gen));
	json_object_set_new(j, "since_us", json_integer((json_int_t)core->policy_since_us));
	json_object_set_new(j, "policy", policy_json(core->policy));
	return j;
}

/* CDPProxy.setPolicy {name} or {policy: {...}}. */
static json_t *set_policy(struct core_conn *cc, json_t *params, int *code, char *msg, size_t msglen)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	json_t *doc = json_object_get(params, "policy");
	struct policy *p;

	if (!name == !doc) {
		*code = ERR_PARAMS;
		snprintf(msg, msglen, "CDPProxy.setPolicy takes {name: \"no-network\"} or "
			 "{policy: {...}}, one of the two");
		return NULL;
	}
	p = name ? control_policy_by_name(cc->core, name, msg, msglen) :
		   policy_parse(doc, "CDPProxy.setPolicy", "CDPProxy.setPolicy", msg, msglen);
	if (!p) {
		*code = ERR_PARAMS;
		return NULL;
	}
	core_set_policy(cc->core, p, "CDPProxy.setPolicy");
	return control_policy_json(cc->core);
}

/* CDPProxy.getStats {session?}: the proxy's counters, and this
 * connection's sessions (or the one asked for). */
static json_t *get_stats(struct core_conn *cc, json_t *params, int *code, char *msg, size_t msglen)
{
	json_t *want = json_object_get(params, "session");
	json_t *st = stats_json(cc->core->stats), *all = sessions_json(&cc->sessions), *se;
	size_t i;

	if (want && !json_is_string(want)) {
		json_decref(st);
		json_decref(all);
		*code = ERR_PARAMS;
		snprintf(msg, msglen, "CDPProxy.getStats: session is a session id (a string)");
		return NULL;
	}
	if (want) {
		json_t *one = NULL;
		json_array_foreach(all, i, se)
			if (json_equal(json_object_get(se, "sessionId"), want))
				one = json_incref(se);
		json_decref(all);
		if (!one) {
			json_decref(st);
			*code = ERR_PARAMS;
			snprintf(msg, msglen, "CDPProxy.getStats: no session '%.100s' on this connection",
				 json_string_value(want));
			return NULL;
		}
		json_object_set_new(st, "session", one);
	} else {
		json_object_set_new(st, "sessions", all);
	}
	json_object_set_new(st, "conn", json_integer((json_int_t)cc->id));
	json_object_set_new(st, "policy", control_policy_json(cc->core));
	return st;
}

/* CDPProxy.mark {label}: a "mark" record in the log, between the
 * session's messages, to cut a log into a test's phases. */
static json_t *mark(struct core_conn *cc, const char *sid, json_t *params, int *code, char *msg,
		    size_t msglen)
{
	json_t *label = json_object_get(params, "label");

	if (!json_is_string(label)) {
		*code = ERR_PARAMS;
		snprintf(msg, msglen, "CDPProxy.mark takes {label: \"...\"}");
		return NULL;
	}
	if (json_string_length(label) > CONTROL_LABEL_MAX) {
		*code = ERR_PARAMS;
		snprintf(msg, msglen, "CDPProxy.mark: label longer than %d bytes", CONTROL_LABEL_MAX);
		return NULL;
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
	return json_object();
}

json_t *control_too_large(const char *method, int *code, char *msg, size_t msglen)
{
	*code = ERR_PARAMS;
	snprintf(msg, msglen, "%.100s: params longer than %d bytes", method, CONTROL_PARAMS_MAX);
	return NULL;
}

json_t *control_command(struct core_conn *cc, const char *method, const char *sid,
			json_t *params, int *code, char *msg, size_t msglen)
{
	const char *m = method + sizeof CONTROL_PREFIX - 1;

	if (!strcmp(m, "getPolicy"))
		return control_policy_json(cc->core);
	if (!strcmp(m, "setPolicy"))
		return set_policy(cc, params, code, msg, msglen);
	if (!strcmp(m, "getStats"))
		return get_stats(cc, params, code, msg, msglen);
	if (!strcmp(m, "mark"))
		return mark(cc, sid, params, code, msg, msglen);
	*code = ERR_NO_METHOD;
	snprintf(msg, msglen, "'%.100s' wasn't found: cdpproxy answers " CONTROL_KNOWN, method);
	return NULL;
}
