/* flush: the WebSocket leg's answers to the core's asks (leg_ops, whose
 * table is conn.c's): write a side's queue as frames, then a closing
 * side's close frame; read a side or not; how much of a cut-through
 * message an endpoint has written. When they are asked is the core's
 * (leg.c). */
#include "conn.h"

/* Writes what is queued for side s as frames, then its close frame if it
 * is closing: at the round's end, only if the socket can take it now (else
 * lws calls back: leg_writable). Returns -1 to close side s. */
int flush_write(struct core_conn *cc, enum side s, int writable)
{
	struct conn *c = conn_of(cc);
	struct lws *wsi = c->leg[s].wsi;
	int rc;

	if (!wsi || (!writable && !cc->out[s].head))
		return 0;
	/* Closing, the upgrade still awaited, or the socket full: lws calls
	 * back when it is time. */
	if (!writable && (c->closing[s] || (s == UP && !c->up.open) || c->leg[s].full)) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	rc = wsleg_write(&c->leg[s], &cc->out[s]);
	if (rc == 1 && c->closing[s])
		rc = wsleg_close(&c->leg[s]);
	if (rc >= 0)
		return 0;
	if (!writable)   /* the write failed at the round's end: closed soon */
		lws_set_timeout(wsi, PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_ASYNC);
	return -1;
}

void flush_flow(struct core_conn *cc, enum side s, int on)
{
	wsleg_rx_flow(&conn_of(cc)->leg[s], on);
}

size_t flush_sent(const struct core_conn *cc, enum side s, const struct msg *m)
{
	return wsleg_sent_of(&lws_container_of(cc, struct conn, cc)->leg[s], m);
}
