/* pipeleg_test: NUL framing over a real pipe in random chunk sizes, a 64 MiB
 * message, refusal of a message with no NUL past max_message, a queue of
 * messages written in order through a pipe that fills, and large messages
 * cut through from one leg to another: written before they are whole, in
 * order, cut ones ending the output. */
#include <stdlib.h>
#include <unistd.h>
#include "util.h"
#include "pipeleg.h"

#include <fcntl.h>
#include <signal.h>

#include "tap.h"

#define MAX_MSGS 4096

struct got {
	size_t n;
	size_t len[MAX_MSGS];
	uint64_t sum[MAX_MSGS];       /* of the bytes, to compare without keeping them */
	int first[MAX_MSGS];          /* first byte, or -1 */
	uint64_t refused[16];
	size_t n_refused;
	size_t max_in_cap;
};

static uint64_t checksum(const char *p, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static void deliver(void *ctx, int side, struct msg *m)
{
	struct got *g = ctx;
	const char *buf = (const char *)MSG_DATA(m);
	size_t len = m->len;
	(void)side;
	if (g->n < MAX_MSGS) {
		g->len[g->n] = len;
		g->sum[g->n] = checksum(buf, len);
		g->first[g->n] = len ? (unsigned char)buf[0] : -1;
	}
	g->n++;
	msg_free(m);
}

static void refused(void *ctx, int side, uint64_t bytes)
{
	struct got *g = ctx;
	(void)side;
	if (g->n_refused < 16)
		g->refused[g->n_refused] = bytes;
	g->n_refused++;
}

static const struct pipeleg_ops ops = { .deliver = deliver, .refused = refused };

static void push(struct queue *q, const char *p, size_t len)
{
	struct msg *m = msg_new(len);

	memcpy(MSG_DATA(m), p, len);
	m->len = len;
	queue_push(q, m);
}

/* Writes len bytes of p into wfd in random chunks, letting the leg read after
 * each, as a peer writing at its own pace would. */
static void feed(struct pipeleg *l, int wfd, const char *p, size_t len, struct got *g)
{
	char err[128];
	size_t off = 0;

	while (off < len) {
		size_t chunk = 1 + (size_t)rand() % 70000;
		ssize_t n;
		if (chunk > len - off)
			chunk = len - off;
		n = write(wfd, p + off, chunk);
		if (n > 0)
			off += (size_t)n;
		if (pipeleg_read(l, err, sizeof err) < 0)
			break;
		if (l->in_cap > g->max_in_cap)
			g->max_in_cap = l->in_cap;
	}
}

static void open_leg(struct pipeleg *l, int *wfd, uint64_t max, struct got *g)
{
	int fds[2];

	if (pipe(fds) < 0)
		abort();
	memset(g, 0, sizeof *g);
	pipeleg_init(l, 7, fds[0], -1, max, &ops, g);
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	*wfd = fds[1];
}

static void test_random_splits(void)
{
	struct pipeleg l;
	struct got g;
	char *stream = xmalloc(8 << 20), err[128];
	size_t len = 0, n_msgs = 0, lens[1000];
	uint64_t sums[1000];
	int wfd, ok_all = 1, rc;

	open_leg(&l, &wfd, 256ull << 20, &g);
	for (n_msgs = 0; n_msgs < 1000; n_msgs++) {
		/* Mostly small, some empty, a few of hundreds of KiB. */
		size_t m = n_msgs % 97 == 0 ? (size_t)rand() % 400000 : n_msgs % 13 == 0 ? 0 : (size_t)rand() % 300;
		for (size_t i = 0; i < m; i++)
			stream[len + i] = (char)('a' + (i + n_msgs) % 26);
		lens[n_msgs] = m;
		sums[n_msgs] = checksum(stream + len, m);
		len += m;
		stream[len++] = '\0';
	}
	feed(&l, wfd, stream, len, &g);
	close(wfd);
	while ((rc = pipeleg_read(&l, err, sizeof err)) > 0)
		;
	is_int(g.n, n_msgs, "random chunks: every message delivered once");
	for (size_t i = 0; i < n_msgs && i < g.n; i++)
		ok_all &= g.len[i] == lens[i] && g.sum[i] == sums[i];
	ok(ok_all, "random chunks: each message whole and in order");
	is_int(g.n_refused, 0, "random chunks: nothing refused");
	is_int(rc, 0, "the end of input is said");
	close(l.rfd);
	pipeleg_free(&l);
	free(stream);
}

static void test_big(void)
{
	size_t big = 64u << 20;
	char *msg = xmalloc(big + 2), err[128];
	struct pipeleg l;
	struct got g;
	int wfd;

	for (size_t i = 0; i < big; i++)
		msg[i] = (char)('0' + i % 10);
	msg[big] = '\0';
	msg[big + 1] = 'x';   /* the start of a message cut by the end of input */
	open_leg(&l, &wfd, 256ull << 20, &g);
	feed(&l, wfd, msg, big + 2, &g);
	close(wfd);
	while (pipeleg_read(&l, err, sizeof err) > 0)
		;
	is_int(g.n, 1, "64 MiB: one message");
	ok(g.n == 1 && g.len[0] == big && g.sum[0] == checksum(msg, big), "64 MiB: whole and intact");
	is_int(g.n_refused, 1, "a message cut short by the end of input is refused");
	is_int(g.refused[0], 1, "... counting its one byte");
	ok(l.in_cap <= 4 * PIPELEG_READ_CHUNK, "buffer given back after the big message (%zu bytes)", l.in_cap);
	close(l.rfd);
	pipeleg_free(&l);
	free(msg);
}

static void test_oversized(void)
{
	uint64_t max = 1 << 20;
	size_t junk = 5u << 20;
	char *stream = xmalloc(junk + 16), err[128];
	struct pipeleg l;
	struct got g;
	int wfd;

	memset(stream, 'z', junk);
	stream[junk] = '\0';
	memcpy(stream + junk + 1, "{\"id\":1}", 9);   /* its NUL ends it */
	open_leg(&l, &wfd, max, &g);
	feed(&l, wfd, stream, junk + 10, &g);
	close(wfd);
	while (pipeleg_read(&l, err, sizeof err) > 0)
		;
	is_int(g.n_refused, 1, "oversized: refused once");
	is_int(g.refused[0], junk, "oversized: every byte up to its NUL discarded and counted");
	is_int(l.refused_bytes, junk, "oversized: counted in the leg too");
	is_int(g.n, 1, "oversized: the next message still arrives");
	ok(g.n == 1 && g.len[0] == 8 && g.first[0] == '{', "oversized: and it is whole");
	ok(g.max_in_cap <= max + PIPELEG_READ_CHUNK, "oversized: buffer never past max_message and a chunk "
	   "(%zu)", g.max_in_cap);
	close(l.rfd);
	pipeleg_free(&l);
	free(stream);
}

/* Messages queued beyond what the pipe holds come out whole and in order. */
static void test_writes(void)
{
	struct pipeleg l;
	struct queue q = { 0 };
	int fds[2], rc = 0;
	char err[128], *buf = xmalloc(4 << 20), *msg = xmalloc(300000);
	size_t got = 0, want = 0;
	int writes = 0, ok_all = 1;

	if (pipe(fds) < 0)
		abort();
	pipeleg_init(&l, 1, -1, fds[1], 1 << 20, &ops, NULL);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 10; i++) {
		memset(msg, 'A' + i, 300000);
		push(&q, msg, 300000 - (size_t)i);
		want += 300000 - (size_t)i + 1;
	}
	while (rc != 1 && writes++ < 10000) {
		ssize_t n;
		rc = pipeleg_write(&l, &q, err, sizeof err);
		while ((n = read(fds[0], buf + got, (4 << 20) - got)) > 0)
			got += (size_t)n;
	}
	is_int(rc, 1, "the queue is written: the pipe filled and drained (%d writes)", writes);
	ok(writes > 1, "... over more than one write");
	is_int(got, want, "every byte and NUL written");
	ok(q.head == NULL && q.bytes == 0, "each message left the queue once written");
	for (size_t off = 0, i = 0; i < 10; i++) {
		size_t len = 300000 - i;
		for (size_t k = 0; k < len; k++)
			ok_all &= buf[off + k] == 'A' + (int)i;
		ok_all &= buf[off + len] == '\0';
		off += len + 1;
	}
	ok(ok_all, "messages whole, in order, each ended by a NUL");
	is_int(l.msgs_out, 10, "ten messages counted out");
	close(fds[0]);
	close(fds[1]);
	pipeleg_free(&l);
	free(buf);
	free(msg);
}

