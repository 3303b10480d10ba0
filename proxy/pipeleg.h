/* pipeleg: one peer over a pair of pipe fds (Chromium's --remote-debugging-pipe
 * framing): bytes in, whole NUL-ended messages out, and back. */
#ifndef CDPPROXY_PIPELEG_H
#define CDPPROXY_PIPELEG_H

#include <stddef.h>
#include <stdint.h>

/* What a leg hands up. side is the caller's tag for the leg (pipeleg_init),
 * opaque here: the core's enum side. */
struct pipeleg_ops {
	/* A whole message (without its NUL), valid during the call only. */
	void (*deliver)(void *ctx, int side, const char *buf, size_t len);
	/* A message longer than max_message was refused: bytes were discarded,
	 * from its start up to its NUL (or to the end of input). */
	void (*refused)(void *ctx, int side, uint64_t bytes);
};

/* Queued outgoing bytes: messages with their NUL, in order. */
struct pipeleg_block {
	struct pipeleg_block *next;
	size_t len, off;              /* bytes in data; written so far */
	char data[];
};

struct pipeleg {
	int side;
	int rfd, wfd;                 /* -1 once closed */
	const struct pipeleg_ops *ops;
	void *ctx;
	uint64_t max_message;
	char *in;                     /* bytes read, not yet a whole message */
	size_t in_len, in_cap;
	uint64_t discarding;          /* >0: inside a refused message, bytes so far */
	int paused;                   /* pipeleg_wants_read says no */
	int closing;                  /* close wfd once the queue is empty */
	struct pipeleg_block *head, *tail;
	size_t queued;                /* bytes in the blocks, not yet written */
	uint64_t msgs_in, bytes_in, msgs_out, bytes_out, refused, refused_bytes;
};

/* Sets the leg up on rfd (read from the peer) and wfd (written to it), both
 * made non-blocking and owned by the leg from now on; either may be -1. */
void pipeleg_init(struct pipeleg *l, int side, int rfd, int wfd, uint64_t max_message,
		  const struct pipeleg_ops *ops, void *ctx);
/* Reads what rfd has now and delivers each whole message; a message that
 * grows past max_message without a NUL is refused, never buffered whole.
 * 1 while rfd stays open, 0 at its end (then rfd is closed; a message cut
 * short there is dropped and counted as refused), -1 on an error (in err). */
int pipeleg_read(struct pipeleg *l, char *err, size_t errlen);
/* Queues buf (len bytes) and a NUL for the peer: the leg takes a copy. */
void pipeleg_send(struct pipeleg *l, const char *buf, size_t len);
/* Writes what wfd takes now. 0, or -1 when the peer is gone (EPIPE and the
 * like; the queue is dropped and wfd closed) with the reason in err. */
int pipeleg_flush(struct pipeleg *l, char *err, size_t errlen);
/* Bytes queued for the peer: what the other side's reading is paused on. */
size_t pipeleg_queued(const struct pipeleg *l);
/* Stops (1) or resumes (0) reading, for backpressure. */
void pipeleg_pause(struct pipeleg *l, int paused);
/* No more messages for the peer: wfd is closed once the queue is written,
 * so the peer reads its end. */
void pipeleg_close_write(struct pipeleg *l);
/* For a poll loop: is rfd worth polling for input, wfd for output? */
int pipeleg_wants_read(const struct pipeleg *l);
int pipeleg_wants_write(const struct pipeleg *l);
/* The peer stopped reading for good (poll said so): the queue is dropped
 * and wfd closed. */
void pipeleg_peer_gone(struct pipeleg *l);
/* Closes both fds and frees what is queued. */
void pipeleg_free(struct pipeleg *l);

#endif
