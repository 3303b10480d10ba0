/* sink: the upload sink's routes (bench page, uploads, downloads, page loads,
 * results) and what it remembers of each trial. */
#include "sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "site.h"
#include "util.h"

#define RESULT_MAX (1u << 20)   /* the largest result a page may post */
#define ID_MAX 64

enum transfer_kind { TRANSFER_UPLOAD, TRANSFER_DOWNLOAD, TRANSFER_PAGELOAD };
static const char *const transfer_kinds[] = { "upload", "download", "pageload" };

/* One upload, download or page load (the page and all its resources), as the
 * sink saw it. Times are monotonic µs. */
struct transfer {
	struct transfer *next;
	long index;              /* the page's transfer number (?i=), -1 if none */
	enum transfer_kind kind;
	uint64_t bytes, head_us, first_us, last_us;
};

struct trial {
	struct trial *next;
	char id[ID_MAX];
	char *result;            /* the JSON the page posted, or NULL */
	struct transfer *transfers, **tail;
};

struct sink {
	char *page;
	size_t page_len;
	int quiet;
	struct trial *trials;
};

static const char index_html[] =
	"<!doctype html><meta charset=utf-8><title>uploadsink</title>\n"
	"<h1>uploadsink</h1><p>Run the bench page: "
	"<a href=\"/bench.html?trial=manual&body=u8&bytes=33554432&n=3\">u8, 32 MiB, 3 transfers</a>, "
	"<a href=\"/bench.html?trial=manual&body=blob&bytes=33554432&n=3\">blob</a>, "
	"<a href=\"/bench.html?trial=manual&body=pageload&n=3\">page load</a> (of "
	"<a href=\"/site?trial=manual&i=0\">this page</a>). "
	"<a href=\"/trials\">What the sink has seen</a>.</p>\n";

/* A trial id is what the page and cdpbench agree on: [A-Za-z0-9._-]+. */
static int valid_id(const char *id)
{
	if (!*id || strlen(id) >= ID_MAX)
		return 0;
	return strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
	       strlen(id);
}

static struct trial *trial_get(struct sink *s, const char *id, int create)
{
	struct trial *t;

	for (t = s->trials; t; t = t->next)
		if (!strcmp(t->id, id))
			return t;
	if (!create)
		return NULL;
	t = xcalloc(1, sizeof *t);
	snprintf(t->id, sizeof t->id, "%s", id);
	t->tail = &t->transfers;
	t->next = s->trials;
	s->trials = t;
	return t;
}

static void trial_free(struct trial *t)
{
	while (t->transfers) {
		struct transfer *x = t->transfers;
		t->transfers = x->next;
		free(x);
	}
	free(t->result);
	free(t);
}

static void trial_forget(struct sink *s, struct trial *gone)
{
	for (struct trial **p = &s->trials; *p; p = &(*p)->next) {
		if (*p == gone) {
			*p = gone->next;
			trial_free(gone);
			return;
		}
	}
}

/* The trial named by ?trial= (created), or "manual" when there is none. */
static struct trial *trial_of(struct sink *s, const struct http1_req *r)
{
	char id[ID_MAX];

	if (http1_query(r->query, "trial", id, sizeof id) < 0 || !valid_id(id))
		snprintf(id, sizeof id, "manual");
	return trial_get(s, id, 1);
}

static long index_of(const struct http1_req *r)
{
	char idx[32];

	return http1_query(r->query, "i", idx, sizeof idx) == 0 ? strtol(idx, NULL, 10) : -1;
}

static struct transfer *transfer_add(struct sink *s, const struct http1_req *r,
				     enum transfer_kind kind)
{
	struct trial *t = trial_of(s, r);
	struct transfer *x = xcalloc(1, sizeof *x);

	x->index = index_of(r);
	x->kind = kind;
	*t->tail = x;
	t->tail = &x->next;
	return x;
}

/* The trial's transfer of this kind and index, added if there is none. */
static struct transfer *transfer_find(struct sink *s, const struct http1_req *r,
				      enum transfer_kind kind)
{
	long index = index_of(r);

	for (struct transfer *x = trial_of(s, r)->transfers; x; x = x->next)
		if (x->kind == kind && x->index == index)
			return x;
	return transfer_add(s, r, kind);
}

static double mbps(uint64_t bytes, uint64_t us)
{
	return us ? (double)bytes * 8 / (double)us : 0;
}

