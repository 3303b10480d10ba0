/* conn: the WebSocket legs of one client connection: the client's (DOWN)
 * and Chrome's (UP). Messages are reassembled from frames and handed to the
 * core (core.h); what the core queues is written in order as frames, all
 * that a round of the event loop queued at the end of the round
 * (conn_flush); closes pass through both ways. */
#include <string.h>

#include "conn.h"
#include "route.h"
#include "util.h"

#define BATCH_SMALL (16 * 1024)    /* messages up to this are copied into the batch */
#define TAIL_KEEP (64 * 1024)      /* a tail buffer larger than this is freed once empty */

/* Asks for side s to be closed with code and reason once what is queued for
 * it has been written. The first reason given wins. */
void conn_close_side(struct conn *c, enum side s, uint16_t code, const char *reason)
{
	if (c->gone[s] || c->closing[s])
		return;
	c->closing[s] = 1;
	core_shut(&c->cc, s, 0);   /* what is queued goes first, then the close */
	c->close_code[s] = code;
	snprintf(c->close_reason[s], sizeof c->close_reason[s], "%s", reason);
	if (c->wsi[s])
		lws_callback_on_writable(c->wsi[s]);
}

static void conn_free(struct conn *c)
{
	struct conn **pp;

	for (pp = &c->px->dirty; c->dirty && *pp; pp = &(*pp)->next_dirty)
		if (*pp == c) {
			*pp = c->next_dirty;
			break;
		}
	for (int s = DOWN; s <= UP; s++) {
		if (c->rx[s])
			msg_free(c->rx[s]);
		lws_sul_cancel(&c->hold[s].sul);
		free(c->tail[s].buf);
	}
	core_conn_free(&c->cc);
	upstream_free(c);
	lws_sul_cancel(&c->up_timer);
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
		code = c->close_code[s];
		reason = c->close_reason[s];
		by = "proxy";
	}
	c->gone[s] = 1;
	c->wsi[s] = NULL;
	core_shut(&c->cc, s, 1);
	core_report_close(&c->cc, s, by, code, reason);
	if (!c->gone[!s]) {
		conn_close_side(c, !s, code, reason);
		return;
	}
	conn_free(c);
}

void conn_rx_update(struct conn *c, enum side s)
{
	int want = !core_paused(&c->cc, s) || c->leg[s].close_sent;

	if (!c->wsi[s] || want == c->reading[s])
		return;
	c->reading[s] = want;
	lws_rx_flow_control(c->wsi[s], want);
}

/* The core's asks (core_leg_ops). */
static void conn_queued(struct core_conn *cc, enum side s)
{
	struct conn *c = conn_of(cc);

	/* Written when this round of the event loop is over (conn_flush), with
	 * whatever else the round queued: no extra round, and one write for many. */
	if (!c->dirty) {
		c->next_dirty = c->px->dirty;
		c->px->dirty = c;
	}
	c->dirty |= 1u << s;
}

static void conn_reading(struct core_conn *cc, enum side s, int on)
{
	(void)on;   /* the core's state says it: core_paused */
	conn_rx_update(conn_of(cc), s);
}

static const struct core_leg_ops conn_ops = { conn_queued, conn_reading };

/* What a new message's buffer takes on trust from its frame's claimed
 * length, beyond the bytes already read: a peer that claims 256 MiB and
 * sends nothing more costs this, not the claim. */
#define RX_TRUST (1024 * 1024)

