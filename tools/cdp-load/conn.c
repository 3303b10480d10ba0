/* conn: one cdp-load connection: connect, handshake, keep W commands in
 * flight, and check every answer byte by byte as it streams in. */
#define _GNU_SOURCE  /* memmem */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "load.h"
#include "util.h"

#define READ_CAP (1u << 20)

static uint64_t mix_pick(const struct size_mix *m, struct estimate_rng *rng)
{
	uint64_t r;

	if (m->n == 1)
		return m->size[0];
	r = estimate_rng_next(rng) % m->total;
	for (int i = 0; i < m->n; i++) {
		if (r < m->weight[i])
			return m->size[i];
		r -= m->weight[i];
	}
	return m->size[m->n - 1];
}

/* Reports a failure of the run up to it. */
static void fail(struct load *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct load *ld, const char *fmt, ...)
{
	char why[sizeof ld->first_error];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	ld->ops->fail(ld, why);
}

static void flush(struct load_conn *c)
{
	if (evbuffer_get_length(c->out) && evbuffer_write(c->out, c->fd) < 0 &&
	    errno != EAGAIN && errno != EINTR) {
		fail(c->ld, "connection %d: write: %s", c->idx, strerror(errno));
		return;
	}
	if (evbuffer_get_length(c->out))
		event_add(c->wr, NULL);
	else
		event_del(c->wr);
}

static void finish(struct load_conn *c)
{
	if (c->state == C_DONE)
		return;
	event_del(c->rd);
	event_del(c->wr);
	close(c->fd);
	c->fd = -1;
	c->state = C_DONE;
	c->ld->ops->finished(c);
}

/* Queues one masked frame whose payload is parts[0] + parts[1] + ... */
static void send_frame(struct load_conn *c, int opcode, const void *const *parts,
		       const size_t *lens, int nparts)
{
	unsigned char mask[4], *o;
	uint64_t r = estimate_rng_next(&c->rng), total = 0, off = 0;
	struct evbuffer_iovec v;
	size_t hl;

	for (int i = 0; i < nparts; i++)
		total += lens[i];
	memcpy(mask, &r, 4);
	evbuffer_reserve_space(c->out, (ev_ssize_t)(WSFRAME_HEADER_MAX + total), &v, 1);
	o = v.iov_base;
	hl = wsframe_header(o, opcode, 1, total, mask);
	for (int i = 0; i < nparts; i++) {
		wsframe_mask(o + hl + off, parts[i], lens[i], mask, off);
		off += lens[i];
	}
	v.iov_len = hl + total;
	evbuffer_commit_space(c->out, &v, 1);
}

/* No more commands on c: the time or count is up, or the run failed. */
static int done_sending(const struct load_conn *c)
{
	const struct load *ld = c->ld;

	return ld->stopping || ld->failed || (ld->cfg.count && c->sent >= ld->cfg.count);
}

/* With --baseline, the two connections take turns. */
static int may_send(const struct load_conn *c)
{
	return !done_sending(c) && (!c->ld->cfg.paired || c->ld->turn == c->idx);
}

static void send_command(struct load_conn *c)
{
	const struct load_cfg *cfg = &c->ld->cfg;
	struct pending *p = &c->ring[(c->ring_head + c->ring_n++) % (unsigned)cfg->in_flight];
	char buf[WIRE_PREFIX_MAX + 64];
	const void *parts[3] = { buf };
	size_t lens[3], L;
	uint64_t id = ++c->next_id, total;
	int nparts = 1;

	p->id = id;
	p->want = 0;
	if (cfg->method) {  /* raw: {"id":N,"method":M[,"sessionId":S],"params":P} */
		L = (size_t)snprintf(buf, sizeof buf, "{\"id\":%llu,\"method\":\"%s\"",
				     (unsigned long long)id, cfg->method);
		if (cfg->session)
			L += (size_t)snprintf(buf + L, sizeof buf - L, ",\"sessionId\":\"%s\"", cfg->session);
		memcpy(buf + L, ",\"params\":", 10);
		lens[0] = L + 10;
		parts[1] = cfg->params;
		lens[1] = strlen(cfg->params);
		parts[2] = "}";
		lens[2] = 1;
		nparts = 3;
	} else if (cfg->flood) {
		lens[0] = wire_flood_command(buf, id, cfg->session, cfg->session_len, cfg->flood,
					     cfg->event_size);
	} else {
		p->want = mix_pick(&cfg->result, &c->rng);
		L = wire_command_prefix(buf, id, cfg->session, cfg->session_len, p->want);
		total = wire_total(L, mix_pick(&cfg->cmd, &c->rng));
		lens[0] = L;
		parts[1] = c->ld->pattern + wire_phase(id);
		lens[1] = total - L - WIRE_SUFFIX_LEN;
		parts[2] = WIRE_SUFFIX;
		lens[2] = WIRE_SUFFIX_LEN;
		nparts = 3;
	}
	send_frame(c, WSFRAME_TEXT, parts, lens, nparts);
	for (int i = 0; i < nparts; i++)
		c->bytes_up += lens[i];
	c->sent++;
	p->sent_ns = c->ld->last_send_ns = util_mono_ns();
}

