/* wsleg: one WebSocket endpoint on an lws raw socket, framed by the proxy
 * itself: frames read, unmasked and reassembled into whole messages,
 * reported up (wsleg_ops); control frames answered; the core's queue for
 * the peer written as frames; close frames. Why not lws's framing: lws
 * 4.1.6 runs every payload byte through its parser's state machine and
 * logs a debug line for every frame (the README's cost section has the
 * figures). The client's endpoint is a server's (its frames come masked),
 * Chrome's a client's (masked going out). */
#include "wsleg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define BATCH_BYTES (256 * 1024)   /* frames of small messages written at once */
#define BATCH_SMALL (16 * 1024)    /* messages up to this are copied into the batch */
#define UNSENT_KEEP (64 * 1024)    /* an unsent buffer larger than this is freed once empty */
#define CLOSE_ACK_SECS 5           /* how long a client has to answer the proxy's close frame */
#define LAST_WRITE_SECS 5          /* how long a socket that takes nothing has to take a close frame's rest */

/* What a new message's buffer takes on trust from its frame's claimed
 * length, beyond the bytes already read: a peer that claims 256 MiB and
 * sends nothing more costs this, not the claim. */
#define RX_TRUST (1024 * 1024)

/* Every endpoint's batch: one event loop a process, and a batch is written
 * (or its rest kept in unsent) before the next endpoint's is made. */
static unsigned char batch[BATCH_BYTES];

void wsleg_init(struct wsleg *l, int side, int client, uint64_t max_message,
		const struct wsleg_ops *ops, void *ctx)
{
	memset(l, 0, sizeof *l);
	l->side = side;
	l->client = client;
	l->max_message = max_message;
	l->ops = ops;
	l->ctx = ctx;
}

void wsleg_free(struct wsleg *l)
{
	if (l->rx && l->rx_cut != 1)   /* a cut-through one is its queue's */
		msg_free(l->rx);
	l->rx = NULL;
	lws_sul_cancel(&l->hold);
	free(l->unsent.buf);
	memset(&l->unsent, 0, sizeof l->unsent);
}

/* Writes go to the socket directly, not through lws_write: lws 4.1.6 keeps
 * what a raw socket does not take in a buffer of its own (a copy of up to a
 * megabyte a write, the bulk of a large message's cost), and does not
 * read that socket until the buffer is written. A peer that stops reading
 * while its own writes are blocked (cdp-echo does) then never reads again:
 * both sides wait on each other. Here a side whose socket is full is still
 * read, up to --queue-bytes of what it sends. */
static long sock_send(struct wsleg *l, const void *p, size_t len)
{
	long n = util_send_some(lws_get_socket_fd(l->wsi), p, len);

	if (n >= 0 && (size_t)n < len)
		l->full = 1;
	return n;
}

/* Writes len bytes after what is still unsent, keeping what the socket
 * does not take now. Returns -1 if the socket failed. */
static int write_bytes(struct wsleg *l, const void *p, size_t len)
{
	struct wsleg_unsent *u = &l->unsent;
	long n = wsleg_pending(l) ? 0 : sock_send(l, p, len);

	if (n < 0)
		return -1;
	if ((size_t)n == len)
		return 0;
	if (u->off == u->len)
		u->off = u->len = 0;
	if (u->len + len - (size_t)n > u->cap) {
		u->cap = u->len + len - (size_t)n;
		u->buf = xrealloc(u->buf, u->cap);
	}
	memcpy(u->buf + u->len, (const unsigned char *)p + n, len - (size_t)n);
	u->len += len - (size_t)n;
	lws_callback_on_writable(l->wsi);
	return 0;
}

/* Writes what the socket takes of the unsent bytes. Returns -1 if it failed. */
static int unsent_flush(struct wsleg *l)
{
	struct wsleg_unsent *u = &l->unsent;
	long n;

	if (u->off == u->len)
		return 0;
	if ((n = sock_send(l, u->buf + u->off, u->len - u->off)) < 0)
		return -1;
	u->off += (size_t)n;
	if (u->off == u->len && u->cap > UNSENT_KEEP) {
		free(u->buf);
		memset(u, 0, sizeof *u);
	}
	return 0;
}

/* The socket is to be closed once what it has not taken yet is written (a
 * close frame's rest): -1 to close it now, or 0 when that waits. */
static int close_when_written(struct wsleg *l)
{
	if (!wsleg_pending(l))
		return -1;
	l->last_write = 1;
	lws_set_timeout(l->wsi, PENDING_TIMEOUT_CLOSE_ACK, LAST_WRITE_SECS);
	lws_callback_on_writable(l->wsi);
	return 0;
}