static void test_peer_gone(void)
{
	struct pipeleg l;
	struct queue q = { 0 };
	int fds[2];
	char err[128] = "";

	if (pipe(fds) < 0)
		abort();
	signal(SIGPIPE, SIG_IGN);
	pipeleg_init(&l, 1, -1, fds[1], 1 << 20, &ops, NULL);
	close(fds[0]);
	push(&q, "{}", 2);
	is_int(pipeleg_write(&l, &q, err, sizeof err), -1, "a gone reader: the write fails");
	ok(strstr(err, "Broken pipe") != NULL, "... saying why (%s)", err);
	queue_clear(&q);
	close(fds[1]);
	pipeleg_free(&l);
}

/* Issue 27 #9: a max_message of 2^64-1 must not wrap the buffer's limit
 * (max_message + PIPELEG_READ_CHUNK): a 300 KB message still comes through. */
static void test_max_wrap(void)
{
	size_t len = 300000;
	char *msg = xmalloc(len + 1), err[128];
	struct pipeleg l;
	struct got g;
	int wfd;

	memset(msg, 'm', len);
	msg[len] = '\0';
	open_leg(&l, &wfd, UINT64_MAX, &g);
	feed(&l, wfd, msg, len + 1, &g);
	close(wfd);
	while (pipeleg_read(&l, err, sizeof err) > 0)
		;
	ok(g.n == 1 && g.len[0] == len, "max_message 2^64-1: a 300 KB message is delivered whole (%zu)",
	   g.n ? g.len[0] : 0);
	close(l.rfd);
	pipeleg_free(&l);
	free(msg);
}

