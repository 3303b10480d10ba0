/* ws: cdp-echo's WebSocket side: frames in, commands answered at once, and
 * event floods made as fast as the socket drains. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "echo.h"
#include "scan.h"
#include "util.h"

#define REF_MIN (64u * 1024)      /* pads this long are referenced, not copied */
#define FLOOD_FILL (256u * 1024)  /* flood events made per round */

struct cmd {
	int64_t id;
	const char *method, *session, *pad;
	size_t method_len, session_len, pad_len;
	int echo, flood, bad_pad;
	uint64_t size, count;
};

/* Appends a text frame: prefix, the pattern at phase, the suffix, total bytes. */
static void put_padded(struct echo_conn *c, const char *prefix, size_t plen, uint64_t total,
		       unsigned phase)
{
	uint64_t pad = total - plen - WIRE_SUFFIX_LEN;
	const char *pat = pattern_get(pad) + phase;
	unsigned char hdr[WSFRAME_HEADER_MAX];
	size_t hl = wsframe_header(hdr, WSFRAME_TEXT, 1, total, NULL);

	if (pad < REF_MIN) {
		struct evbuffer_iovec v;
		char *o;
		evbuffer_reserve_space(c->conn.out, (ev_ssize_t)(hl + total), &v, 1);
		o = v.iov_base;
		memcpy(o, hdr, hl);
		memcpy(o + hl, prefix, plen);
		memcpy(o + hl + plen, pat, pad);
		memcpy(o + hl + plen + pad, WIRE_SUFFIX, WIRE_SUFFIX_LEN);
		v.iov_len = hl + total;
		evbuffer_commit_space(c->conn.out, &v, 1);
	} else {  /* a large result costs no copy: the socket reads the pattern */
		evbuffer_add(c->conn.out, hdr, hl);
		evbuffer_add(c->conn.out, prefix, plen);
		evbuffer_add_reference(c->conn.out, pat, pad, NULL, NULL);
		evbuffer_add(c->conn.out, WIRE_SUFFIX, WIRE_SUFFIX_LEN);
	}
}

static void put_control(struct echo_conn *c, int opcode, const void *payload, size_t n)
{
	unsigned char hdr[WSFRAME_HEADER_MAX];

	evbuffer_add(c->conn.out, hdr, wsframe_header(hdr, opcode, 1, n, NULL));
	evbuffer_add(c->conn.out, payload, n);
}

static void fail(struct echo_conn *c, uint16_t code, const char *why)
{
	unsigned char p[125] = { (unsigned char)(code >> 8), (unsigned char)code };
	size_t n = strlen(why) < 120 ? strlen(why) : 120;

	memcpy(p + 2, why, n);
	put_control(c, WSFRAME_CLOSE, p, n + 2);
	c->closing = 1;
}

static int lit(const char **p, const char *end, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(end - *p) < n || memcmp(*p, s, n))
		return 0;
	*p += n;
	return 1;
}

static int num(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	while (*p < end && **p >= '0' && **p <= '9' && *p - s < 19)
		*v = *v * 10 + (uint64_t)(*(*p)++ - '0');
	return *p > s;
}

/* Until the next quote; the strings cdp-load writes have no escapes. */
static int str(const char **p, const char *end, const char **s, size_t *n)
{
	const char *q = memchr(*p, '"', (size_t)(end - *p));

	if (!q || memchr(*p, '\\', (size_t)(q - *p)))
		return 0;
	*s = *p;
	*n = (size_t)(q - *p);
	*p = q + 1;
	return 1;
}

/* An Echo.* command in the layout of wire.h, parsed in one pass; 0 if the
 * message is anything else. */
