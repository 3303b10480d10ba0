/* http1: a small HTTP/1.1 server on libevent that streams request bodies to its
 * handler (so a 1 GiB upload is counted, not buffered) and times their bytes. */
#define _GNU_SOURCE   /* memmem, strcasestr */
#include "http1.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/listener.h>

#include "util.h"

#define READ_CHUNK (256 * 1024)   /* one read() of body bytes */
#define PATTERN_SIZE (256 * 1024) /* the block downloads repeat */

enum state {
	ST_HEAD,         /* reading the request line and headers */
	ST_BODY,         /* Content-Length body: body_left bytes to go */
	ST_CHUNK_LINE,   /* chunked: reading a chunk-size line */
	ST_CHUNK_DATA,   /* chunked: body_left bytes of this chunk to go */
	ST_CHUNK_END,    /* chunked: the CRLF after a chunk's data */
	ST_TRAILER,      /* chunked: trailer lines up to an empty one */
	ST_RESPOND,      /* the request is complete; the answer is being written */
};

struct http1_server {
	struct event_base *base;
	struct evconnlistener *listener;
	struct http1_handler h;
	struct http1_conn *conns;
};

struct http1_conn {
	struct http1_server *srv;
	struct http1_conn *prev, *next;
	evutil_socket_t fd;
	struct event *rev, *wev;
	enum state st;
	char in[HTTP1_HEAD_MAX];     /* head bytes, and bytes that came after a request */
	size_t in_len;
	char line[256];              /* a chunk-size or trailer line */
	size_t line_len;
	uint64_t body_left;
	struct http1_req req;
	struct evbuffer *out;
	uint64_t pattern_left;       /* download bytes still to write */
	void (*pattern_done)(struct http1_req *r, void *arg);
	void *pattern_arg;
	int close_after;
};

static char pattern[PATTERN_SIZE];

static void conn_free(struct http1_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		c->srv->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	event_free(c->rev);
	event_free(c->wev);
	evbuffer_free(c->out);
	evutil_closesocket(c->fd);
	free(c->req.body);
	free(c);
}

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 204: return "No Content";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Content Too Large";
	case 431: return "Request Header Fields Too Large";
	default: return "Error";
	}
}

static void write_head(struct http1_conn *c, int status, const char *content_type, uint64_t len)
{
	evbuffer_add_printf(c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %llu\r\n"
			    "Cache-Control: no-store\r\nConnection: %s\r\n\r\n", status,
			    status_text(status), content_type, (unsigned long long)len,
			    c->close_after ? "close" : "keep-alive");
}

void http1_respond(struct http1_req *r, int status, const char *content_type,
		   const void *body, size_t len)
{
	struct http1_conn *c = r->conn;

	if (!r->keep_alive)
		c->close_after = 1;
	write_head(c, status, content_type, len);
	evbuffer_add(c->out, body, len);
	event_add(c->wev, NULL);
}

void http1_respond_pattern(struct http1_req *r, int status, const char *content_type,
			   uint64_t bytes, void (*done)(struct http1_req *r, void *arg), void *arg)
{
	struct http1_conn *c = r->conn;

	if (!r->keep_alive)
		c->close_after = 1;
	write_head(c, status, content_type, bytes);
	c->pattern_left = bytes;
	c->pattern_done = done;
	c->pattern_arg = arg;
	event_add(c->wev, NULL);
}

/* Answers a malformed request and closes after it. */
static void respond_error(struct http1_conn *c, int status, const char *why)
{
	c->st = ST_RESPOND;
	c->close_after = 1;
	c->req.keep_alive = 0;
	event_del(c->rev);
	http1_respond(&c->req, status, "text/plain", why, strlen(why));
}

/* The request is complete: stop reading (no pipelining) and let the handler answer. */
static void request_done(struct http1_conn *c)
{
	c->st = ST_RESPOND;
	event_del(c->rev);
	c->srv->h.on_done(&c->req, c->srv->h.arg);
}

/* Counts (and keeps, if asked) n body bytes that arrived at now. */
static void body_bytes(struct http1_conn *c, const char *buf, size_t n, uint64_t now)
{
	struct http1_req *r = &c->req;

	if (!n)
		return;
	if (!r->body_bytes)
		r->first_body_us = now;
	r->last_body_us = now;
	r->body_bytes += n;
	if (!r->keep_max)
		return;
	if (r->body_len + n > r->keep_max) {
		r->body_too_large = 1;
		return;
	}
	r->body = xrealloc(r->body, r->body_len + n + 1);
	memcpy(r->body + r->body_len, buf, n);
	r->body_len += n;
	r->body[r->body_len] = '\0';
}

/* Collects a CRLF-terminated line into c->line; 1 when it is complete. */
static int line_byte(struct http1_conn *c, char ch)
{
	if (ch == '\n') {
		while (c->line_len && c->line[c->line_len - 1] == '\r')
			c->line_len--;
		c->line[c->line_len] = '\0';
		return 1;
	}
	if (c->line_len + 1 < sizeof c->line)
		c->line[c->line_len++] = ch;
	return 0;
}

