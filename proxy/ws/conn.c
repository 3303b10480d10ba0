/* conn: one client connection on the WebSocket leg: the client's endpoint
 * (DOWN) and Chrome's (UP) around the core's connection. Messages go from
 * an endpoint to the core straight through the leg contract (leg.h); what
 * only this leg reports (pings, close frames, broken frames, messages too
 * large) is handled here; closes pass through both ways; the pair is freed
 * when both sides are gone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "util.h"

/* Asks for side s to be closed with code and reason once what is queued for
 * it has been written. The first reason given wins. */
/* A dialled pair's client side, another leg's, closes: it is told, and
 * the pair goes on as when a side of its own goes. On a timer of no
 * delay, not on the stack of whatever asked for the close (an upstream
 * that failed on connecting would free the pair under its caller). */
static void foreign_close(lws_sorted_usec_list_t *sul)
{
	struct conn *c = lws_container_of(sul, struct conn, down_close);

	conn_side_gone(c, DOWN, c->leg[DOWN].close_code, c->leg[DOWN].close_reason);
}

void conn_close_side(struct conn *c, enum side s, uint16_t code, const char *reason)
{
	if (c->gone[s] || c->closing[s])
		return;
	c->closing[s] = 1;
	leg_shut(&c->cc, s, 0);   /* what is queued goes first, then the close */
	wsleg_close_with(&c->leg[s], code, reason);
	if (conn_foreign(c, s)) {   /* written already: the channel writes at once */
		lws_sul_schedule(c->px->ctx, 0, &c->down_close, foreign_close, 1);
		return;
	}
	if (c->leg[s].wsi)
		lws_callback_on_writable(c->leg[s].wsi);
}

/* Side s is gone while a message cut through (route_begin) streams from
 * it or to it. From it: the message will never be whole; the other side's
 * writer drops it, or closes its socket if part of it went (wsleg_write).
 * To it: its queue, about to be dropped, frees it; the other side's
 * endpoint reads the message's rest and throws it away. */
static void release_streams(struct conn *c, enum side s)
{
	struct msg *m;

	if ((m = wsleg_rx_release(&c->leg[s])))
		m->cut = 1;
	wsleg_rx_release(&c->leg[!s]);
}

static void conn_free(struct conn *c)
{
	for (int s = DOWN; s <= UP; s++)
		wsleg_free(&c->leg[s]);
	leg_conn_free(&c->cc);
	free(c->up.head);   /* Chrome's answer, if it never came whole (upstream.c) */
	lws_sul_cancel(&c->up_timer);
	lws_sul_cancel(&c->down_close);
	free(c);
}

/* Side s is closed: log how, tell the other side, and free the pair when
 * both are. code and reason say why, unless s closed itself or was closed by
 * the proxy, whose codes then count. */
void conn_side_gone(struct conn *c, enum side s, uint16_t code, const char *reason)
{
	const char *by = side_name[s];

	if (c->gone[s])
		return;
	if (c->peer_closed[s]) {      /* it began the close: while its answer was
					 * still being written, the other side may
					 * have gone and asked for it too */
		code = c->peer_code[s];
		reason = c->peer_reason[s];
	} else if (c->closing[s]) {
		code = c->leg[s].close_code;
		reason = c->leg[s].close_reason;
		by = "proxy";
	}
	c->gone[s] = 1;
	c->leg[s].wsi = NULL;
	release_streams(c, s);
	leg_shut(&c->cc, s, 1);
	leg_report_close(&c->cc, s, by, code, reason);
	if (conn_foreign(c, s))
		c->cc.ops[s]->close(&c->cc, s, code, reason);
	if (!c->gone[!s]) {
		conn_close_side(c, !s, code, reason);
		return;
	}
	conn_free(c);
}

/* What only this leg's endpoints report (wsleg_ops; ctx is the core
 * connection, as the contract's reports take it). */
static void conn_too_large(void *ctx, int side, uint64_t bytes, int whole)
{
	struct conn *c = conn_of(ctx);
	uint64_t max = c->px->cfg.max_message;
	char reason[100];

	if (!whole) {
		leg_too_large(&c->cc, (enum side)side, bytes);
		return;
	}
	snprintf(reason, sizeof reason, "message over --max-message (%llu bytes)",
		 (unsigned long long)max);
	conn_close_side(c, (enum side)side, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, reason);
	conn_close_side(c, (enum side)!side, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, reason);
}

