/* fuzz_pipecut: libFuzzer driver for cut-through on the pipe leg
 * (pipeleg.c, route_begin): any bytes from Chrome's pipe, read in random
 * splits through the message core into the client's pipe, written after
 * every read; large messages cut through from a few bytes up, under a rule
 * that drops events named Late* or under none. The oracle: the input split
 * at its NULs, less the events the rule drops (a rule judges the whole
 * message: one whose method is not its first member is stored, not cut
 * through), each with its NUL, in order; then at most a part of the tail
 * the end of input cut short, if it was cut through.
 * Input: byte 0 picks cut_min and the rule, bytes 1-2 seed the splits. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "leg.h"
#include "pipeleg.h"
#include "scan.h"
#include "util.h"
#include "fuzz_late.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct core core;
static struct core_conn cc;
static const struct pipeleg *writer;   /* the client's leg */

static void fail(const char *what, size_t a, size_t b)
{
	fprintf(stderr, "fuzz_pipecut: %s (%zu, %zu)\n", what, a, b);
	abort();
}

/* The core's asks: writes happen after every read (pump), reading never
 * stops; how far a message went, as the pipe leg says it (pipeio.c). */
static int cc_write(struct core_conn *c, enum side s, int writable)
{
	(void)c, (void)s, (void)writable;
	return 0;
}
static void cc_flow(struct core_conn *c, enum side s, int on) { (void)c, (void)s, (void)on; }
static size_t cc_sent(const struct core_conn *c, enum side s, const struct msg *m)
{
	return s == DOWN && c->out[s].head == m ? writer->head_sent : 0;
}
static const struct leg_ops cc_ops = { cc_write, cc_flow, cc_sent, NULL, NULL };

/* The legs' reports, as the pipe leg makes them (pipe.c): the contract's. */
static void on_refused(void *ctx, int side, uint64_t bytes) { (void)ctx, (void)side, (void)bytes; }
static const struct pipeleg_ops ops = {
	.deliver = leg_deliver, .begin = leg_begin, .grew = leg_grew, .refused = on_refused
};

struct out {
	uint8_t *p;
	size_t len, cap;
	int failed;                   /* the writer gave up: a cut message's part went */
};

/* Writes what the client's leg has, reading the client's pipe as it goes. */
static void pump(struct pipeleg *down, int rfd, struct out *o)
{
	char err[200];

	for (int rounds = 0; !o->failed && rounds < 10000; rounds++) {
		int rc = pipeleg_write(down, &cc.out[DOWN], err, sizeof err);
		ssize_t n;
		core_drained(&cc, DOWN);
		if (rc < 0)
			o->failed = 1;
		for (;;) {
			if (o->cap - o->len < 65536) {
				o->cap = o->cap * 2 + 65536;
				o->p = xrealloc(o->p, o->cap);
			}
			if ((n = read(rfd, o->p + o->len, o->cap - o->len)) <= 0)
				break;
			o->len += (size_t)n;
		}
		if (rc != 0)
			return;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pipeleg up, down;
	struct out o = { 0 };
	int in_fds[2], out_fds[2], ruled, rc;
	size_t off = 0, n, k = 0, start = 0;
	const uint8_t *in;
	uint32_t seed;
	char err[200];

	if (size < 3)
		return 0;
	in = data + 3;
	n = size - 3;
	seed = ((uint32_t)data[1] << 8 | data[2]) * 2654435761u + 1;
	core_init(&core, NULL, NULL, 16u << 20);
	core.cut_min = (uint64_t)(data[0] & 3) * 40 + 1;
	ruled = data[0] >> 2 & 1;
	if (ruled) {
		json_t *doc = json_loads("{\"rules\":[{\"method\":\"Late*\",\"kind\":\"event\","
					 "\"action\":\"drop\"}]}", 0, NULL);
		core_install_policy(&core, policy_parse(doc, "late", "fuzz", err, sizeof err), "fuzz");
		json_decref(doc);
	}
	leg_conn_init(&core, &cc, &cc_ops, "/devtools/browser/fuzz");
	if (pipe(in_fds) < 0 || pipe(out_fds) < 0)
		abort();
	pipeleg_init(&up, UP, in_fds[0], -1, 1u << 20, &ops, &cc);
	pipeleg_init(&down, DOWN, -1, out_fds[1], 1u << 20, &ops, &cc);
	writer = &down;
	up.cut_min = core.cut_min;
	fcntl(in_fds[1], F_SETFL, O_NONBLOCK);
	fcntl(out_fds[0], F_SETFL, O_NONBLOCK);
	while (off < n) {
		size_t chunk;
		seed = seed * 1103515245u + 12345u;
		chunk = (seed >> 16) % ((seed >> 8 & 1) ? 2048 : 8) + 1;
		if (chunk > n - off)
			chunk = n - off;
		if (write(in_fds[1], in + off, chunk) != (ssize_t)chunk)
			fail("the pipe did not take a chunk", chunk, off);
		off += chunk;
		if ((rc = pipeleg_read(&up, err, sizeof err)) != 1)
			fail("pipeleg_read before the end is not 1", (size_t)rc, off);
		pump(&down, out_fds[0], &o);
	}
	close(in_fds[1]);
	if ((rc = pipeleg_read(&up, err, sizeof err)) != 0)
		fail("pipeleg_read at the end is not 0", (size_t)rc, n);
	pump(&down, out_fds[0], &o);

	/* The oracle: each whole message of the input, in order, less those
	 * dropped; the written bytes must be exactly those, then maybe part
	 * of the tail. */
	for (size_t i = 0; i < n; i++) {
		size_t len = i - start;
		int drop;
		if (in[i])
			continue;
		drop = ruled ? fuzz_late_dropped((const char *)in + start, len) : 0;
		if (drop != 1) {
			int same = k + len + 1 <= o.len && !memcmp(o.p + k, in + start, len) && !o.p[k + len];
			if (same)
				k += len + 1;
			else if (!drop)
				fail("a message's bytes or order", start, k);
		}
		start = i + 1;
	}
	if (k < o.len) {   /* the tail, cut through and cut short by the end */
		if (!o.failed || o.len - k > n - start || memcmp(o.p + k, in + start, o.len - k))
			fail("bytes written beyond the messages", k, o.len);
	} else if (o.failed) {
		fail("the writer gave up with nothing cut short", k, o.len);
	}
	if (cc.out[DOWN].head && !o.failed)
		fail("messages left unwritten", cc.out[DOWN].n, o.len);

	free(o.p);
	pipeleg_rx_release(&up);
	leg_conn_free(&cc);
	pipeleg_free(&up);
	pipeleg_free(&down);
	core_free(&core);
	memset(&cc, 0, sizeof cc);
	close(in_fds[0]);
	close(out_fds[0]);
	close(out_fds[1]);
	return 0;
}
