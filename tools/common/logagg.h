/* logagg: the one pass of counts, sessions and enabled domains over a log
 * that cdplog's summary and timeline and cdpbench audit share, each within a
 * bound. */
#ifndef TOOLS_LOGAGG_H
#define TOOLS_LOGAGG_H

#include <stdint.h>

#include <jansson.h>

#include "logrec.h"
#include "stats.h"
#include "table.h"

/* Counts of one method or one domain. */
struct logagg_count {
	char *name;
	uint64_t messages, commands, responses, events, errors, bytes[2];  /* bytes: up, down */
	struct hist rtt;
};

/* A line of a timeline: what happened at t. */
struct logagg_event {
	uint64_t t;
	char *what;
};

struct logagg_events {
	struct logagg_event *v;
	size_t n, cap, max;
	uint64_t dropped;          /* past max: counted, not kept */
};

/* A session, from its session records and the messages that carry it. */
struct logagg_sess {
	char *id, *target, *type, *url;
	uint64_t conn, seq, t_first, t_last, messages;
	json_t *enabled;           /* domain -> params text ("" none; "(stub)" answered by the proxy) */
	struct logagg_events events;
	struct logagg_sess *prev, *next;   /* least recently seen first */
};

/* A connection, from its open and close records and the records that name
 * it. */
struct logagg_conn {
	uint64_t id, t_open, t_last;
	uint64_t last_record;      /* its last record's number in the log (1, 2, ...) */
	char *path, *client;       /* client: its library, else its User-Agent; NULL unknown */
	char *ended;               /* how it ended (its first close record), NULL: no close record */
	uint64_t t_end;
	struct logagg_conn *next;  /* in order of opening */
};

/* Connections followed, at most; later ones are counted only. */
#define LOGAGG_CONNS_MAX 10000

/* Everything summary and timeline show, gathered in one pass. */
struct logagg {
	struct table methods, domains;     /* name -> struct logagg_count */
	uint64_t methods_over;             /* messages of methods past LOGAGG_METHODS_MAX */
	struct table sessions;             /* id -> struct logagg_sess */
	struct logagg_sess *lru, *mru;
	size_t sessions_max;
	uint64_t sessions_seq, sessions_forgotten;
	struct logrec_pending enables;     /* X.enable commands, for their params */
	struct logagg_events policies, marks, global;   /* global: timeline lines of no session */
	struct logagg_count total;         /* every message (name NULL) */
	uint64_t conns, by_proxy;
	uint64_t records;                  /* seen so far: the last one's number */
	struct table conn_ids;             /* connection id -> struct logagg_conn */
	struct logagg_conn *conn_first, *conn_last;
	uint64_t conns_unfollowed;         /* opened past LOGAGG_CONNS_MAX */
	uint64_t conns_closed;             /* of those followed, with a close record */
	/* The "bidi" records: the WebDriver BiDi inside CDP, counted as
	 * messages are, by BiDi method and module; error answers by code
	 * (messages counts them); undecodable carriers under "(invalid)". */
	struct table bidi_methods, bidi_modules, bidi_errors;
	struct logagg_count bidi_total;
	uint64_t bidi_invalid;
};

#define LOGAGG_METHODS_MAX 10000

void logagg_init(struct logagg *a, const struct logrec_opts *o);
void logagg_free(struct logagg *a);
/* Adds one record (a logrec_fn with a struct logagg as arg). */
void logagg_add(const struct logrec *r, void *agg);
/* How connection c ended, in out: "closed by the client (1000)" or, with no
 * close record, "no close record: the process was killed after record N"
 * (N: the log's last record, a->records), and its own last record. */
void logagg_conn_end(const struct logagg *a, const struct logagg_conn *c, char *out, size_t outlen);
/* The counts of a table, busiest first (messages, then name); n in *n. Free
 * the array (not the rows). */
struct logagg_count **logagg_sorted(const struct table *t, size_t *n);
/* [{"t","what"}, ...] */
json_t *logagg_events_json(const struct logagg_events *e);
/* The sessions kept, in order of first sight. Free the array. */
struct logagg_sess **logagg_sessions(const struct logagg *a, size_t *n);

#endif
