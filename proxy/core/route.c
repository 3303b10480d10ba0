/* route: what happens to one complete message: scan it, track its session,
 * apply the policy (pass, stub, reject, rewrite, drop, delay), count it, log
 * it and queue what results; the commands the proxy sends on its own; and
 * policy switches. */
#include "route.h"

#include <string.h>

#include "bidilog.h"
#include "record.h"
#include "selfdomain.h"
#include "util.h"

static const char *const kind_names[] = { "other", "command", "response", "event" };

/* Serializes j into a new message. */
static struct msg *msg_from_json(json_t *j)
{
	size_t n = json_dumpb(j, NULL, 0, JSON_COMPACT);
	struct msg *m = msg_new(n);

	m->len = json_dumpb(j, (char *)m->buf + MSG_PRE, n, JSON_COMPACT);
	return m;
}

/* Serializes object j into a new message ending with "sessionId": the
 * string sid of buf, its bytes as they came (escapes, and bytes that are
 * not UTF-8, which jansson would refuse), as Chrome echoes them. */
static struct msg *msg_from_json_sid(json_t *j, const char *buf, const struct scan_str *sid)
{
	static const char key[] = ",\"sessionId\":\"";
	size_t n = json_dumpb(j, NULL, 0, JSON_COMPACT);
	struct msg *m = msg_new(n + sizeof key - 1 + sid->len + 2);
	char *out = (char *)m->buf + MSG_PRE;

	m->len = json_dumpb(j, out, n, JSON_COMPACT) - 1;   /* without its '}' */
	memcpy(out + m->len, key, sizeof key - 1);
	m->len += sizeof key - 1;
	memcpy(out + m->len, buf + sid->off, sid->len);
	m->len += sid->len;
	memcpy(out + m->len, "\"}", 2);
	m->len += 2;
	return m;
}

#define NAME_BYTES SESSIONS_NAME   /* a logged method or session id, decoded */

/* The bytes of str in buf as the proxy keeps a name: at most NAME_BYTES - 1
 * of them, decoded. A plain short one (most are) is pointed at where it is
 * in buf, not NUL-terminated; any other is decoded into room, cut at a
 * character's start. Sets *out; returns the length (0 when absent). */
static size_t name_at(const char *buf, const struct scan_str *str, char *room, const char **out)
{
	long n;

	if (!str->escaped && str->len < NAME_BYTES) {   /* an absent one has len 0 */
		*out = buf + str->off;
		return str->len;
	}
	*out = room;
	n = scan_str_copy(buf, str, room, NAME_BYTES);
	return n < 0 ? 0 : n < NAME_BYTES ? (size_t)n : strlen(room);
}

/* What the sessions need of a message rec_scanned has filled rec from. */
static struct sessions_msg session_msg(const char *buf, const struct scan_result *r,
				       const struct log_rec *rec)
{
	struct sessions_msg m = { buf, r, rec->session ? rec->session : "",
				  rec->method ? rec->method : "",
				  rec->session ? rec->session_len : 0, rec->method_len };
	return m;
}

/* p's n bytes as a C string in room. */
static const char *to_room(char *room, const char *p, size_t n)
{
	if (p != room) {
		memcpy(room, p, n);
		room[n] = '\0';
	}
	return room;
}

/* The message's method and session id as C strings in their rooms, which
 * outlive the message (the policy path wants C strings, and a rewrite
 * frees the message); rec follows where it pointed at them. */
static void names_own(struct log_rec *rec, struct sessions_msg *msg, char *method, char *session)
{
	int rec_m = rec->method && rec->method == msg->method;
	int rec_s = rec->session && rec->session == msg->sid;

	msg->method = to_room(method, msg->method, msg->method_len);
	msg->sid = to_room(session, msg->sid, msg->sid_len);
	if (rec_m)
		rec->method = msg->method;
	if (rec_s)
		rec->session = msg->sid;
}

