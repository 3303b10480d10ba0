/* har_req: the requests and sessions `cdplog har` holds: found or made by
 * their ids, within --max-requests and --sessions-max; each request's entry
 * built from its hop and written (har_out.c) with why it has no body, if
 * it has none; a session ended writes what it still holds. */
#include "har.h"

#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "table.h"
#include "util.h"

json_t *har_clean_body(const struct logrec *r)
{
	json_t *b = logrec_body(r);
	char *text, *clean = NULL;
	size_t n;

	if (!b)
		return NULL;
	text = json_dumps(b, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (text && (clean = redact_body(text, strlen(text), &n))) {
		json_decref(b);
		b = json_loadb(clean, n, 0, NULL);   /* REDACTED_NOT_JSON: NULL */
	}
	free(text);
	free(clean);
	return b;
}

/* --- requests --------------------------------------------------------------- */

void har_hop_clear(struct har_hop *hop)
{
	json_decref(hop->request);
	json_decref(hop->req_extra);
	json_decref(hop->response);
	json_decref(hop->resp_extra);
	json_decref(hop->type_owner);
	memset(hop, 0, sizeof *hop);
}

void har_req_forget_fetch(struct har *h, struct har_req *q)
{
	void **v;

	if (q->fetch_key && (v = table_get(&h->fetch_ids, q->fetch_key, q->fetch_klen)) && *v == q)
		table_del(&h->fetch_ids, q->fetch_key, q->fetch_klen);
	free(q->fetch_key);
	q->fetch_key = NULL;
}

static void req_free(struct har *h, struct har_req *q)
{
	table_del(&h->reqs, q->key, q->klen);
	if (q->prev)
		q->prev->next = q->next;
	else
		h->oldest = q->next;
	if (q->next)
		q->next->prev = q->prev;
	else
		h->newest = q->prev;
	h->nreqs--;
	har_req_forget_fetch(h, q);
	har_hop_clear(&q->hop);
	json_decref(q->extras[0]);
	json_decref(q->extras[1]);
	json_decref(q->entry);
	json_decref(q->early_body);
	free(q->not_fetched);
	free(q->pageref);
	free(q->key);
	free(q);
}

/* The extra info of q's current hop, taken from those that came (response:
 * responseReceivedExtraInfo, else requestWillBeSentExtraInfo). They come
 * before or after their hop's events, a redirect's even after the next
 * hop's requestWillBeSent: each names its hop, a response's by its
 * statusCode, a request's by connectTiming.requestTime (the response's
 * timing.requestTime). Without the hop's response, the newest; without a
 * name, the oldest. NULL when none is its. A new reference. */
static json_t *extra_take(struct har_req *q, int response)
{
	json_t *arr = q->extras[response], *x, *got = NULL;
	double want = response ? har_num(q->hop.response, "status", -1) :
			har_num(json_object_get(q->hop.response, "timing"), "requestTime", -1);
	size_t i;

	json_array_foreach(arr, i, x) {
		double have = response ? har_num(x, "statusCode", -2) :
				har_num(json_object_get(x, "connectTiming"), "requestTime", -2);
		if (have == want || (have == -2 && want >= 0))
			break;
	}
	if (i == json_array_size(arr) && want < 0 && i > 0)
		i--;
	if (i < json_array_size(arr)) {
		got = json_incref(json_array_get(arr, i));
		json_array_remove(arr, i);
	}
	return got;
}

/* Builds the entry of q's current hop. */
void har_req_build(struct har_req *q, const char *redirect_url, const char *failed)
{
	json_decref(q->hop.req_extra);
	json_decref(q->hop.resp_extra);
	q->hop.req_extra = extra_take(q, 0);
	q->hop.resp_extra = extra_take(q, 1);
	json_decref(q->entry);
	q->entry = har_entry_build(&q->hop, q->pageref, redirect_url, failed);
}

void har_req_write(struct har *h, struct har_req *q, enum har_nobody kind, const char *why)
{
	struct har_out *out;

	if (q->started) {
		if (!q->entry) {
			h->unfinished++;
			kind = kind == HAR_HAS_BODY ? HAR_UNFINISHED : kind;
			har_req_build(q, NULL, NULL);
			json_object_set_new(q->entry, "comment", json_string("unfinished: no loadingFinished or "
				"loadingFailed in the log before it was written"));
		}
		if (why)
			har_entry_set_comment(q->entry, why);
		if ((out = har_out_for(h, q->sess))) {
			har_out_entry(out, q->entry);
			h->entries++;
			h->nobody[kind]++;
		}
	}
	req_free(h, q);
}

struct har_req *har_req_get(struct har *h, struct har_sess *s, const char *rid, int create)
{
	size_t rlen = strlen(rid), klen = s->klen + 1 + rlen;
	char *key = xmalloc(klen);
	void **v;
	struct har_req *q = NULL;

	memcpy(key, s->key, s->klen);
	key[s->klen] = '\0';
	memcpy(key + s->klen + 1, rid, rlen);
	if ((v = table_get(&h->reqs, key, klen)) || !create) {
		free(key);
		return v ? *v : NULL;
	}
	if (h->nreqs >= h->o->max_requests && h->oldest) {
		char why[160];
		snprintf(why, sizeof why, "written before its body could be fetched: more than --max-requests "
			 "%zu requests were open or awaiting their body", h->o->max_requests);
		h->pushed_out++;
		har_req_write(h, h->oldest, HAR_UNFINISHED, why);
	}
	q = xcalloc(1, sizeof *q);
	q->key = key;
	q->klen = klen;
	q->sess = s;
	*table_put(&h->reqs, key, klen) = q;
	q->prev = h->newest;
	if (h->newest)
		h->newest->next = q;
	else
		h->oldest = q;
	h->newest = q;
	h->nreqs++;
	return q;
}

/* --- sessions --------------------------------------------------------------- */

/* Writes q, done and never answered, saying why it has no body. */
static void write_missing(struct har *h, struct har_req *q)
{
	if (!q->entry)
		har_req_write(h, q, HAR_UNFINISHED, NULL);
	else if (q->not_fetched)
		har_req_write(h, q, HAR_OVER_BUDGET, q->not_fetched);
	else if (q->asked)
		har_req_write(h, q, HAR_NO_ANSWER, "its body was asked for, but no answer is in the log: its "
			      "session or the log ended first");
	else
		har_req_write(h, q, HAR_NOT_FETCHED, "its body was not fetched: nobody asked Chrome for it "
			      "(the client read no body): record with cdpproxy --record-bodies "
			      "(CDPPROXY_RECORD_BODIES=1) for every body");
}

void har_sess_end(struct har *h, struct har_sess *s)
{
	struct har_req *q, *next;

	for (q = h->oldest; q; q = next) {
		next = q->next;
		if (q->sess == s)
			write_missing(h, q);
	}
	har_page_close(h, s);
	if (s->out && har_out_close(s->out, NULL, h->err, sizeof h->err) < 0)
		h->failed = 1;
	table_del(&h->sessions, s->key, s->klen);
	if (s->prev)
		s->prev->next = s->next;
	else
		h->lru = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		h->mru = s->prev;
	free(s->key);
	free(s->session);
	free(s->main_frame);
	free(s);
}

struct har_sess *har_sess_get(struct har *h, uint64_t conn, const char *session, int create)
{
	size_t slen = session ? strlen(session) : 0, klen = 8 + slen;
	char *key = xmalloc(klen);
	void **v;
	struct har_sess *s;

	memcpy(key, &conn, 8);
	memcpy(key + 8, session ? session : "", slen);
	if ((v = table_get(&h->sessions, key, klen))) {
		s = *v;
		free(key);
		if (s == h->mru)
			return s;
		if (s->prev)
			s->prev->next = s->next;
		else
			h->lru = s->next;
		s->next->prev = s->prev;
	} else {
		if (!create) {
			free(key);
			return NULL;
		}
		if (h->sessions.n >= h->sessions_max && h->lru) {
			h->forgotten++;
			har_sess_end(h, h->lru);
		}
		s = xcalloc(1, sizeof *s);
		s->key = key;
		s->klen = klen;
		s->conn = conn;
		s->session = session ? xstrdup(session) : NULL;
		*table_put(&h->sessions, key, klen) = s;
	}
	s->prev = h->mru;
	s->next = NULL;
	if (h->mru)
		h->mru->next = s;
	else
		h->lru = s;
	h->mru = s;
	return s;
}
