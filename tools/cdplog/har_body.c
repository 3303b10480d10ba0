/* har_body: the response bodies of a HAR's entries: the answers to
 * Network.getResponseBody (the client's, or the proxy's own under cdpproxy
 * --record-bodies) and to Fetch.getResponseBody (a client that intercepts,
 * as TestCafe does: it asks by the interception's requestId, which
 * Fetch.requestPaused maps to the request's networkId), the request bodies
 * of getRequestPostData, the proxy's body_not_fetched records, and why each
 * entry written without a body has none. */
#include "har.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int body_fetch(const char *m)
{
	return m && (!strcmp(m, "Network.getResponseBody") || !strcmp(m, "Fetch.getResponseBody") ||
		     !strcmp(m, "Network.getRequestPostData"));
}

/* The key of interception id on session s in fetch_ids: a new buffer of
 * *klen bytes. */
static char *fetch_key(const struct har_sess *s, const char *id, size_t *klen)
{
	size_t n = strlen(id);
	char *key = xmalloc(s->klen + 1 + n);

	memcpy(key, s->key, s->klen);
	key[s->klen] = '\0';
	memcpy(key + s->klen + 1, id, n);
	*klen = s->klen + 1 + n;
	return key;
}

/* The request a body fetch of method with params names on session s, or
 * NULL: Network's by its requestId, Fetch's by the interception
 * Fetch.requestPaused named. */
static struct har_req *named(struct har *h, struct har_sess *s, const char *method, json_t *params)
{
	const char *rid = har_str(params, "requestId");
	size_t klen;
	char *key;
	void **v;

	if (!s || !rid)
		return NULL;
	if (strncmp(method, "Fetch.", 6))
		return har_req_get(h, s, rid, 0);
	key = fetch_key(s, rid, &klen);
	v = table_get(&h->fetch_ids, key, klen);
	free(key);
	return v ? *v : NULL;
}

void har_body_command(struct har *h, const struct logrec *r)
{
	struct logrec_cmd *old;
	struct har_req *q;
	json_t *body;

	if (!r->has_id || !body_fetch(r->method) || !json_object_get(r->obj, "body"))
		return;
	logrec_pending_add(&h->cmds, r, 1, &old);
	logrec_cmd_free(old);
	if (!strcmp(r->method, "Network.getRequestPostData"))
		return;
	body = logrec_body(r);
	if ((q = named(h, har_sess_get(h, r->conn, r->session, 0), r->method, json_object_get(body, "params"))))
		q->asked = 1;
	json_decref(body);
}

/* Why an answer r without a result gave q no body, in why; its kind. */
static enum har_nobody no_result(struct har *h, const struct logrec *r, const char *method, char *why,
				 size_t whylen)
{
	json_t *hold = NULL;
	const char *msg = r->has_error ? logrec_error_message(r, &hold) : NULL;
	enum har_nobody kind = HAR_WITHHELD;

	if (r->has_error) {
		snprintf(why, whylen, "%s failed: %s", method, msg ? msg : "(no message in the log)");
		kind = HAR_FETCH_FAILED;
	} else if (json_is_true(json_object_get(r->obj, "truncated"))) {
		snprintf(why, whylen, "its body was cut in the log at %zu of %" PRIu64 " bytes: record "
			 "with --log-bodies=%" PRIu64 " or more", json_string_length(json_object_get(r->obj, "body")),
			 (uint64_t)json_integer_value(json_object_get(r->obj, "body_bytes")),
			 (uint64_t)json_integer_value(json_object_get(r->obj, "body_bytes")));
		h->cut++;
		kind = HAR_CUT;
	} else if (!json_object_get(r->obj, "body")) {
		snprintf(why, whylen, "the log holds no bodies: record with --log-bodies");
	} else {
		snprintf(why, whylen, "its body was withheld by the redaction");
	}
	json_decref(hold);
	return kind;
}