static void begin_close(struct load_conn *c)
{
	static const unsigned char normal[2] = { 1000 >> 8, 1000 & 0xff };
	const void *parts[1] = { normal };
	size_t lens[1] = { 2 };

	send_frame(c, WSFRAME_CLOSE, parts, lens, 1);
	c->state = C_CLOSING;
}

/* --rate: how many commands c may have sent by now. Each connection has an
 * equal share of the rate, its schedule offset by its index so that the
 * connections' sends interleave rather than coincide. A flood command brings
 * `flood` messages (its events), so those go at rate / flood. */
static uint64_t paced_due(const struct load_conn *c)
{
	const struct load *ld = c->ld;
	double n = ld->cfg.connections;
	double per_s = ld->cfg.rate / n / (ld->cfg.flood ? (double)ld->cfg.flood : 1.0);
	double t = (double)(util_mono_ns() - ld->start_ns) / 1e9;

	return (uint64_t)(per_s * t + ((double)c->idx + 0.5) / n);
}

/* Tops the connection up to W commands in flight (with --rate, no more than
 * are due); closes it when done. */
static void fill(struct load_conn *c)
{
	uint64_t due = c->ld->cfg.rate > 0 ? paced_due(c) : UINT64_MAX;

	while (c->ring_n < (unsigned)c->ld->cfg.in_flight && c->sent < due && may_send(c))
		send_command(c);
	if (!c->ring_n && c->state == C_RUNNING && done_sending(c))
		begin_close(c);
}

void load_conn_stop_sending(struct load *ld)
{
	ld->stopping = 1;
	for (int i = 0; i < ld->cfg.connections; i++) {
		struct load_conn *c = &ld->conns[i];
		if (c->state == C_RUNNING && !c->ring_n) {
			begin_close(c);
			flush(c);
		}
	}
}

void load_conn_pace(struct load *ld)
{
	for (int i = 0; i < ld->cfg.connections && !ld->failed; i++) {
		struct load_conn *c = &ld->conns[i];
		if (c->state == C_RUNNING) {
			fill(c);
			flush(c);
		}
	}
}

/* got[0..n) differs from want[0..n) (from message byte `at`): report where. */
static void mismatch(struct load_conn *c, uint64_t at, const unsigned char *got,
		     const void *want, size_t n)
{
	const unsigned char *w = want;
	char shown[41];
	size_t k, d = 0;

	while (d < n && got[d] == w[d])
		d++;
	at += d;
	got += d;
	n -= d;
	k = n < 40 ? n : 40;

	for (size_t i = 0; i < k; i++)
		shown[i] = got[i] >= 0x20 && got[i] < 0x7f ? (char)got[i] : '.';
	shown[k] = '\0';
	fail(c->ld, "connection %d: %s %llu is wrong at byte %llu of %llu: got '%s'",
		  c->idx, c->kind == 'e' ? "an event of flood" : "the answer to id",
		  (unsigned long long)c->ring[c->ring_head].id, (unsigned long long)at,
		  (unsigned long long)c->expect_total, shown);
}

