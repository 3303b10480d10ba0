/* har: cdplog's HAR 1.2 writer: the requests of a log's page sessions
 * (har.c), their pages (har_page.c), their HAR objects built from the CDP
 * events (har_entry.c), and the files they go to (har_out.c). */
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
	struct har_req *prev, *next;   /* oldest first */
};

struct har {
	const struct har_opts *o;
	const char *source;
	size_t sessions_max;
	struct table reqs, sessions;
	struct table names;           /* --per-session: the file names used (har_out_for) */
	struct har_req *oldest, *newest;
	size_t nreqs;
	struct har_sess *lru, *mru;
	struct logrec_pending cmds;   /* getResponseBody, getRequestPostData awaiting their answer */
	struct har_out *out;          /* all in one file */
	uint64_t pages_seq, entries, bodies, pushed_out, unfinished, cut, forgotten, bodies_seen;
	int failed;
	char err[300];
};

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
