/* httpmsg: one HTTP/1 message read with Debian's http_parser, which handles
 * the grammar, Content-Length, chunks and upgrades; this file keeps the head's
 * pieces, which the parser hands over in as many parts as the reads had. */
#include "httpmsg.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

enum last { NONE, URL, FIELD, VALUE };

#define NO_VALUE UINT16_MAX

static struct httpmsg *msg_of(http_parser *p)
{
	return p->data;
}

/* Appends p[0..n) to the kept text; -1 when it does not fit. */
static int put(struct httpmsg *m, const char *p, size_t n)
{
	if (m->text_len + n >= sizeof m->text) {
		m->too_large = 1;
		return -1;
	}
	memcpy(m->text + m->text_len, p, n);
	m->text_len += n;
	return 0;
}

/* Starts a new piece of text of kind k, ending the previous one, unless the
 * parser is handing over the rest of the piece of that kind under way. */
static int piece(struct httpmsg *m, enum last k, const char *p, size_t n)
{
	if ((int)k != m->last) {
		if (m->last != NONE && put(m, "", 1) < 0)
			return -1;
		if (k == FIELD) {
			if (m->nheaders == HTTPMSG_HEADERS_MAX) {
				m->too_large = 1;
				return -1;
			}
			m->name[m->nheaders] = (uint16_t)m->text_len;
			m->value[m->nheaders++] = NO_VALUE;
		} else if (k == VALUE) {
			m->value[m->nheaders - 1] = (uint16_t)m->text_len;
		}
		m->last = (int)k;
	}
	return put(m, p, n);
}

static int on_url(http_parser *p, const char *at, size_t n)
{
	return piece(msg_of(p), URL, at, n);
}

static int on_field(http_parser *p, const char *at, size_t n)
{
	return piece(msg_of(p), FIELD, at, n);
}

static int on_value(http_parser *p, const char *at, size_t n)
{
	return piece(msg_of(p), VALUE, at, n);
}

static int on_headers_complete(http_parser *p)
{
	struct httpmsg *m = msg_of(p);

	if (m->last != NONE && put(m, "", 1) < 0)
		return -1;
	m->target = m->text;   /* a request's URL is the first piece */
	if (p->type == HTTP_REQUEST)
		snprintf(m->method, sizeof m->method, "%s", http_method_str(p->method));
	else
		m->status = (int)p->status_code;
	m->upgrade = p->upgrade;
	m->keep_alive = http_should_keep_alive(p);
	m->head_done = 1;
	if (m->on_head)
		m->on_head(m);
	return 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
	struct httpmsg *m = msg_of(p);

	if (m->on_body)
		m->on_body(m, at, n);
	return 0;
}

/* The parser would go on to the next message: stop it here. */
static int on_message_complete(http_parser *p)
{
	msg_of(p)->done = 1;
	http_parser_pause(p, 1);
	return 0;
}

static const http_parser_settings settings = {
	.on_url = on_url,
	.on_header_field = on_field,
	.on_header_value = on_value,
	.on_headers_complete = on_headers_complete,
	.on_body = on_body,
	.on_message_complete = on_message_complete,
};

void httpmsg_init(struct httpmsg *m, int response)
{
	memset(m, 0, offsetof(struct httpmsg, text));
	m->text_len = 0;
	m->nheaders = 0;
	m->last = NONE;
	m->target = "";
	http_parser_init(&m->parser, response ? HTTP_RESPONSE : HTTP_REQUEST);
	m->parser.data = m;
}

long httpmsg_feed(struct httpmsg *m, const char *p, size_t n, char *err, size_t errlen)
{
	size_t used;
	enum http_errno e;

	if (m->done)
		return 0;
	used = http_parser_execute(&m->parser, &settings, p, n);
	e = HTTP_PARSER_ERRNO(&m->parser);
	if (e == HPE_OK || (e == HPE_PAUSED && m->done))
		return (long)used;
	if (m->too_large)
		snprintf(err, errlen, "the head is over %d bytes or %d headers", HTTPMSG_HEAD_MAX,
			 HTTPMSG_HEADERS_MAX);
	else
		snprintf(err, errlen, "not HTTP/1: %s", http_errno_description(e));
	return -1;
}

const char *httpmsg_header(const struct httpmsg *m, const char *name)
{
	for (int i = 0; i < m->nheaders; i++)
		if (!strcasecmp(m->text + m->name[i], name))
			return m->value[i] == NO_VALUE ? "" : m->text + m->value[i];
	return NULL;
}