int conn_rx_data(struct conn *c, enum side s, int type, const void *in, size_t len,
		 uint64_t frame_rest, int final)
{
	struct msg *m = c->rx[s];
	uint64_t max = c->px->cfg.max_message;
	/* Chrome sends each message as one frame, so its size is known at once. */
	uint64_t need = (m ? m->len : 0) + len + frame_rest;

	if (need > max && !c->discarding[s]) {
		core_report_too_large(&c->cc, s, need, max);
		if (m)
			msg_free(m);
		c->rx[s] = NULL;
		c->discarding[s] = 1;
	}
	/* The rest of a message over --max-message is read and thrown away, and
	 * the connection closed once it is all in: closing while the peer still
	 * writes would reset its socket, and it would see 1006, not 1009. */
	if (c->discarding[s]) {
		char reason[100];
		if (!final)
			return 0;
		c->discarding[s] = 0;
		snprintf(reason, sizeof reason, "message over --max-message (%llu bytes)",
			 (unsigned long long)max);
		conn_close_side(c, s, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, reason);
		conn_close_side(c, !s, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, reason);
		return 0;
	}
	if (!m) {
		m = c->rx[s] = msg_new(need < len + RX_TRUST ? (size_t)need : len + RX_TRUST);
		m->type = type;
	}
	if (m->len + len > m->cap) {   /* more than it was given room for */
		uint64_t cap = m->cap * 2 > m->len + len ? m->cap * 2 : m->len + len;
		/* The frame's claim, once this much of it has come, is taken whole. */
		if (need <= cap || need <= (m->len + len) * 2)
			cap = need > cap ? need : cap;
		msg_grow(m, cap < max ? (size_t)cap : (size_t)max);
	}
	memcpy(MSG_DATA(m) + m->len, in, len);
	m->len += len;
	if (!final)
		return 0;
	c->rx[s] = NULL;
	route_deliver(&c->cc, s, m);
	return 0;
}

/* A delayed message's time has come: write again. */
static void conn_hold_over(lws_sorted_usec_list_t *sul)
{
	struct conn_hold *h = lws_container_of(sul, struct conn_hold, sul);

	if (h->c->wsi[h->side])
		lws_callback_on_writable(h->c->wsi[h->side]);
}

/* Writes go to the socket directly, not through lws_write: lws 4.1.6 keeps
 * what a raw socket does not take in a buffer of its own (a copy of up to a
 * megabyte a write, the bulk of a large message's cost), and does not
 * read that socket until the buffer is written. A peer that stops reading
 * while its own writes are blocked (cdp-echo does) then never reads again:
 * both sides wait on each other. Here a side whose socket is full is still
 * read, up to --queue-bytes of what it sends. */
static long sock_send(struct conn *c, enum side s, const void *p, size_t len)
{
	long n = util_send_some(lws_get_socket_fd(c->wsi[s]), p, len);

	if (n >= 0 && (size_t)n < len)
		c->full[s] = 1;
	return n;
}

/* Has side s bytes the socket has not taken yet? */
static int write_pending(const struct conn *c, enum side s)
{
	return c->tail[s].off < c->tail[s].len;
}

int conn_write(struct conn *c, enum side s, const void *p, size_t len)
{
	struct conn_tail *t = &c->tail[s];
	long n = write_pending(c, s) ? 0 : sock_send(c, s, p, len);

	if (n < 0)
		return -1;
	if ((size_t)n == len)
		return 0;
	if (t->off == t->len)
		t->off = t->len = 0;
	if (t->len + len - (size_t)n > t->cap) {
		t->cap = t->len + len - (size_t)n;
		t->buf = xrealloc(t->buf, t->cap);
	}
	memcpy(t->buf + t->len, (const unsigned char *)p + n, len - (size_t)n);
	t->len += len - (size_t)n;
	lws_callback_on_writable(c->wsi[s]);
	return 0;
}

/* How long a socket that takes nothing has to take a close frame's rest. */
#define LAST_WRITE_SECS 5

int conn_close_when_written(struct conn *c, enum side s)
{
	if (!write_pending(c, s))
		return -1;
	c->last_write[s] = 1;
	lws_set_timeout(c->wsi[s], PENDING_TIMEOUT_CLOSE_ACK, LAST_WRITE_SECS);
	lws_callback_on_writable(c->wsi[s]);
	return 0;
}

/* Writes what the socket takes of side s's tail. Returns -1 if it failed. */
static int tail_flush(struct conn *c, enum side s)
{
	struct conn_tail *t = &c->tail[s];
	long n;

	if (t->off == t->len)
		return 0;
	if ((n = sock_send(c, s, t->buf + t->off, t->len - t->off)) < 0)
		return -1;
	t->off += (size_t)n;
	if (t->off == t->len && t->cap > TAIL_KEEP) {
		free(t->buf);
		memset(t, 0, sizeof *t);
	}
	return 0;
}

