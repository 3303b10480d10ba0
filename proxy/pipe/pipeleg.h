/* pipeleg: one peer over a pair of pipe fds (Chromium's --remote-debugging-pipe
 * framing): bytes in, whole NUL-ended messages out, or a large one handed
 * up while it still comes (cut through); and the core's queue for that
 * peer written back as NUL-ended messages. No event loop of its own: the
 * caller says when to read and write. */
#ifndef CDPPROXY_PIPELEG_H
#define CDPPROXY_PIPELEG_H

#define PIPELEG_READ_CHUNK (256 * 1024)   /* room made before each read */

#include <stddef.h>
#include <stdint.h>

#include "queue.h"

/* What a leg hands up. side is the caller's tag for the leg (pipeleg_init),
 * opaque here: the core's enum side. deliver, begin and grew are the leg
 * contract's reports as they are (leg.h: leg_deliver, leg_begin, leg_grew,
 * with ctx the core connection). */
struct pipeleg_ops {
	/* A whole message (without its NUL), taken; or one begin took, whole
	 * now (m->want == m->len), the queue's still. */
	void (*deliver)(void *ctx, int side, struct msg *m);
	/* Cut through (optional, NULL: never): a message with no NUL yet of
	 * which m->len bytes (over cut_min) are in (total: 0, not known). 1:
	 * taken, queued for the other side now (m->want is SIZE_MAX): the leg
	 * goes on filling it (grew), sets want to its length at its NUL and
	 * hands it to deliver. 0: no, deliver it whole. -1: ask again with more. */
	int (*begin)(void *ctx, int side, struct msg *m, uint64_t total);
	/* More of a message begin took is in (old_cost: its memory before), or
	 * it was cut (m->cut: it never will be whole): its writer is to run. */
	void (*grew)(void *ctx, int side, struct msg *m, size_t old_cost);
	/* A message longer than max_message was refused: bytes were discarded,
	 * from its start up to its NUL (or to the end of input). */
	void (*refused)(void *ctx, int side, uint64_t bytes);
};

struct pipeleg {
	int side;
	int rfd, wfd;                 /* the caller's: the leg never closes them */
	const struct pipeleg_ops *ops;
	void *ctx;
	uint64_t max_message;
	char *in;                     /* bytes read, not yet a whole message */
	size_t in_len, in_cap;
	uint64_t discarding;          /* >0: inside a refused message, bytes so far */
	size_t head_sent;             /* of the queue's head: its bytes, then its NUL, written */
	uint64_t cut_min;             /* a message with more bytes than this and no NUL is
				       * offered to begin; 0: none is */
	struct msg *rx;               /* the cut-through message being read (the queue's) */
	int rx_asked;                 /* begin said no to the message being read: not again */
	int dropping;                 /* skipping the rest of a released one (pipeleg_rx_release) */
	int hold;                     /* the owner's: read nothing now (pipeleg_read returns;
				       * leg_ops.flow) */
	uint64_t msgs_in, bytes_in, msgs_out, bytes_out, refused, refused_bytes;
};

/* Sets the leg up on rfd (read from the peer) and wfd (written to it), both
 * made non-blocking and close-on-exec; either may be -1. */
void pipeleg_init(struct pipeleg *l, int side, int rfd, int wfd, uint64_t max_message,
		  const struct pipeleg_ops *ops, void *ctx);
/* Reads what rfd has now and delivers each whole message; a message that
 * grows past max_message without a NUL is refused, never buffered whole
 * (one cut through by then is cut: m->cut). A message over cut_min still
 * coming is offered to ops->begin, and once taken read straight into its
 * own buffer. 1 while rfd stays open, 0 at its end (a message cut short
 * there is dropped, or cut, and counted as refused), -1 on an error (in
 * err). */
int pipeleg_read(struct pipeleg *l, char *err, size_t errlen);
/* Writes the messages of q, each with a NUL, as far as wfd takes them,
 * taking each one written whole off q (queue_free_head). A cut-through message
 * (msg.h: want) is written as far as its bytes have come, its NUL once it
 * is whole; nothing behind it goes before. One whose sender went (cut) is
 * dropped if none of it went, else the peer cannot be given a whole
 * message any more: -1. 1 when q is empty, 2 when what is left waits for
 * a cut-through message's bytes (ops->grew says when they come), 0 when
 * wfd is full, -1 when the peer is gone (EPIPE and the like, in err). */
int pipeleg_write(struct pipeleg *l, struct queue *q, char *err, size_t errlen);
/* The message being read is cut through: the leg lets go of it (its rest
 * is read and thrown away) and returns it; else NULL. For when its queue
 * is about to be dropped, or its reader goes. */
struct msg *pipeleg_rx_release(struct pipeleg *l);
/* Is a cut-through message being read? */
static inline int pipeleg_streaming(const struct pipeleg *l)
{
	return l->rx != NULL;
}
/* Frees what the leg holds (not its fds, nor a cut-through message: the
 * queue's). */
void pipeleg_free(struct pipeleg *l);

#endif
