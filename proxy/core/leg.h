/* leg: the contract between the message core and its legs, and all a leg
 * calls of the core: what a leg reports (a connection opened, a message
 * whole or begun or grown, a side that can take more, a side gone), named
 * leg_*, and what the core asks of a leg (struct leg_ops: write side S,
 * read side S or not, how much of a message went), which each leg
 * implements once for all its connections. With them come the messages and
 * their FIFOs (msg.h, queue.h), and the connection the leg embeds (struct
 * core_conn, core.h: its fields are read, its core_* functions are not
 * called; 02-calls.t checks that with nm).
 *
 * Everything between a report and an ask is the core's, written once for
 * every leg: routing, the byte budget that pauses a side, cut-through and
 * its read-ahead hold, and the writes at the end of the loop's round. No
 * report calls back into the leg before it returns but for leg_ops (never
 * into the file that reported), and no ask is made of a leg while one of
 * its writes is under way: a message enters no file twice. */
#ifndef CDPPROXY_LEG_H
#define CDPPROXY_LEG_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "msg.h"
#include "queue.h"
#include "side.h"

/* What the core asks of a leg, for one of its connections. */
struct leg_ops {
	/* Write what is queued for side s (cc->out[s]) as far as its peer takes
	 * it now, taking each message written whole off the queue
	 * (queue_free_head); or, when that must wait (the peer is full, not
	 * connected yet), ask to be told when it can take more
	 * (leg_writable). writable: the leg's own leg_writable asked, else the
	 * end of the loop's round. -1: side s is to be closed now (only
	 * leg_writable passes that back to the leg); else 0. */
	int (*write)(struct core_conn *cc, enum side s, int writable);
	/* Read side s's peer (on) or not: the budget's pause and the
	 * read-ahead hold, as the core sums them up; asked on a change only. */
	void (*flow)(struct core_conn *cc, enum side s, int on);
	/* How many bytes of m, a cut-through message queued for side s, its
	 * peer has been written. Read in place: it must call nothing. NULL:
	 * the leg takes whole messages only, and nothing is cut through to it. */
	size_t (*sent)(const struct core_conn *cc, enum side s, const struct msg *m);
	/* For a connection whose two sides are two legs' endpoints
	 * (leg_conn_side); NULL in a leg that has both. gone, asked of the
	 * connection's owner (the leg that opened it): side s's endpoint, the
	 * other leg's, is gone (code, reason): close the owner's side and free
	 * cc as when a side of its own goes. close, asked of side s's leg by
	 * the owner: side s is closed (the other side went): forget cc, which
	 * is freed once this returns. */
	void (*gone)(struct core_conn *cc, enum side s, int code, const char *reason);
	void (*close)(struct core_conn *cc, enum side s, int code, const char *reason);
};

/* A connection's life. */
/* Adds cc (zeroed by the caller, embedded in the leg's own struct) for a
 * connection to path, whose asks go to ops. Its client is cc->client. */
void leg_conn_init(struct core *core, struct core_conn *cc, const struct leg_ops *ops,
		   const char *path);
/* Side s of cc is another leg's endpoint: the core's asks for side s go
 * to ops (the BiDi mapper's channel, proxy/mapper: its client side rides
 * on another connection, its Chrome side is the WebSocket leg's). */
void leg_conn_side(struct core_conn *cc, enum side s, const struct leg_ops *ops);
/* The connection opened: the "open" record (core.h, core_report_open). */
void leg_report_open(struct core_conn *cc, const char *leg, const char *upstream);
/* Both sides are set: what the policy injects for a page goes out. */
void leg_conn_ready(struct core_conn *cc);
/* Side s is closed, by whom, with code and reason: the "close" record. A
 * message it was cutting through is not the core's to wait for any more. */
void leg_report_close(struct core_conn *cc, enum side s, const char *by, int code,
		      const char *reason);
/* Nothing more goes to side s; with drop what is queued for it is freed
 * too (it is gone), a message cut through to it with it. */
void leg_shut(struct core_conn *cc, enum side s, int drop);
/* Removes cc and frees what it holds (not cc itself). */
void leg_conn_free(struct core_conn *cc);

/* Messages. side: the peer's (the void * of these is the connection: the
 * shape an endpoint's table of reports takes, wsleg.h, pipeleg.h). */
/* The bytes about to be handled were read now, by one read of token. */
void leg_read(struct core *core, const void *token);
/* A whole message from side `side` (taken): routed and queued for the
 * other side; one begun (leg_begin) is whole now. */
void leg_deliver(void *cc, int side, struct msg *m);
/* Cut through: the first m->len bytes of a message of total bytes (0: not
 * known until it ends) are in. 1: taken, queued for the other side now (the
 * leg fills it, reports leg_grew, sets m->want to its length once whole and
 * hands it to leg_deliver); 0: deliver it whole; -1: ask again with more
 * (route.h, route_begin). */
int leg_begin(void *cc, int side, struct msg *m, uint64_t total);
/* More of a message begun is in (old_cost: its memory before), or it was
 * cut (m->cut: it never will be whole). */
void leg_grew(void *cc, int side, struct msg *m, size_t old_cost);
/* A message from side `from` of at least `bytes` is over --max-message:
 * the "too_large" record (the leg reads it to its end and drops it). */
void leg_too_large(struct core_conn *cc, enum side from, uint64_t bytes);
/* The leg's own answer to side s (a pong: MSG_LEG), queued for s; s is
 * paused while its queue is over the budget. Taken. */
void leg_answer(struct core_conn *cc, enum side s, struct msg *m);

/* The BiDi mapper's channel (channel.h). cc is the mapper's connection,
 * whose client side is the channel. Message m, queued for that side, goes
 * to the mapper: on its host connection, inside the proxy's own command
 * (m is the leg's still: it takes it off its queue). */
void leg_channel_up(struct core_conn *cc, const struct msg *m);
/* The channel's side of cc is closed: its host connection forgets it. */
void leg_channel_gone(struct core_conn *cc);

/* Writes. */
/* Side s's peer can take more: what is queued for it is written now
 * (ops->write, writable 1); its return. */
int leg_writable(struct core_conn *cc, enum side s);
/* ... or at the end of this round of the loop. */
void leg_write_later(struct core_conn *cc, enum side s);
/* The loop's, at the end of each round (the log written): writes what the
 * round queued, each connection's sides in turn. */
void leg_round(struct core *core);

#endif