/* Consumes body bytes of the current request from buf[0..n). Returns how many
 * it took: fewer than n when the request ended inside buf, or -1 on a
 * malformed chunked body (already answered). */
static long body_feed(struct http1_conn *c, const char *buf, size_t n, uint64_t now)
{
	size_t i = 0;

	while (i < n && c->st != ST_RESPOND) {
		size_t take;
		char *end;

		switch (c->st) {
		case ST_BODY:
		case ST_CHUNK_DATA:
			take = n - i < c->body_left ? n - i : (size_t)c->body_left;
			body_bytes(c, buf + i, take, now);
			i += take;
			c->body_left -= take;
			if (!c->body_left) {
				if (c->st == ST_BODY)
					request_done(c);
				else
					c->st = ST_CHUNK_END;
			}
			break;
		case ST_CHUNK_END:
			if (line_byte(c, buf[i++])) {
				c->line_len = 0;
				c->st = ST_CHUNK_LINE;
			}
			break;
		case ST_CHUNK_LINE:
			if (!line_byte(c, buf[i++]))
				break;
			c->line_len = 0;
			errno = 0;
			c->body_left = strtoull(c->line, &end, 16);
			if (end == c->line || errno || (*end && *end != ';')) {
				respond_error(c, 400, "bad chunk size\n");
				return -1;
			}
			c->st = c->body_left ? ST_CHUNK_DATA : ST_TRAILER;
			break;
		case ST_TRAILER:
			if (!line_byte(c, buf[i++]))
				break;
			if (!c->line_len)
				request_done(c);
			c->line_len = 0;
			break;
		default:
			return (long)i;
		}
	}
	return (long)i;
}

/* Parses the head in c->in[0..len) (ending in the empty line). 0, or -1 after
 * answering an error. */
static int parse_head(struct http1_conn *c, size_t len)
{
	struct http1_req *r = &c->req;
	char *line = c->in, *eol, *sp1, *sp2, *q;
	int http10;

	c->in[len - 1] = '\0';
	eol = strstr(line, "\r\n");
	if (!eol)
		goto bad;
	*eol = '\0';
	sp1 = strchr(line, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || (size_t)(sp1 - line) >= sizeof r->method || strncmp(sp2 + 1, "HTTP/1.", 7))
		goto bad;
	memcpy(r->method, line, (size_t)(sp1 - line));
	r->method[sp1 - line] = '\0';
	*sp2 = '\0';
	if ((q = strchr(sp1 + 1, '?'))) {
		*q = '\0';
		snprintf(r->query, sizeof r->query, "%s", q + 1);
	}
	snprintf(r->path, sizeof r->path, "%s", sp1 + 1);
	http10 = sp2[8] == '0';
	r->keep_alive = !http10;
	for (line = eol + 2; *line; line = eol + 2) {
		char *colon, *v;

		if (!(eol = strstr(line, "\r\n")))
			break;
		*eol = '\0';
		if (!(colon = strchr(line, ':')))
			goto bad;
		*colon = '\0';
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		if (!strcasecmp(line, "content-length")) {
			char *end;
			errno = 0;
			r->content_length = (int64_t)strtoull(v, &end, 10);
			if (errno || end == v || r->content_length < 0)
				goto bad;
		} else if (!strcasecmp(line, "transfer-encoding")) {
			r->chunked = strcasestr(v, "chunked") != NULL;
		} else if (!strcasecmp(line, "connection")) {
			if (strcasestr(v, "close"))
				r->keep_alive = 0;
			else if (strcasestr(v, "keep-alive"))
				r->keep_alive = 1;
		} else if (!strcasecmp(line, "content-type")) {
			snprintf(r->content_type, sizeof r->content_type, "%s", v);
		} else if (!strcasecmp(line, "expect") && strcasestr(v, "100-continue")) {
			/* curl waits a second for this before sending a large body. */
			evbuffer_add_printf(c->out, "HTTP/1.1 100 Continue\r\n\r\n");
			event_add(c->wev, NULL);
		}
	}
	return 0;
bad:
	respond_error(c, 400, "malformed request\n");
	return -1;
}

/* Starts the request whose head is in c->in, then feeds the bytes after it.
 * Returns 0, or -1 when the connection is answering an error. */
static int head_complete(struct http1_conn *c, size_t head_len, uint64_t now)
{
	struct http1_req *r = &c->req;
	size_t rest = c->in_len - head_len;
	long used;

	if (parse_head(c, head_len) < 0)
		return -1;
	r->head_us = now;
	c->srv->h.on_head(r, c->srv->h.arg);
	if (r->chunked) {
		c->st = ST_CHUNK_LINE;
	} else if (r->content_length > 0) {
		c->st = ST_BODY;
		c->body_left = (uint64_t)r->content_length;
	} else {
		request_done(c);
	}
	used = c->st == ST_RESPOND ? 0 : body_feed(c, c->in + head_len, rest, now);
	if (used < 0)
		return -1;
	/* Whatever follows the request waits in c->in for the next one. */
	memmove(c->in, c->in + head_len + (size_t)used, rest - (size_t)used);
	c->in_len = rest - (size_t)used;
	return 0;
}