/* Points rec at method (len bytes), or at none when it is empty. */
static void rec_method(struct log_rec *rec, const char *method, size_t len)
{
	rec->method = len ? method : NULL;
	rec->method_len = len;
}

/* Fills rec's fields from scanned message r: its method and session id as
 * name_at leaves them (method and session: rooms of NAME_BYTES). */
static void rec_scanned(struct log_rec *rec, const char *buf, const struct scan_result *r,
			char *method, char *session)
{
	const char *p;
	size_t n;

	rec->kind = kind_names[r->kind];
	rec->has_id = r->has_id && r->id_is_int;
	rec->id = r->id;
	rec->has_error = r->has_error_code;
	rec->error = r->error_code;
	n = name_at(buf, &r->method, method, &p);
	rec_method(rec, p, n);
	if (r->session.present)
		rec->session_len = name_at(buf, &r->session, session, &rec->session);
}

/* Commands the session tracker forgot unanswered go to the stats. */
static void count_evicted(struct core_conn *cc)
{
	stats_add_evicted(cc->core->stats, cc->sessions.evicted);
	cc->sessions.evicted = 0;
}

static void count_and_log(struct core_conn *cc, enum side from, struct log_rec *rec, int log)
{
	struct core *core = cc->core;
	/* Stats file a message under its method, or what it is when it has none. */
	const char *name = rec->method ? rec->method :
		!strcmp(rec->kind, "response") ? "(unmatched)" :
		!strcmp(rec->kind, "binary") ? "(binary)" :
		!strcmp(rec->kind, "invalid") ? "(invalid)" : "(other)";

	stats_count(core->stats, name, rec->method ? rec->method_len : strlen(name),
		    !from, rec->bytes);
	if (core->log && log)
		log_message(core->log, rec);
	if (core->tail)
		tail_message(core->tail, rec, core->read_wall_us);
}

/* Sends a message the proxy wrote itself to side `to`: a command to Chrome
 * (its response will be consumed) or an answer to the client, which is
 * logged under its command's method and the action that made it; it counts
 * against the budget of the side whose message caused it (producer). Takes j. */
static void route_emit_msg(struct core_conn *cc, enum side to, struct msg *m, const char *answers,
			   const char *action, enum side producer)
{
	const char *buf = (const char *)m->buf + MSG_PRE;
	struct scan_result r;
	char method[NAME_BYTES] = "", session[NAME_BYTES] = "";
	struct log_rec rec = { .conn = cc->id, .to = to, .bytes = m->len,
			       .by_proxy = 1, .body = buf, .body_len = m->len };

	if (scan_message(buf, m->len, &r) == 0) {   /* always: we wrote it */
		rec_scanned(&rec, buf, &r, method, session);
		if (answers)
			rec_method(&rec, method, util_copy(method, answers, sizeof method));
		rec.action = action;
		if (to == UP && r.kind == SCAN_COMMAND) {
			struct sessions_msg sm = session_msg(buf, &r, &rec);
			sessions_on_command(&cc->sessions, &sm, util_mono_us(), 1, NULL);
		}
	}
	if (cc->sessions.evicted)
		count_evicted(cc);
	count_and_log(cc, !to, &rec, 1);
	core_enqueue(cc, to, m, producer);
}

/* route_emit_msg of j serialized. Takes j. */
static void route_emit(struct core_conn *cc, enum side to, json_t *j, const char *answers,
		       const char *action, enum side producer)
{
	struct msg *m = msg_from_json(j);

	json_decref(j);
	route_emit_msg(cc, to, m, answers, action, producer);
}

/* Sends Chrome a command of the proxy's own on session sid. */
static void route_command(struct core_conn *cc, const char *sid, const char *method, json_t *params,
			  enum side producer)
{
	json_t *j = json_pack("{s:I, s:s, s:O}", "id", (json_int_t)cc->next_proxy_id++,
			      "method", method, "params", params);

	if (*sid)
		json_object_set_new(j, "sessionId", json_string(sid));
	route_emit(cc, UP, j, NULL, NULL, producer);
}

