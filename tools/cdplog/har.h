/* har: cdplog's HAR 1.2 writer: the events of a log's page sessions
 * (har.c), the requests and sessions held (har_req.c), their bodies
 * (har_body.c), their pages (har_page.c), their HAR objects built from the
 * CDP events (har_entry.c), and the files they go to (har_out.c). */
#ifndef CDPLOG_HAR_H
#define CDPLOG_HAR_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "cdplog.h"
#include "table.h"

/* One hop of a request (a redirect starts the next), as the events gave it:
 * the objects are the redacted events' params (or parts of them). */
struct har_hop {
	json_t *request;            /* Network.Request (requestWillBeSent) */
	json_t *req_extra;          /* requestWillBeSentExtraInfo params */
	json_t *response;           /* Network.Response (responseReceived or redirectResponse) */
	json_t *resp_extra;         /* responseReceivedExtraInfo params */
	const char *type;           /* resource type (Document, Image...), in request's owner */
	json_t *type_owner;
	double wall, issue;         /* requestWillBeSent: wallTime, timestamp (s) */
	double resp_at, end_at;     /* responseReceived, loadingFinished/Failed timestamps; 0 unknown */
	int64_t data_len, encoded_len;
	int has_encoded;
};

/* Fills HAR 1.2 "entry" from hop h: request, response (content without its
 * text), timings, startedDateTime, time. redirect_url: the next hop's URL
 * for a redirect, else NULL; failed: loadingFailed's errorText, else NULL.
 * A new object. */
json_t *har_entry_build(const struct har_hop *h, const char *pageref, const char *redirect_url,
			const char *failed);
/* Sets the entry's response content text from a getResponseBody result
 * (body, base64Encoded) or a comment saying why it has none. */
void har_entry_set_body(json_t *entry, json_t *result);
void har_entry_set_comment(json_t *entry, const char *why);
/* "2026-12-04T16:58:27.521Z" for wall seconds since the epoch. */
void har_entry_iso(double wall, char *out, size_t outlen);
/* HAR timings of a hop (Chrome DevTools' export's rule) and in *total
 * their sum in ms. A new object. */
json_t *har_entry_timings(json_t *timing, double issue, double resp_at, double end_at, double *total);

/* Member k of object o: a string (NULL if not one), a number (dflt), a
 * byte count (0 unless a number from 0 to 1e15). */
const char *har_str(json_t *o, const char *k);
double har_num(json_t *o, const char *k, double dflt);
int64_t har_count(json_t *o, const char *k);

/* Why an entry was written without a response body (har_body.c counts
 * them); HAR_HAS_BODY: it has one, or none was sent. */
enum har_nobody {
	HAR_HAS_BODY,
	HAR_NOT_FETCHED,       /* nobody asked Chrome for it */
	HAR_OVER_BUDGET,       /* the proxy's --record-bodies budget was spent */
	HAR_NO_ANSWER,         /* asked for, no answer in the log */
	HAR_FETCH_FAILED,      /* getResponseBody answered an error */
	HAR_CUT,               /* cut in the log at --log-bodies */
	HAR_WITHHELD,          /* withheld by the redaction, or the log has no bodies */
	HAR_REDIRECT,          /* Chrome keeps none for a redirect */
	HAR_REQ_FAILED,        /* the request failed */
	HAR_UNFINISHED,        /* written before it was done */
	HAR_NOBODY_N
};

/* The state of one `cdplog har` run (har.c). */
#define HAR_EXTRAS_MAX 8
struct har_page {
	char id[32];
	char *loader;                /* its document's loaderId, or NULL */
	double wall, mono;           /* start: wall and monotonic seconds (mono 0: unknown) */
	json_t *title;
	double on_content, on_load;  /* ms since the start, -1 unknown */
	uint64_t refs;               /* entries that name it */
};

struct har_sess {
	char *key;
	size_t klen;
	uint64_t conn;
	char *session, *main_frame;
	double mono_off;             /* wall - monotonic seconds, from the last request; 0 unknown */
	struct har_page *page;
	struct har_out *out;         /* --per-session */
	struct har_sess *prev, *next;   /* least recently seen first */
};

struct har_req {
	char *key;
	size_t klen;
	struct har_sess *sess;
	char *pageref;
	struct har_hop hop;
	json_t *extras[2];           /* request, response extra info not yet taken by a hop */
	json_t *entry;               /* built when done: awaiting its body */
	json_t *early_body;          /* a getResponseBody result before loadingFinished */
	int started;                 /* its requestWillBeSent is in (not only extra info) */
	int asked;                   /* a getResponseBody for it is in the log */
	char *not_fetched;           /* why the proxy did not fetch it (body_not_fetched), or NULL */
	char *fetch_key;             /* its Fetch interception id's key in fetch_ids, or NULL */
	size_t fetch_klen;
	struct har_req *prev, *next;   /* oldest first */
};