/* Checks bytes p[0..n) at c->msg_off against the expected message. */
static void check(struct load_conn *c, const unsigned char *p, size_t n)
{
	uint64_t o = c->msg_off, data_end = c->expect_total - WIRE_SUFFIX_LEN;
	size_t k;

	c->msg_off += n;
	if (!c->expect_total)
		return;  /* raw mode: the content is the peer's business */
	if (c->msg_off > c->expect_total) {
		fail(c->ld, "connection %d: message longer than the %llu bytes expected",
			  c->idx, (unsigned long long)c->expect_total);
		return;
	}
	if (n && o < c->expect_len) {
		k = n < c->expect_len - o ? n : c->expect_len - o;
		if (memcmp(p, c->expect + o, k)) {
			mismatch(c, o, p, c->expect + o, k);
			return;
		}
		o += k, p += k, n -= k;
	}
	if (n && o < data_end) {
		k = n < data_end - o ? n : (size_t)(data_end - o);
		if (memcmp(p, c->ld->pattern + c->phase + (o - c->expect_len), k)) {
			mismatch(c, o, p, c->ld->pattern + c->phase + (o - c->expect_len), k);
			return;
		}
		o += k, p += k, n -= k;
	}
	if (n && memcmp(p, WIRE_SUFFIX + (o - data_end), n))
		mismatch(c, o, p, WIRE_SUFFIX + (o - data_end), n);
}

/* From the first bytes of a message: what it must be, byte for byte. */
static int decide(struct load_conn *c)
{
	const struct load_cfg *cfg = &c->ld->cfg;
	const struct pending *front = &c->ring[c->ring_head];
	const char *h = (const char *)c->head;
	size_t n = c->head_len;

	c->decided = 1;
	if (n >= 10 && !memcmp(h, "{\"method\":", 10) && (cfg->method || !memcmp(h, "{\"method\":\"Echo.event\"", n < 22 ? n : 22))) {
		c->kind = 'e';
		if (cfg->method)
			return 0;  /* raw mode: events are counted, not checked */
		if (!c->ring_n || !cfg->flood || c->flood_seq >= cfg->flood) {
			fail(c->ld, "connection %d: an event nobody asked for", c->idx);
			return -1;
		}
		c->expect_len = wire_event_prefix(c->expect, cfg->session, cfg->session_len,
						  (int64_t)front->id, c->flood_seq);
		c->expect_total = wire_total(c->expect_len, cfg->event_size);
		c->phase = wire_phase(front->id + c->flood_seq);
		return 0;
	}
	c->kind = 'r';
	if (!c->ring_n) {
		fail(c->ld, "connection %d: a message when no command is in flight: '%.*s'",
			  c->idx, (int)n, h);
		return -1;
	}
	if (cfg->method) {  /* {"id":N, then "result" or "sessionId" (an "error" fails) */
		char want[64];
		int wl = snprintf(want, sizeof want, "{\"id\":%llu,", (unsigned long long)front->id);
		const char *rest = h + wl;
		if ((size_t)wl > n || memcmp(h, want, (size_t)wl) ||
		    (strncmp(rest, "\"result\":", (size_t)(h + n - rest) < 9 ? (size_t)(h + n - rest) : 9) &&
		     strncmp(rest, "\"sessionId\":", (size_t)(h + n - rest) < 12 ? (size_t)(h + n - rest) : 12))) {
			fail(c->ld, "connection %d: expected the result for id %llu, got '%.*s'",
				  c->idx, (unsigned long long)front->id, (int)n, h);
			return -1;
		}
		c->expect_total = 0;
		return 0;
	}
	if (cfg->flood && c->flood_seq != cfg->flood) {
		fail(c->ld, "connection %d: flood %llu answered after %llu of %llu events", c->idx,
			  (unsigned long long)front->id, (unsigned long long)c->flood_seq,
			  (unsigned long long)cfg->flood);
		return -1;
	}
	c->expect_len = wire_response_prefix(c->expect, (int64_t)front->id, cfg->session,
					     cfg->session_len);
	c->expect_total = wire_total(c->expect_len, front->want);
	c->phase = wire_phase(front->id);
	return 0;
}

static void msg_data(struct load_conn *c, const unsigned char *p, size_t n)
{
	c->bytes_down += n;
	if (!c->decided) {
		size_t take = n < sizeof c->head - c->head_len ? n : sizeof c->head - c->head_len;
		memcpy(c->head + c->head_len, p, take);
		c->head_len += take;
		p += take;
		n -= take;
		if (c->head_len < sizeof c->head || decide(c) < 0)
			return;
		check(c, c->head, c->head_len);
	}
	if (n && !c->ld->failed)
		check(c, p, n);
}

/* --baseline: the answer on c ended its turn. Its round trip and the one
 * before it (on the other connection) make a pair, and the other
 * connection sends next. */