static void respond_json(struct http1_req *r, int status, json_t *j)
{
	char *text = json_dumps(j, JSON_COMPACT);

	http1_respond(r, status, "application/json", text, strlen(text));
	free(text);
	json_decref(j);
}

static void respond_text(struct http1_req *r, int status, const char *text)
{
	http1_respond(r, status, "text/plain; charset=utf-8", text, strlen(text));
}

static void on_upload(struct sink *s, struct http1_req *r)
{
	struct transfer *x = transfer_add(s, r, TRANSFER_UPLOAD);
	uint64_t span;

	x->bytes = r->body_bytes;
	x->head_us = r->head_us;
	x->first_us = r->first_body_us;
	x->last_us = r->last_body_us;
	span = x->last_us > x->first_us ? x->last_us - x->first_us : 0;
	if (!s->quiet)
		printf("upload %s i=%ld bytes=%llu sink_mbps=%.1f\n", trial_of(s, r)->id, x->index,
		       (unsigned long long)x->bytes, mbps(x->bytes, span));
	respond_json(r, 200, json_pack("{s:I,s:I}", "bytes", (json_int_t)x->bytes,
				       "sink_us", (json_int_t)span));
}

static void download_done(struct http1_req *r, void *arg)
{
	struct transfer *x = r->user;
	struct sink *s = arg;

	x->last_us = util_mono_us();
	if (!s->quiet)
		printf("download i=%ld bytes=%llu sink_mbps=%.1f\n", x->index,
		       (unsigned long long)x->bytes, mbps(x->bytes, x->last_us - x->first_us));
}

static void on_download(struct sink *s, struct http1_req *r)
{
	char val[64], err[128];
	uint64_t bytes;
	struct transfer *x;

	if (http1_query(r->query, "bytes", val, sizeof val) < 0 ||
	    util_parse_size(val, &bytes, err, sizeof err) < 0) {
		respond_text(r, 400, "GET /download?bytes=N (a byte count, or 32MiB)\n");
		return;
	}
	x = transfer_add(s, r, TRANSFER_DOWNLOAD);
	x->bytes = bytes;
	x->head_us = x->first_us = r->head_us;
	r->user = x;
	http1_respond_pattern(r, 200, "application/octet-stream", bytes, download_done, s);
}

/* GET /site?trial=T&i=I[&n=N]: a page of N small resources (site.c); the
 * page and its resources are one page-load transfer, from the page's request
 * to the last resource handed out. */
static void on_site(struct sink *s, struct http1_req *r)
{
	char val[32], id[ID_MAX];
	long n = SITE_DEFAULT_RESOURCES;
	struct transfer *x;
	size_t len;
	char *page;

	if (http1_query(r->query, "n", val, sizeof val) == 0)
		n = strtol(val, NULL, 10);
	if (n < 1 || n > SITE_MAX_RESOURCES) {
		respond_text(r, 400, "GET /site?trial=T&i=I&n=N (1 to 2000 resources)\n");
		return;
	}
	x = transfer_find(s, r, TRANSFER_PAGELOAD);
	snprintf(id, sizeof id, "%s", trial_of(s, r)->id);
	page = site_page(id, x->index, (int)n, &len);
	x->bytes += len;
	x->head_us = x->first_us = r->head_us;
	x->last_us = util_mono_us();
	http1_respond(r, 200, "text/html; charset=utf-8", page, len);
	free(page);
}

/* GET /site/r?trial=T&i=I&j=J&k=KIND: one of a site page's resources. */
static void on_site_resource(struct sink *s, struct http1_req *r)
{
	char kind[8];
	const void *body;
	const char *type;
	size_t len;
	struct transfer *x;

	if (http1_query(r->query, "k", kind, sizeof kind) < 0 ||
	    site_resource(kind, &body, &len, &type) < 0) {
		respond_text(r, 404, "no such resource\n");
		return;
	}
	x = transfer_find(s, r, TRANSFER_PAGELOAD);
	x->bytes += len;
	x->last_us = util_mono_us();
	http1_respond(r, 200, type, body, len);
}