struct har {
	const struct har_opts *o;
	const char *source;
	size_t sessions_max;
	struct table reqs, sessions;
	struct table names;           /* --per-session: the file names used (har_out_for) */
	struct table fetch_ids;       /* session + Fetch requestId -> its struct har_req */
	struct har_req *oldest, *newest;
	size_t nreqs;
	struct har_sess *lru, *mru;
	struct logrec_pending cmds;   /* getResponseBody, getRequestPostData awaiting their answer */
	struct har_out *out;          /* all in one file */
	uint64_t pages_seq, entries, bodies, pushed_out, unfinished, cut, forgotten, bodies_seen;
	uint64_t nobody[HAR_NOBODY_N];   /* entries written, by why they have no body */
	int failed;
	char err[300];
};

/* Requests and sessions (har_req.c): q of session s by its Network
 * requestId, made when create; s by connection and id (NULL: the
 * connection's own). har_req_write writes q's entry (built now if it is
 * not yet: the request is unfinished) with why as its content's comment
 * (NULL: none), counted under kind, and forgets q; har_req_build builds
 * the entry of q's current hop (redirect_url: the next hop's, failed:
 * loadingFailed's errorText); har_sess_end writes what s still holds,
 * each request saying why it has no body, and its page, and forgets s;
 * har_req_forget_fetch drops q's Fetch interception id. */
struct har_req *har_req_get(struct har *h, struct har_sess *s, const char *rid, int create);
struct har_sess *har_sess_get(struct har *h, uint64_t conn, const char *session, int create);
void har_req_write(struct har *h, struct har_req *q, enum har_nobody kind, const char *why);
void har_req_build(struct har_req *q, const char *redirect_url, const char *failed);
void har_hop_clear(struct har_hop *hop);
void har_sess_end(struct har *h, struct har_sess *s);
void har_req_forget_fetch(struct har *h, struct har_req *q);
/* Redacted by the proxy's own rule: the record's body as a CDP message, or
 * NULL when absent, cut or withheld. A new reference. */
json_t *har_clean_body(const struct logrec *r);

/* Bodies (har_body.c). command: a command record (a body fetch: awaits
 * its answer); answer: a response record (a body fetch's: its request's
 * body, or why it has none); paused: Fetch.requestPaused's params p on
 * session s, naming the request an intercepting client's
 * Fetch.getResponseBody asks for; not_fetched: the proxy's
 * body_not_fetched record; report: one stderr line, how many entries have
 * no body and why. */
void har_body_command(struct har *h, const struct logrec *r);
void har_body_answer(struct har *h, const struct logrec *r);
void har_body_paused(struct har *h, struct har_sess *s, json_t *p);
void har_body_not_fetched(struct har *h, const struct logrec *r);
void har_body_report(const struct har *h, FILE *f);

/* Pages (har_page.c). open closes the session's page before; close writes
 * it if an entry names it; timing sets onContentLoad ("DOMContentLoaded")
 * or onLoad ("load") from monotonic ts, for loader's document (NULL: the
 * page's); navigated takes Page.frameNavigated's params at log time t. */
void har_page_open(struct har *h, struct har_sess *s, const char *loader, double wall, double mono,
		   const char *url);
void har_page_close(struct har *h, struct har_sess *s);
void har_page_timing(struct har_sess *s, const char *loader, const char *name, double ts);
void har_page_navigated(struct har *h, struct har_sess *s, uint64_t t, json_t *p);

/* An output: one HAR file written as its entries come. */
struct har_out {
	char *path;                 /* NULL: stdout */
	FILE *f, *pages;            /* pages: a temporary file until the end */
	uint64_t entries, npages;
};

/* Opens path ("-" or NULL: stdout) and writes the HAR's head; anew: path
 * is created, and refused when anything (a link too) is there. NULL with a
 * reason in err. */
struct har_out *har_out_open(const char *path, int anew, const char *source, char *err,
			     size_t errlen);
void har_out_entry(struct har_out *o, json_t *entry);
void har_out_page(struct har_out *o, json_t *page);
/* Writes the pages and the end (with comment, may be NULL), closes and frees
 * o. 0, or -1 with a reason when a write failed. */
int har_out_close(struct har_out *o, const char *comment, char *err, size_t errlen);
/* The file a session's entries and pages go to (the one file, or under
 * --per-session its own, named from the -o FILE and the session, a name of
 * its own, created on first use);
 * NULL after a failure (h->failed says why). */
struct har_out *har_out_for(struct har *h, struct har_sess *s);

#endif