static void pair(struct load_conn *c, uint64_t rtt)
{
	struct load *ld = c->ld;
	struct load_conn *other = &ld->conns[!c->idx];

	if (ld->last_idx == !c->idx) {
		if (ld->n_diffs == ld->cap_diffs) {
			ld->cap_diffs = ld->cap_diffs ? 2 * ld->cap_diffs : 4096;
			ld->diffs = xrealloc(ld->diffs, ld->cap_diffs * sizeof *ld->diffs);
		}
		ld->diffs[ld->n_diffs++] = c->idx == 0 ? (int64_t)(rtt - ld->last_rtt) :
							 (int64_t)(ld->last_rtt - rtt);
	}
	ld->last_idx = c->idx;
	ld->last_rtt = rtt;
	ld->turn = !c->idx;
	if (other->state == C_RUNNING) {
		fill(other);
		flush(other);
	}
}

static void answered(struct load_conn *c)
{
	struct load *ld = c->ld;
	uint64_t now = util_mono_ns(), rtt = now - c->ring[c->ring_head].sent_ns;

	lat_hist_add(c->rtt, rtt);
	ld->last_ns = now;
	c->ring_head = (c->ring_head + 1) % (unsigned)ld->cfg.in_flight;
	c->ring_n--;
	c->answered++;
	c->flood_seq = 0;
	if (ld->cfg.paired)
		pair(c, rtt);
	fill(c);
}

static void msg_end(struct load_conn *c)
{
	if (!c->decided) {
		if (decide(c) < 0)
			return;
		check(c, c->head, c->head_len);
	}
	if (c->ld->failed)
		return;
	if (c->expect_total && c->msg_off != c->expect_total) {
		fail(c->ld, "connection %d: %s id %llu has %llu bytes, expected %llu", c->idx,
			  c->kind == 'e' ? "event of flood" : "answer to",
			  (unsigned long long)c->ring[c->ring_head].id, (unsigned long long)c->msg_off,
			  (unsigned long long)c->expect_total);
		return;
	}
	if (c->kind == 'r') {
		answered(c);
	} else {
		c->events++;
		c->flood_seq++;
	}
}

static void control(struct load_conn *c, const struct wsframe *f, const unsigned char *p)
{
	const void *parts[1] = { p };
	size_t lens[1] = { (size_t)f->len };

	if (f->opcode == WSFRAME_PING) {
		send_frame(c, WSFRAME_PONG, parts, lens, 1);
	} else if (f->opcode == WSFRAME_CLOSE) {
		if (c->state == C_CLOSING) {
			finish(c);
			return;
		}
		fail(c->ld, "connection %d: closed by the peer (code %d%s%.*s) after %llu answers, "
			  "%u in flight", c->idx, f->len >= 2 ? p[0] << 8 | p[1] : 1005,
			  f->len > 2 ? ": " : "", f->len > 2 ? (int)f->len - 2 : 0, p + 2,
			  (unsigned long long)c->answered, c->ring_n);
	}
}

/* Handles the frames in c->in; payload is checked as it arrives. */
static void frames(struct load_conn *c)
{
	while (c->in_off < c->in_len && !c->ld->failed && c->state != C_DONE) {
		unsigned char *p = c->in + c->in_off;
		size_t avail = c->in_len - c->in_off, n;
		struct wsframe f;

		if (!c->in_frame) {
			int hl = wsframe_parse_header(p, avail, &f);
			if (hl == 0)
				break;
			if (hl < 0 || f.masked) {
				fail(c->ld, "connection %d: %s", c->idx,
					  hl < 0 ? "bad frame header" : "a masked frame from the server");
				return;
			}
			if (f.opcode >= 8) {
				if (avail < (size_t)hl + f.len)
					break;
				c->in_off += (size_t)hl + f.len;
				control(c, &f, p + hl);
				continue;
			}
			if ((f.opcode == WSFRAME_CONT) != c->in_msg || f.opcode == WSFRAME_BINARY) {
				fail(c->ld, "connection %d: %s", c->idx, f.opcode == WSFRAME_BINARY ?
					  "a binary message" : "bad fragmentation");
				return;
			}
			c->in_off += (size_t)hl;
			c->in_frame = 1;
			c->frame_left = f.len;
			c->frame_fin = f.fin;
			if (!c->in_msg) {
				c->in_msg = 1;
				c->head_len = 0;
				c->decided = 0;
				c->msg_off = 0;
			}
		}
		n = c->in_len - c->in_off < c->frame_left ? c->in_len - c->in_off : (size_t)c->frame_left;
		msg_data(c, c->in + c->in_off, n);
		c->in_off += n;
		c->frame_left -= n;
		if (c->frame_left)
			break;
		c->in_frame = 0;
		if (c->frame_fin) {
			c->in_msg = 0;
			msg_end(c);
		}
	}
}

