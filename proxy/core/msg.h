/* msg: whole CDP messages in buffers with framing headroom (queue.h: the
 * FIFOs they wait in). Pure: no sockets, no framing. */
#ifndef CDPPROXY_MSG_H
#define CDPPROXY_MSG_H

#include <stddef.h>
#include <stdint.h>

/* Room before a message's bytes, for a leg to put its frame header in (a
 * WebSocket header is at most 14 bytes) and write header and message at once. */
#define MSG_PRE 16


/* The smallest message kind a leg tells apart (the WebSocket opcodes). */
enum msg_type { MSG_TEXT = 1, MSG_BINARY = 2, MSG_PONG = 10 };

struct msg {
	struct msg *next;
	size_t len, cap;              /* cap: room in buf after MSG_PRE */
	size_t sent;                  /* bytes of frame header + message written */
	size_t hdr_len;               /* its frame header, in the headroom once framed; 0: not yet */
	int type;                     /* enum msg_type */
	int cls;                      /* its block's size class (msg.c), -1: none */
	uint64_t not_before_us;       /* delay: not written before (monotonic) */
	unsigned char *buf;           /* MSG_PRE headroom, then the message */
};

/* The message's bytes. */
#define MSG_DATA(m) ((m)->buf + MSG_PRE)

/* A message with room for len bytes after MSG_PRE, of type MSG_TEXT. */
struct msg *msg_new(size_t len);
void msg_free(struct msg *m);
/* Room for cap bytes in m, keeping its len bytes (a message growing over
 * more reads or frames). */
void msg_grow(struct msg *m, size_t cap);
/* What m counts for in a queue's bytes: the memory it holds, not its
 * length, so that a flood of empty pongs fills a queue as surely as a
 * flood of events does. */
static inline size_t msg_cost(const struct msg *m)
{
	return sizeof *m + MSG_PRE + m->cap;
}

#endif
