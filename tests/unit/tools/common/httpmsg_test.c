/* httpmsg_test: requests and responses read whole and a byte at a time,
 * chunked bodies, pipelined requests, upgrades, a body read to the end. */
#include <stdlib.h>
#include <string.h>

#include "httpmsg.h"
#include "tap.h"

static char body[4096];
static size_t body_len;

static void keep_body(struct httpmsg *m, const char *p, size_t n)
{
	(void)m;
	memcpy(body + body_len, p, n);
	body_len += n;
}

/* Feeds s in pieces of step bytes (0: whole); returns the bytes used. */
static long feed(struct httpmsg *m, int response, const char *s, size_t len, size_t step)
{
	char err[200];
	long used = 0;

	httpmsg_init(m, response);
	m->on_body = keep_body;
	body_len = 0;
	while ((size_t)used < len && !m->done) {
		size_t n = step && len - (size_t)used > step ? step : len - (size_t)used;
		long k = httpmsg_feed(m, s + used, n, err, sizeof err);
		if (k < 0)
			return -1;
		used += k;
		if ((size_t)k < n)
			break;
	}
	return used;
}

int main(void)
{
	static const char get[] = "GET /json/version?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9222\r\n"
				  "X-Empty:\r\nuser-agent: t\r\n\r\n";
	static const char chunked[] = "POST /upload HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
				      "5\r\nhello\r\n1;ext=1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: 1\r\n\r\n";
	static const char two[] = "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n";
	static const char upgrade[] = "GET /devtools/page/X HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n"
				      "Connection: Upgrade\r\nSec-WebSocket-Key: k\r\n\r\n\x81\x85";
	static const char to_eof[] = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it";
	struct httpmsg *m = malloc(sizeof *m);
	char err[200], *big;

	for (size_t step = 0; step < 2; step++) {
		is_int(feed(m, 0, get, sizeof get - 1, step), (long long)sizeof get - 1,
		       "a GET (step %zu): all bytes used", step);
		ok(m->done && m->head_done && !m->upgrade && m->keep_alive, "done, keep-alive");
		is_str(m->method, "GET", "method");
		is_str(m->target, "/json/version?x=1", "target");
		is_str(httpmsg_header(m, "host"), "127.0.0.1:9222", "Host, asked in another case");
		is_str(httpmsg_header(m, "User-Agent"), "t", "the last header");
		is_str(httpmsg_header(m, "x-empty"), "", "an empty header");
		ok(!httpmsg_header(m, "cookie"), "no Cookie");
	}
	for (size_t step = 0; step < 3; step++) {
		is_int(feed(m, 0, chunked, sizeof chunked - 1, step), (long long)sizeof chunked - 1,
		       "chunked (step %zu): all bytes used", step);
		ok(m->done && body_len == 11 && !memcmp(body, "hello world", 11), "done, the body decoded");
	}
	is_int(feed(m, 0, two, sizeof two - 1, 0), 19, "two requests: the first ends at byte 19");
	is_str(m->target, "/a", "the first one's target");
	is_int(feed(m, 0, upgrade, sizeof upgrade - 1, 0), (long long)sizeof upgrade - 3,
	       "an upgrade: the frame bytes after the head are left");
	ok(m->done && m->upgrade, "done, upgrade");
	is_str(httpmsg_header(m, "sec-websocket-key"), "k", "the key");
	is_int(feed(m, 1, to_eof, sizeof to_eof - 1, 0), (long long)sizeof to_eof - 1,
	       "a response read to the end");
	ok(!m->done && m->status == 200 && !m->keep_alive, "not done before the close, 200");
	is_int(httpmsg_feed(m, "", 0, err, sizeof err), 0, "the close");
	ok(m->done && body_len == 9 && !memcmp(body, "all of it", 9), "done, the body");
	is_int(feed(m, 0, "\x16\x03\x01 hello", 10, 0), -1, "TLS bytes are not HTTP/1");
	big = malloc(HTTPMSG_HEAD_MAX + 100);
	memset(big, 'a', HTTPMSG_HEAD_MAX + 100);
	memcpy(big, "GET /", 5);
	is_int(feed(m, 0, big, HTTPMSG_HEAD_MAX + 100, 0), -1, "a head too large");
	ok(m->too_large, "said too large");
	free(big);
	free(m);
	return tap_done();
}
