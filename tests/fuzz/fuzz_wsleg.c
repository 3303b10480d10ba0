/* fuzz_wsleg: libFuzzer driver for the WebSocket endpoints' frame reader and
 * message reassembly (wsleg.c), through the leg contract (leg.c) and the
 * pair (conn.c) into the message core, fed bytes as a
 * socket delivers them, in random splits; a plain reference parser of RFC
 * 6455 is the oracle for the messages (and pongs) that must come out.
 * Chrome's side is also cut through (route_begin, from a few bytes up) and
 * written to the client's socket after every read, under a policy that
 * drops events named Late* or none: what the client reads must be the
 * reference's messages but those the rule drops, whole and in order. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* conn.c itself, for conn_free (the pair's reports are its statics). */
#include "../../proxy/ws/conn.c"
#include "fuzz_late.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* lws, as far as the legs reach it: a socket pair stands for the peer's
 * socket, and timers, flow control and wake-ups do nothing. */
static int sock[2] = { -1, -1 };
static struct lws *const fake_wsi = (struct lws *)&sock;

int lws_callback_on_writable(struct lws *wsi) { (void)wsi; return 0; }
int lws_rx_flow_control(struct lws *wsi, int enable) { (void)wsi, (void)enable; return 0; }
void lws_set_timeout(struct lws *wsi, enum pending_timeout reason, int secs)
{
	(void)wsi, (void)reason, (void)secs;
}
lws_sockfd_type lws_get_socket_fd(struct lws *wsi) { (void)wsi; return sock[0]; }
void lws_sul_schedule(struct lws_context *ctx, int tsi, lws_sorted_usec_list_t *sul,
		      sul_cb_t cb, lws_usec_t us)
{
	(void)ctx, (void)tsi, (void)sul, (void)cb, (void)us;
}
void lws_sul_cancel(lws_sorted_usec_list_t *sul) { (void)sul; }
void lws_set_opaque_user_data(struct lws *wsi, void *data) { (void)wsi, (void)data; }

/* What the reference parser expects out of the stream. */
struct expect {
	unsigned char **msg;          /* data messages, in order */
	size_t *len;
	int *type;
	size_t n, cap;
	unsigned char (*ping)[125];   /* ping payloads, in order */
	size_t *ping_len;
	size_t pings, ping_cap;
};

static void expect_msg(struct expect *e, const unsigned char *p, size_t n, int type)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 16;
		e->msg = xrealloc(e->msg, e->cap * sizeof *e->msg);
		e->len = xrealloc(e->len, e->cap * sizeof *e->len);
		e->type = xrealloc(e->type, e->cap * sizeof *e->type);
	}
	e->msg[e->n] = xmalloc(n + 1);
	memcpy(e->msg[e->n], p, n);
	e->len[e->n] = n;
	e->type[e->n++] = type;
}

static void expect_ping(struct expect *e, const unsigned char *p, size_t n)
{
	if (e->pings == e->ping_cap) {
		e->ping_cap = e->ping_cap ? e->ping_cap * 2 : 16;
		e->ping = xrealloc(e->ping, e->ping_cap * sizeof *e->ping);
		e->ping_len = xrealloc(e->ping_len, e->ping_cap * sizeof *e->ping_len);
	}
	memcpy(e->ping[e->pings], p, n);
	e->ping_len[e->pings++] = n;
}

static void expect_free(struct expect *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->msg[i]);
	free(e->msg);
	free(e->len);
	free(e->type);
	free(e->ping);
	free(e->ping_len);
}

/* RFC 6455 read plainly, a whole stream at once, as the legs are meant to:
 * frames from a client are masked, from Chrome not; no RSV bits; control
 * frames short and final; continuations only inside a message; a message
 * over max ends everything, as do a close frame and any error. */
static void reference(const unsigned char *p, size_t n, int from_client, uint64_t max,
		      struct expect *e)
{
	unsigned char *acc = NULL;
	size_t acc_len = 0;
	int in_msg = 0, type = 0, discarding = 0;
	size_t i = 0;

