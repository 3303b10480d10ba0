/* logrec: reading a cdpproxy log (proxy/obs/log_fmt.c's JSON Lines) record by
 * record, the records' bodies, the commands awaiting an answer, and the time
 * formats that cdplog's views and cdpbench audit share. */
#ifndef TOOLS_LOGREC_H
#define TOOLS_LOGREC_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "table.h"

/* One record of the log. Strings point into obj and live until the next
 * record is read; an absent field is NULL or has its has_ flag 0. */
struct logrec {
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
	/* A "bidi" record (proxy/core/bidilog.h): its type (command, success,
	 * error, event, invalid), BiDi channel and error code; up is set for a
	 * command. */
	int is_bidi;
	const char *bidi_type, *channel, *bidi_error;
	json_t *obj;              /* the whole record */
};

/* What the options ask for: the filters apply to pairs (session to timeline
 * too), the bounds to every command. */
struct logrec_opts {
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
struct logrec_input {
	uint64_t lines, records, bad, first_bad;
	uint64_t t_first, t_last;
	char first_bad_why[160];
};

typedef void (*logrec_fn)(const struct logrec *r, void *arg);

/* Reads f line by line (any length), parses each line and calls fn on each
 * record. A line that is not a JSON object is counted in in->bad (the first
 * one's number and reason kept), never fatal. Returns 0, or -1 with a reason
 * in err when the file cannot be read. */
int logrec_read(FILE *f, logrec_fn fn, void *arg, struct logrec_input *in, char *err,
		size_t errlen);

/* Fills r from a parsed record obj (borrowed). 0, or -1 when obj is not an
 * object with a numeric t. */
int logrec_from(json_t *obj, uint64_t line, struct logrec *r);

/* The message body of r as JSON: an object when the body is whole (logged as
 * an object or as JSON text), NULL when absent or cut. A new reference. */
json_t *logrec_body(const struct logrec *r);
/* Compact JSON of the params of r's body into out ("" when unknown); a cut
 * body gives "(params cut at N bytes)". */
void logrec_params(const struct logrec *r, char *out, size_t outlen);
/* The error message of an error response's body, or NULL (borrowed from r). */
const char *logrec_error_message(const struct logrec *r, json_t **hold);

/* "1.9ms", "12ms", "1.20s", "850us". */
void logrec_fmt_us(uint64_t us, char *out, size_t outlen);
/* Seconds since base, "+12.345"; and an absolute UTC time "2026-12-03 09:45:42". */
void logrec_fmt_rel(uint64_t t, uint64_t base, char *out, size_t outlen);
void logrec_fmt_utc(uint64_t t, char *out, size_t outlen);
/* A time bound of --since/--until against the log's first time: seconds since
 * it ("12.5"), microseconds since the epoch as in t (>= 1e12), or UTC
 * "YYYY-MM-DDTHH:MM:SS[.frac][Z]". 0, or -1 with a reason. */
int logrec_parse_time(const char *s, uint64_t base, uint64_t *out, char *err, size_t errlen);
/* Does session s match the prefix want (NULL matches all; "-" only none)? */
int logrec_session_match(const char *want, const char *s);

/* Commands awaiting their answer, oldest first, at most max: the oldest is
 * forgotten (and counted) to make room. */
struct logrec_cmd {
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
	int bidi;                          /* a BiDi command: its error is error_code */
	char *channel, *error_code;
	struct logrec_cmd *prev, *next;
};

struct logrec_pending {
	struct table by_key;
	struct logrec_cmd *oldest, *newest;
	size_t n, max;
	uint64_t evicted;
};

void logrec_pending_init(struct logrec_pending *p, size_t max);
void logrec_pending_free(struct logrec_pending *p);
/* Adds command r; returns it, and in *evicted the oldest one pushed out (to be
 * freed by the caller with logrec_cmd_free), or NULL. */
struct logrec_cmd *logrec_pending_add(struct logrec_pending *p, const struct logrec *r,
				      int with_params, struct logrec_cmd **evicted);
/* The command response r answers, or NULL; it stays in the list. */
struct logrec_cmd *logrec_pending_find(struct logrec_pending *p, const struct logrec *r);
/* Unlinks c (it stays allocated). */
void logrec_pending_unlink(struct logrec_pending *p, struct logrec_cmd *c);
void logrec_cmd_free(struct logrec_cmd *c);

#endif