static void on_result(struct sink *s, struct http1_req *r)
{
	struct trial *t = trial_of(s, r);

	if (r->body_too_large) {
		respond_text(r, 413, "result too large\n");
		return;
	}
	free(t->result);
	t->result = xstrndup(r->body ? r->body : "", r->body_len);
	if (!s->quiet)
		printf("result %s %s\n", t->id, t->result);
	fflush(stdout);
	respond_json(r, 200, json_pack("{s:b}", "ok", 1));
}

static json_t *trial_json(const struct trial *t)
{
	json_t *xs = json_array(), *result = NULL;

	for (const struct transfer *x = t->transfers; x; x = x->next)
		json_array_append_new(xs, json_pack("{s:I,s:s,s:I,s:I,s:I,s:I}",
			"i", (json_int_t)x->index, "kind", transfer_kinds[x->kind],
			"bytes", (json_int_t)x->bytes, "head_us", (json_int_t)x->head_us,
			"first_us", (json_int_t)x->first_us, "last_us", (json_int_t)x->last_us));
	if (t->result && !(result = json_loads(t->result, 0, NULL)))
		result = json_string(t->result);   /* not JSON: hand it back as text */
	return json_pack("{s:s,s:o,s:o}", "id", t->id, "result", result ? result : json_null(),
			 "transfers", xs);
}

/* GET /trial?id=T[&forget=1]: what the sink knows of T; forget drops it once
 * the page's result is in. */
static void on_trial(struct sink *s, struct http1_req *r)
{
	char id[ID_MAX], forget[8];
	struct trial *t;

	if (http1_query(r->query, "id", id, sizeof id) < 0 || !valid_id(id)) {
		respond_text(r, 400, "GET /trial?id=TRIAL ([A-Za-z0-9._-], under 64 bytes)\n");
		return;
	}
	if (!(t = trial_get(s, id, 0))) {
		respond_json(r, 200, json_pack("{s:s,s:n,s:[]}", "id", id, "result", "transfers"));
		return;
	}
	respond_json(r, 200, trial_json(t));
	if (t->result && http1_query(r->query, "forget", forget, sizeof forget) == 0 &&
	    !strcmp(forget, "1"))
		trial_forget(s, t);
}

static void on_trials(struct sink *s, struct http1_req *r)
{
	json_t *all = json_array();

	for (const struct trial *t = s->trials; t; t = t->next)
		json_array_append_new(all, trial_json(t));
	respond_json(r, 200, all);
}

static void sink_on_head(struct http1_req *r, void *arg)
{
	(void)arg;
	/* Uploads are counted and dropped; only a result is kept. */
	if (!strcmp(r->path, "/result"))
		r->keep_max = RESULT_MAX;
}

static void sink_on_done(struct http1_req *r, void *arg)
{
	struct sink *s = arg;
	int get = !strcmp(r->method, "GET"), post = !strcmp(r->method, "POST");

	if (post && !strcmp(r->path, "/upload"))
		on_upload(s, r);
	else if (post && !strcmp(r->path, "/result"))
		on_result(s, r);
	else if (get && !strcmp(r->path, "/download"))
		on_download(s, r);
	else if (get && !strcmp(r->path, "/site"))
		on_site(s, r);
	else if (get && !strcmp(r->path, "/site/r"))
		on_site_resource(s, r);
	else if (get && !strcmp(r->path, "/trial"))
		on_trial(s, r);
	else if (get && !strcmp(r->path, "/trials"))
		on_trials(s, r);
	else if (get && !strcmp(r->path, "/bench.html"))
		http1_respond(r, 200, "text/html; charset=utf-8", s->page, s->page_len);
	else if (get && !strcmp(r->path, "/"))
		http1_respond(r, 200, "text/html; charset=utf-8", index_html, sizeof index_html - 1);
	else if (get || post)
		respond_text(r, 404, "not found\n");
	else
		respond_text(r, 405, "GET or POST only\n");
}

struct sink *sink_new(const char *page, size_t page_len, int quiet)
{
	struct sink *s = xcalloc(1, sizeof *s);

	s->page = xstrndup(page, page_len);
	s->page_len = page_len;
	s->quiet = quiet;
	return s;
}

void sink_free(struct sink *s)
{
	if (!s)
		return;
	while (s->trials) {
		struct trial *t = s->trials;
		s->trials = t->next;
		trial_free(t);
	}
	free(s->page);
	free(s);
}

struct http1_handler sink_handler(struct sink *s)
{
	struct http1_handler h = { sink_on_head, sink_on_done, s };
	return h;
}
