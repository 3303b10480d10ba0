/* flush: the WebSocket leg's writes. The core's asks of a pair (a side has
 * messages queued; read a side or not); what a round of the event loop
 * queued is written at the end of the round (the loop's round hook), as
 * frames, all a side's at once, then a closing side's close frame. */
#include "conn.h"

/* Pairs with messages queued this round: one event loop a process. */
static struct conn *dirty;

static void flush_queued(struct core_conn *cc, enum side s)
{
	struct conn *c = conn_of(cc);

	/* Written when this round of the event loop is over (flush_round), with
	 * whatever else the round queued: no extra round, and one write for many. */
	if (!c->dirty) {
		c->next_dirty = dirty;
		dirty = c;
	}
	c->dirty |= 1u << s;
}

static void flush_reading(struct core_conn *cc, enum side s, int on)
{
	(void)on;   /* the core's state says it: core_paused */
	wsleg_rx_flow(&conn_of(cc)->leg[s], core_paused(cc, s));
}

void flush_hold(struct conn *c, enum side p)
{
	struct wsleg *l = &c->leg[p];

	/* held is never set but while a message is cut through (rx_cut 1) */
	if (l->rx_cut == 1)
		wsleg_rx_hold(l, core_read_ahead_hold(l->rx->len - wsleg_sent_of(&c->leg[!p], l->rx),
						      l->held));
}

const struct core_leg_ops flush_ops = { flush_queued, flush_reading };

void flush_forget(struct conn *c)
{
	for (struct conn **pp = &dirty; c->dirty && *pp; pp = &(*pp)->next_dirty)
		if (*pp == c) {
			*pp = c->next_dirty;
			break;
		}
}

int flush_writeable(struct conn *c, enum side s)
{
	int rc;

	/* What is queued is logged before a byte of it goes: written here
	 * too, when lws calls back in the middle of the round that queued it
	 * (proxy_run writes the rest). */
	if (c->px->core.log)
		log_flush(c->px->core.log);
	rc = wsleg_write(&c->leg[s], &c->cc.out[s]);
	flush_hold(c, (enum side)!s);
	if (rc == 1 && c->closing[s])
		return wsleg_close(&c->leg[s]);
	return rc < 0 ? -1 : 0;
}

void flush_round(struct proxy *px)
{
	struct conn *c;

	(void)px;
	while ((c = dirty)) {
		unsigned sides = c->dirty;
		dirty = c->next_dirty;
		c->dirty = 0;
		for (int s = DOWN; s <= UP; s++) {
			struct lws *wsi = c->leg[s].wsi;
			if (!(sides & 1u << s) || !wsi || !c->cc.out[s].head)
				continue;
			/* Closing, the upgrade still awaited, or the socket full:
			 * lws calls back when it is time. */
			if (c->closing[s] || (s == UP && !c->up.open) || c->leg[s].full)
				lws_callback_on_writable(wsi);
			else if (flush_writeable(c, (enum side)s) < 0)  /* the write failed */
				lws_set_timeout(wsi, PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE,
						LWS_TO_KILL_ASYNC);
		}
	}
}