/* A frame header for m, of len bytes (a cut-through one's: all it will
 * have), masked (mask filled) from the client's end. */
static inline size_t frame_header(const struct wsleg *l, unsigned char *out, const struct msg *m,
				  size_t len, unsigned char mask[4])
{
	int opcode = m->type == MSG_TEXT ? WSFRAME_TEXT : m->type == MSG_BINARY ? WSFRAME_BINARY :
		     WSFRAME_PONG;   /* MSG_LEG: this leg queues only pongs */

	if (l->client)
		wsframe_new_mask(mask);
	return wsframe_header(out, opcode, 1, len, l->client ? mask : NULL);
}

/* A delayed message's time has come: write again. */
static void hold_over(lws_sorted_usec_list_t *sul)
{
	struct wsleg *l = lws_container_of(sul, struct wsleg, hold);

	if (l->wsi)
		lws_callback_on_writable(l->wsi);
}

int wsleg_write(struct wsleg *l, struct queue *q)
{
	unsigned char mask[4];
	size_t used = 0;
	int held = 0, starved = 0;

	l->full = 0;
	if (unsent_flush(l) < 0)
		return -1;
	if (l->last_write)
		return close_when_written(l);
	while (q->head && !l->full) {
		struct msg *m = q->head;
		uint64_t now;

		/* A delayed message holds back everything queued after it. */
		if (m->not_before_us && (now = util_mono_us()) < m->not_before_us) {
			lws_sul_schedule(lws_get_context(l->wsi), 0, &l->hold, hold_over,
					 (lws_usec_t)(m->not_before_us - now));
			held = 1;
			break;
		}
		/* Small messages are framed into one buffer: one write for many. */
		if (m != l->out && msg_whole(m) && m->len + WSFRAME_HEADER_MAX <= BATCH_BYTES - used &&
		    m->len <= BATCH_SMALL) {
			size_t h = frame_header(l, batch + used, m, m->len, mask);
			if (l->client)
				wsframe_mask(batch + used + h, MSG_DATA(m), m->len, mask, 0);
			else
				memcpy(batch + used + h, MSG_DATA(m), m->len);
			used += h + m->len;
			queue_free_head(q);
			continue;
		}
		if (used) {
			if (write_bytes(l, batch, used) < 0)
				return -1;
			used = 0;
			continue;
		}
		/* A cut-through message whose sender went: its frame cannot be
		 * finished. Dropped if none of it went; else the socket closes. */
		if (!msg_whole(m) && m->cut) {
			if (l->out == m && l->out_sent)
				return -1;
			l->out = NULL;
			queue_free_head(q);
			continue;
		}
		/* A cut-through one toward Chrome is masked into the batch, a
		 * batch at a time: its own bytes stay as they came, for the
		 * core to scan once it is whole. out_sent counts its bytes gone
		 * to the batch; what the socket does not take waits in unsent. */
		if (l->client && m->want) {
			if (m != l->out) {
				l->out = m;
				l->out_sent = 0;
				used = frame_header(l, batch, m, m->want, l->out_mask);
			}
			if (l->out_sent == m->len && !msg_whole(m)) {   /* all that came */
				starved = 1;
				break;
			}
			{
				size_t take = m->len - l->out_sent;
				if (take > BATCH_BYTES - used)
					take = BATCH_BYTES - used;
				wsframe_mask(batch + used, MSG_DATA(m) + l->out_sent, take, l->out_mask,
					     l->out_sent);
				used += take;
				l->out_sent += take;
				if (write_bytes(l, batch, used) < 0)
					return -1;
				used = 0;
				if (l->out_sent == m->len && msg_whole(m)) {
					l->out = NULL;
					queue_free_head(q);
				}
			}
			continue;
		}
		/* A large one is written from its own buffer, its header in the
		 * headroom, as much as the socket takes; the rest waits there
		 * (a cut-through one's, for its bytes to come: grew asks again).
		 * It is framed (and masked, from the client's end) once: a full
		 * socket may take none of it, and masking twice would garble it. */
		if (m != l->out) {
			unsigned char h[WSFRAME_HEADER_MAX];
			l->out = m;
			l->out_sent = 0;
			l->out_hdr = frame_header(l, h, m, m->want ? m->want : m->len, mask);
			memcpy(MSG_DATA(m) - l->out_hdr, h, l->out_hdr);
			if (l->client)
				wsframe_mask(MSG_DATA(m), MSG_DATA(m), m->len, mask, 0);
		}
		{
			size_t total = l->out_hdr + m->len;
			long n;
			if (l->out_sent == total) {   /* all that came of a cut-through one */
				starved = 1;
				break;
			}
			if ((n = sock_send(l, MSG_DATA(m) - l->out_hdr + l->out_sent, total - l->out_sent)) < 0)
				return -1;
			l->out_sent += (size_t)n;
			if (l->out_sent == total && msg_whole(m)) {
				l->out = NULL;
				queue_free_head(q);
			}
		}
	}
	if (used && write_bytes(l, batch, used) < 0)
		return -1;
	if (q->head || wsleg_pending(l)) {
		if ((!held && !starved) || l->full)   /* else the hold's timer, or grew, asks */
			lws_callback_on_writable(l->wsi);
		return 0;
	}
	return 1;
}