static void conn_pong(void *ctx, int side, struct msg *m)
{
	leg_answer(ctx, (enum side)side, m);
}

/* The peer's close frame: pass its code and reason on to the other side. */
static void conn_peer_close(void *ctx, int side, const unsigned char *in, size_t len)
{
	struct conn *c = conn_of(ctx);
	enum side s = (enum side)side;
	char reason[124] = "";
	uint16_t code = LWS_CLOSE_STATUS_NO_STATUS;

	if (len >= 2) {
		code = (uint16_t)(in[0] << 8 | in[1]);
		snprintf(reason, sizeof reason, "%.*s", (int)(len - 2 < 123 ? len - 2 : 123), in + 2);
	}
	/* 1005 and 1006 must not be sent in a close frame. */
	if (code == LWS_CLOSE_STATUS_NO_STATUS || code == LWS_CLOSE_STATUS_ABNORMAL_CLOSE)
		code = LWS_CLOSE_STATUS_NORMAL;
	c->peer_closed[s] = 1;
	c->peer_code[s] = code;
	snprintf(c->peer_reason[s], sizeof c->peer_reason[s], "%s", reason);
	conn_close_side(c, !s, code, reason);
}

/* A side broke the protocol: the client is closed, with 1002 when it was
 * the client, 1011 when it was Chrome (whose socket closes at once). */
static void conn_broken(void *ctx, int side, const char *why)
{
	conn_close_side(conn_of(ctx), DOWN, side == UP ? LWS_CLOSE_STATUS_UNEXPECTED_CONDITION :
			LWS_CLOSE_STATUS_PROTOCOL_ERR, why);
}

static const struct wsleg_ops conn_ops = {
	leg_deliver, leg_begin, leg_grew, conn_too_large, conn_pong, conn_peer_close, conn_broken
};

/* The other leg's endpoint of side s is gone (pair_ops.gone). */
static void conn_gone(struct core_conn *cc, enum side s, int code, const char *reason)
{
	conn_side_gone(conn_of(cc), s, (uint16_t)code, reason);
}

const struct leg_ops pair_ops = { flush_write, flush_flow, flush_sent, conn_gone, NULL };

struct conn *conn_open(struct proxy *px, struct lws *down, const char *path,
		       struct client_id *client)
{
	struct conn *c = xcalloc(1, sizeof *c);

	c->px = px;
	leg_conn_init(&px->core, &c->cc, &pair_ops, path);
	c->cc.client = *client;
	client->user_agent = NULL;
	for (int s = DOWN; s <= UP; s++)
		wsleg_init(&c->leg[s], s, s == UP, px->cfg.max_message, &conn_ops, &c->cc);
	c->leg[DOWN].wsi = down;
	if (down)
		lws_set_opaque_user_data(down, c);
	leg_report_open(&c->cc, "websocket", px->upstream);
	return c;
}

void conn_close_all(struct proxy *px)
{
	for (struct core_conn *cc = px->core.conns; cc; cc = cc->next)
		for (int s = DOWN; s <= UP && cc->ops[UP] == &pair_ops; s++)
			conn_close_side(conn_of(cc), s, LWS_CLOSE_STATUS_GOINGAWAY, "cdpproxy shutting down");
}

int conn_closes_settled(struct proxy *px, uint64_t quiet_us)
{
	uint64_t now = util_mono_us(), read = px->core.read_mono_us;

	for (struct core_conn *cc = px->core.conns; cc; cc = cc->next) {
		struct conn *c = conn_of(cc);
		if (cc->ops[UP] != &pair_ops)
			continue;
		for (int s = DOWN; s <= UP; s++) {
			const struct wsleg *l = &c->leg[s];
			uint64_t since = l->close_sent_us > read ? l->close_sent_us : read;
			if (c->gone[s] || conn_foreign(c, s))
				continue;
			if (!l->close_sent || wsleg_pending(l) || now - since < quiet_us)
				return 0;
		}
	}
	return 1;
}
