/* fuzz_pipe: libFuzzer driver for the pipe framing (pipeleg.c): any bytes,
 * read through a real pipe in chunks of any size under any max_message,
 * give exactly the input's NUL-ended messages in order (those over the
 * maximum refused with their whole length, the unended tail refused at the
 * end), the buffer never past max_message and a read's room; and those
 * messages written back by pipeleg_write are the same bytes with NULs.
 * Input: byte 0 picks max_message, byte 1 seeds the chunk sizes, the rest
 * is what the peer writes. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "pipeleg.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* pipeleg.c's READ_CHUNK: the room made before each read. */
#define ROOM (256 * 1024)

/* What the leg handed up: 'd' deliver (the bytes), 'r' refused (a count). */
struct ev {
	char kind;
	size_t len;
	const uint8_t *bytes;        /* 'd': into the expected input, or a copy */
};

struct got {
	struct ev *v;
	size_t n;
	struct queue q;              /* the delivered messages, to write back */
};

static void fail(const char *what, size_t a, size_t b)
{
	fprintf(stderr, "fuzz_pipe: %s (%zu, %zu)\n", what, a, b);
	abort();
}

static void on_deliver(void *ctx, int side, struct msg *m)
{
	struct got *g = ctx;
	size_t len = m->len;
	uint8_t *copy = malloc(len + 1);

	if (side != 7)
		fail("deliver: not the side given", (size_t)side, 7);
	memcpy(copy, MSG_DATA(m), len);
	g->v = realloc(g->v, (g->n + 1) * sizeof *g->v);
	g->v[g->n++] = (struct ev){ 'd', len, copy };
	queue_push(&g->q, m);
}

static void on_refused(void *ctx, int side, uint64_t bytes)
{
	struct got *g = ctx;

	(void)side;
	g->v = realloc(g->v, (g->n + 1) * sizeof *g->v);
	g->v[g->n++] = (struct ev){ 'r', (size_t)bytes, NULL };
}

static const struct pipeleg_ops ops = { .deliver = on_deliver, .refused = on_refused };

static int drain(int fd, uint8_t *buf, size_t cap, size_t *len)
{
	ssize_t n;

	while ((n = read(fd, buf + *len, cap - *len)) > 0)
		*len += (size_t)n;
	return n == 0 ? 0 : errno == EAGAIN ? 1 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Small maxima reach the refusals; the last is the wrapper's default order. */
	static const uint64_t maxima[8] = { 0, 1, 2, 5, 16, 100, 4096, 100 << 20 };
	struct pipeleg l;
	struct got g = { 0 };
	const uint8_t *in;
	size_t n, off = 0, exp_n = 0, start = 0, out_len = 0, want_out = 0;
	uint64_t max;
	uint32_t seed;
	int in_fds[2], out_fds[2], rc;
	char err[256];
	uint8_t *out;

	if (size < 2)
		return 0;
	max = maxima[data[0] & 7];
	seed = data[1] * 2654435761u + 1;
	in = data + 2;
	n = size - 2;
	if (pipe(in_fds) < 0 || pipe(out_fds) < 0)
		abort();
	fcntl(in_fds[1], F_SETFL, O_NONBLOCK);
	pipeleg_init(&l, 7, in_fds[0], out_fds[1], max, &ops, &g);
	/* The peer writes in chunks of 1 byte up to 4 KiB, the leg reads after each. */
	while (off < n) {
		size_t chunk;
		seed = seed * 1103515245u + 12345u;
		chunk = (seed >> 16) % ((seed >> 8 & 1) ? 4096 : 8) + 1;
		if (chunk > n - off)
			chunk = n - off;
		if (write(in_fds[1], in + off, chunk) != (ssize_t)chunk)
			fail("the pipe did not take a chunk", chunk, off);
		off += chunk;
		if ((rc = pipeleg_read(&l, err, sizeof err)) != 1)
			fail("pipeleg_read before the end is not 1", (size_t)rc, off);
		if (l.in_cap > max + ROOM)
			fail("the buffer grew past max_message and a read's room", l.in_cap, (size_t)max);
	}
	close(in_fds[1]);
	if ((rc = pipeleg_read(&l, err, sizeof err)) != 0)
		fail("pipeleg_read at the end is not 0", (size_t)rc, n);

	/* The oracle: the input split at its NULs. */
	for (size_t i = 0; i <= n; i++) {
		size_t len = i - start;
		struct ev *e;
		if (i < n && in[i])
			continue;
		if (i == n && !len)
			break;
		if (exp_n >= g.n)
			fail("fewer messages and refusals than the input has", g.n, exp_n);
		e = &g.v[exp_n++];
		if (i < n && len <= max) {
			if (e->kind != 'd' || e->len != len || memcmp(e->bytes, in + start, len))
				fail("a message is not the input's bytes up to its NUL", start, len);
			want_out += len + 1;
		} else if (e->kind != 'r' || e->len != len) {
			/* over max_message, or the tail the end cut short: refused, all of it */
			fail("a message over max_message (or cut short) is not refused whole", start, e->len);
		}
		start = i + 1;
	}
	if (exp_n != g.n)
		fail("more messages and refusals than the input has", g.n, exp_n);
	if (l.msgs_in + l.refused != g.n)
		fail("the leg's counters disagree with what it handed up", (size_t)(l.msgs_in + l.refused), g.n);

	/* Written back: the messages, each with its NUL. */
	fcntl(out_fds[0], F_SETFL, O_NONBLOCK);
	out = malloc(want_out + 1);
	for (int rounds = 0; g.q.head; rounds++) {
		if ((rc = pipeleg_write(&l, &g.q, err, sizeof err)) < 0 || rounds > 1000)
			fail("pipeleg_write fails or stalls", (size_t)rc, out_len);
		if (drain(out_fds[0], out, want_out + 1, &out_len) < 0)
			fail("reading back failed", out_len, want_out);
	}
	drain(out_fds[0], out, want_out + 1, &out_len);
	if (out_len != want_out || l.msgs_out != l.msgs_in)
		fail("pipeleg_write wrote other than the messages and their NULs", out_len, want_out);
	for (size_t i = 0, k = 0; i < g.n; i++) {
		if (g.v[i].kind != 'd')
			continue;
		if (memcmp(out + k, g.v[i].bytes, g.v[i].len) || out[k + g.v[i].len])
			fail("a message written back differs", i, k);
		k += g.v[i].len + 1;
	}

	free(out);
	for (size_t i = 0; i < g.n; i++)
		free((void *)g.v[i].bytes);
	free(g.v);
	queue_clear(&g.q);
	pipeleg_free(&l);
	close(in_fds[0]);
	close(out_fds[0]);
	close(out_fds[1]);
	return 0;
}
