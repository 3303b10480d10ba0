/* pipeleg: one peer over a pair of pipe fds (Chromium's --remote-debugging-pipe
 * framing): bytes in, whole NUL-ended messages out; and the core's queue
 * for that peer written back as NUL-ended messages. No event loop of its
 * own: the caller says when to read and write. */
#ifndef CDPPROXY_PIPELEG_H
#define CDPPROXY_PIPELEG_H

#include <stddef.h>
#include <stdint.h>

#include "queue.h"

/* What a leg hands up. side is the caller's tag for the leg (pipeleg_init),
 * opaque here: the core's enum side. */
struct pipeleg_ops {
	/* A whole message (without its NUL), valid during the call only. */
	void (*deliver)(void *ctx, int side, const char *buf, size_t len);
	/* A message longer than max_message was refused: bytes were discarded,
	 * from its start up to its NUL (or to the end of input). */
	void (*refused)(void *ctx, int side, uint64_t bytes);
	/* The head of the queue being written is written whole (its NUL too). */
	void (*written)(void *ctx, int side);
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
	uint64_t msgs_in, bytes_in, msgs_out, bytes_out, refused, refused_bytes;
};

/* Sets the leg up on rfd (read from the peer) and wfd (written to it), both
 * made non-blocking and close-on-exec; either may be -1. */
void pipeleg_init(struct pipeleg *l, int side, int rfd, int wfd, uint64_t max_message,
		  const struct pipeleg_ops *ops, void *ctx);
/* Reads what rfd has now and delivers each whole message; a message that
 * grows past max_message without a NUL is refused, never buffered whole.
 * 1 while rfd stays open, 0 at its end (a message cut short there is
 * dropped and counted as refused), -1 on an error (in err). */
int pipeleg_read(struct pipeleg *l, char *err, size_t errlen);
/* Writes the messages of q, each with a NUL, as far as wfd takes them;
 * ops->written takes each one written whole off q. 1 when q is empty, 0
 * when wfd is full, -1 when the peer is gone (EPIPE and the like, in err). */
int pipeleg_write(struct pipeleg *l, struct queue *q, char *err, size_t errlen);
/* Frees what the leg holds (not its fds). */
void pipeleg_free(struct pipeleg *l);

#endif
