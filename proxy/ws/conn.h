/* conn: the WebSocket legs of one client connection, the client's and
 * Chrome's, around the message core's connection (core.h): conn.c (queues
 * to sockets, closes), wsleg.c (frames), downstream.c and upstream.c (the
 * handshakes). */
#ifndef CDPPROXY_CONN_H
#define CDPPROXY_CONN_H

#include "core.h"
#include "proxy.h"
#include "wsframe.h"

/* Frame bytes a socket did not take (of a batch of small messages or a
 * close frame), written before anything else. A large message's rest
 * stays in the message itself (struct msg's sent). */
struct conn_tail {
	unsigned char *buf;
	size_t off, len, cap;         /* buf[off..len) is still to go */
};

struct conn_hold {                /* wakes side `side` when a delay is over */
	lws_sorted_usec_list_t sul;
	struct conn *c;
	enum side side;
};

/* The upstream leg's own WebSocket client state (upstream.c). */
struct upstream {
	int request_sent, open;       /* the upgrade went out; Chrome said 101 */
	char key[25];
	char *head;                   /* Chrome's answer to the upgrade, so far */
	size_t head_len;
};

/* Frames being read from one side (wsleg.c). */
struct wsleg {
	unsigned char hdr[WSFRAME_HEADER_MAX];  /* a frame header, so far */
	size_t hdr_have;
	struct wsframe frame;         /* the frame being read */
	uint64_t left, off;           /* its payload bytes still to come, and read */
	int in_frame;
	int in_message;               /* a data frame without FIN came: more follow */
	int close_sent;               /* the proxy's close frame went out */
	uint64_t close_sent_us;       /* ... then (monotonic) */
	unsigned char control[125];   /* a close or ping frame's payload */
	size_t control_len;
};

struct conn {
	struct core_conn cc;          /* the messages: queues, sessions, id, path */
	struct conn *next_dirty;      /* on px->dirty: has queued writes to flush */
	unsigned dirty;               /* 1 << side: that side is waiting on px->dirty */
	struct proxy *px;
	struct lws *wsi[2];
	int gone[2];                  /* that side's wsi is closed or never came */
	struct msg *rx[2];            /* being reassembled from side s */
	int discarding[2];            /* skipping the rest of a too large message from s */
	struct conn_tail tail[2];     /* bytes side s's socket did not take, to go first */
	int full[2];                  /* side s's socket took less than offered: wait to write */
	int last_write[2];            /* close side s once its tail is written: nothing more goes */
	int reading[2];               /* lws reads side s (see conn_rx_update) */
	int closing[2];               /* close side s once out[s] is written */
	uint16_t close_code[2];       /* ... with this code and reason */
	char close_reason[2][124];
	int peer_closed[2];           /* side s sent its close frame: */
	uint16_t peer_code[2];        /* ... with this code and reason */
	char peer_reason[2][124];
	struct conn_hold hold[2];
	struct wsleg leg[2];
	struct upstream up;
	lws_sorted_usec_list_t up_timer;  /* Chrome must answer the upgrade by then */
};

/* The conn around a core connection. */
#define conn_of(ccp) lws_container_of(ccp, struct conn, cc)

/* A pair for the client's WebSocket down (its upgrade answered), to the
 * upstream's path, for client (taken): logged, and the upstream leg started. */
struct conn *conn_open(struct proxy *px, struct lws *down, const char *path,
		       struct client_id *client);
/* Closes side s with code and reason once what is queued for it is written. */
void conn_close_side(struct conn *c, enum side s, uint16_t code, const char *reason);
/* Side s is gone: log it, close the other side, free the pair if both are. */
void conn_side_gone(struct conn *c, enum side s, uint16_t code, const char *reason);
/* Writes len bytes to side s after what is still waiting there, keeping
 * what the socket does not take now. Returns -1 if the socket failed. */
int conn_write(struct conn *c, enum side s, const void *p, size_t len);
/* Side s is to be closed once what it has not taken yet is written (a
 * close frame's rest): -1 to close it now, or 0 when that waits. */
int conn_close_when_written(struct conn *c, enum side s);
/* Part of a message from side s: len bytes, with frame_rest more to come in
 * this frame; final: the message ends with them. opcode: of its first frame.
 * Returns -1 to close side s. */
int conn_rx_data(struct conn *c, enum side s, int type, const void *in, size_t len,
		 uint64_t frame_rest, int final);
/* Reads side s or not, as its state asks: not while the core has it paused
 * (unless the proxy's close went to s and its answer is awaited). */
void conn_rx_update(struct conn *c, enum side s);
/* Side s sent its close frame (payload in, len). */
void conn_peer_close(struct conn *c, enum side s, const unsigned char *in, size_t len);
/* Writes what is queued for side s as frames, batched, as much as the
 * socket takes. Returns -1 to close side s. */
int conn_writeable(struct conn *c, enum side s, struct lws *wsi);

/* wsleg.c: WebSocket frames on both legs, which are lws raw sockets. */
/* Frames from side s, n bytes at p (unmasked in place). Returns -1 to close
 * side s's socket. */
int wsleg_read(struct conn *c, enum side s, unsigned char *p, size_t n);
/* Sends side s the close frame conn_close_side asked for. Returns -1 when
 * the socket is to be closed now, 0 when a client's answer is awaited. */
int wsleg_close(struct conn *c, enum side s);

/* downstream.c: the client leg, taken over from lws's HTTP server. */
/* A client's WebSocket upgrade, allowed: answers it and opens the pair.
 * Returns what LWS_CALLBACK_HTTP_CONFIRM_UPGRADE returns. */
int downstream_take(struct proxy *px, struct lws *wsi);

/* upstream.c: the leg to Chrome, a WebSocket client on an lws raw socket. */
/* Starts connecting; 0, or -1 when it could not even start. */
int upstream_open(struct conn *c);
/* Frees what the upstream state holds. */
void upstream_free(struct conn *c);

#endif
