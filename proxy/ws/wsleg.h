/* wsleg: one WebSocket endpoint on an lws raw socket, as the proxy frames
 * it itself (lws 4.1.6's parsers copy payload one byte at a time): frames
 * read, unmasked and reassembled into whole messages that it reports up
 * through an ops table; the core's queue for that peer written back as
 * frames, batched, with what the socket does not take kept to go first;
 * its close frame. It knows no other endpoint and no core connection. */
#ifndef CDPPROXY_WSLEG_H
#define CDPPROXY_WSLEG_H

#include <stddef.h>
#include <stdint.h>

#include <libwebsockets.h>

#include "queue.h"
#include "wsframe.h"

/* What an endpoint hands up. side is the caller's tag (wsleg_init). The
 * first three are the leg contract's reports as they are (leg.h:
 * leg_deliver, leg_begin, leg_grew, with ctx the core connection). */
struct wsleg_ops {
	/* A whole data message (taken; if begin took it, it was queued then). */
	void (*deliver)(void *ctx, int side, struct msg *m);
	/* Cut through: the first m->len bytes of a single-frame message of
	 * total bytes are in. 1: taken, queued for the other side now: the
	 * endpoint goes on filling it (grew) and hands it to deliver once
	 * whole. 0: no, deliver it whole. -1: ask again when more is in. */
	int (*begin)(void *ctx, int side, struct msg *m, uint64_t total);
	/* More of a message begin took is in; old_cost its memory before. */
	void (*grew)(void *ctx, int side, struct msg *m, size_t old_cost);
	/* A message grows past max_message: it is read to its end and thrown
	 * away; whole is 0 when that begins (bytes: its size at least), 1 once
	 * its last byte is in. */
	void (*too_large)(void *ctx, int side, uint64_t bytes, int whole);
	/* A ping came: m is its pong, to queue for the same peer (taken). */
	void (*pong)(void *ctx, int side, struct msg *m);
	/* The peer's close frame (its payload, checked). */
	void (*closed)(void *ctx, int side, const unsigned char *p, size_t len);
	/* The peer broke the protocol (why). The endpoint closes itself. */
	void (*broken)(void *ctx, int side, const char *why);
};

/* Bytes of frames the socket did not take (of a batch of small messages or
 * a close frame), written before anything else. A large message's rest
 * stays in the message itself (see out_sent). */
struct wsleg_unsent {
	unsigned char *buf;
	size_t off, len, cap;         /* buf[off..len) is still to go */
};

struct wsleg {
	struct lws *wsi;              /* NULL until connected, and once closed */
	int side;
	int client;                   /* the proxy is the client here (Chrome's end): frames out masked */
	const struct wsleg_ops *ops;
	void *ctx;
	uint64_t max_message;
	/* Reading. */
	unsigned char hdr[WSFRAME_HEADER_MAX];  /* a frame header, so far */
	size_t hdr_have;
	struct wsframe frame;         /* the frame being read */
	uint64_t left, off;           /* its payload bytes still to come, and read */
	int in_frame;
	int in_message;               /* a data frame without FIN came: more follow */
	unsigned char control[125];   /* a close or ping frame's payload */
	size_t control_len;
	struct msg *rx;               /* the message being reassembled */
	int rx_cut;                   /* rx is: 0 not asked yet (begin), 1 cut through
				       * (the queue's, filled here), 2 stored */
	int discarding;               /* skipping the rest of a message over max_message */
	int dropping;                 /* skipping the rest of a message released (wsleg_rx_release) */
	/* Writing. */
	struct wsleg_unsent unsent;
	const struct msg *out;        /* the large message being written from its own buffer */
	size_t out_hdr, out_sent;     /* its header (in its headroom), and bytes of both written */
	unsigned char out_mask[4];    /* a cut-through one toward Chrome: its frame's mask */
	int full;                     /* the socket took less than offered: wait to write */
	int last_write;               /* close once unsent is written: nothing more goes */
	lws_sorted_usec_list_t hold;  /* a delayed message's time */
	/* Closing. */
	uint16_t close_code;          /* the close frame to send (wsleg_close_with) */
	char close_reason[124];
	int close_sent;               /* the proxy's close frame went out */
	uint64_t close_sent_us;       /* ... then (monotonic) */
};

/* Sets l up for the peer side, as the client's endpoint or the server's. */
void wsleg_init(struct wsleg *l, int side, int client, uint64_t max_message,
		const struct wsleg_ops *ops, void *ctx);
/* Frees what l holds. */
void wsleg_free(struct wsleg *l);

/* Frames from the peer, n bytes at p (unmasked in place). Returns -1 to
 * close the socket now. */
int wsleg_read(struct wsleg *l, unsigned char *p, size_t n);
/* The message being read is cut through (queued for the other side): the
 * endpoint lets go of it, reads the rest of it and throws that away, and
 * returns it; else NULL. For when either side goes while it streams. */
struct msg *wsleg_rx_release(struct wsleg *l);
/* Reads the socket (on) or not, as the core asks (leg_ops.flow); but once
 * the proxy's close went out, its answer is read whatever is asked. */
static inline void wsleg_rx_flow(const struct wsleg *l, int on)
{
	if (l->wsi)
		lws_rx_flow_control(l->wsi, on || l->close_sent);
}
/* The bytes of m's payload this endpoint has written (0 unless m is the
 * large message it is writing): read in place (leg_ops.sent). */
static inline size_t wsleg_sent_of(const struct wsleg *l, const struct msg *m)
{
	if (l->out != m)
		return 0;
	if (l->client && m->want)   /* counted without the header: see wsleg_write */
		return l->out_sent;
	return l->out_sent > l->out_hdr ? l->out_sent - l->out_hdr : 0;
}

/* Writes q's messages as frames, batched, as much as the socket takes,
 * taking each one written whole off q (queue_free_head). A cut-through message
 * (msg.h: want) is framed with its whole length and written as far as its
 * bytes have come; nothing behind it goes before it is whole; one whose
 * sender went (cut) is dropped if none of it went yet, else the socket is
 * to be closed (-1): its frame cannot be finished. Masked in place only
 * when whole (masking a cut-through one in place would garble the bytes
 * the core still reads; a cut-through one from the client's end is masked into a
 * copy, a batch at a time). 1 when q and what was
 * unsent are all written, 0 when the rest waits (lws calls back), -1 when
 * the socket failed or is to be closed now. */
int wsleg_write(struct wsleg *l, struct queue *q);
/* Has the socket bytes it has not taken yet? */
static inline int wsleg_pending(const struct wsleg *l)
{
	return l->unsent.off < l->unsent.len;
}
/* The close frame to send when the time comes: the first one asked wins. */
void wsleg_close_with(struct wsleg *l, uint16_t code, const char *reason);
/* Sends the close frame (after what the socket has not taken yet). Returns
 * -1 when the socket is to be closed now, 0 when that waits: for the rest
 * of the frame, or, the server's end, for the client's answer. */
int wsleg_close(struct wsleg *l);

#endif