/* Sends what the policy injects for a session that just attached. */
static void route_inject(struct core_conn *cc, const char *sid, const char *type,
			 enum side producer)
{
	json_t *cmds = policy_injects(cc->core->policy, type), *cmd;
	size_t i;

	json_array_foreach(cmds, i, cmd) {
		json_t *params = json_object_get(cmd, "params");
		json_t *empty = params ? NULL : json_object();
		route_command(cc, sid, json_string_value(json_object_get(cmd, "method")),
			      params ? params : empty, producer);
		json_decref(empty);
	}
	json_decref(cmds);
}

void route_conn_opened(struct core_conn *cc)
{
	struct session *own = sessions_get(&cc->sessions, "");

	if (own && own->type && !strcmp(own->type, "page"))
		route_inject(cc, "", own->type, DOWN);
}

/* The policy changed: brings cc's sessions in line (route_set_policy). */
static void route_sync(struct core_conn *cc)
{
	size_t i = 0;
	struct table_slot *ts;

	while ((ts = table_next(&cc->sessions.by_id, &i))) {
		struct session *se = ts->val;
		json_t *want = policy_desired(cc->core->policy, se->client_enabled, se->type, se->url,
					      cc->client.bidi_mapper);
		json_t *have = json_deep_copy(se->enabled), *params;
		const char *domain;
		char method[160];

		json_object_foreach(have, domain, params) {
			if (json_object_get(want, domain))
				continue;
			snprintf(method, sizeof method, "%s.disable", domain);
			json_t *none = json_object();
			route_command(cc, se->id, method, none, NOBODY);
			json_decref(none);
		}
		json_object_foreach(want, domain, params) {
			if (json_equal(json_object_get(have, domain), params))
				continue;
			snprintf(method, sizeof method, "%s.enable", domain);
			route_command(cc, se->id, method, params, NOBODY);
		}
		json_decref(have);
		json_decref(want);
	}
}

/* Answers the client's command r (scanned from buf) itself: with result
 * (taken) or, when it is NULL, the error code and message, and the
 * command's sessionId as it came; logged with the action that did. */
static void route_reply(struct core_conn *cc, const struct scan_result *r, const char *buf,
			const char *method, json_t *result, json_int_t code, const char *message,
			const char *action)
{
	json_t *j = json_object();
	struct msg *m;

	json_object_set_new(j, "id", json_integer((json_int_t)r->id));
	if (result)
		json_object_set_new(j, "result", result);
	else
		json_object_set_new(j, "error", json_pack("{s:I, s:o}", "code", code,
				    "message", util_json_bytes(message, strlen(message))));
	m = r->session.present ? msg_from_json_sid(j, buf, &r->session) : msg_from_json(j);
	json_decref(j);
	route_emit_msg(cc, DOWN, m, method, action, DOWN);
}

/* The client's command answered by the proxy: a stub's result or a reject's error. */
static void route_answer(struct core_conn *cc, const struct scan_result *r, const char *buf,
			 const char *method, const struct policy_rule *rule)
{
	route_reply(cc, r, buf, method,
		    rule->action == ACT_STUB ? json_incref(rule->result) : NULL,
		    (json_int_t)rule->code, rule->message, policy_action_name(rule->action));
}

/* A CDPProxy.* command: answered by the proxy (selfdomain.c), never sent
 * on; a policy it asks for is switched to before the answer is sent. */
static void route_selfdomain(struct core_conn *cc, const struct scan_result *r, const char *buf,
			     struct log_rec *rec, const char *method, const char *session)
{
	struct selfdomain_result res;

	rec->action = "control";
	count_and_log(cc, DOWN, rec, 1);
	selfdomain_command(cc, method, session, buf, &r->params, &res);
	if (res.policy) {
		route_set_policy(cc->core, res.policy, "CDPProxy.setPolicy");
		res.result = core_policy_json(cc->core);
	}
	route_reply(cc, r, buf, method, res.result, res.code, res.message, "control");
}

