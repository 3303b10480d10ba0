/* httpc: a blocking HTTP/1.1 client for loopback peers: small requests to the
 * sink and DevTools, and the native upload and download baseline. */
#include "httpc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "httpmsg.h"
#include "pattern.h"
#include "util.h"

#define IO_CHUNK (256 * 1024)



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

/* Keeps the first keep_max body bytes of the response (and counts them all). */
struct keeper {
	struct httpc_resp *resp;
	size_t keep_max;
};

static void keep(struct httpmsg *m, const char *buf, size_t n)
{
	struct keeper *k = m->user;
	struct httpc_resp *r = k->resp;
	size_t take;

	r->body_bytes += n;
	if (r->body_len >= k->keep_max)
		return;
	take = n < k->keep_max - r->body_len ? n : k->keep_max - r->body_len;
	r->body = xrealloc(r->body, r->body_len + take + 1);
	memcpy(r->body + r->body_len, buf, take);
	r->body_len += take;
	r->body[r->body_len] = '\0';
}

int httpc_exchange(struct httpc *h, const char *method, const char *path,
		   const void *body, uint64_t body_len, size_t keep_max,
		   struct httpc_resp *resp, char *err, size_t errlen)
{
	static char buf[IO_CHUNK];
	static struct httpmsg m;
	struct keeper k = { resp, keep_max };
	char head[1024], why[200];

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
	/* The answer, its body by Content-Length, chunks, or to the close. */
	httpmsg_init(&m, 1);
	m.on_body = keep;
	m.user = &k;
	while (!m.done) {
		ssize_t n = read_some(h, buf, sizeof buf, err, errlen);
		if (n < 0)
			return -1;
		if (httpmsg_feed(&m, buf, (size_t)n, why, sizeof why) < 0 && n) {
			snprintf(err, errlen, "%s:%d: %s", h->host, h->port, why);
			return -1;
		}
		if (!n && !m.done) {
			snprintf(err, errlen, "%s:%d closed %s", h->host, h->port,
				 m.head_done ? "in the middle of the body" : "before answering");
			return -1;
		}
	}
	resp->status = m.status;
	resp->closes = !m.keep_alive;
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