/* Cut through: leg a reads, its messages go into q (a message that starts
 * with 'c' as it comes, others whole), leg b writes q. */
struct relay {
	struct pipeleg a, b;
	struct queue q;
	int in_w, out_r;
	int ends, early;              /* messages ended; bytes of one written before its end */
	char *out;
	size_t out_len, out_cap;
};

static void relay_deliver(void *ctx, int side, struct msg *m)
{
	struct relay *r = ctx;
	(void)side;
	if (m->want)   /* one begun: whole now, queued since its start */
		r->ends++;
	else
		queue_push(&r->q, m);
}

static int relay_begin(void *ctx, int side, struct msg *m, uint64_t total)
{
	struct relay *r = ctx;
	(void)side, (void)total;
	if (MSG_DATA(m)[0] != 'c')
		return 0;
	m->want = SIZE_MAX;
	queue_push(&r->q, m);
	return 1;
}

static void relay_grew(void *ctx, int side, struct msg *m, size_t old_cost)
{
	struct relay *r = ctx;
	(void)side;
	r->q.bytes += msg_cost(m) - old_cost;
}

static void relay_refused(void *ctx, int side, uint64_t bytes)
{
	(void)ctx, (void)side, (void)bytes;   /* the leg counts them */
}

static const struct pipeleg_ops relay_ops = {
	.deliver = relay_deliver, .refused = relay_refused, .begin = relay_begin, .grew = relay_grew
};

/* b writes what it can, and what came out is kept; returns b's answer. */
static int relay_pump(struct relay *r)
{
	char err[128];
	int rc = pipeleg_write(&r->b, &r->q, err, sizeof err);
	ssize_t n;

	for (;;) {
		if (r->out_cap - r->out_len < 65536) {
			r->out_cap = r->out_cap * 2 + 65536;
			r->out = xrealloc(r->out, r->out_cap);
		}
		if ((n = read(r->out_r, r->out + r->out_len, r->out_cap - r->out_len)) <= 0)
			break;
		r->out_len += (size_t)n;
	}
	if (r->a.rx && r->out_len && r->b.head_sent)
		r->early = 1;
	return rc;
}

static void relay_open(struct relay *r, uint64_t max)
{
	int in[2], out[2];

	memset(r, 0, sizeof *r);
	if (pipe(in) < 0 || pipe(out) < 0)
		abort();
	pipeleg_init(&r->a, 0, in[0], -1, max, &relay_ops, r);
	r->a.cut_min = 1000;
	pipeleg_init(&r->b, 1, -1, out[1], max, &relay_ops, r);
	r->in_w = in[1];
	r->out_r = out[0];
	fcntl(r->in_w, F_SETFL, O_NONBLOCK);
	fcntl(r->out_r, F_SETFL, O_NONBLOCK);
}

static void relay_close(struct relay *r)
{
	queue_clear(&r->q);
	close(r->a.rfd);
	close(r->b.wfd);
	close(r->out_r);
	pipeleg_free(&r->a);
	pipeleg_free(&r->b);
	free(r->out);
}