/* Rewrites m's params (result for a response) by rule. Returns the new
 * message, or m itself when it cannot be parsed. */
static struct msg *route_rewrite(struct msg *m, const struct policy_rule *rule, int response)
{
	json_t *j = json_loadb((const char *)m->buf + MSG_PRE, m->len, 0, NULL);
	const char *key = response ? "result" : "params";
	json_t *p = json_object_get(j, key);
	struct msg *out;

	if (!json_is_object(j))
		return m;
	if (!json_is_object(p)) {
		p = json_object();
		json_object_set_new(j, key, p);
	}
	policy_rewrite(rule, p);
	out = msg_from_json(j);
	json_decref(j);
	out->not_before_us = m->not_before_us;
	msg_free(m);
	return out;
}

void route_set_policy(struct core *core, struct policy *p, const char *source)
{
	core_install_policy(core, p, source);
	for (struct core_conn *cc = core->conns; cc; cc = cc->next)
		route_sync(cc);
}

/* How much of a message's start route_begin waits for to see its first
 * member; a message that has not shown it by then is stored and forwarded. */
#define CUT_PREFIX 4096

/* Has method str an escape? Rules match its decoded name, which only the
 * whole message's scan gives: such a message is stored. */
static int escaped(const char *buf, const struct scan_str *str)
{
	return memchr(buf + str->off, '\\', str->len) != NULL;
}

/* Chrome's message begun in buf[0..len): may it go on before it is whole?
 * 1 yes, 0 no, -1 its first bytes do not tell yet. */
static int begin_from_up(const struct core *core, const char *buf, size_t len)
{
	struct scan_first f;

	switch (scan_first(buf, len, &f)) {
	case SCAN_FIRST_MORE:
		return len < CUT_PREFIX ? -1 : 0;
	case SCAN_FIRST_METHOD:
		/* An event, judged on its method whatever its session's target. */
		return !escaped(buf, &f.method) &&
		       !policy_may_match(core->policy, PK_EVENT, buf + f.method.off, f.method.len);
	case SCAN_FIRST_ID:
		/* A response: a rule matches its command's method, found by its
		 * id and sessionId, which comes last; an answer to the proxy's
		 * own command is not forwarded at all. */
		return f.id < PROXY_ID_BASE && !policy_may_match(core->policy, PK_RESPONSE, NULL, 0);
	default:
		return 0;
	}
}

/* The client's message begun in buf[0..len): a command whose method
 * (its first member, or its second after its id) no rule could match,
 * whatever its target, and not the proxy's own (CDPProxy.*). */
static int begin_from_down(const struct core *core, const char *buf, size_t len)
{
	struct scan_first f;
	enum scan_first_kind k = scan_first(buf, len, &f);

	if (k == SCAN_FIRST_ID)
		k = scan_next(buf, len, &f);
	if (k == SCAN_FIRST_MORE)
		return len < CUT_PREFIX ? -1 : 0;
	if (k != SCAN_FIRST_METHOD || escaped(buf, &f.method) || (core->selfdomain && selfdomain_owns(buf + f.method.off,
									  f.method.len)))
		return 0;
	return !policy_may_match(core->policy, PK_COMMAND, buf + f.method.off, f.method.len);
}

int route_begin(struct core_conn *cc, enum side from, struct msg *m, uint64_t total)
{
	struct core *core = cc->core;
	const char *buf = (const char *)MSG_DATA(m);
	int rc;

	if (m->type != MSG_TEXT || cc->shut[!from])
		return 0;
	/* A pipe's message ends at its NUL: what is in so far is its size
	 * at least, and may pass cut_min with the next read. */
	if ((total ? total : m->len) <= core->cut_min)
		return total ? 0 : -1;
	/* Its side is paused (a queue it fills is full), so its leg reads no
	 * more: cut through, the message would hold the head of a queue that
	 * waits for it to drain. Stored, it waits in its leg instead. */
	if (core_paused(cc, from))
		return 0;
	rc = from == UP ? begin_from_up(core, buf, m->len) : begin_from_down(core, buf, m->len);
	if (rc <= 0)
		return rc;
	m->want = total ? (size_t)total : SIZE_MAX;
	core_stream_begin(cc, !from, m);
	return 1;
}

