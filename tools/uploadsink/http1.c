/* http1: a small HTTP/1.1 server on libevent that streams request bodies to its
 * handler (so a 1 GiB upload is counted, not buffered) and times their bytes.
 * Requests are read by httpmsg (http_parser), connections kept by evserve.
 * Not libevent's evhttp: in libevent 2.1 a server request reaches the program
 * only once its whole body is buffered (a chunk callback can be set on a
 * request only from a hook that came in 2.2), so a large upload would sit in
 * memory and be counted late; it measured slower as well (see the README). */
#define _GNU_SOURCE   /* strcasestr */
#include "http1.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evserve.h"
#include "httpmsg.h"
#include "pattern.h"
#include "util.h"

#define READ_CHUNK (256 * 1024)   /* one read() of body bytes */
#define PATTERN_CHUNK (256 * 1024) /* one write() of a download */
#define REST_MAX 16384            /* bytes read past a request, kept for the next */

struct http1_server {
	struct evserve ev;
	struct http1_handler h;
};

struct http1_conn {
	struct evserve_conn conn;    /* first: the skeleton's part */
	struct http1_server *srv;
	struct httpmsg msg;          /* the request being read */
	char rest[REST_MAX];         /* bytes that came after a request: the next one's */
	size_t rest_len;
	int responding;              /* the request is in; its answer is being written */
	uint64_t now;                /* when the bytes being read arrived */
	struct http1_req req;
	uint64_t pattern_left;       /* download bytes still to write */
	void (*pattern_done)(struct http1_req *r, void *arg);
	void *pattern_arg;
	int close_after;
};

void http1_respond(struct http1_req *r, int status, const char *content_type,
		   const void *body, size_t len)
{
	struct http1_conn *c = r->conn;

	if (!r->keep_alive)
		c->close_after = 1;
	evserve_http_head(&c->conn, status, content_type, len, !c->close_after);
	evbuffer_add(c->conn.out, body, len);
	event_add(c->conn.wr, NULL);
}

void http1_respond_pattern(struct http1_req *r, int status, const char *content_type,
			   uint64_t bytes, void (*done)(struct http1_req *r, void *arg), void *arg)
{
	struct http1_conn *c = r->conn;

	if (!r->keep_alive)
		c->close_after = 1;
	evserve_http_head(&c->conn, status, content_type, bytes, !c->close_after);
	c->pattern_left = bytes;
	c->pattern_done = done;
	c->pattern_arg = arg;
	event_add(c->conn.wr, NULL);
}

/* Answers a malformed request and closes after it. */
static void respond_error(struct http1_conn *c, int status, const char *why)
{
	c->responding = 1;
	c->close_after = 1;
	c->req.keep_alive = 0;
	event_del(c->conn.rd);
	http1_respond(&c->req, status, "text/plain", why, strlen(why));
}

/* The request is complete: stop reading (no pipelining) and let the handler answer. */
static void request_done(struct http1_conn *c)
{
	c->responding = 1;
	event_del(c->conn.rd);
	c->srv->h.on_done(&c->req, c->srv->h.arg);
}

static void on_head(struct httpmsg *m)
{
	struct http1_conn *c = m->user;
	struct http1_req *r = &c->req;
	const char *q = strchr(m->target, '?'), *v;

	snprintf(r->method, sizeof r->method, "%s", m->method);
	snprintf(r->path, sizeof r->path, "%.*s", (int)(q ? (size_t)(q - m->target) : strlen(m->target)),
		 m->target);
	snprintf(r->query, sizeof r->query, "%s", q ? q + 1 : "");
	r->keep_alive = m->keep_alive;
	r->head_us = c->now;
	if ((v = httpmsg_header(m, "expect")) && strcasestr(v, "100-continue")) {
		/* curl waits a second for this before sending a large body. */
		evbuffer_add_printf(c->conn.out, "HTTP/1.1 100 Continue\r\n\r\n");
		event_add(c->conn.wr, NULL);
	}
	c->srv->h.on_head(r, c->srv->h.arg);
}

/* Counts (and keeps, if asked) n body bytes, which arrived at c->now. */
static void on_body(struct httpmsg *m, const char *p, size_t n)
{
	struct http1_conn *c = m->user;
	struct http1_req *r = &c->req;

	if (!r->body_bytes)
		r->first_body_us = c->now;
	r->last_body_us = c->now;
	r->body_bytes += n;
	if (!r->keep_max)
		return;
	if (r->body_len + n > r->keep_max) {
		r->body_too_large = 1;
		return;
	}
	r->body = xrealloc(r->body, r->body_len + n + 1);
	memcpy(r->body + r->body_len, p, n);
	r->body_len += n;
	r->body[r->body_len] = '\0';
}

