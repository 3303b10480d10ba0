/* wsleg: the proxy's own WebSocket framing on both legs: frames read from
 * a side, unmasked and handed on in bulk (conn_rx_data), control frames
 * answered, close frames written. Why not lws's: lws 4.1.6 runs every
 * payload byte through its parser's state machine and logs a debug line for
 * every frame (the README's cost section has the figures). The client leg
 * is a server's (its frames come masked), the upstream leg a client's
 * (masked going out). */
#include <string.h>

#include "conn.h"
#include "util.h"

/* How long a client has to answer the proxy's close frame. */
#define CLOSE_ACK_SECS 5

/* Writes a close frame to side s (after what the socket has not taken
 * yet); -1 if it cannot go out, as when a large message's frame is partly
 * written (a close frame inside it would be read as its payload): the
 * socket is then closed without one. */
static int send_close(struct conn *c, enum side s, const unsigned char *payload, size_t len)
{
	unsigned char frame[WSFRAME_HEADER_MAX + 125], mask[4];
	size_t h;

	if (c->cc.out[s].head && c->cc.out[s].head->sent)
		return -1;
	if (s == UP)
		wsframe_new_mask(mask);
	h = wsframe_header(frame, WSFRAME_CLOSE, 1, len, s == UP ? mask : NULL);
	memcpy(frame + h, payload, len);
	if (s == UP)
		wsframe_mask(frame + h, frame + h, len, mask, 0);
	c->leg[s].close_sent = 1;
	c->leg[s].close_sent_us = util_mono_us();
	return conn_write(c, s, frame, h + len);
}

int wsleg_close(struct conn *c, enum side s)
{
	unsigned char payload[125];
	size_t rlen = strlen(c->close_reason[s]);

	if (c->leg[s].close_sent)
		return s == UP ? conn_close_when_written(c, UP) : 0;
	if (rlen > 123)
		rlen = 123;
	payload[0] = (unsigned char)(c->close_code[s] >> 8);
	payload[1] = (unsigned char)c->close_code[s];
	memcpy(payload + 2, c->close_reason[s], rlen);
	if (send_close(c, s, payload, 2 + rlen) < 0)
		return -1;
	if (s == UP)   /* Chrome needs no answer: it closes its end next */
		return conn_close_when_written(c, UP);
	/* A client's socket is closed once it answers (or the time is up), so
	 * that what it still sends meanwhile does not reset the connection
	 * before it has read the close frame; its answer is read even if
	 * reading it was paused. */
	lws_set_timeout(c->wsi[s], PENDING_TIMEOUT_CLOSE_ACK, CLOSE_ACK_SECS);
	conn_rx_update(c, s);
	return 0;
}

/* A frame that breaks the protocol: the side is closed at once (-1), or
 * once the rest of the proxy's close frame is written (-2: see read_end). */
static int protocol_error(struct conn *c, enum side s, const char *why)
{
	if (s == UP) {
		conn_close_side(c, DOWN, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, why);
		return -1;
	}
	conn_close_side(c, DOWN, LWS_CLOSE_STATUS_PROTOCOL_ERR, why);
	if (wsleg_close(c, DOWN) == 0 && conn_close_when_written(c, DOWN) == 0)
		return -2;   /* the close frame's rest goes first; nothing more is read */
	return -1;
}

/* Is the frame just read allowed here? NULL, or why not. */
static const char *frame_refused(const struct wsleg *l, enum side s)
{
	const struct wsframe *f = &l->frame;

	if (f->masked != (s == DOWN))
		return s == DOWN ? "client sent an unmasked WebSocket frame" :
				   "upstream sent a masked WebSocket frame";
	if (f->opcode == WSFRAME_CONT && !l->in_message)
		return "continuation frame with no message begun";
	if ((f->opcode == WSFRAME_TEXT || f->opcode == WSFRAME_BINARY) && l->in_message)
		return "new message before the last one's final frame";
	return NULL;
}

/* Is a close frame's payload one a peer may send (RFC 6455 5.5.1, 7.4):
 * none, or a code in use (1000-1003, 1007-1014, 3000-4999) and a reason? */
static int close_payload_ok(const unsigned char *p, size_t n)
{
	unsigned code;

	if (n == 0)
		return 1;
	if (n == 1)
		return 0;
	code = (unsigned)p[0] << 8 | p[1];
	return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
	       (code >= 3000 && code <= 4999);
}