void wsleg_close_with(struct wsleg *l, uint16_t code, const char *reason)
{
	if (l->close_code)
		return;
	l->close_code = code;
	snprintf(l->close_reason, sizeof l->close_reason, "%s", reason);
}

/* Writes a close frame (after what the socket has not taken yet); -1 if
 * it cannot go out, as when a large message's frame is partly written (a
 * close frame inside it would be read as its payload): the socket is then
 * closed without one. */
static int send_close(struct wsleg *l, const unsigned char *payload, size_t len)
{
	unsigned char frame[WSFRAME_HEADER_MAX + 125], mask[4];
	size_t h;

	if (l->out && l->out_sent)
		return -1;
	if (l->client)
		wsframe_new_mask(mask);
	h = wsframe_header(frame, WSFRAME_CLOSE, 1, len, l->client ? mask : NULL);
	memcpy(frame + h, payload, len);
	if (l->client)
		wsframe_mask(frame + h, frame + h, len, mask, 0);
	l->close_sent = 1;
	l->close_sent_us = util_mono_us();
	return write_bytes(l, frame, h + len);
}

int wsleg_close(struct wsleg *l)
{
	unsigned char payload[125];
	size_t rlen = strlen(l->close_reason);

	if (l->close_sent)
		return l->client ? close_when_written(l) : 0;
	if (rlen > 123)
		rlen = 123;
	payload[0] = (unsigned char)(l->close_code >> 8);
	payload[1] = (unsigned char)l->close_code;
	memcpy(payload + 2, l->close_reason, rlen);
	if (send_close(l, payload, 2 + rlen) < 0)
		return -1;
	if (l->client)   /* Chrome needs no answer: it closes its end next */
		return close_when_written(l);
	/* A client's socket is closed once it answers (or the time is up), so
	 * that what it still sends meanwhile does not reset the connection
	 * before it has read the close frame; its answer is read even if
	 * reading it was paused (wsleg_rx_flow). */
	lws_set_timeout(l->wsi, PENDING_TIMEOUT_CLOSE_ACK, CLOSE_ACK_SECS);
	lws_rx_flow_control(l->wsi, 1);
	return 0;
}

/* A frame that breaks the protocol: reported (the connection closes the
 * client's end), then the socket is closed at once (-1), or once the rest
 * of the proxy's close frame is written (-2: see read_end). */
static int protocol_error(struct wsleg *l, const char *why)
{
	l->ops->broken(l->ctx, l->side, why);
	if (l->client)
		return -1;
	if (wsleg_close(l) == 0 && close_when_written(l) == 0)
		return -2;   /* the close frame's rest goes first; nothing more is read */
	return -1;
}