void har_body_answer(struct har *h, const struct logrec *r)
{
	struct logrec_cmd *c;
	json_t *params, *body, *result;
	struct har_req *q;
	char why[300], method[64];
	enum har_nobody kind;

	if (!r->has_id || !body_fetch(r->method) || !(c = logrec_pending_find(&h->cmds, r)) ||
	    strcmp(c->method, r->method))
		return;
	params = json_loads(c->params, 0, NULL);
	q = named(h, har_sess_get(h, c->conn, c->session, 0), c->method, params);
	util_copy(method, c->method, sizeof method);
	logrec_pending_unlink(&h->cmds, c);
	logrec_cmd_free(c);
	json_decref(params);
	if (!q)
		return;
	body = har_clean_body(r);
	result = json_object_get(body, "result");
	if (!strcmp(method, "Network.getRequestPostData")) {
		if (json_is_string(json_object_get(result, "postData")) && q->hop.request)
			json_object_set(q->hop.request, "postData", json_object_get(result, "postData"));
	} else if (json_is_object(result) && !q->entry) {
		/* Before loadingFinished: Fetch's, at the response stage. */
		json_decref(q->early_body);
		q->early_body = json_incref(result);
	} else if (json_is_object(result)) {
		har_entry_set_body(q->entry, result);
		h->bodies++;
		har_req_write(h, q, HAR_HAS_BODY, NULL);
	} else if (q->entry) {
		kind = no_result(h, r, method, why, sizeof why);
		har_req_write(h, q, kind, why);
	}
	json_decref(body);
}

void har_body_paused(struct har *h, struct har_sess *s, json_t *p)
{
	const char *id = har_str(p, "requestId"), *net = har_str(p, "networkId");
	struct har_req *q, *other;
	void **v;

	if (!id || !net)
		return;
	q = har_req_get(h, s, net, 1);
	har_req_forget_fetch(h, q);
	q->fetch_key = fetch_key(s, id, &q->fetch_klen);
	v = table_put(&h->fetch_ids, q->fetch_key, q->fetch_klen);
	if ((other = *v) && other != q) {   /* an interception id used again: now q's */
		free(other->fetch_key);
		other->fetch_key = NULL;
	}
	*v = q;
}

void har_body_not_fetched(struct har *h, const struct logrec *r)
{
	struct har_sess *s = har_sess_get(h, r->conn, r->session, 0);
	const char *rid = har_str(r->obj, "requestId"), *why = har_str(r->obj, "why");
	struct har_req *q = s && rid ? har_req_get(h, s, rid, 0) : NULL;
	char text[300];

	if (!q)
		return;
	snprintf(text, sizeof text, "its body was not fetched: %s (%" PRIu64 " of %" PRIu64 " bytes fetched on "
		 "its connection; record with a larger --record-bodies=BUDGET)", why ? why : "the proxy did not",
		 har_count(r->obj, "fetched"), har_count(r->obj, "budget"));
	free(q->not_fetched);
	q->not_fetched = xstrdup(text);
}

void har_body_report(const struct har *h, FILE *f)
{
	static const char *const what[HAR_NOBODY_N] = {
		[HAR_NOT_FETCHED] = "not fetched: nobody asked Chrome for them (record with cdpproxy "
				    "--record-bodies)",
		[HAR_OVER_BUDGET] = "past the --record-bodies budget",
		[HAR_NO_ANSWER] = "asked for, with no answer in the log",
		[HAR_FETCH_FAILED] = "that Chrome did not give (getResponseBody failed)",
		[HAR_CUT] = "cut in the log (a larger --log-bodies)",
		[HAR_WITHHELD] = "withheld (by the redaction, or the log holds no bodies)",
		[HAR_REDIRECT] = "redirects (Chrome keeps no body for one)",
		[HAR_REQ_FAILED] = "failed requests",
		[HAR_UNFINISHED] = "written unfinished",
	};
	uint64_t lacking = 0;
	int first = 1;

	for (int i = HAR_HAS_BODY + 1; i < HAR_NOBODY_N; i++)
		lacking += h->nobody[i];
	fprintf(f, "cdplog: %" PRIu64 " of %" PRIu64 " entries have no response body", lacking, h->entries);
	for (int i = HAR_HAS_BODY + 1; i < HAR_NOBODY_N; i++)
		if (h->nobody[i]) {
			fprintf(f, "%s%" PRIu64 " %s", first ? ": " : "; ", h->nobody[i], what[i]);
			first = 0;
		}
	fputc('\n', f);
}