/* Frames for side s: masked towards Chrome, as a client's must be. */
static size_t frame_header(enum side s, unsigned char *out, const struct msg *m, unsigned char mask[4])
{
	if (s == UP)
		wsframe_new_mask(mask);
	return wsframe_header(out, m->type, 1, m->len, s == UP ? mask : NULL);
}

int conn_writeable(struct conn *c, enum side s, struct lws *wsi)
{
	struct queue *q = &c->cc.out[s];
	unsigned char *batch = c->px->batch, mask[4];
	size_t used = 0;
	int held = 0;

	/* What is queued is logged before a byte of it goes: written here
	 * too, when lws calls back in the middle of the round that queued it
	 * (proxy_run writes the rest). */
	if (c->px->core.log)
		log_flush(c->px->core.log);
	c->full[s] = 0;
	if (tail_flush(c, s) < 0)
		return -1;
	if (c->last_write[s])
		return conn_close_when_written(c, s);
	while (q->head && !c->full[s]) {
		struct msg *m = q->head;
		uint64_t now;

		/* A delayed message holds back everything queued after it. */
		if (m->not_before_us && (now = util_mono_us()) < m->not_before_us) {
			lws_sul_schedule(c->px->ctx, 0, &c->hold[s].sul, conn_hold_over,
					 (lws_usec_t)(m->not_before_us - now));
			held = 1;
			break;
		}
		/* Small messages are framed into one buffer: one write for many. */
		if (!m->sent && m->len + WSFRAME_HEADER_MAX <= BATCH_BYTES - used &&
		    m->len <= BATCH_SMALL) {
			size_t h = frame_header(s, batch + used, m, mask);
			if (s == UP)
				wsframe_mask(batch + used + h, MSG_DATA(m), m->len, mask, 0);
			else
				memcpy(batch + used + h, MSG_DATA(m), m->len);
			used += h + m->len;
			core_written(&c->cc, s);
			continue;
		}
		if (used) {
			if (conn_write(c, s, batch, used) < 0)
				return -1;
			used = 0;
			continue;
		}
		/* A large one is written from its own buffer, its header in the
		 * headroom, as much as the socket takes; the rest waits there.
		 * It is framed (and masked, towards Chrome) once: a full socket
		 * may take none of it, and masking twice would garble it. */
		if (!m->hdr_len) {
			unsigned char h[WSFRAME_HEADER_MAX];
			m->hdr_len = frame_header(s, h, m, mask);
			memcpy(MSG_DATA(m) - m->hdr_len, h, m->hdr_len);
			if (s == UP)
				wsframe_mask(MSG_DATA(m), MSG_DATA(m), m->len, mask, 0);
		}
		{
			size_t total = m->hdr_len + m->len;
			long n = sock_send(c, s, MSG_DATA(m) - m->hdr_len + m->sent,
					   total - m->sent);
			if (n < 0)
				return -1;
			m->sent += (size_t)n;
			if (m->sent == total)
				core_written(&c->cc, s);
		}
	}
	if (used && conn_write(c, s, batch, used) < 0)
		return -1;
	if (q->head || write_pending(c, s)) {
		if (!held || c->full[s])   /* else the hold's timer asks */
			lws_callback_on_writable(wsi);
		return 0;
	}
	if (c->closing[s])
		return wsleg_close(c, s);
	return 0;
}

void conn_flush(struct proxy *px)
{
	struct conn *c;

	while ((c = px->dirty)) {
		unsigned dirty = c->dirty;
		px->dirty = c->next_dirty;
		c->dirty = 0;
		for (int s = DOWN; s <= UP; s++) {
			struct lws *wsi = c->wsi[s];
			if (!(dirty & 1u << s) || !wsi || !c->cc.out[s].head)
				continue;
			/* Closing, the upgrade still awaited, or the socket full:
			 * lws calls back when it is time. */
			if (c->closing[s] || (s == UP && !c->up.open) || c->full[s])
				lws_callback_on_writable(wsi);
			else if (conn_writeable(c, (enum side)s, wsi) < 0)  /* the write failed */
				lws_set_timeout(wsi, PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE,
						LWS_TO_KILL_ASYNC);
		}
	}
}