/* Is the frame just read allowed here? NULL, or why not. */
static const char *frame_refused(const struct wsleg *l)
{
	const struct wsframe *f = &l->frame;

	if (f->masked == l->client)
		return l->client ? "upstream sent a masked WebSocket frame" :
				   "client sent an unmasked WebSocket frame";
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

/* A whole control frame. Returns -1 to close the socket, -2 to close it
 * once the close frame answering it is written (read_end). */
static int on_control(struct wsleg *l)
{
	if (l->frame.opcode == WSFRAME_CLOSE) {
		if (l->close_sent)   /* the answer to ours */
			return -1;
		if (!l->client && !close_payload_ok(l->control, l->control_len)) {
			char why[80] = "client sent a close frame of 1 byte";
			if (l->control_len > 1)
				snprintf(why, sizeof why, "client sent close code %u, which is not to be sent",
					 (unsigned)l->control[0] << 8 | l->control[1]);
			return protocol_error(l, why);
		}
		l->ops->closed(l->ctx, l->side, l->control, l->control_len);
		/* A client is answered in kind (the socket closed once the
		 * answer is written); Chrome closes its end next. */
		if (!l->client && send_close(l, l->control, l->control_len) == 0)
			return close_when_written(l) == 0 ? -2 : -1;
		return -1;
	}
	if (l->frame.opcode == WSFRAME_PING && !l->close_sent) {
		struct msg *m = msg_new(l->control_len);
		memcpy(MSG_DATA(m), l->control, l->control_len);
		m->len = l->control_len;
		m->type = MSG_LEG;
		l->ops->pong(l->ctx, l->side, m);
	}
	return 0;   /* a pong: nothing to do */
}

/* on_control and protocol_error: -2 is "read no more, close once the close
 * frame is written", which is not a close for lws now. */
static int read_end(int rc)
{
	return rc == -2 ? 0 : rc;
}

/* Part of a data message: len bytes, with frame_rest more to come in this
 * frame; final: the message ends with them. opcode: of its first frame. */
static void rx_data(struct wsleg *l, int opcode, const void *in, size_t len,
		    uint64_t frame_rest, int final)
{
	struct msg *m = l->rx;
	uint64_t max = l->max_message;
	/* Chrome sends each message as one frame, so its size is known at once. */
	uint64_t need = (m ? m->len : 0) + len + frame_rest;
	size_t old_cost;

	if (l->dropping) {   /* released (wsleg_rx_release): its rest goes nowhere */
		l->dropping = !final;
		return;
	}
	if (need > max && !l->discarding) {
		l->ops->too_large(l->ctx, l->side, need, 0);
		if (m)
			msg_free(m);
		l->rx = NULL;
		l->discarding = 1;
	}
	/* The rest of a message over max_message is read and thrown away, and
	 * the connection closed once it is all in: closing while the peer still
	 * writes would reset its socket, and it would see 1006, not 1009. */
	if (l->discarding) {
		if (!final)
			return;
		l->discarding = 0;
		l->ops->too_large(l->ctx, l->side, need, 1);
		return;
	}
	if (!m) {
		m = l->rx = msg_new(need < len + RX_TRUST ? (size_t)need : len + RX_TRUST);
		m->type = opcode == WSFRAME_BINARY ? MSG_BINARY : MSG_TEXT;
		if (final) {   /* whole in one piece, as most are */
			memcpy(MSG_DATA(m), in, len);
			m->len = len;
			l->rx = NULL;
			l->ops->deliver(l->ctx, l->side, m);
			return;
		}
		l->rx_cut = 0;
	}
	old_cost = l->rx_cut == 1 ? msg_cost(m) : 0;
	if (m->len + len > m->cap) {   /* more than it was given room for */
		uint64_t cap = m->cap * 2 > m->len + len ? m->cap * 2 : m->len + len;
		/* The frame's claim, once this much of it has come, is taken whole. */
		if (need <= cap || need <= (m->len + len) * 2)
			cap = need > cap ? need : cap;
		msg_grow(m, cap < max ? (size_t)cap : (size_t)max);
	}
	memcpy(MSG_DATA(m) + m->len, in, len);
	m->len += len;
	if (l->rx_cut == 1) {
		l->ops->grew(l->ctx, l->side, m, old_cost);
	} else if (!l->rx_cut && !final) {
		/* A message of one frame (its length known) still coming in:
		 * may it go on before it is whole? Asked until it says. */
		int rc = l->frame.fin && l->frame.opcode == opcode && l->ops->begin ?
			 l->ops->begin(l->ctx, l->side, m, need) : 0;
		if (rc >= 0)
			l->rx_cut = rc ? 1 : 2;
	}
	if (!final)
		return;
	l->rx = NULL;
	l->rx_cut = 0;
	l->ops->deliver(l->ctx, l->side, m);
}

struct msg *wsleg_rx_release(struct wsleg *l)
{
	struct msg *m = l->rx;

	if (l->rx_cut != 1)
		return NULL;
	l->rx = NULL;
	l->rx_cut = 0;
	l->dropping = 1;   /* it is not whole: its rest is still to come */
	return m;
}

int wsleg_read(struct wsleg *l, unsigned char *p, size_t n)
{
	if (l->last_write)   /* closing: what comes now is not read */
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
			why = h < 0 ? "bad WebSocket frame header" : frame_refused(l);
			if (why) {
				char reason[120];
				snprintf(reason, sizeof reason, "%s%s", l->client && h < 0 ?
					 "upstream sent a " : "", why);
				return read_end(protocol_error(l, reason));
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
		} else if (!l->close_sent) {   /* after our close, data is dropped */
			rx_data(l, l->frame.opcode, p, take, l->left, !l->left && l->frame.fin);
		}
		p += take;
		n -= take;
		if (l->left)
			return 0;   /* n is 0: the rest of the frame comes later */
		l->in_frame = 0;
		if (l->frame.opcode >= WSFRAME_CLOSE && (rc = on_control(l)) < 0)
			return read_end(rc);
	}
}
