/* logrec: reading a cdpproxy log (proxy/obs/log_fmt.c's JSON Lines) record by
 * record, and the one pass of counts, sessions and enabled domains that
 * cdplog's views and cdpbench audit share, each within a bound. */
#ifndef TOOLS_LOGREC_H
#define TOOLS_LOGREC_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "stats.h"
#include "table.h"

/* One record of the log. Strings point into obj and live until the next
 * record is read; an absent field is NULL or has its has_ flag 0. */
struct cdplog_rec {
	uint64_t line;            /* 1-based line number in the file */
	uint64_t t, conn, gen;
	const char *kind;         /* command, response, event, ..., open, close, policy, mark, session */
	int is_msg, up;           /* a message record (has dir); dir == "up" */
	int has_id;
	int64_t id;
	const char *method, *session;
	uint64_t bytes;
	int has_rtt, has_error;
	uint64_t rtt_us;
	int64_t error;
	const char *action;
	int by_proxy;
	json_t *obj;              /* the whole record */
};

/* What the options ask for: the filters apply to pairs (session to timeline
 * too), the bounds to every command. */
struct cdplog_opts {
	int json;
	const char *session, *method;   /* session: a prefix of the id */
	int has_conn;
	uint64_t conn;
	const char *since, *until;      /* as given; resolved against the first record */
	size_t top;                     /* rows per table in text, 0: all */
	size_t pending_max;             /* commands awaiting their answer, kept at most */
	size_t sessions_max;            /* sessions kept, least recently seen forgotten */
};

/* How the reading went, for every subcommand's report. */
struct cdplog_input {
	uint64_t lines, records, bad, first_bad;
	uint64_t t_first, t_last;
	char first_bad_why[160];
};

typedef void (*cdplog_fn)(const struct cdplog_rec *r, void *arg);

/* Reads f line by line (any length), parses each line and calls fn on each
 * record. A line that is not a JSON object is counted in in->bad (the first
 * one's number and reason kept), never fatal. Returns 0, or -1 with a reason
 * in err when the file cannot be read. */
int cdplog_read(FILE *f, cdplog_fn fn, void *arg, struct cdplog_input *in, char *err,
		size_t errlen);

/* Fills r from a parsed record obj (borrowed). 0, or -1 when obj is not an
 * object with a numeric t. */
int cdplog_rec_from(json_t *obj, uint64_t line, struct cdplog_rec *r);

/* The message body of r as JSON: an object when the body is whole (logged as
 * an object or as JSON text), NULL when absent or cut. A new reference. */
json_t *cdplog_body(const struct cdplog_rec *r);
/* Compact JSON of the params of r's body into out ("" when unknown); a cut
 * body gives "(params cut at N bytes)". */
void cdplog_params(const struct cdplog_rec *r, char *out, size_t outlen);
/* The error message of an error response's body, or NULL (borrowed from r). */
const char *cdplog_error_message(const struct cdplog_rec *r, json_t **hold);

/* "1.9ms", "12ms", "1.20s", "850us". */
void cdplog_fmt_us(uint64_t us, char *out, size_t outlen);
/* Seconds since base, "+12.345"; and an absolute UTC time "2026-12-03 09:45:42". */
void cdplog_fmt_rel(uint64_t t, uint64_t base, char *out, size_t outlen);
void cdplog_fmt_utc(uint64_t t, char *out, size_t outlen);
/* A time bound of --since/--until against the log's first time: seconds since
 * it ("12.5"), microseconds since the epoch as in t (>= 1e12), or UTC
 * "YYYY-MM-DDTHH:MM:SS[.frac][Z]". 0, or -1 with a reason. */
int cdplog_parse_time(const char *s, uint64_t base, uint64_t *out, char *err, size_t errlen);
/* Does session s match the prefix want (NULL matches all; "-" only none)? */
int cdplog_session_match(const char *want, const char *s);