/* A whole control frame from side s. Returns -1 to close its socket, -2 to
 * close it once the close frame answering it is written (read_end). */
static int on_control(struct conn *c, enum side s)
{
	struct wsleg *l = &c->leg[s];

	if (l->frame.opcode == WSFRAME_CLOSE) {
		if (l->close_sent)   /* the answer to ours */
			return -1;
		if (s == DOWN && !close_payload_ok(l->control, l->control_len)) {
			char why[80] = "client sent a close frame of 1 byte";
			if (l->control_len > 1)
				snprintf(why, sizeof why, "client sent close code %u, which is not to be sent",
					 (unsigned)l->control[0] << 8 | l->control[1]);
			return protocol_error(c, DOWN, why);
		}
		conn_peer_close(c, s, l->control, l->control_len);
		/* A client is answered in kind (the socket closed once the
		 * answer is written); Chrome closes its end next. */
		if (s == DOWN && send_close(c, DOWN, l->control, l->control_len) == 0)
			return conn_close_when_written(c, DOWN) == 0 ? -2 : -1;
		return -1;
	}
	if (l->frame.opcode == WSFRAME_PING && !l->close_sent) {
		struct msg *m = msg_new(l->control_len);
		memcpy(MSG_DATA(m), l->control, l->control_len);
		m->len = l->control_len;
		m->type = MSG_PONG;
		/* The pinging side waits while its pongs fill its queue. */
		core_enqueue(&c->cc, s, m, s);
	}
	return 0;   /* a pong: nothing to do */
}

/* on_control and protocol_error: -2 is "read no more, close once the close
 * frame is written", which is not a close for lws now. */
static int read_end(int rc)
{
	return rc == -2 ? 0 : rc;
}

int wsleg_read(struct conn *c, enum side s, unsigned char *p, size_t n)
{
	struct wsleg *l = &c->leg[s];

	if (c->last_write[s])   /* closing: what comes now is not read */
		return 0;

	for (;;) {
		size_t take;
		int rc;
		if (!l->in_frame) {
			const char *why;
			int h;
			if (!n)
				return 0;
			/* Most headers are whole in the read: parsed where they are. */
			if (l->hdr_have || !(h = wsframe_parse_header(p, n, &l->frame))) {
				take = n < sizeof l->hdr - l->hdr_have ? n : sizeof l->hdr - l->hdr_have;
				memcpy(l->hdr + l->hdr_have, p, take);
				h = wsframe_parse_header(l->hdr, l->hdr_have + take, &l->frame);
				if (h == 0) {
					l->hdr_have += take;
					return 0;
				}
			}
			why = h < 0 ? "bad WebSocket frame header" : frame_refused(l, s);
			if (why) {
				char reason[120];
				snprintf(reason, sizeof reason, "%s%s", s == UP && h < 0 ?
					 "upstream sent a " : "", why);
				return read_end(protocol_error(c, s, reason));
			}
			take = (size_t)h - l->hdr_have;   /* of these bytes, the header's */
			p += take;
			n -= take;
			l->hdr_have = 0;
			l->in_frame = 1;
			l->left = l->frame.len;
			l->off = 0;
			l->control_len = 0;
			if (l->frame.opcode < WSFRAME_CLOSE)
				l->in_message = !l->frame.fin;
		}
		take = n < l->left ? n : (size_t)l->left;
		if (l->frame.masked)
			wsframe_mask(p, p, take, l->frame.mask, l->off);
		l->left -= take;
		l->off += take;
		if (l->frame.opcode >= WSFRAME_CLOSE) {
			memcpy(l->control + l->control_len, p, take);
			l->control_len += take;
		} else if (!l->close_sent &&   /* after our close, data is dropped */
			   conn_rx_data(c, s, l->frame.opcode, p, take, l->left,
					!l->left && l->frame.fin) < 0) {
			return -1;
		}
		p += take;
		n -= take;
		if (l->left)
			return 0;   /* n is 0: the rest of the frame comes later */
		l->in_frame = 0;
		if (l->frame.opcode >= WSFRAME_CLOSE && (rc = on_control(c, s)) < 0)
			return read_end(rc);
	}
}