/* Feeds len bytes of p in random chunks, reading and writing after each. */
static int relay_feed(struct relay *r, const char *p, size_t len)
{
	char err[128];
	size_t off = 0;
	int rc = 1;

	while (off < len) {
		size_t chunk = 1 + (size_t)rand() % 40000;
		ssize_t n;
		if (chunk > len - off)
			chunk = len - off;
		if ((n = write(r->in_w, p + off, chunk)) > 0)
			off += (size_t)n;
		pipeleg_read(&r->a, err, sizeof err);
		if (rc >= 0)   /* once failed, b is done: its peer would be closed */
			rc = relay_pump(r);
	}
	return rc;
}

static void test_cut_through(void)
{
	struct relay r;
	char *stream = xmalloc(4 << 20), err[128];
	size_t len = 0;
	int n_cut = 0, rc;

	relay_open(&r, 1 << 20);
	for (int i = 0; i < 60; i++) {
		/* Small ones, large ones cut through ('c') and large ones stored ('s'). */
		size_t m = i % 5 == 1 ? 100000 + (size_t)rand() % 150000 : (size_t)rand() % 300;
		char first = i % 5 == 1 ? (i % 10 == 1 ? 'c' : 's') : 'x';
		n_cut += first == 'c';
		for (size_t k = 0; k < m; k++)
			stream[len + k] = k ? (char)('a' + (k * 7 + (size_t)i) % 26) : first;
		len += m;
		stream[len++] = '\0';
	}
	relay_feed(&r, stream, len);
	close(r.in_w);
	while (pipeleg_read(&r.a, err, sizeof err) > 0)
		;
	for (int i = 0; i < 100 && (rc = relay_pump(&r)) != 1; i++)
		;
	is_int(r.ends, n_cut, "cut through: every 'c' message taken and ended (%d)", n_cut);
	ok(r.out_len == len && !memcmp(r.out, stream, len), "cut through: the output is the input, "
	   "bytes and order (%zu of %zu)", r.out_len, len);
	ok(r.early, "cut through: a message's bytes went out before its last one came");
	ok(!r.q.head && !r.q.bytes, "cut through: the queue is empty and its bytes 0 (%llu)",
	   (unsigned long long)r.q.bytes);
	is_int(r.a.msgs_in, 60, "cut through: 60 messages counted in");
	relay_close(&r);

	/* Cut short by the end of input, part of it written: the writer fails. */
	relay_open(&r, 1 << 20);
	memset(stream, 'c', 300000);
	relay_feed(&r, stream, 300000);
	close(r.in_w);
	while (pipeleg_read(&r.a, err, sizeof err) > 0)
		;
	ok(r.q.head && r.q.head->cut, "cut short: the message is marked cut");
	is_int(r.a.refused, 1, "cut short: counted as refused");
	is_int(pipeleg_write(&r.b, &r.q, err, sizeof err), -1, "cut short after part went: the writer "
	       "cannot finish it (%s)", err);
	relay_close(&r);

	/* Over max_message after it began: cut, its rest discarded up to its
	 * NUL, the next message still read. */
	relay_open(&r, 100000);
	memset(stream, 'c', 250000);
	stream[250000] = '\0';
	memcpy(stream + 250001, "xy", 3);
	relay_feed(&r, stream, 250004);
	close(r.in_w);
	while (pipeleg_read(&r.a, err, sizeof err) > 0)
		;
	is_int(r.a.refused, 1, "over max_message: refused once");
	is_int(r.a.refused_bytes, 250000, "... every byte up to its NUL counted");
	ok(r.q.head && r.q.head->cut && r.q.head->next && r.q.head->next->len == 2,
	   "... the message cut, the next one queued behind it");
	relay_close(&r);

	/* Released (its queue dropped): its rest is thrown away, not refused. */
	relay_open(&r, 1 << 20);
	memset(stream, 'c', 5000);
	relay_feed(&r, stream, 5000);
	ok(pipeleg_rx_release(&r.a) != NULL, "released: the leg lets go of it");
	queue_clear(&r.q);   /* with its output, as the wrapper does */
	r.b.head_sent = 0;
	r.out_len = 0;
	memcpy(stream, "ccc\0xy", 7);
	relay_feed(&r, stream, 7);
	close(r.in_w);
	while (pipeleg_read(&r.a, err, sizeof err) > 0)
		;
	is_int(r.a.refused, 0, "released: nothing refused");
	ok(r.out_len == 3 && !memcmp(r.out, "xy", 3), "released: the next message comes through");
	relay_close(&r);
	free(stream);
}

int main(void)
{
	srand(1234);
	test_random_splits();
	test_big();
	test_oversized();
	test_writes();
	test_peer_gone();
	test_max_wrap();
	test_cut_through();
	return tap_done();
}
