/* httpc: a blocking HTTP/1.1 client for loopback peers: small requests to the
 * sink and DevTools, and the native upload and download baseline. */
#define _GNU_SOURCE   /* memmem, strcasestr */
#include "httpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "pattern.h"
#include "util.h"

#define IO_CHUNK (256 * 1024)
#define HEAD_MAX 16384



int httpc_connect(struct httpc *h, const char *host, int port, int timeout_ms,
		  char *err, size_t errlen)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	int one = 1;

	h->fd = -1;
	h->one_shot = 0;
	snprintf(h->host, sizeof h->host, "%s", host);
	h->port = port;
	h->timeout_ms = timeout_ms;
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		snprintf(err, errlen, "'%s' is not an IPv4 address", host);
		return -1;
	}
	if ((h->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(h->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(h->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	setsockopt(h->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(h->fd, (struct sockaddr *)&sin, sizeof sin) < 0) {
		snprintf(err, errlen, "cannot connect to %s:%d: %s", host, port, strerror(errno));
		httpc_close(h);
		return -1;
	}
	return 0;
}

void httpc_close(struct httpc *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

void httpc_resp_free(struct httpc_resp *r)
{
	free(r->body);
	memset(r, 0, sizeof *r);
}

static int write_all(struct httpc *h, const char *buf, size_t len, char *err, size_t errlen)
{
	while (len) {
		ssize_t n = write(h->fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "write to %s:%d: %s", h->host, h->port,
				 n < 0 ? strerror(errno) : "closed");
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads into buf; 0 at EOF, -1 on error (with err filled). */
static ssize_t read_some(struct httpc *h, char *buf, size_t len, char *err, size_t errlen)
{
	ssize_t n;

	do
		n = read(h->fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		snprintf(err, errlen, "read from %s:%d: %s", h->host, h->port,
			 errno == EAGAIN ? "timed out" : strerror(errno));
	return n;
}

static void keep(struct httpc_resp *r, const char *buf, size_t n, size_t keep_max)
{
	size_t take;

	r->body_bytes += n;
	if (r->body_len >= keep_max)
		return;
	take = n < keep_max - r->body_len ? n : keep_max - r->body_len;
	r->body = xrealloc(r->body, r->body_len + take + 1);
	memcpy(r->body + r->body_len, buf, take);
	r->body_len += take;
	r->body[r->body_len] = '\0';
}

/* Decodes a chunked body in place (small answers only, read to the end). */
static void dechunk(struct httpc_resp *r)
{
	char *in = r->body, *out = r->body, *end = r->body + r->body_len;

	if (!in)
		return;
	while (in < end) {
		char *eol = in;
		unsigned long size;
		while (eol + 1 < end && !(eol[0] == '\r' && eol[1] == '\n'))
			eol++;
		if (eol + 1 >= end)
			break;
		size = strtoul(in, NULL, 16);
		in = eol + 2;
		if (!size || size > (size_t)(end - in))
			break;
		memmove(out, in, size);
		out += size;
		in += size + 2;
	}
	r->body_len = (size_t)(out - r->body);
	r->body_bytes = r->body_len;
	r->body[r->body_len] = '\0';
}

int httpc_exchange(struct httpc *h, const char *method, const char *path,
		   const void *body, uint64_t body_len, size_t keep_max,
		   struct httpc_resp *resp, char *err, size_t errlen)
{
	static char buf[IO_CHUNK];
	char head[1024];
	size_t have = 0, head_len;
	int64_t length = -1;
	int chunked = 0;
	char *end, *cl, *te, *conn;

	memset(resp, 0, sizeof *resp);
	if (body_len || !strcmp(method, "POST") || !strcmp(method, "PUT"))
		snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Length: %llu\r\n"
			 "Content-Type: application/octet-stream\r\n%s\r\n", method, path, h->host,
			 h->port, (unsigned long long)body_len, h->one_shot ? "Connection: close\r\n" : "");
	else
		snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: %s:%d\r\n%s\r\n", method, path,
			 h->host, h->port, h->one_shot ? "Connection: close\r\n" : "");
	if (write_all(h, head, strlen(head), err, errlen) < 0)
		return -1;
	for (uint64_t sent = 0; sent < body_len; ) {
		size_t n = body_len - sent < IO_CHUNK ? (size_t)(body_len - sent) : IO_CHUNK;
		if (write_all(h, body ? (const char *)body + sent : pattern_get(IO_CHUNK), n, err, errlen) < 0)
			return -1;
		sent += n;
	}
	/* The head, then the body by Content-Length, chunks, or to EOF. */
	for (;;) {
		ssize_t n = read_some(h, buf + have, HEAD_MAX - have, err, errlen);
		if (n <= 0) {
			if (!n)
				snprintf(err, errlen, "%s:%d closed before answering", h->host, h->port);
			return -1;
		}
		have += (size_t)n;
		buf[have] = '\0';
		if ((end = memmem(buf, have, "\r\n\r\n", 4)))
			break;
		if (have >= HEAD_MAX) {
			snprintf(err, errlen, "%s:%d: response head too large", h->host, h->port);
			return -1;
		}
	}
	head_len = (size_t)(end - buf) + 4;
	*end = '\0';
	if (sscanf(buf, "HTTP/1.%*d %d", &resp->status) != 1) {
		snprintf(err, errlen, "%s:%d: not an HTTP response", h->host, h->port);
		return -1;
	}
	if ((cl = strcasestr(buf, "\r\ncontent-length:")))
		length = strtoll(cl + 17, NULL, 10);
	if ((te = strcasestr(buf, "\r\ntransfer-encoding:")) && strcasestr(te, "chunked"))
		chunked = 1;
	conn = strcasestr(buf, "\r\nconnection:");
	resp->closes = (conn && !strncasecmp(conn + 13 + strspn(conn + 13, " "), "close", 5)) ||
		       length < 0;
	if (chunked)
		keep_max = keep_max > (16u << 20) ? keep_max : (16u << 20);
	keep(resp, buf + head_len, have - head_len, keep_max);
	while (length < 0 || resp->body_bytes < (uint64_t)length) {
		size_t want = sizeof buf;
		ssize_t n;
		if (length >= 0 && (uint64_t)length - resp->body_bytes < want)
			want = (size_t)((uint64_t)length - resp->body_bytes);
		n = read_some(h, buf, want, err, errlen);
		if (n < 0)
			return -1;
		if (!n) {
			if (length < 0)
				break;
			snprintf(err, errlen, "%s:%d closed in the middle of the body", h->host, h->port);
			return -1;
		}
		keep(resp, buf, (size_t)n, keep_max);
	}
	if (chunked)
		dechunk(resp);
	if (!resp->body)
		resp->body = xstrdup("");
	return 0;
}

int httpc_get(const char *host, int port, const char *method, const char *path,
	      int timeout_ms, int *status, char **out, char *err, size_t errlen)
{
	struct httpc h;
	struct httpc_resp r;
	int rc;

	*out = NULL;
	if (httpc_connect(&h, host, port, timeout_ms, err, errlen) < 0)
		return -1;
	h.one_shot = 1;
	rc = httpc_exchange(&h, method, path, NULL, 0, 16u << 20, &r, err, errlen);
	httpc_close(&h);
	if (rc < 0) {
		httpc_resp_free(&r);
		return -1;
	}
	*status = r.status;
	*out = r.body;
	return 0;
}