/* m, decided, goes to the other side: queued, or, cut through, already
 * there, now whole. */
static void route_send(struct core_conn *cc, enum side from, struct msg *m)
{
	if (m->want)
		core_stream_end(cc, !from, from);
	else
		core_enqueue(cc, !from, m, from);
}

/* scan_message of m; one cut through was stream-scanned as it came
 * (core_stream_grew): only what that did not see is read now. */
static int scan_routed(struct core_conn *cc, enum side from, const struct msg *m,
		       struct scan_result *r)
{
	const char *buf = (const char *)MSG_DATA(m);

	return m->want ? scan_message_streamed(buf, m->len, &cc->cut_scan[!from], r) :
			 scan_message(buf, m->len, r);
}

/* --record-bodies: Chrome's event m (scanned r, its session in msg) goes
 * on, and the body of a request it finished is asked for (record.h) on the
 * request's session, by the proxy's own command. */
static void route_record(struct core_conn *cc, enum side from, struct msg *m,
			 const struct scan_result *r, const struct sessions_msg *msg)
{
	char sid[NAME_BYTES];
	json_t *fetch;

	to_room(sid, msg->sid, msg->sid_len);
	fetch = record_event(cc, (const char *)MSG_DATA(m), r, sid);
	route_send(cc, from, m);
	if (fetch)
		route_command(cc, sid, "Network.getResponseBody", fetch, UP);
	json_decref(fetch);
}

