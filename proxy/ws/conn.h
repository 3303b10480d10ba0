/* conn: the WebSocket leg's private header: one client connection as two
 * WebSocket endpoints (wsleg.h), the client's and Chrome's, around the
 * message core's connection, through the leg contract (leg.h). Its files
 * call one way: ws.c (the leg as the loop sees it) -> downstream.c (the
 * client's upgrade and socket) -> upstream.c (Chrome's) -> conn.c (the
 * pair: opens, closes, what only this leg's endpoints report) -> flush.c
 * (the core's asks: write, read or not) -> wsleg.c (frames) -> wsframe.c. */
#ifndef CDPPROXY_CONN_H
#define CDPPROXY_CONN_H

#include "leg.h"
#include "proxy.h"
#include "wsleg.h"

/* The upstream endpoint's own WebSocket client state (upstream.c). */
struct upstream {
	int request_sent, open;       /* the upgrade went out; Chrome said 101 */
	char key[25];
	char *head;                   /* Chrome's answer to the upgrade, so far */
	size_t head_len;
};

struct conn {
	struct core_conn cc;          /* the messages: queues, sessions, id, path */
	struct proxy *px;
	struct wsleg leg[2];          /* side s's endpoint; leg[s].wsi its socket */
	int gone[2];                  /* that side's wsi is closed or never came */
	int closing[2];               /* close side s once out[s] is written (leg[s].close_code) */
	int peer_closed[2];           /* side s sent its close frame: */
	uint16_t peer_code[2];        /* ... with this code and reason */
	char peer_reason[2][124];
	struct upstream up;
	lws_sorted_usec_list_t up_timer;  /* Chrome must answer the upgrade by then */
	lws_sorted_usec_list_t down_close;  /* a dialled pair's client side closes (upstream_dial) */
};

/* Is side s of c another leg's endpoint (upstream_dial's client side)? */
#define conn_foreign(c, s) ((c)->cc.ops[s] != &pair_ops)

/* The conn around a core connection. */
#define conn_of(ccp) lws_container_of(ccp, struct conn, cc)

/* conn.c: the pair. */
/* A pair for the client's WebSocket down (its upgrade answered; NULL: a
 * dialled pair's, upstream_dial), to the upstream's path, for client
 * (taken): logged. Then upstream_open, then leg_conn_ready. */
struct conn *conn_open(struct proxy *px, struct lws *down, const char *path,
		       struct client_id *client);
/* Closes side s with code and reason once what is queued for it is written. */
void conn_close_side(struct conn *c, enum side s, uint16_t code, const char *reason);
/* Side s is gone: log it, close the other side, free the pair if both are. */
void conn_side_gone(struct conn *c, enum side s, uint16_t code, const char *reason);
/* The loop's hooks: close every pair; and is there nothing more to wait for? */
void conn_close_all(struct proxy *px);
/* Has every close conn_close_all asked for gone out, and has every client
 * that has not answered its close frame been quiet (nothing read from
 * anyone) for quiet_us since it went? Then there is nothing to wait for:
 * such a client is not reading (ChromeDriver waits for the browser's
 * process instead), and, having sent nothing since, has nothing for the
 * proxy's exit to reset. */
int conn_closes_settled(struct proxy *px, uint64_t quiet_us);

/* The pair's answers to the core's asks (leg_ops), given to
 * leg_conn_init: flush.c's, and conn.c's gone (a dialled pair's client
 * side, another leg's, is gone). */
extern const struct leg_ops pair_ops;

/* flush.c: the core's asks of a pair: write side s as frames, then its
 * close frame if it is closing; read side s or not; how much of a message
 * went (leg_ops). */
int flush_write(struct core_conn *cc, enum side s, int writable);
void flush_flow(struct core_conn *cc, enum side s, int on);
size_t flush_sent(const struct core_conn *cc, enum side s, const struct msg *m);

/* upstream.c: the endpoint to Chrome, a WebSocket client on a raw socket. */
/* Starts connecting (and the upgrade's timer). 0, or -1 when it could not
 * even start: side UP is gone then. */
int upstream_open(struct conn *c);
int upstream_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		      void *in, size_t len);
/* A pair whose client side is another leg's endpoint (down: its answers
 * to the core's asks), to Chrome at path, for client (copied): logged
 * open, connecting, ready (proxy_leg's dial). */
struct core_conn *upstream_dial(struct proxy *px, const char *path, const struct client_id *client,
				const struct leg_ops *down);

/* downstream.c: the client's endpoint, taken over from lws's HTTP server. */
/* A client's WebSocket upgrade, allowed: answers it and opens the pair.
 * Returns what LWS_CALLBACK_HTTP_CONFIRM_UPGRADE returns. */
int downstream_take(struct proxy *px, struct lws *wsi);
int downstream_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
			void *in, size_t len);

#endif
