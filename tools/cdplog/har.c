/* har: `cdplog har`: a HAR 1.2 file from a log in one pass. Each request of
 * a page session is followed through its Network events and written once
 * it is done (and its body fetched, or never to be); pages come from the
 * main frame's navigations. Only what is in flight is held, within
 * --max-requests and --sessions-max. Every body used is redacted again
 * (redact.c), as the proxy redacts its log: the log may have been recorded
 * with --log-secrets, and a HAR travels further than a log. */
#include "cdplog.h"
#include "har.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "table.h"
#include "util.h"

static void set_ref(json_t **slot, json_t *v)
{
	json_incref(v);
	json_decref(*slot);
	*slot = v;
}

/* --- events ------------------------------------------------------------------- */

static void on_request(struct har *h, struct har_sess *s, json_t *p, const char *rid)
{
	struct har_req *q = har_req_get(h, s, rid, 1);
	json_t *redirect = json_object_get(p, "redirectResponse"), *req = json_object_get(p, "request");
	const char *type = har_str(p, "type"), *loader = har_str(p, "loaderId"), *frame = har_str(p, "frameId");
	double wall = har_num(p, "wallTime", 0), ts = har_num(p, "timestamp", 0);
	struct har_out *out;

	if (!json_is_object(req))
		return;
	if (q->started) {
		/* The hop before ends here: a redirect, or an id used again. */
		if (json_is_object(redirect)) {
			set_ref(&q->hop.response, redirect);
			q->hop.resp_at = q->hop.end_at = ts;
			q->hop.encoded_len = har_count(redirect, "encodedDataLength");
			q->hop.has_encoded = json_is_number(json_object_get(redirect, "encodedDataLength"));
		}
		har_req_build(q, json_is_object(redirect) ? har_str(req, "url") : NULL, NULL);
		har_entry_set_comment(q->entry, json_is_object(redirect) ? "a redirect: Chrome keeps no body for it"
				      : "its request id was used again before it finished");
		if ((out = har_out_for(h, s))) {
			har_out_entry(out, q->entry);
			h->entries++;
			h->nobody[json_is_object(redirect) ? HAR_REDIRECT : HAR_UNFINISHED]++;
		}
		json_decref(q->entry);
		q->entry = NULL;
		har_hop_clear(&q->hop);
	}
	q->started = 1;
	set_ref(&q->hop.request, req);
	set_ref(&q->hop.type_owner, json_object_get(p, "type"));
	q->hop.type = type;
	q->hop.wall = wall;
	q->hop.issue = ts;
	if (wall && ts)
		s->mono_off = wall - ts;
	/* A navigation of the main frame starts a page (its redirects do not). */
	if (type && !strcmp(type, "Document") && loader && !strcmp(loader, rid) && !json_is_object(redirect) &&
	    frame && (!s->main_frame || !strcmp(frame, s->main_frame))) {
		if (!s->main_frame)
			s->main_frame = xstrdup(frame);
		har_page_open(h, s, loader, wall, ts, har_str(req, "url"));
	}
	if (!q->pageref && s->page) {
		q->pageref = xstrdup(s->page->id);
		s->page->refs++;
	}
}

/* Extra info waits for its hop to be built (extra_take); a request keeps
 * the last HAR_EXTRAS_MAX of each kind. */
static void on_extra(struct har *h, struct har_sess *s, json_t *p, const char *rid, int response)
{
	struct har_req *q = har_req_get(h, s, rid, 1);

	if (!q->extras[response])
		q->extras[response] = json_array();
	if (json_array_size(q->extras[response]) >= HAR_EXTRAS_MAX)
		json_array_remove(q->extras[response], 0);
	json_array_append(q->extras[response], p);
}

static void on_response(struct har *h, struct har_sess *s, json_t *p, const char *rid)
{
	struct har_req *q = har_req_get(h, s, rid, 0);

	if (!q || !json_is_object(json_object_get(p, "response")))
		return;
	set_ref(&q->hop.response, json_object_get(p, "response"));
	q->hop.resp_at = har_num(p, "timestamp", 0);
}