void route_deliver(struct core_conn *cc, enum side from, struct msg *m)
{
	struct core *core = cc->core;
	const char *buf = (const char *)m->buf + MSG_PRE;
	struct scan_result r;
	struct log_rec rec = { .t = core->read_wall_us, .conn = cc->id,
			       .to = !from,
			       .bytes = m->len, .body = buf, .body_len = m->len };
	char method[NAME_BYTES], session[NAME_BYTES];   /* rooms for names_own */
	const char *name;            /* the method, or a response's command's */
	struct sessions_msg msg;
	struct sessions_match sm;
	struct session *se;
	struct policy_rule *rule = NULL;
	enum policy_kind pk = 0;
	json_t *client_params = NULL;
	uint64_t now = core->read_mono_us;
	int cut = m->want != 0;      /* cut through: forwarded as it came, no rule */

	method[0] = session[0] = '\0';   /* not the whole 2 x 128 bytes per message */
	if (m->type == MSG_BINARY || scan_routed(cc, from, m, &r) < 0) {
		rec.kind = m->type == MSG_BINARY ? "binary" : "invalid";
		count_and_log(cc, from, &rec, 1);
		route_send(cc, from, m);
		return;
	}
	rec_scanned(&rec, buf, &r, method, session);
	msg = session_msg(buf, &r, &rec);
	name = msg.method;
	if (from == UP && r.kind == SCAN_RESPONSE &&
	    sessions_on_response(&cc->sessions, &msg, now, &sm) == 0) {
		name = sm.method;
		rec_method(&rec, name, sm.method_len);
		rec.has_rtt = 1;
		rec.rtt_us = sm.rtt_us;
		stats_rtt(core->stats, name, rec.method_len, sm.rtt_us);
		if (sm.by_proxy && !cut) {   /* the answer to the proxy's own command */
			rec.by_proxy = 1;
			rec.body_whole = record_answer(cc, name, rec.method_len, m->len);
			count_and_log(cc, from, &rec, 1);
			msg_free(m);
			return;
		}
		pk = PK_RESPONSE;
	} else if (from == DOWN && r.kind == SCAN_COMMAND) {
		pk = PK_COMMAND;
	} else if (from == UP && r.kind == SCAN_EVENT) {
		pk = PK_EVENT;
	}
	if (pk == PK_COMMAND && rec.method)
		client_on_command(&cc->client, rec.method, rec.method_len);
	/* A command cut through went on already, judged by its first method
	 * key; one with a second is invalid (scan_message refuses a key it
	 * reads twice, as Chrome does), so the two paths judge it alike. */
	if (pk == PK_COMMAND && core->selfdomain && rec.method && !cut &&
	    selfdomain_owns(rec.method, rec.method_len)) {
		names_own(&rec, &msg, method, session);
		route_selfdomain(cc, &r, buf, &rec, msg.method, session);
		msg_free(m);
		return;
	}
	if (pk && rec.method && core->policy->n_rules && !cut) {
		names_own(&rec, &msg, method, session);
		if (pk != PK_RESPONSE)
			name = msg.method;
		se = sessions_get(&cc->sessions, session);
		rule = policy_match(core->policy, pk, name, rec.method_len,
				    se ? se->type : NULL, se ? se->url : NULL, cc->client.bidi_mapper);
	}
	if (rule) {
		rule->hits++;
		core->actions[rule->action]++;
		rec.action = policy_action_name(rule->action);
	}

	switch (rule ? rule->action : ACT_PASS) {
	case ACT_STUB:
	case ACT_REJECT:
		count_and_log(cc, from, &rec, rule->log);
		if (rule->action == ACT_STUB) {
			client_params = sessions_object_at(buf, &r.params);
			sessions_on_stub(&cc->sessions, session, name, client_params);
			json_decref(client_params);
		}
		route_answer(cc, &r, buf, name, rule);
		msg_free(m);
		return;
	case ACT_DROP:
		count_and_log(cc, from, &rec, rule->log);
		msg_free(m);
		return;
	case ACT_DELAY:
		m->not_before_us = now + rule->delay_ms * 1000;
		break;
	case ACT_REWRITE:
		if (pk == PK_COMMAND)
			client_params = sessions_object_at(buf, &r.params);
		m = route_rewrite(m, rule, pk == PK_RESPONSE);
		buf = (const char *)m->buf + MSG_PRE;
		rec.bytes = rec.body_len = m->len;
		rec.body = buf;
		if (scan_message(buf, m->len, &r) < 0) {   /* cannot happen: jansson wrote it */
			json_decref(client_params);
			core_enqueue(cc, !from, m, from);
			return;
		}
		msg.buf = buf;   /* its method and session are the message's before */
		break;
	default:
		break;
	}
	if (pk == PK_COMMAND) {
		sessions_on_command(&cc->sessions, &msg, now, 0, client_params);
		if (cc->sessions.evicted)
			count_evicted(cc);
	} else if (pk == PK_EVENT) {
		json_t *records = sessions_on_event(&cc->sessions, buf, &r), *rec_j;
		size_t i;
		json_array_foreach(records, i, rec_j)
			if (core->log)
				log_event(core->log, cc->id, "session", json_incref(rec_j));
		json_decref(records);
		if (scan_str_eq(buf, &r.method, "Target.attachedToTarget")) {
			json_t *p = sessions_object_at(buf, &r.params);
			const char *sid = json_string_value(json_object_get(p, "sessionId"));
			const char *type = json_string_value(json_object_get(
				json_object_get(p, "targetInfo"), "type"));
			if (sid && type)
				route_inject(cc, sid, type, UP);
			json_decref(p);
		}
	}
	json_decref(client_params);
	count_and_log(cc, from, &rec, !rule || rule->log);
	if (pk == PK_COMMAND || pk == PK_EVENT)
		bidilog_message(cc, buf, &r, &rec);
	if (pk == PK_EVENT && core->record_budget)
		route_record(cc, from, m, &r, &msg);
	else
		route_send(cc, from, m);
}