/* Looks for a complete head in c->in and starts its request. */
static void try_head(struct http1_conn *c, uint64_t now)
{
	char *end;

	c->in[c->in_len < sizeof c->in ? c->in_len : sizeof c->in - 1] = '\0';
	end = c->in_len >= 4 ? memmem(c->in, c->in_len, "\r\n\r\n", 4) : NULL;
	if (end) {
		head_complete(c, (size_t)(end - c->in) + 4, now);
		return;
	}
	if (c->in_len >= sizeof c->in - 1)
		respond_error(c, 431, "request head too large\n");
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
	static char scratch[READ_CHUNK];
	struct http1_conn *c = arg;
	ssize_t n;
	uint64_t now;

	(void)what;
	if (c->st == ST_HEAD) {
		n = read(fd, c->in + c->in_len, sizeof c->in - 1 - c->in_len);
	} else {
		n = read(fd, scratch, sizeof scratch);
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_free(c);
		return;
	}
	now = util_mono_us();
	if (c->st == ST_HEAD) {
		c->in_len += (size_t)n;
		try_head(c, now);
		return;
	}
	long used = body_feed(c, scratch, (size_t)n, now);
	if (used < 0 || (size_t)used == (size_t)n)
		return;
	if ((size_t)n - (size_t)used > sizeof c->in - 1) {
		conn_free(c);   /* a client that pipelines that much is not one of ours */
		return;
	}
	memcpy(c->in, scratch + used, (size_t)n - (size_t)used);
	c->in_len = (size_t)n - (size_t)used;
}

/* The answer is written: start on the next request, or close. */
static void response_done(struct http1_conn *c)
{
	if (c->close_after) {
		conn_free(c);
		return;
	}
	free(c->req.body);
	memset(&c->req, 0, sizeof c->req);
	c->req.conn = c;
	c->req.content_length = -1;
	c->st = ST_HEAD;
	c->line_len = 0;
	event_add(c->rev, NULL);
	if (c->in_len)
		try_head(c, util_mono_us());
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
	struct http1_conn *c = arg;

	(void)what;
	if (evbuffer_get_length(c->out)) {
		if (evbuffer_write(c->out, fd) < 0 && errno != EAGAIN && errno != EINTR) {
			conn_free(c);
			return;
		}
		if (evbuffer_get_length(c->out))
			return;
	}
	while (c->pattern_left) {
		size_t chunk = c->pattern_left < sizeof pattern ? (size_t)c->pattern_left : sizeof pattern;
		ssize_t n = write(fd, pattern, chunk);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			conn_free(c);
			return;
		}
		c->pattern_left -= (uint64_t)n;
		if (!c->pattern_left && c->pattern_done)
			c->pattern_done(&c->req, c->pattern_arg);
	}
	event_del(c->wev);
	if (c->st == ST_RESPOND)
		response_done(c);
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
		      int salen, void *arg)
{
	struct http1_server *s = arg;
	struct http1_conn *c = xcalloc(1, sizeof *c);
	int one = 1;

	(void)l; (void)sa; (void)salen;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	evutil_make_socket_nonblocking(fd);
	c->srv = s;
	c->fd = fd;
	c->out = evbuffer_new();
	c->rev = event_new(s->base, fd, EV_READ | EV_PERSIST, on_read, c);
	c->wev = event_new(s->base, fd, EV_WRITE | EV_PERSIST, on_write, c);
	c->req.conn = c;
	c->req.content_length = -1;
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	event_add(c->rev, NULL);
}

struct http1_server *http1_listen(struct event_base *base, const char *host, int port,
				  const struct http1_handler *h, int *bound_port,
				  char *err, size_t errlen)
{
	struct http1_server *s;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t slen = sizeof sin;

	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		snprintf(err, errlen, "'%s' is not an IPv4 address", host);
		return NULL;
	}
	for (size_t i = 0; i < sizeof pattern; i++)
		pattern[i] = (char)('a' + i % 26);
	s = xcalloc(1, sizeof *s);
	s->base = base;
	s->h = *h;
	s->listener = evconnlistener_new_bind(base, on_accept, s,
					      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 128,
					      (struct sockaddr *)&sin, sizeof sin);
	if (!s->listener) {
		snprintf(err, errlen, "cannot listen on %s:%d: %s", host, port, strerror(errno));
		free(s);
		return NULL;
	}
	getsockname(evconnlistener_get_fd(s->listener), (struct sockaddr *)&sin, &slen);
	*bound_port = ntohs(sin.sin_port);
	return s;
}

void http1_close(struct http1_server *s)
{
	if (!s)
		return;
	while (s->conns)
		conn_free(s->conns);
	evconnlistener_free(s->listener);
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
