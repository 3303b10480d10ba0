/* msg: whole CDP messages in buffers with framing headroom, pooled by size
 * class. Pure: no sockets, no framing. */
#include "msg.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Small messages (most CDP traffic) live in one block with their struct, of
 * the smallest size class that holds them (each class a third to a half
 * larger than the one before: a 1 KiB event takes a 1 KiB block, not a
 * 4 KiB one), and blocks are kept for reuse: no malloc per message on the
 * hot path. What is kept is bounded in bytes, all classes together. */
#define MSG_SMALL 4096
#define MSG_POOL_BYTES (4 * 1024 * 1024)
static const size_t msg_class_cap[] = { 256, 384, 512, 768, 1024, 1536, 2048, 3072, MSG_SMALL };
#define MSG_CLASSES (sizeof msg_class_cap / sizeof msg_class_cap[0])
static struct msg *msg_pool[MSG_CLASSES];
static size_t msg_pooled_bytes;

/* The buffer of the largest recent message over MSG_SPARE_MIN, kept when
 * it is freed for the next large message to grow into. A new buffer of
 * MiBs costs more to fill than to copy: every page is faulted in and
 * zeroed as the message comes, and on our 2-core VM that was most of what
 * relaying a 117 MiB event cost (bench-large, one run: 496 ms with no
 * spare, 332 with one handed back by MADV_FREE, 85 with this one; 119
 * direct). Given back whole once no large message has
 * taken it for MSG_SPARE_TICKS of msg_spare_trim's calls (the loop's
 * ticks: 5 s). Handing its pages back lazily instead (MADV_FREE) kept
 * them mapped but the next message faulted them in again: no gain. */
#define MSG_SPARE_MIN ((size_t)1 << 20)
#define MSG_SPARE_TICKS 25
static unsigned char *spare;
static size_t spare_room;
static unsigned spare_idle;

/* Is m's buffer the one in its own block (not a large or grown one)? */
static int msg_inline(const struct msg *m)
{
	return m->buf == (const unsigned char *)(m + 1);
}

/* The bytes of a block of class k. */
static size_t msg_block(int k)
{
	return sizeof(struct msg) + MSG_PRE + msg_class_cap[k];
}

struct msg *msg_new(size_t len)
{
	struct msg *m;
	int k = -1;

	if (len <= MSG_SMALL)
		for (k = 0; msg_class_cap[k] < len; k++)
			;
	if (k >= 0 && (m = msg_pool[k])) {
		msg_pool[k] = m->next;
		msg_pooled_bytes -= msg_block(k);
	} else {
		m = xmalloc(k >= 0 ? msg_block(k) : sizeof *m);
	}
	memset(m, 0, sizeof *m);
	m->cls = k;
	m->buf = k >= 0 ? (unsigned char *)(m + 1) : xmalloc(MSG_PRE + len);
	m->cap = m->room = k >= 0 ? msg_class_cap[k] : len;
	m->type = MSG_TEXT;
	return m;
}

/* A large buffer is done with: kept as the spare if it is the largest. */
static void spare_keep(unsigned char *buf, size_t room)
{
	if (room < MSG_SPARE_MIN || room < spare_room) {
		free(buf);
		return;
	}
	free(spare);
	spare = buf;
	spare_room = room;
	spare_idle = 0;
}

size_t msg_spare_bytes(void)
{
	return spare ? MSG_PRE + spare_room : 0;
}

void msg_spare_trim(void)
{
	if (spare && ++spare_idle >= MSG_SPARE_TICKS) {
		free(spare);
		spare = NULL;
		spare_room = 0;
	}
}

void msg_free(struct msg *m)
{
	if (!msg_inline(m))   /* large, or grown (msg_grow) */
		spare_keep(m->buf, m->room);
	if (m->cls >= 0 && msg_pooled_bytes + msg_block(m->cls) <= MSG_POOL_BYTES) {
		m->next = msg_pool[m->cls];
		msg_pool[m->cls] = m;
		msg_pooled_bytes += msg_block(m->cls);
	} else {
		free(m);
	}
}

void msg_grow(struct msg *m, size_t cap)
{
	unsigned char *buf;

	if (cap <= m->room) {   /* in the spare already */
		m->cap = cap;
		return;
	}
	if (spare && spare_room >= cap && cap >= MSG_SPARE_MIN) {   /* a small one keeps its own */
		memcpy(spare, m->buf, MSG_PRE + m->len);
		if (!msg_inline(m))
			free(m->buf);
		m->buf = spare;
		m->room = spare_room;
		spare = NULL;
		spare_room = 0;
	} else if (!msg_inline(m)) {   /* a large block grows in place, or is remapped */
		m->buf = xrealloc(m->buf, MSG_PRE + cap);
		m->room = cap;
	} else {
		buf = xmalloc(MSG_PRE + cap);
		memcpy(buf, m->buf, MSG_PRE + m->len);
		m->buf = buf;
		m->room = cap;
	}
	m->cap = cap;
}