static int parse_fast(const char *m, size_t len, struct cmd *k)
{
	const char *p = m, *end = m + len;
	uint64_t id;

	if (!lit(&p, end, "{\"id\":") || !num(&p, end, &id) || !lit(&p, end, ",\"method\":\"") ||
	    !str(&p, end, &k->method, &k->method_len))
		return 0;
	k->id = (int64_t)id;
	if (lit(&p, end, ",\"sessionId\":\"") && !str(&p, end, &k->session, &k->session_len))
		return 0;
	if (!lit(&p, end, ",\"params\":{"))
		return 0;
	if (k->method_len == 9 && !memcmp(k->method, "Echo.echo", 9)) {
		if (!lit(&p, end, "\"size\":") || !num(&p, end, &k->size) || !lit(&p, end, ",\"pad\":\"") ||
		    end - p < WIRE_SUFFIX_LEN || memcmp(end - WIRE_SUFFIX_LEN, WIRE_SUFFIX, WIRE_SUFFIX_LEN))
			return 0;
		k->echo = 1;
		k->pad = p;
		k->pad_len = (size_t)(end - p) - WIRE_SUFFIX_LEN;
		k->bad_pad = memcmp(k->pad, pattern_get(k->pad_len) + wire_phase(id), k->pad_len) != 0;
	} else if (k->method_len == 10 && !memcmp(k->method, "Echo.flood", 10)) {
		if (!lit(&p, end, "\"count\":") || !num(&p, end, &k->count) ||
		    !lit(&p, end, ",\"size\":") || !num(&p, end, &k->size) || !lit(&p, end, "}}") || p != end)
			return 0;
		k->flood = 1;
	} else {
		return 0;  /* its params may hide a sessionId: let parse_any look */
	}
	return 1;
}

/* Any other JSON: the proxy's scanner finds id and sessionId, jansson reads
 * the params of an Echo.* command. Returns 0 if it is not a command. */
static int parse_any(const char *m, size_t len, struct cmd *k)
{
	struct scan_result r;
	json_t *params;

	if (scan_message(m, len, &r) < 0 || r.kind != SCAN_COMMAND || !r.id_is_int)
		return 0;
	k->id = r.id;
	if (r.session.present) {
		k->session = m + r.session.off;
		k->session_len = r.session.len;
	}
	k->method = m + r.method.off;
	k->method_len = r.method.len;
	if (!r.params.present || !(params = json_loadb(m + r.params.off, r.params.len, 0, NULL)))
		return 1;
	k->echo = scan_str_eq(m, &r.method, "Echo.echo");
	k->flood = scan_str_eq(m, &r.method, "Echo.flood");
	k->size = (uint64_t)json_integer_value(json_object_get(params, "size"));
	k->count = (uint64_t)json_integer_value(json_object_get(params, "count"));
	json_decref(params);
	return 1;
}

/* Answers command k with error -32602 and why, on its session. */
static void reply_error(struct echo_conn *c, const struct cmd *k, const char *why)
{
	char err[WIRE_SESSION_MAX + 300];
	int n = snprintf(err, sizeof err, "{\"id\":%" PRId64 ",\"error\":{\"code\":-32602,"
			 "\"message\":\"cdp-echo: %s\"}%s%.*s%s}", k->id, why,
			 k->session_len ? ",\"sessionId\":\"" : "", (int)k->session_len,
			 k->session ? k->session : "", k->session_len ? "\"" : "");

	c->srv->bad++;
	put_control(c, WSFRAME_TEXT, err, (size_t)n);
}

static void handle_message(struct echo_conn *c, const char *m, size_t len)
{
	struct cmd k;
	char prefix[WIRE_PREFIX_MAX];
	size_t plen;

	memset(&k, 0, sizeof k);
	if (!parse_fast(m, len, &k)) {
		memset(&k, 0, sizeof k);
		if (!parse_any(m, len, &k)) {
			c->srv->bad++;
			return;
		}
	}
	if (k.session_len > WIRE_SESSION_MAX)
		k.session_len = WIRE_SESSION_MAX;
	c->srv->commands++;
	if (k.bad_pad) {
		reply_error(c, &k, "pad is not the pattern");
		return;
	}
	_Static_assert(WIRE_SIZE_MAX == 1073741312, "the limit in the text below");
	if ((k.echo || k.flood) && k.size > WIRE_SIZE_MAX) {
		reply_error(c, &k, "size must be at most 1073741312 bytes (1 GiB less 512)");
		return;
	}
	if (k.flood) {
		c->flooding = 1;
		c->flood_id = k.id;
		c->flood_seq = 0;
		c->flood_count = k.count;
		c->flood_size = k.size;
		if (k.session_len)
			memcpy(c->flood_session, k.session, k.session_len);
		c->flood_session_len = k.session_len;
		return;
	}
	plen = wire_response_prefix(prefix, k.id, k.session, k.session_len);
	put_padded(c, prefix, plen, wire_total(plen, k.echo ? k.size : c->srv->result_size),
		   wire_phase((uint64_t)k.id));
}