static void start_request(struct http1_conn *c)
{
	free(c->req.body);
	memset(&c->req, 0, sizeof c->req);
	c->req.conn = c;
	httpmsg_init(&c->msg, 0);
	c->msg.on_head = on_head;
	c->msg.on_body = on_body;
	c->msg.user = c;
	c->responding = 0;
}

/* Reads buf[0..n) (arrived at c->now) into the request under way; what
 * follows its end waits in c->rest for the next one. */
static void feed(struct http1_conn *c, const char *buf, size_t n)
{
	char err[200];
	long used = httpmsg_feed(&c->msg, buf, n, err, sizeof err);

	if (used < 0) {
		respond_error(c, c->msg.too_large ? 431 : 400, c->msg.too_large ?
			      "request head too large\n" : "malformed request\n");
		return;
	}
	if (!c->msg.done)
		return;
	if (n - (size_t)used > sizeof c->rest) {
		evserve_conn_free(&c->conn);   /* a client that pipelines that much is not one of ours */
		return;
	}
	memmove(c->rest, buf + used, n - (size_t)used);   /* buf may be c->rest */
	c->rest_len = n - (size_t)used;
	request_done(c);
}

static void on_read(struct evserve_conn *sc)
{
	static char scratch[READ_CHUNK];
	struct http1_conn *c = (struct http1_conn *)sc;
	ssize_t n = read(sc->fd, scratch, sizeof scratch);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		evserve_conn_free(sc);
		return;
	}
	c->now = util_mono_us();
	feed(c, scratch, (size_t)n);
}

/* The answer is written: start on the next request, or close. */
static void response_done(struct http1_conn *c)
{
	size_t n = c->rest_len;

	if (c->close_after) {
		evserve_conn_free(&c->conn);
		return;
	}
	start_request(c);
	event_add(c->conn.rd, NULL);
	if (n) {
		c->rest_len = 0;
		c->now = util_mono_us();
		feed(c, c->rest, n);
	}
}

static void on_write(struct evserve_conn *sc)
{
	struct http1_conn *c = (struct http1_conn *)sc;
	const char *pat = pattern_get(PATTERN_CHUNK);

	if (evbuffer_get_length(sc->out)) {
		if (evbuffer_write(sc->out, sc->fd) < 0 && errno != EAGAIN && errno != EINTR) {
			evserve_conn_free(sc);
			return;
		}
		if (evbuffer_get_length(sc->out))
			return;
	}
	while (c->pattern_left) {
		size_t chunk = c->pattern_left < PATTERN_CHUNK ? (size_t)c->pattern_left : PATTERN_CHUNK;
		ssize_t n = write(sc->fd, pat, chunk);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			evserve_conn_free(sc);
			return;
		}
		c->pattern_left -= (uint64_t)n;
		if (!c->pattern_left && c->pattern_done)
			c->pattern_done(&c->req, c->pattern_arg);
	}
	event_del(sc->wr);
	if (c->responding)
		response_done(c);
}

static void on_open(struct evserve_conn *sc)
{
	struct http1_conn *c = (struct http1_conn *)sc;

	c->srv = sc->srv->arg;
	start_request(c);
}

static void on_free(struct evserve_conn *sc)
{
	free(((struct http1_conn *)sc)->req.body);
}

struct http1_server *http1_listen(const char *host, int port, const struct http1_handler *h,
				  int *bound_port, char *err, size_t errlen)
{
	static const struct evserve_ops ops = {
		sizeof(struct http1_conn), on_open, on_read, on_write, on_free
	};
	struct http1_server *s = xcalloc(1, sizeof *s);

	s->h = *h;
	if (evserve_open(&s->ev, host, port, &ops, s, err, errlen) < 0) {
		free(s);
		return NULL;
	}
	*bound_port = s->ev.port;
	return s;
}

void http1_run(struct http1_server *s)
{
	evserve_run(&s->ev);
}

void http1_close(struct http1_server *s)
{
	if (!s)
		return;
	evserve_close(&s->ev);
	free(s);
}

int http1_query(const char *query, const char *name, char *out, size_t outlen)
{
	size_t nlen = strlen(name);

	for (const char *p = query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
		if (!strncmp(p, name, nlen) && p[nlen] == '=') {
			const char *v = p + nlen + 1;
			size_t vlen = strcspn(v, "&");
			snprintf(out, outlen, "%.*s", (int)vlen, v);
			return 0;
		}
	}
	return -1;
}
