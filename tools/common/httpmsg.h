/* httpmsg: one HTTP/1 request or response read with Debian's http_parser:
 * the head into a struct, the body (chunks decoded) handed on as it comes. */
#ifndef TOOLS_HTTPMSG_H
#define TOOLS_HTTPMSG_H

#include <stddef.h>
#include <stdint.h>

#include <http_parser.h>

#define HTTPMSG_HEAD_MAX 16384    /* the target, header names and values kept */
#define HTTPMSG_HEADERS_MAX 64

struct httpmsg {
	/* The head, once head_done. */
	char method[16];              /* requests */
	const char *target;           /* requests: path and query, as sent */
	int status;                   /* responses */
	int head_done;
	int upgrade;                  /* the bytes after the head are another protocol's */
	int keep_alive;               /* the connection may carry another message */
	int too_large;                /* the head did not fit in HTTPMSG_HEAD_MAX */
	int done;                     /* the whole message is in */
	/* Optional, set after httpmsg_init: the head is in; a piece of body. */
	void (*on_head)(struct httpmsg *m);
	void (*on_body)(struct httpmsg *m, const char *p, size_t n);
	void *user;
	/* The parser's, and what it read: strings, each NUL-terminated. */
	http_parser parser;
	char text[HTTPMSG_HEAD_MAX];
	size_t text_len;
	int nheaders, last;
	uint16_t name[HTTPMSG_HEADERS_MAX], value[HTTPMSG_HEADERS_MAX];
};

/* Readies m for a request (response 0) or a response (1); callbacks cleared. */
void httpmsg_init(struct httpmsg *m, int response);

/* Reads bytes of the message from p[0..n); n 0 means the peer closed (which
 * ends a body read to the end). Stops at the end of the message (m->done):
 * returns the bytes used, fewer than n when more follows (the next message,
 * or the other protocol's bytes after an upgrade). -1, with the reason in
 * err, when it is not HTTP/1 or the head is too large (m->too_large). */
long httpmsg_feed(struct httpmsg *m, const char *p, size_t n, char *err, size_t errlen);

/* The value of header name (any case), or NULL when there is none. */
const char *httpmsg_header(const struct httpmsg *m, const char *name);

#endif