/* The peer's close frame: pass its code and reason on to the other side. */
void conn_peer_close(struct conn *c, enum side s, const unsigned char *in, size_t len)
{
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

/* Chrome took the connection but has not answered the upgrade in time. */
static void conn_up_timeout(lws_sorted_usec_list_t *sul)
{
	struct conn *c = lws_container_of(sul, struct conn, up_timer);
	char why[240];

	if (c->gone[UP])
		return;
	snprintf(why, sizeof why, "upstream %s did not answer the upgrade within %u s",
		 c->px->upstream, c->px->cfg.upstream_timeout);
	if (c->wsi[UP]) {   /* let it go without us, and have lws kill it */
		lws_set_opaque_user_data(c->wsi[UP], NULL);
		lws_set_timeout(c->wsi[UP], PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE,
				LWS_TO_KILL_ASYNC);
	}
	conn_side_gone(c, UP, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, why);
}

struct conn *conn_open(struct proxy *px, struct lws *down, const char *path,
		       struct client_id *client)
{
	struct conn *c = xcalloc(1, sizeof *c);

	c->px = px;
	core_conn_init(&px->core, &c->cc, &conn_ops, path);
	c->cc.client = *client;
	client->user_agent = NULL;
	for (int s = DOWN; s <= UP; s++) {
		c->hold[s].c = c;
		c->hold[s].side = (enum side)s;
		c->reading[s] = 1;
	}
	c->wsi[DOWN] = down;
	lws_set_opaque_user_data(down, c);
	core_report_open(&c->cc, "websocket", px->upstream);

	if (upstream_open(c) < 0 && !c->gone[UP]) {
		conn_side_gone(c, UP, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "upstream: cannot connect");
		return c;
	}
	if (!c->gone[UP])
		lws_sul_schedule(px->ctx, 0, &c->up_timer, conn_up_timeout,
				 (lws_usec_t)px->cfg.upstream_timeout * LWS_US_PER_SEC);
	route_conn_opened(&c->cc);
	return c;
}

json_t *conn_list_json(struct proxy *px)
{
	json_t *conns = json_array(), *sessions = json_array();

	for (struct core_conn *cc = px->core.conns; cc; cc = cc->next) {
		json_t *ss = sessions_json(&cc->sessions), *se;
		size_t i;
		json_array_foreach(ss, i, se) {
			json_object_set_new(se, "conn", json_integer((json_int_t)cc->id));
			json_array_append(sessions, se);
		}
		json_decref(ss);
		json_array_append_new(conns, json_pack("{s:I, s:s, s:o, s:I, s:I, s:I}",
			"id", (json_int_t)cc->id, "path", cc->path, "client", client_json(&cc->client),
			"opened_us", (json_int_t)cc->opened_us,
			"queued_up", (json_int_t)cc->out[UP].bytes,
			"queued_down", (json_int_t)cc->out[DOWN].bytes));
	}
	return json_pack("{s:{s:I, s:I, s:o}, s:o}",
		"connections", "open", (json_int_t)px->core.conns_open, "total",
		(json_int_t)px->core.conns_total, "list", conns, "sessions", sessions);
}

void conn_close_all(struct proxy *px)
{
	for (struct core_conn *cc = px->core.conns; cc; cc = cc->next)
		for (int s = DOWN; s <= UP && cc->ops == &conn_ops; s++)
			conn_close_side(conn_of(cc), s, LWS_CLOSE_STATUS_GOINGAWAY, "cdpproxy shutting down");
}

int conn_closes_settled(struct proxy *px, uint64_t quiet_us)
{
	uint64_t now = util_mono_us(), read = px->core.read_mono_us;

	for (struct core_conn *cc = px->core.conns; cc; cc = cc->next) {
		struct conn *c = conn_of(cc);
		if (cc->ops != &conn_ops)
			continue;
		for (int s = DOWN; s <= UP; s++) {
			uint64_t since = c->leg[s].close_sent_us > read ? c->leg[s].close_sent_us : read;
			if (c->gone[s])
				continue;
			if (!c->leg[s].close_sent || write_pending(c, (enum side)s) || now - since < quiet_us)
				return 0;
		}
	}
	return 1;
}