static int handshake(struct load_conn *c)
{
	const char *p = (const char *)c->in + c->in_off;
	const char *end = memmem(p, c->in_len - c->in_off, "\r\n\r\n", 4);

	if (!end)
		return 0;
	if (!wsframe_answer_accepts(p, (size_t)(end + 2 - p), c->key)) {
		fail(c->ld, "connection %d: no WebSocket upgrade: '%.*s'", c->idx,
			  (int)(end - p < 300 ? end - p : 300), p);
		return -1;
	}
	c->in_off += (size_t)(end + 4 - p);
	c->state = C_RUNNING;
	c->ld->ops->connected(c);
	return 0;
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
	struct load_conn *c = arg;
	ssize_t n;

	(void)what;
	if (c->in_off == c->in_len) {
		c->in_off = c->in_len = 0;
	} else if (c->in_off && (c->in_len == c->in_cap || c->in_len - c->in_off < 4096)) {
		memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
		c->in_len -= c->in_off;
		c->in_off = 0;
	}
	n = read(fd, c->in + c->in_len, c->in_cap - c->in_len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (c->state == C_CLOSING) {  /* the peer may close right after its close frame */
			finish(c);
			return;
		}
		fail(c->ld, "connection %d: %s after %llu answers, %u in flight", c->idx,
			  n ? strerror(errno) : "closed by the peer", (unsigned long long)c->answered,
			  c->ring_n);
		return;
	}
	c->in_len += (size_t)n;
	c->ld->progress_ns = util_mono_ns();
	if (c->state == C_HANDSHAKE && handshake(c) < 0)
		return;
	if (c->state == C_RUNNING || c->state == C_CLOSING)
		frames(c);
	if (c->state != C_DONE && !c->ld->failed)
		flush(c);
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
	struct load_conn *c = arg;
	int err = 0;
	socklen_t len = sizeof err;
	char req[2048];
	int n;

	(void)what;
	if (c->state != C_CONNECTING) {
		flush(c);
		return;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err) {
		fail(c->ld, "connection %d: connect to %s: %s", c->idx, c->to->hostport,
			  strerror(err));
		return;
	}
	wsframe_new_key(c->key);
	if ((n = wsframe_client_request(req, sizeof req, c->to->path, c->to->hostport, c->key)) < 0) {
		fail(c->ld, "connection %d: the path is too long", c->idx);
		return;
	}
	evbuffer_add(c->out, req, (size_t)n);
	c->state = C_HANDSHAKE;
	event_add(c->rd, NULL);
	flush(c);
}

/* All connections are up: the clock starts and commands go out. */
void load_conn_go(struct load_conn *c)
{
	fill(c);
	flush(c);
}

void load_conn_start(struct load_conn *c)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int one = 1;

	c->in_cap = READ_CAP;
	c->in = xmalloc(c->in_cap);
	c->out = evbuffer_new();
	c->ring = xcalloc((size_t)c->ld->cfg.in_flight, sizeof *c->ring);
	estimate_rng_seed(&c->rng, c->ld->cfg.seed * 1000003u + (uint64_t)c->idx);
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	sin.sin_port = htons((uint16_t)c->to->port);
	inet_pton(AF_INET, c->to->host, &sin.sin_addr);
	c->rd = event_new(c->ld->base, c->fd, EV_READ | EV_PERSIST, on_read, c);
	c->wr = event_new(c->ld->base, c->fd, EV_WRITE | EV_PERSIST, on_write, c);
	c->state = C_CONNECTING;
	if (connect(c->fd, (struct sockaddr *)&sin, sizeof sin) < 0 && errno != EINPROGRESS) {
		fail(c->ld, "connection %d: connect to %s: %s", c->idx, c->to->hostport,
			  strerror(errno));
		return;
	}
	event_add(c->wr, NULL);
}

void load_conn_free(struct load_conn *c)
{
	if (c->rd)
		event_free(c->rd);
	if (c->wr)
		event_free(c->wr);
	if (c->out)
		evbuffer_free(c->out);
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c->ring);
}