	while (i + 2 <= n) {
		int fin = p[i] >> 7, op = p[i] & 15, masked = p[i + 1] >> 7;
		uint64_t len = p[i + 1] & 127;
		size_t h = 2;
		if (p[i] & 0x70)
			break;
		if (len == 126) {
			if (i + 4 > n)
				break;
			len = (uint64_t)p[i + 2] << 8 | p[i + 3];
			h = 4;
		} else if (len == 127) {
			if (i + 10 > n)
				break;
			len = 0;
			for (int k = 0; k < 8; k++)
				len = len << 8 | p[i + 2 + k];
			h = 10;
			if (len >> 63)
				break;
		}
		if (i + h + (masked ? 4 : 0) > n)
			break;
		if (!(op <= 2 || (op >= 8 && op <= 10)) || (op >= 8 && (len > 125 || !fin)))
			break;
		if (masked != from_client)
			break;
		if ((op == 0 && !in_msg) || ((op == 1 || op == 2) && in_msg))
			break;
		{
			const unsigned char *mask = p + i + h;
			size_t off = i + h + (masked ? 4 : 0);
			size_t have = n - off < len ? n - off : (size_t)len;
			unsigned char *pl;
			/* Too large: the rest of the message is read and thrown
			 * away (pings still answered), then nothing more. */
			if (op < 8 && !discarding && acc_len + len > max)
				discarding = 1;
			if (have < len && op >= 8)
				break;   /* a control frame cut short: nothing to act on */
			pl = xmalloc(have + 1);
			for (size_t k = 0; k < have; k++)
				pl[k] = p[off + k] ^ (masked ? mask[k & 3] : 0);
			if (op >= 8) {
				if (op == 9)
					expect_ping(e, pl, have);
				free(pl);
				if (op == 8)
					break;
				i = off + have;
				continue;
			}
			if (discarding) {
				free(pl);
				if (have < len || fin)
					break;
				in_msg = 1;
				i = off + have;
				continue;
			}
			if (op != 0)
				type = op;
			acc = xrealloc(acc, acc_len + have + 1);
			memcpy(acc + acc_len, pl, have);
			acc_len += have;
			free(pl);
			if (have < len)
				break;   /* the stream ends inside the frame */
			in_msg = !fin;
			if (fin) {
				expect_msg(e, acc, acc_len, type);
				acc_len = 0;
			}
			i = off + have;
		}
	}
	free(acc);
}

static void fail(const char *what, size_t i)
{
	fprintf(stderr, "fuzz_wsleg: legs and reference differ: %s (item %zu)\n", what, i);
	abort();
}

/* What the client's socket got (out: NULL to throw it away). */
struct bytes {
	unsigned char *p;
	size_t len, cap;
};

static void drain(struct bytes *out)
{
	char buf[65536];
	long n;

	while ((n = recv(sock[1], buf, sizeof buf, MSG_DONTWAIT)) > 0) {
		if (!out)
			continue;
		if (out->len + (size_t)n > out->cap) {
			out->cap = (out->len + (size_t)n) * 2;
			out->p = xrealloc(out->p, out->cap);
		}
		memcpy(out->p + out->len, buf, (size_t)n);
		out->len += (size_t)n;
	}
}

/* The client's end written as far as it goes: until its queue is empty,
 * or all that came of a cut-through message at its head is written. */
static void write_down(struct conn *c, struct bytes *out)
{
	for (int i = 0; i < 1000; i++) {
		int rc = leg_writable(&c->cc, DOWN);
		drain(out);
		if (rc != 0 || !c->leg[DOWN].full)
			break;
	}
}

/* The frames the client read (the server's end: unmasked, one a message)
 * against the reference's messages less those dropped. */
