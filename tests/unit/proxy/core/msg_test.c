/* msg_test: message buffers: small ones pooled by class, large ones grown
 * as their bytes come, and the spare a large message leaves for the next
 * (msg.c): reused only when large enough, bytes kept, the largest kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "tap.h"

#define MiB ((size_t)1 << 20)

/* A message grown to len bytes the way a leg grows one: doubling from
 * 1 MiB, each step's bytes written (pattern: its offset). */
static struct msg *grown(size_t len, unsigned char seed)
{
	struct msg *m = msg_new(MiB);

	while (m->len < len) {
		size_t n = len - m->len < 256 * 1024 ? len - m->len : 256 * 1024;
		if (m->len + n > m->cap)
			msg_grow(m, 2 * m->cap);
		for (size_t i = 0; i < n; i++)
			MSG_DATA(m)[m->len + i] = (unsigned char)(seed + ((m->len + i) >> 12));
		m->len += n;
	}
	return m;
}

static int intact(const struct msg *m, unsigned char seed)
{
	for (size_t i = 0; i < m->len; i += 4093)
		if (MSG_DATA(m)[i] != (unsigned char)(seed + (i >> 12)))
			return 0;
	return 1;
}

int main(void)
{
	struct msg *a, *b, *c, *s;
	unsigned char *buf;

	s = msg_new(100);
	ok(s->cap >= 100 && s->room == s->cap && s->type == MSG_TEXT, "a small message: cap %zu, room alike", s->cap);
	msg_free(s);

	a = grown(20 * MiB, 1);
	ok(a->cap >= 20 * MiB && a->room >= a->cap && intact(a, 1), "20 MiB grown, bytes kept");
	buf = a->buf;
	msg_free(a);   /* the spare now */

	b = grown(9 * MiB, 2);
	ok(b->buf == buf && intact(b, 2), "the next large message grows into the spare, bytes kept");
	ok(b->cap < b->room && b->cap >= 9 * MiB,
	   "its cap is what it asked (%zu MiB), not the spare's room (%zu MiB): the queue counts cap",
	   b->cap / MiB, b->room / MiB);
	{
		size_t room = b->room;
		msg_grow(b, 2 * b->cap);
		ok(b->buf == buf && b->room == room && b->cap <= room && intact(b, 2),
		   "growing within the spare's room does not move it");
	}
	c = grown(3 * MiB, 3);
	ok(c->buf != buf && intact(c, 3), "while it is taken, another message grows its own buffer");
	{
		struct msg *small = msg_new(100);
		size_t kept = msg_spare_bytes();
		msg_free(c);   /* 4 MiB: the spare for now */
		msg_grow(small, 8192);
		ok(msg_spare_bytes() == kept + 4 * MiB + 16 && small->room == 8192,
		   "a small message growing under 1 MiB leaves the spare alone");
		msg_free(small);
		c = msg_new(2 * MiB);
		msg_grow(c, 3 * MiB);
		ok(msg_spare_bytes() == 0, "a large one takes it");
	}
	msg_free(c);   /* 4 MiB: the spare */
	msg_free(b);   /* larger: replaces it */
	c = grown(17 * MiB, 4);
	ok(c->buf == buf && intact(c, 4), "the largest buffer freed is the spare kept");
	msg_free(c);
	c = grown(40 * MiB, 5);
	ok(c->buf != buf && intact(c, 5), "a message larger than the spare grows its own");
	msg_free(c);
	ok(msg_spare_bytes() >= 40 * MiB, "and, freed, it is the spare (%zu MiB)", msg_spare_bytes() / MiB);
	for (int i = 0; i < 24; i++)
		msg_spare_trim();
	ok(msg_spare_bytes() >= 40 * MiB, "kept over 24 ticks");
	msg_spare_trim();
	ok(msg_spare_bytes() == 0, "given back at the 25th tick untaken");
	c = grown(2 * MiB, 6);
	msg_free(c);
	ok(msg_spare_bytes() >= 2 * MiB, "the next large message freed is the spare again");
	for (int i = 0; i < 20; i++)
		msg_spare_trim();
	c = grown(3 * MiB, 7);
	msg_free(c);
	for (int i = 0; i < 20; i++)
		msg_spare_trim();
	ok(msg_spare_bytes() >= 3 * MiB, "a spare taken and left again starts its 25 ticks anew");
	return tap_done();
}
