/* conn: the pair of WebSockets behind one client connection, shared by
 * conn.c (the transport) and route.c (what happens to each message). */
#ifndef CDPPROXY_CONN_H
#define CDPPROXY_CONN_H

#include "proxy.h"
#include "scan.h"
#include "sessions.h"

enum side { DOWN, UP };           /* the client, Chrome */

/* The proxy's own commands count up from here, far above clients' ids. */
#define PROXY_ID_BASE 1000000000LL

struct msg {
	struct msg *next;
	size_t len, sent, cap;        /* cap: room in buf after LWS_PRE */
	int binary;
	uint64_t not_before_us;       /* delay: not written before (monotonic) */
	unsigned char *buf;           /* LWS_PRE headroom, then the message */
};

struct queue {
	struct msg *head, *tail;
	size_t bytes;
};

struct conn_hold {                /* wakes side `side` when a delay is over */
	lws_sorted_usec_list_t sul;
	struct conn *c;
	enum side side;
};

struct conn {
	struct conn *next;
	struct proxy *px;
	uint64_t id;
	char *path;
	struct lws *wsi[2];
	int gone[2];                  /* that side's wsi is closed or never came */
	struct queue out[2];          /* out[s]: waiting to be written to side s */
	struct msg *rx[2];            /* being reassembled from side s */
	int discarding[2];            /* skipping the rest of a too large message from s */
	int paused[2];                /* reading side s is paused for backpressure */
	int closing[2];               /* close side s once out[s] is written */
	uint16_t close_code[2];       /* ... with this code and reason */
	char close_reason[2][124];
	int peer_closed[2];           /* side s sent its close frame: */
	uint16_t peer_code[2];        /* ... with this code and reason */
	char peer_reason[2][124];
	struct conn_hold hold[2];
	lws_sorted_usec_list_t up_timer;  /* Chrome must answer the upgrade by then */
	struct sessions sessions;
	int64_t next_proxy_id;
	uint64_t opened_us;
};

extern const char *const side_name[2];

/* A message with room for len bytes after LWS_PRE. */
struct msg *msg_new(size_t len);
void msg_free(struct msg *m);
/* Queues m to be written to side `to` (dropped if that side is gone), and
 * pauses reading the other side while the queue is over its bound. */
void conn_enqueue(struct conn *c, enum side to, struct msg *m);
/* Closes side s with code and reason once what is queued for it is written. */
void conn_close_side(struct conn *c, enum side s, uint16_t code, const char *reason);

/* route.c: one complete message from side `from`: scan, track, apply the
 * policy, log, count, queue. Takes m. */
void route_message(struct conn *c, enum side from, struct msg *m);
/* A new connection: inject for a page connection's own session. */
void route_opened(struct conn *c);
/* The policy changed: bring every session's enabled domains in line. */
void route_sync(struct conn *c);

#endif