/* Commands awaiting their answer, oldest first, at most max: the oldest is
 * forgotten (and counted) to make room. */
struct cdplog_cmd {
	char key[32];
	size_t klen;
	uint64_t t, conn;
	int64_t id;
	char *method, *session, *params;   /* params: only for X.enable, "" otherwise */
	int answered;                      /* pairs: the answer is in */
	uint64_t rtt_us, t_answer;
	int has_error;
	int64_t error;
	char *error_message;
	struct cdplog_cmd *prev, *next;
};

struct cdplog_pending {
	struct table by_key;
	struct cdplog_cmd *oldest, *newest;
	size_t n, max;
	uint64_t evicted;
};

void cdplog_pending_init(struct cdplog_pending *p, size_t max);
void cdplog_pending_free(struct cdplog_pending *p);
/* Adds command r; returns it, and in *evicted the oldest one pushed out (to be
 * freed by the caller with cdplog_cmd_free), or NULL. */
struct cdplog_cmd *cdplog_pending_add(struct cdplog_pending *p, const struct cdplog_rec *r,
				      int with_params, struct cdplog_cmd **evicted);
/* The command response r answers, or NULL; it stays in the list. */
struct cdplog_cmd *cdplog_pending_find(struct cdplog_pending *p, const struct cdplog_rec *r);
/* Unlinks c (it stays allocated). */
void cdplog_pending_unlink(struct cdplog_pending *p, struct cdplog_cmd *c);
void cdplog_cmd_free(struct cdplog_cmd *c);


/* Counts of one method or one domain. */
struct cdplog_count {
	char *name;
	uint64_t messages, commands, responses, events, errors, bytes[2];  /* bytes: up, down */
	struct hist rtt;
};

/* A line of a timeline: what happened at t. */
struct cdplog_event {
	uint64_t t;
	char *what;
};

struct cdplog_events {
	struct cdplog_event *v;
	size_t n, cap, max;
	uint64_t dropped;          /* past max: counted, not kept */
};

/* A session, from its session records and the messages that carry it. */
struct cdplog_sess {
	char *id, *target, *type, *url;
	uint64_t conn, seq, t_first, t_last, messages;
	json_t *enabled;           /* domain -> params text ("" none; "(stub)" answered by the proxy) */
	struct cdplog_events events;
	struct cdplog_sess *prev, *next;   /* least recently seen first */
};

/* Everything summary and timeline show, gathered in one pass. */
struct cdplog_agg {
	struct table methods, domains;     /* name -> struct cdplog_count */
	uint64_t methods_over;             /* messages of methods past CDPLOG_METHODS_MAX */
	struct table sessions;             /* id -> struct cdplog_sess */
	struct cdplog_sess *lru, *mru;
	size_t sessions_max;
	uint64_t sessions_seq, sessions_forgotten;
	struct cdplog_pending enables;     /* X.enable commands, for their params */
	struct cdplog_events policies, marks, global;   /* global: timeline lines of no session */
	struct cdplog_count total;         /* every message (name NULL) */
	uint64_t conns, by_proxy;
};

#define CDPLOG_METHODS_MAX 10000

void cdplog_agg_init(struct cdplog_agg *a, const struct cdplog_opts *o);
void cdplog_agg_free(struct cdplog_agg *a);
/* Adds one record (a cdplog_fn with a struct cdplog_agg as arg). */
void cdplog_agg_add(const struct cdplog_rec *r, void *agg);
/* The counts of a table, busiest first (messages, then name); n in *n. Free
 * the array (not the rows). */
struct cdplog_count **cdplog_agg_sorted(const struct table *t, size_t *n);
/* [{"t","what"}, ...] */
json_t *cdplog_events_json(const struct cdplog_events *e);
/* The sessions kept, in order of first sight. Free the array. */
struct cdplog_sess **cdplog_agg_sessions(const struct cdplog_agg *a, size_t *n);

#endif
