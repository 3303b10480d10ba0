/* route: what happens to one complete message: scan it, track its session,
 * apply the policy (pass, stub, reject, rewrite, drop, delay), count it, log
 * it and queue what results; the commands the proxy sends on its own; and
 * policy switches. */
#include "route.h"

#include <string.h>

#include "bidilog.h"
#include "channel.h"
#include "emit.h"
#include "leg.h"
#include "record.h"
#include "selfdomain.h"
#include "util.h"

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

/* Sends what the policy injects for a session that just attached. */
static void route_inject(struct core_conn *cc, const char *sid, const char *type,
			 enum side producer)
{
	json_t *cmds = policy_injects(cc->core->policy, type), *cmd;
	size_t i;

	json_array_foreach(cmds, i, cmd) {
		json_t *params = json_object_get(cmd, "params");
		json_t *empty = params ? NULL : json_object();
		emit_command(cc, sid, json_string_value(json_object_get(cmd, "method")),
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
			emit_command(cc, se->id, method, none, NOBODY);
			json_decref(none);
		}
		json_object_foreach(want, domain, params) {
			if (json_equal(json_object_get(have, domain), params))
				continue;
			snprintf(method, sizeof method, "%s.enable", domain);
			emit_command(cc, se->id, method, params, NOBODY);
		}
		json_decref(have);
		json_decref(want);
	}
}

/* The client's command answered by the proxy: a stub's result or a reject's error. */
static void route_answer(struct core_conn *cc, const struct scan_result *r, const char *buf,
			 const char *method, const struct policy_rule *rule)
{
	emit_reply(cc, r, buf, method,
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
	emit_count_and_log(cc, DOWN, rec, 1);
	selfdomain_command(cc, method, session, buf, &r->params, &res);
	if (res.policy) {
		route_set_policy(cc->core, res.policy, "CDPProxy.setPolicy");
		res.result = core_policy_json(cc->core);
	}
	emit_reply(cc, r, buf, method, res.result, res.code, res.message, "control");
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
	out = emit_msg_json(j);
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
static int begin_from_up(const struct core_conn *cc, const char *buf, size_t len)
{
	const struct core *core = cc->core;
	struct scan_first f;

	switch (scan_first(buf, len, &f)) {
	case SCAN_FIRST_MORE:
		return len < CUT_PREFIX ? -1 : 0;
	case SCAN_FIRST_METHOD:
		/* An event, judged on its method whatever its session's target. */
		return !escaped(buf, &f.method) &&
		       channel_may_cut(cc, buf + f.method.off, f.method.len) &&
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

	/* A side that takes whole messages only (a channel's) gets no cut. */
	if (m->type != MSG_TEXT || cc->shut[!from] || !cc->ops[!from]->sent)
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
	rc = from == UP ? begin_from_up(cc, buf, m->len) : begin_from_down(core, buf, m->len);
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
		emit_command(cc, sid, "Network.getResponseBody", fetch, UP);
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
		emit_count_and_log(cc, from, &rec, 1);
		route_send(cc, from, m);
		return;
	}
	emit_rec_scanned(&rec, buf, &r, method, session);
	msg = emit_session_msg(buf, &r, &rec);
	name = msg.method;
	if (from == UP && r.kind == SCAN_RESPONSE &&
	    sessions_on_response(&cc->sessions, &msg, now, &sm) == 0) {
		name = sm.method;
		emit_rec_method(&rec, name, sm.method_len);
		rec.has_rtt = 1;
		rec.rtt_us = sm.rtt_us;
		stats_rtt(core->stats, name, rec.method_len, sm.rtt_us);
		if (sm.by_proxy && !cut) {   /* the answer to the proxy's own command */
			rec.by_proxy = 1;
			if (cc->chan)
				channel_answer(cc, buf, &r, r.id);
			rec.body_whole = record_answer(cc, name, rec.method_len, m->len);
			emit_count_and_log(cc, from, &rec, 1);
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
	/* The BiDi mapper's channel (channel.h): its setup, its carriers. */
	if (pk == PK_COMMAND && !cut && channel_command(cc, buf, &r, &rec)) {
		msg_free(m);
		return;
	}
	if (pk == PK_EVENT && cc->chan && !cut) {
		struct msg *mapper_msg;
		if (channel_event(cc, buf, &r, &rec, &mapper_msg)) {
			if (mapper_msg)
				route_deliver(cc->chan->mapper, DOWN, mapper_msg);
			msg_free(m);
			return;
		}
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
		emit_count_and_log(cc, from, &rec, rule->log);
		if (rule->action == ACT_STUB) {
			client_params = sessions_object_at(buf, &r.params);
			sessions_on_stub(&cc->sessions, session, name, client_params);
			json_decref(client_params);
		}
		route_answer(cc, &r, buf, name, rule);
		msg_free(m);
		return;
	case ACT_DROP:
		emit_count_and_log(cc, from, &rec, rule->log);
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
			emit_count_evicted(cc);
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
	emit_count_and_log(cc, from, &rec, !rule || rule->log);
	if (pk == PK_COMMAND || pk == PK_EVENT)
		bidilog_message(cc, buf, &r, &rec);
	if (pk == PK_EVENT && core->record_budget)
		route_record(cc, from, m, &r, &msg);
	else
		route_send(cc, from, m);
}