static void check_written(const struct bytes *out, const struct expect *e, int ruled)
{
	size_t i = 0, k = 0;

	for (;;) {
		const unsigned char *p = out->p ? out->p + i : NULL;
		size_t left = out->len - i, h = 2;
		uint64_t len;
		int drop;
		if (left < 2)
			break;
		len = p[1] & 127;
		if (len == 126) {
			if (left < 4)
				break;
			len = (uint64_t)p[2] << 8 | p[3], h = 4;
		} else if (len == 127) {
			if (left < 10)
				break;
			len = 0, h = 10;
			for (int b = 0; b < 8; b++)
				len = len << 8 | p[2 + b];
		}
		if ((p[1] & 128) || !(p[0] & 128))
			fail("a frame the client's end should not write", k);
		if ((p[0] & 15) == WSFRAME_CLOSE)
			break;
		if (left - h < len)
			break;   /* a cut-through message still coming */
		for (;; k++) {
			if (k >= e->n)
				fail("a message the reference did not see", k);
			drop = ruled && e->type[k] == MSG_TEXT ? fuzz_late_dropped((const char *)e->msg[k], e->len[k]) : 0;
			if (drop == 1)
				continue;
			if (len == e->len[k] && !memcmp(p + h, e->msg[k], len) &&
			    (p[0] & 15) == (e->type[k] == MSG_BINARY ? WSFRAME_BINARY : WSFRAME_TEXT))
				break;
			if (!drop)
				fail("a message's bytes, type or order", k);
		}
		k++;
		i += h + (size_t)len;
	}
	/* Whatever the reference has left may still be coming, or was cut
	 * short: the stream ended inside it. */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct proxy px;
	struct client_id client = { 0 };
	struct expect e = { 0 };
	struct conn *c;
	enum side s;
	uint32_t rnd;
	size_t off = 3, i;
	unsigned char *stream;
	struct bytes written = { 0 };

	if (size < 3)
		return 0;
	if (sock[0] < 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock) < 0)
			abort();
		fcntl(sock[0], F_SETFL, O_NONBLOCK);
		fcntl(sock[1], F_SETFL, O_NONBLOCK);
	}
	/* Byte 0: which leg, and --max-message; bytes 1-2: how reads split. */
	s = data[0] & 1 ? UP : DOWN;
	memset(&px, 0, sizeof px);
	px.cfg.max_message = 64u << (data[0] >> 1 & 15);
	px.cfg.upstream_timeout = 10;
	core_init(&px.core, NULL, NULL, 16u << 20);
	/* Byte 0's top bits: cut through from this size up, under a rule. */
	px.core.cut_min = (size_t)(data[0] >> 5 & 3) * 40;
	if (data[0] & 0x80) {
		char err[200];
		json_t *doc = json_loads("{\"rules\":[{\"method\":\"Late*\",\"kind\":\"event\","
					 "\"action\":\"drop\"}]}", 0, NULL);
		core_install_policy(&px.core, policy_parse(doc, "late", "fuzz", err, sizeof err), "fuzz");
		json_decref(doc);
	}
	reference(data + off, size - off, s == DOWN, px.cfg.max_message, &e);

	c = conn_open(&px, fake_wsi, "/devtools/browser/fuzz", &client);
	c->leg[UP].wsi = fake_wsi;
	c->up.open = 1;

	/* The legs unmask in place: a copy, fed in reads of 1 to 64 KiB. */
	stream = xmalloc(size - off + 1);
	memcpy(stream, data + off, size - off);
	rnd = (uint32_t)data[1] << 8 | data[2] | 1;
	for (i = 0; i < size - off; ) {
		size_t n;
		rnd ^= rnd << 13, rnd ^= rnd >> 17, rnd ^= rnd << 5;
		n = rnd % 4 ? 1 + rnd % 64 : 1 + rnd % 65536;
		if (n > size - off - i)
			n = size - off - i;
		if (wsleg_read(&c->leg[s], stream + i, n) < 0)
			break;
		if (s == UP)
			write_down(c, &written);
		drain(s == UP ? &written : NULL);
		i += n;
	}
	drain(s == UP ? &written : NULL);
	if (s == UP)
		check_written(&written, &e, (data[0] & 0x80) != 0);

	/* Data messages went to the other side (queued: Chrome's end is not
	 * written), pongs back to the sender. A command cut through (the
	 * client's, under cut_min) the input cut short is there, not whole,
	 * last: the reference has no such message. */
	{
		struct queue *q = &c->cc.out[!s], *pq = &c->cc.out[s];
		struct msg *m = q->head;
		for (i = 0; m && s == DOWN; m = m->next, i++) {
			if (!msg_whole(m)) {
				if (m->next)
					fail("a message behind one still coming", i);
				break;
			}
			if (i >= e.n)
				fail("a message the reference did not see", i);
			if (m->len != e.len[i] || memcmp(MSG_DATA(m), e.msg[i], m->len))
				fail("a message's bytes", i);
			if (m->type != e.type[i])
				fail("a message's type", i);
		}
		if (s == DOWN && i != e.n)
			fail("a message the legs did not deliver", i);
		for (i = 0, m = pq->head; m; m = m->next) {
			if (m->type != MSG_LEG)
				continue;
			if (i >= e.pings || m->len != e.ping_len[i] || memcmp(MSG_DATA(m), e.ping[i], m->len))
				fail("a pong", i);
			i++;
		}
	}

	conn_free(c);
	core_free(&px.core);
	free(stream);
	free(written.p);
	expect_free(&e);
	return 0;
}