static void on_done(struct har *h, struct har_sess *s, json_t *p, const char *rid, int failed)
{
	struct har_req *q = har_req_get(h, s, rid, 0);
	char why[300];

	if (!q || !q->started)
		return;
	q->hop.end_at = har_num(p, "timestamp", 0);
	if (!failed) {
		q->hop.encoded_len = har_count(p, "encodedDataLength");
		q->hop.has_encoded = 1;
		har_req_build(q, NULL, NULL);
		if (q->early_body) {
			har_entry_set_body(q->entry, q->early_body);
			h->bodies++;
			har_req_write(h, q, HAR_HAS_BODY, NULL);
		} else if (!q->hop.data_len) {
			har_req_write(h, q, HAR_HAS_BODY, NULL);   /* nothing to fetch */
		}
		return;
	}
	snprintf(why, sizeof why, "%s%s%s%s", har_str(p, "errorText") ? har_str(p, "errorText") : "failed",
		 json_is_true(json_object_get(p, "canceled")) ? " (canceled)" : "",
		 har_str(p, "blockedReason") ? ", blocked: " : "", har_str(p, "blockedReason") ? har_str(p, "blockedReason") : "");
	har_req_build(q, NULL, why);
	{
		char c[320];
		snprintf(c, sizeof c, "failed: %s", why);
		har_req_write(h, q, HAR_REQ_FAILED, c);
	}
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void har_add(const struct logrec *r, void *arg)
{
	struct har *h = arg;
	struct har_sess *s;
	json_t *body, *p;
	const char *m = r->method, *rid;

	if (!r->is_msg) {
		const char *event = har_str(r->obj, "event"), *target = har_str(r->obj, "targetId");
		if (!strcmp(r->kind, "body_not_fetched")) {
			har_body_not_fetched(h, r);
			return;
		}
		if (!strcmp(r->kind, "session") && r->session && event && !strcmp(event, "attached") && target &&
		    (s = har_sess_get(h, r->conn, r->session, 1)) && !s->main_frame)
			s->main_frame = xstrdup(target);
		else if (!strcmp(r->kind, "close"))
			for (struct har_sess *x = h->lru, *next; x; x = next) {
				next = x->next;
				if (x->conn == r->conn)
					har_sess_end(h, x);
			}
		return;
	}
	if (!m || (!starts(m, "Network.") && !starts(m, "Page.") && !starts(m, "Fetch.") &&
		   strcmp(m, "Target.detachedFromTarget")))
		return;
	if (json_object_get(r->obj, "body"))
		h->bodies_seen = 1;
	if (!strcmp(r->kind, "command")) {
		har_body_command(h, r);
		return;
	}
	if (!strcmp(r->kind, "response")) {
		har_body_answer(h, r);
		return;
	}
	if (strcmp(r->kind, "event"))
		return;
	/* Only these carry headers, URLs or bodies: the others are read as they are. */
	body = !strcmp(m, "Network.requestWillBeSent") || !strcmp(m, "Network.responseReceived") ||
	       strstr(m, "ExtraInfo") || !strcmp(m, "Page.frameNavigated") ? har_clean_body(r) : logrec_body(r);
	p = json_object_get(body, "params");
	if (!json_is_object(p)) {
		if (json_is_true(json_object_get(r->obj, "truncated")) && starts(m, "Network."))
			h->cut++;
		json_decref(body);
		return;
	}
	if (!strcmp(m, "Target.detachedFromTarget")) {
		if (har_str(p, "sessionId") && (s = har_sess_get(h, r->conn, har_str(p, "sessionId"), 0)))
			har_sess_end(h, s);
		json_decref(body);
		return;
	}
	s = har_sess_get(h, r->conn, r->session, 1);
	rid = har_str(p, "requestId");
	if (rid && !strcmp(m, "Network.requestWillBeSent"))
		on_request(h, s, p, rid);
	else if (rid && !strcmp(m, "Network.requestWillBeSentExtraInfo"))
		on_extra(h, s, p, rid, 0);
	else if (rid && !strcmp(m, "Network.responseReceivedExtraInfo"))
		on_extra(h, s, p, rid, 1);
	else if (rid && !strcmp(m, "Network.responseReceived"))
		on_response(h, s, p, rid);
	else if (rid && !strcmp(m, "Network.dataReceived")) {
		struct har_req *q = har_req_get(h, s, rid, 0);
		if (q && q->hop.data_len < (int64_t)1 << 60)
			q->hop.data_len += har_count(p, "dataLength");
	} else if (rid && !strcmp(m, "Network.loadingFinished"))
		on_done(h, s, p, rid, 0);
	else if (rid && !strcmp(m, "Network.loadingFailed"))
		on_done(h, s, p, rid, 1);
	else if (rid && !strcmp(m, "Fetch.requestPaused"))
		har_body_paused(h, s, p);
	else if (!strcmp(m, "Page.frameNavigated"))
		har_page_navigated(h, s, r->t, p);
	else if (!strcmp(m, "Page.domContentEventFired"))
		har_page_timing(s, NULL, "DOMContentLoaded", har_num(p, "timestamp", 0));
	else if (!strcmp(m, "Page.loadEventFired"))
		har_page_timing(s, NULL, "load", har_num(p, "timestamp", 0));
	else if (!strcmp(m, "Page.lifecycleEvent") && har_str(p, "name") && s->main_frame && har_str(p, "frameId") &&
		 !strcmp(har_str(p, "frameId"), s->main_frame))
		har_page_timing(s, har_str(p, "loaderId"), har_str(p, "name"), har_num(p, "timestamp", 0));
	json_decref(body);
}

int cdplog_har(FILE *f, const char *name, const struct logrec_opts *lo, const struct har_opts *o,
	       char *err, size_t errlen)
{
	struct har h = { .o = o, .source = name, .sessions_max = lo->sessions_max ? lo->sessions_max : 1 };
	struct logrec_input in = { 0 };
	char comment[600];
	int rc;

	table_init(&h.reqs);
	table_init(&h.sessions);
	table_init(&h.names);
	table_init(&h.fetch_ids);
	logrec_pending_init(&h.cmds, o->max_requests);
	if (!o->per_session && !(h.out = har_out_open(o->out, 0, name, err, errlen))) {
		rc = -1;
		goto out;
	}
	rc = logrec_read(f, har_add, &h, &in, err, errlen);
	while (h.lru)
		har_sess_end(&h, h.lru);
	snprintf(comment, sizeof comment, "%" PRIu64 " entries from %s (%" PRIu64 " with the body the client "
		 "or cdpproxy --record-bodies fetched); %" PRIu64 " written before they were done (%" PRIu64 " pushed out by --max-requests "
		 "%zu); %" PRIu64 " sessions forgotten past --sessions-max; %" PRIu64 " records cut in the log; "
		 "%" PRIu64 " lines not records%s", h.entries, name, h.bodies, h.unfinished, h.pushed_out,
		 o->max_requests, h.forgotten, h.cut, in.bad,
		 h.bodies_seen ? "" : "; the log holds no bodies: record with --log-bodies");
	if (h.out && har_out_close(h.out, comment, h.err, sizeof h.err) < 0)
		h.failed = 1;
	fprintf(stderr, "cdplog: %s\n", comment);
	har_body_report(&h, stderr);
	if (rc == 0 && h.failed) {
		snprintf(err, errlen, "%s", h.err);
		rc = -1;
	}
out:
	logrec_pending_free(&h.cmds);
	table_free(&h.reqs, NULL);
	table_free(&h.sessions, NULL);
	table_free(&h.names, NULL);
	table_free(&h.fetch_ids, NULL);
	return rc;
}
