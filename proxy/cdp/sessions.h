/* sessions: per-connection CDP session tracking: targets, enabled domains, and
 * commands in flight (for round-trip times). Pure: bytes and structs only. */
#ifndef CDPPROXY_SESSIONS_H
#define CDPPROXY_SESSIONS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "scan.h"
#include "table.h"

struct session {
	char *id;                /* "" is the connection's own session */
	char *target_id, *type, *url;  /* NULL until known */
	json_t *enabled;         /* domain -> params Chrome has it enabled with */
	json_t *client_enabled;  /* domain -> params the client enabled it with
				    (whether the policy forwarded, rewrote or stubbed it) */
	json_t *proxy_enabled;   /* domain -> params the proxy itself enabled it with */
};

/* What a command's successful response changes in the sessions. */
enum pending_effect { EFFECT_NONE, EFFECT_ENABLE, EFFECT_DISABLE, EFFECT_ATTACH };

/* Room for a method or session id as the proxy keeps it: decoded, cut to
 * SESSIONS_NAME - 1 bytes (at a character's start), NUL-terminated. */
#define SESSIONS_NAME 128
/* Domains a session's enabled sets hold at most (the protocol has 56). */
#define SESSIONS_DOMAINS_MAX 128

/* A command waiting for its response. */
struct pending {
	char method[SESSIONS_NAME];
	size_t method_len;
	uint64_t sent_us;        /* monotonic */
	int by_proxy;            /* the proxy sent it: its response is not forwarded */
	enum pending_effect effect;  /* told by its method, once, when it is sent */
	json_t *params;          /* kept for X.enable and Target.attachToTarget only */
	json_t *client_params;   /* X.enable: the params as the client sent them */
	struct pending *older, *newer;  /* in the order they were sent */
	size_t klen;
	char key[SESSIONS_NAME + 8];  /* its key in the pending table */
};

/* What a response was an answer to. */
struct sessions_match {
	char method[SESSIONS_NAME];
	size_t method_len;
	uint64_t rtt_us;
	int by_proxy;
};

struct sessions {
	struct table by_id;      /* session id -> struct session */
	struct table pending;    /* session id + '\0' + int64 id -> struct pending */
	struct pending *oldest, *newest;
	size_t pending_max;      /* past it the oldest command is forgotten; 0: no bound */
	uint64_t evicted;        /* commands forgotten so, for the caller to count */
};

/* path is the WebSocket path: /devtools/page/<id> makes the connection's own
 * session a page target, /devtools/browser/<id> a browser one. */
void sessions_init(struct sessions *s, const char *path);
void sessions_free(struct sessions *s);

/* A scanned message with its session id and method as the caller decoded
 * them once (SESSIONS_NAME; "" and 0 when absent). */
struct sessions_msg {
	const char *buf;
	const struct scan_result *r;
	const char *sid, *method;
	size_t sid_len, method_len;
};

/* Records a command sent to Chrome at now_us, by the proxy or for the client;
 * with pending_max commands awaiting an answer, the oldest is forgotten
 * (its answer is then forwarded unmatched) and counted in evicted.
 * client_params (borrowed; NULL: as sent) are the params the client gave,
 * before a rewrite. */
void sessions_on_command(struct sessions *s, const struct sessions_msg *msg,
			 uint64_t now_us, int by_proxy, json_t *client_params);

/* Matches a response to its command, fills m, and applies its effect
 * (X.enable/X.disable answered without error, Target.attachToTarget).
 * Returns 0, or -1 when no such command is pending. */
int sessions_on_response(struct sessions *s, const struct sessions_msg *msg,
			 uint64_t now_us, struct sessions_match *m);

/* The client's X.enable or X.disable (method) on session sid was answered by
 * the proxy: record what the client asked for, if sid is a session the
 * sessions know (the client's word makes none). params is borrowed. */
void sessions_on_stub(struct sessions *s, const char *sid, const char *method, json_t *params);

/* Follows Target.attachedToTarget, detachedFromTarget, targetInfoChanged
 * and a main frame's Page.frameNavigated. Returns what a reader of the log
 * needs to map sessions to targets, or NULL when nothing changed: an array
 * of {"event":"attached"|"url", "session", "targetId", "type", "url",
 * "openerId"?, "browserContextId"?} (a new reference). */
json_t *sessions_on_event(struct sessions *s, const char *buf, const struct scan_result *r);

/* What a successful answer to method (n bytes) changes: X.enable and
 * X.disable (X without a dot), Target.attachToTarget, or nothing. */
enum pending_effect sessions_method_effect(const char *method, size_t n);

/* An answered X.enable (effect EFFECT_ENABLE) sets domain X, the method's
 * part before its first '.', to params in set (borrowed; NULL: {});
 * X.disable removes it; a set is bounded (SESSIONS_DOMAINS_MAX). */
void sessions_set_enabled(json_t *set, const char *method, enum pending_effect effect,
			  json_t *params);

/* The value at sp in buf (a message's params or result) as a new JSON
 * object: {} when absent or not an object. Parsed only for the few messages
 * whose content the proxy follows or changes. */
json_t *sessions_object_at(const char *buf, const struct scan_span *sp);

struct session *sessions_get(const struct sessions *s, const char *id);
/* [{"sessionId","targetId","type","url","enabled":{D:params},
 *   "client_enabled":{...},"proxy_enabled":{...}}] */
json_t *sessions_json(const struct sessions *s);

#endif
