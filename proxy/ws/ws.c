/* ws: the WebSocket leg registered with the loop: its two lws protocols
 * (the client's endpoint, Chrome's), the hand-off of an allowed upgrade
 * from the HTTP leg, and its round and shutdown hooks. */
#include "ws.h"

#include "conn.h"

static const struct lws_protocols ws_protocols[] = {
	{ "cdp-down", downstream_callback, 0, 256 * 1024, 0, NULL, 0 },
	{ "cdp-up", upstream_callback, 0, 256 * 1024, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};

const struct proxy_leg ws_leg = {
	.protocols = ws_protocols,
	.upgrade = downstream_take,
	.close_all = conn_close_all,
	.settled = conn_closes_settled,
	.dial = upstream_dial,
};
