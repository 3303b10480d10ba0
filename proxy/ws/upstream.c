/* upstream: the WebSocket leg's endpoint to Chrome, a WebSocket client on
 * an lws raw socket: the connection, the upgrade handshake and its timer,
 * and the socket's callback; its frames are wsleg.c's. Why not lws's own
 * WebSocket client: lws 4.1.6 copies each received payload byte through its
 * parser's state machine, and its writes cost a /dev/urandom read per frame
 * (the README's cost section has the figures). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "util.h"

#define HEAD_MAX 8192   /* Chrome's answer to the upgrade */

/* Chrome took the connection but has not answered the upgrade in time. */
static void upstream_timeout(lws_sorted_usec_list_t *sul)
{
	struct conn *c = lws_container_of(sul, struct conn, up_timer);
	struct lws *wsi = c->leg[UP].wsi;
	char why[240];

	if (c->gone[UP])
		return;
	snprintf(why, sizeof why, "upstream %s did not answer the upgrade within %u s",
		 c->px->upstream, c->px->cfg.upstream_timeout);
	if (wsi) {   /* let it go without us, and have lws kill it */
		lws_set_opaque_user_data(wsi, NULL);
		lws_set_timeout(wsi, PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_ASYNC);
	}
	conn_side_gone(c, UP, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, why);
}

int upstream_open(struct conn *c)
{
	struct proxy *px = c->px;
	struct lws_client_connect_info i;

	proxy_connect_info(px, &i, "cdp-up", c, &c->leg[UP].wsi);
	i.method = "RAW";
	if (!lws_client_connect_via_info(&i) && !c->gone[UP]) {
		conn_side_gone(c, UP, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "upstream: cannot connect");
		return -1;
	}
	if (!c->gone[UP])
		lws_sul_schedule(px->ctx, 0, &c->up_timer, upstream_timeout,
				 (lws_usec_t)px->cfg.upstream_timeout * LWS_US_PER_SEC);
	return 0;
}

/* Frees Chrome's answer to the upgrade, once read. */
static void head_free(struct conn *c)
{
	free(c->up.head);
	c->up.head = NULL;
}

/* The client's handshake: GET path, Upgrade: websocket, a fresh key. */
static int send_request(struct conn *c, struct lws *wsi)
{
	char req[2048];
	int n;

	wsframe_new_key(c->up.key);
	if ((n = wsframe_client_request(req, sizeof req, c->cc.path, c->px->upstream, c->up.key)) < 0)
		return -1;
	c->up.request_sent = 1;
	/* The first bytes on a fresh connection: the socket takes them all. */
	return util_send_some(lws_get_socket_fd(wsi), req, (size_t)n) < n ? -1 : 0;
}

/* Chrome's answer to the upgrade, so far in c->up.head. Returns the bytes
 * after it (frames), 0 while it is incomplete, -1 (and closes the client
 * with the reason) when it is not a 101 with the right accept key. */
static long read_head(struct conn *c)
{
	char *end = strstr(c->up.head, "\r\n\r\n"), why[200];

	if (!end)
		return c->up.head_len > HEAD_MAX - 1 ? -1 : 0;
	if (!wsframe_answer_accepts(c->up.head, (size_t)(end + 2 - c->up.head), c->up.key)) {
		snprintf(why, sizeof why, "upstream refused the WebSocket upgrade: %.*s",
			 (int)strcspn(c->up.head, "\r\n"), c->up.head);
		conn_close_side(c, DOWN, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, why);
		return -1;
	}
	return (long)(end + 4 - c->up.head);
}

static int on_rx(struct conn *c, unsigned char *in, size_t len)
{
	struct upstream *u = &c->up;
	long body;

	if (u->open)
		return wsleg_read(&c->leg[UP], in, len);
	u->head = xrealloc(u->head, u->head_len + len + 1);
	memcpy(u->head + u->head_len, in, len);
	u->head_len += len;
	u->head[u->head_len] = '\0';
	if ((body = read_head(c)) <= 0)
		return (int)body;
	u->open = 1;
	lws_sul_cancel(&c->up_timer);
	if (c->cc.out[UP].head || c->closing[UP])
		lws_callback_on_writable(c->leg[UP].wsi);
	{
		/* Frames may have come in the same read as the answer. */
		int rc = wsleg_read(&c->leg[UP], (unsigned char *)u->head + body, u->head_len - (size_t)body);
		head_free(c);
		return rc;
	}
}

int upstream_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		      void *in, size_t len)
{
	struct conn *c = lws_get_opaque_user_data(wsi);
	char why[256];

	if (!c)
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	switch (reason) {
	case LWS_CALLBACK_RAW_CONNECTED:
		lws_callback_on_writable(wsi);
		return 0;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		snprintf(why, sizeof why, "upstream %s: %s", c->px->upstream,
			 in ? (const char *)in : "connection failed");
		lws_set_opaque_user_data(wsi, NULL);
		conn_side_gone(c, UP, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, why);
		return 0;
	case LWS_CALLBACK_RAW_RX:
		leg_read(&c->px->core, wsi);
		return on_rx(c, in, len);
	case LWS_CALLBACK_RAW_WRITEABLE:
		if (!c->up.request_sent)
			return send_request(c, wsi);
		if (!c->up.open)
			return 0;
		return leg_writable(&c->cc, UP);
	case LWS_CALLBACK_RAW_CLOSE:
		lws_set_opaque_user_data(wsi, NULL);
		conn_side_gone(c, UP, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION,
			       "upstream closed without a close frame");
		return 0;
	default:
		return 0;
	}
}

struct core_conn *upstream_dial(struct proxy *px, const char *path, const struct client_id *client,
				const struct leg_ops *down)
{
	struct client_id copy = *client;
	struct conn *c;

	copy.user_agent = client->user_agent ? xstrdup(client->user_agent) : NULL;
	c = conn_open(px, NULL, path, &copy);
	leg_conn_side(&c->cc, DOWN, down);
	/* Failing, it closes the client side on a timer: the caller has the
	 * pair until then, and is told (leg_ops close). */
	if (upstream_open(c) == 0)
		leg_conn_ready(&c->cc);
	return &c->cc;
}