void echo_ws_flood(struct echo_conn *c)
{
	char prefix[WIRE_PREFIX_MAX];
	size_t plen;

	while (c->flood_seq < c->flood_count && evbuffer_get_length(c->conn.out) < FLOOD_FILL) {
		plen = wire_event_prefix(prefix, c->flood_session, c->flood_session_len, c->flood_id,
					 c->flood_seq);
		put_padded(c, prefix, plen, wire_total(plen, c->flood_size),
			   wire_phase((uint64_t)c->flood_id + c->flood_seq));
		c->flood_seq++;
		c->srv->events++;
	}
	if (c->flood_seq < c->flood_count)
		return;
	/* The answer comes after the last event: the client knows the flood is over. */
	plen = wire_response_prefix(prefix, c->flood_id, c->flood_session, c->flood_session_len);
	put_padded(c, prefix, plen, wire_total(plen, 0), wire_phase((uint64_t)c->flood_id));
	c->flooding = 0;
}

static void append_msg(struct echo_conn *c, const unsigned char *p, size_t n)
{
	if (c->msg_len + n > c->msg_cap) {
		c->msg_cap = c->msg_cap ? c->msg_cap : 64 * 1024;
		while (c->msg_len + n > c->msg_cap)
			c->msg_cap *= 2;
		c->msg = xrealloc(c->msg, c->msg_cap);
	}
	memcpy(c->msg + c->msg_len, p, n);
	c->msg_len += n;
}

/* One complete, unmasked frame. */
static void handle_frame(struct echo_conn *c, const struct wsframe *f, unsigned char *p)
{
	switch (f->opcode) {
	case WSFRAME_PING:
		put_control(c, WSFRAME_PONG, p, f->len);
		return;
	case WSFRAME_PONG:
		return;
	case WSFRAME_CLOSE:  /* answer with the same code */
		put_control(c, WSFRAME_CLOSE, p, f->len >= 2 ? 2 : 0);
		c->closing = 1;
		return;
	case WSFRAME_CONT:
		if (!c->in_msg) {
			fail(c, 1002, "continuation without a message");
			return;
		}
		if (c->msg_len + f->len > c->srv->max_message) {
			fail(c, 1009, "message too large");
			return;
		}
		append_msg(c, p, f->len);
		if (!f->fin)
			return;
		c->in_msg = 0;
		if (c->msg_opcode == WSFRAME_TEXT)
			handle_message(c, (const char *)c->msg, c->msg_len);
		return;
	default:
		if (c->in_msg) {
			fail(c, 1002, "new message inside a fragmented one");
		} else if (!f->fin) {  /* the first fragment */
			c->in_msg = 1;
			c->msg_opcode = f->opcode;
			c->msg_len = 0;
			append_msg(c, p, f->len);
		} else if (f->opcode == WSFRAME_TEXT) {
			handle_message(c, (const char *)p, f->len);  /* in place: no copy */
		}
	}
}

int echo_ws_process(struct echo_conn *c)
{
	while (!c->flooding && !c->closing && evbuffer_get_length(c->conn.out) < ECHO_OUT_HIGH) {
		unsigned char *p = c->in + c->in_off;
		size_t avail = c->in_len - c->in_off;
		struct wsframe f;
		int hl = wsframe_parse_header(p, avail, &f);

		if (hl == 0)
			break;
		if (hl < 0 || !f.masked) {
			fail(c, 1002, hl < 0 ? "bad frame header" : "client frames must be masked");
			break;
		}
		if (f.len > c->srv->max_message) {
			fail(c, 1009, "message too large");
			break;
		}
		if (avail < (size_t)hl + f.len) {  /* make room for the whole frame */
			echo_input_reserve(c, (size_t)hl + f.len - avail);
			break;
		}
		wsframe_mask(p + hl, p + hl, f.len, f.mask, 0);
		c->in_off += (size_t)hl + f.len;
		handle_frame(c, &f, p + hl);
	}
	return 0;
}
