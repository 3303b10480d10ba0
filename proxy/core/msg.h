/* msg: whole CDP messages in buffers with headroom for a leg's framing
 * (queue.h: the FIFOs they wait in). Pure: no sockets, no framing (how much
 * of a message is written is its leg's to know). */
#ifndef CDPPROXY_MSG_H
#define CDPPROXY_MSG_H

#include <stddef.h>
#include <stdint.h>

/* Room before a message's bytes, for a leg to put its framing in and write
 * it and the message at once (the WebSocket leg's header, at most 14 bytes). */
#define MSG_PRE 16

/* What a message is: CDP text, binary (passed on, not scanned), or a leg's
 * own, queued by a leg for its own peer (the WebSocket leg's pongs). */
enum msg_type { MSG_TEXT = 1, MSG_BINARY = 2, MSG_LEG = 3 };

struct msg {
	struct msg *next;
	size_t len, cap;              /* cap: room in buf after MSG_PRE */
	size_t room;                  /* what buf holds after MSG_PRE (>= cap: the spare, msg.c) */
	int type;                     /* enum msg_type */
	int cls;                      /* its block's size class (msg.c), -1: none */
	uint64_t not_before_us;       /* delay: not written before (monotonic) */
	/* Cut through (proxy/ws/README.md): queued before it is whole, its
	 * bytes written as they come. want: its length once whole (len < want
	 * while they come); 0 for a message queued whole. cut: its sender went
	 * away first, it never will be whole. */
	size_t want;
	int cut;
	unsigned char *buf;           /* MSG_PRE headroom, then the message */
};

/* The message's bytes. */
#define MSG_DATA(m) ((m)->buf + MSG_PRE)

/* A message with room for len bytes after MSG_PRE, of type MSG_TEXT. */
struct msg *msg_new(size_t len);
void msg_free(struct msg *m);
/* Room for cap bytes in m, keeping its len bytes and its headroom (a
 * message growing over more reads or frames, maybe framed already). A
 * large message grows into the buffer the last large message left (the
 * spare) when that is large enough: its pages are in memory already. */
void msg_grow(struct msg *m, size_t cap);
/* Called on every tick of the loop: gives the spare back once no large
 * message has taken it for a while (msg.c: 25 calls). */
void msg_spare_trim(void);
/* The spare's bytes kept now (0: none). */
size_t msg_spare_bytes(void);
/* Is m whole: not a cut-through message whose bytes are still coming? */
static inline int msg_whole(const struct msg *m)
{
	return m->len >= m->want;
}

/* What m counts for in a queue's bytes: the memory it holds, not its
 * length, so that a flood of empty pongs fills a queue as surely as a
 * flood of events does. */
static inline size_t msg_cost(const struct msg *m)
{
	return sizeof *m + MSG_PRE + m->cap;
}


#endif
