/* emit: the messages the proxy writes itself (its own commands to Chrome,
 * its answers to the client), and the record every routed message gets:
 * its fields read from the scan, counted, logged, shown. Below route and
 * channel, which both send through it (emit.h). */
#include "emit.h"

#include <string.h>

#include "util.h"

static const char *const kind_names[] = { "other", "command", "response", "event" };

/* Serializes j into a new message. */
struct msg *emit_msg_json(json_t *j)
{
	size_t n = json_dumpb(j, NULL, 0, JSON_COMPACT);
	struct msg *m = msg_new(n);

	m->len = json_dumpb(j, (char *)m->buf + MSG_PRE, n, JSON_COMPACT);
	return m;
}

/* Serializes object j into a new message ending with "sessionId": the
 * string sid of buf, its bytes as they came (escapes, and bytes that are
 * not UTF-8, which jansson would refuse), as Chrome echoes them. */
struct msg *emit_msg_json_sid(json_t *j, const char *buf, const struct scan_str *sid)
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
struct sessions_msg emit_session_msg(const char *buf, const struct scan_result *r,
				     const struct log_rec *rec)
{
	struct sessions_msg m = { buf, r, rec->session ? rec->session : "",
				  rec->method ? rec->method : "",
				  rec->session ? rec->session_len : 0, rec->method_len };
	return m;
}

/* Points rec at method (len bytes), or at none when it is empty. */
void emit_rec_method(struct log_rec *rec, const char *method, size_t len)
{
	rec->method = len ? method : NULL;
	rec->method_len = len;
}

/* Fills rec's fields from scanned message r: its method and session id as
 * name_at leaves them (method and session: rooms of NAME_BYTES). */
void emit_rec_scanned(struct log_rec *rec, const char *buf, const struct scan_result *r,
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
	emit_rec_method(rec, p, n);
	if (r->session.present)
		rec->session_len = name_at(buf, &r->session, session, &rec->session);
}

/* Commands the session tracker forgot unanswered go to the stats. */
void emit_count_evicted(struct core_conn *cc)
{
	stats_add_evicted(cc->core->stats, cc->sessions.evicted);
	cc->sessions.evicted = 0;
}

void emit_count_and_log(struct core_conn *cc, enum side from, struct log_rec *rec, int log)
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
void emit_msg(struct core_conn *cc, enum side to, struct msg *m, const char *answers,
	      const char *action, enum side producer)
{
	const char *buf = (const char *)m->buf + MSG_PRE;
	struct scan_result r;
	char method[NAME_BYTES] = "", session[NAME_BYTES] = "";
	struct log_rec rec = { .conn = cc->id, .to = to, .bytes = m->len,
			       .by_proxy = 1, .body = buf, .body_len = m->len };

	if (scan_message(buf, m->len, &r) == 0) {   /* always: we wrote it */
		emit_rec_scanned(&rec, buf, &r, method, session);
		if (answers)
			emit_rec_method(&rec, method, util_copy(method, answers, sizeof method));
		rec.action = action;
		if (to == UP && r.kind == SCAN_COMMAND) {
			struct sessions_msg sm = emit_session_msg(buf, &r, &rec);
			sessions_on_command(&cc->sessions, &sm, util_mono_us(), 1, NULL);
		}
	}
	if (cc->sessions.evicted)
		emit_count_evicted(cc);
	emit_count_and_log(cc, !to, &rec, 1);
	core_enqueue(cc, to, m, producer);
}

/* emit_msg of j serialized. Takes j. */
void emit_json(struct core_conn *cc, enum side to, json_t *j, const char *answers,
	       const char *action, enum side producer)
{
	struct msg *m = emit_msg_json(j);

	json_decref(j);
	emit_msg(cc, to, m, answers, action, producer);
}

/* Sends Chrome a command of the proxy's own on session sid. */
int64_t emit_command(struct core_conn *cc, const char *sid, const char *method, json_t *params,
		     enum side producer)
{
	int64_t id = cc->next_proxy_id++;
	json_t *j = json_pack("{s:I, s:s, s:O}", "id", (json_int_t)id, "method", method, "params", params);

	if (*sid)
		json_object_set_new(j, "sessionId", json_string(sid));
	emit_json(cc, UP, j, NULL, NULL, producer);
	return id;
}

/* Answers the client's command r (scanned from buf) itself: with result
 * (taken) or, when it is NULL, the error code and message, and the
 * command's sessionId as it came; logged with the action that did. */
void emit_reply(struct core_conn *cc, const struct scan_result *r, const char *buf,
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
	m = r->session.present ? emit_msg_json_sid(j, buf, &r->session) : emit_msg_json(j);
	json_decref(j);
	emit_msg(cc, DOWN, m, method, action, DOWN);
}

