/* emit: the messages the proxy writes itself, and the fields, count and
 * log record of every message the core routes. What route and channel
 * share; calls down only (core, the pure modules, stats, log). */
#ifndef CDPPROXY_EMIT_H
#define CDPPROXY_EMIT_H

#include <stdint.h>

#include "core.h"

#define NAME_BYTES SESSIONS_NAME   /* a logged method or session id, decoded */

/* Serializes j into a new message. */
struct msg *emit_msg_json(json_t *j);
/* ... ending with "sessionId": the string sid of buf, its bytes as they
 * came (escapes, bytes that are not UTF-8), as Chrome echoes them. */
struct msg *emit_msg_json_sid(json_t *j, const char *buf, const struct scan_str *sid);
/* What the sessions need of a message emit_rec_scanned has filled rec from. */
struct sessions_msg emit_session_msg(const char *buf, const struct scan_result *r,
				     const struct log_rec *rec);
/* Points rec at method (len bytes), or at none when it is empty. */
void emit_rec_method(struct log_rec *rec, const char *method, size_t len);
/* Fills rec's fields from scanned message r: its method and session id,
 * decoded into method and session (rooms of NAME_BYTES) when they must be. */
void emit_rec_scanned(struct log_rec *rec, const char *buf, const struct scan_result *r,
		      char *method, char *session);
/* Commands the session tracker forgot unanswered go to the stats. */
void emit_count_evicted(struct core_conn *cc);
/* Counts rec's message (from side `from`), logs it when log, shows it. */
void emit_count_and_log(struct core_conn *cc, enum side from, struct log_rec *rec, int log);
/* Sends m, written by the proxy, to side `to`: a command to Chrome (its
 * answer is consumed) or an answer to the client, logged under its
 * command's method (answers) and with action; it counts against the
 * budget of the side whose message caused it (producer). Takes m. */
void emit_msg(struct core_conn *cc, enum side to, struct msg *m, const char *answers,
	      const char *action, enum side producer);
/* emit_msg of j serialized. Takes j. */
void emit_json(struct core_conn *cc, enum side to, json_t *j, const char *answers,
	       const char *action, enum side producer);
/* Sends Chrome a command of the proxy's own on session sid ("": the
 * connection's own): its id. */
int64_t emit_command(struct core_conn *cc, const char *sid, const char *method, json_t *params,
		     enum side producer);
/* Answers the client's command r (scanned from buf) itself: with result
 * (taken) or, when it is NULL, the error code and message, and the
 * command's sessionId as it came; logged with the action that did. */
void emit_reply(struct core_conn *cc, const struct scan_result *r, const char *buf,
		const char *method, json_t *result, json_int_t code, const char *message,
		const char *action);

#endif
