/* wrapper_pipe: cdpproxy-chromium's pipe mode: the client's fds 3 and 4 as
 * one pipe leg, a pipe pair of Chromium's own as the other, both adopted
 * into the proxy's lws loop as raw files, and the message core between
 * them: the same scan, sessions, policy, stats and log as the WebSocket
 * proxy, and the admin listener (CDPPROXY_CONTROL) served by the same HTTP leg. */
#define _GNU_SOURCE   /* pipe2, F_SETPIPE_SZ */
#include "wrapper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeleg.h"
#include "proxy.h"
#include "route.h"
#include "util.h"

#define PIPE_BYTES (1 << 20)      /* asked of the kernel for Chromium's pipes */
#define TEND_US (100 * 1000)      /* signals and the kill time, between wake-ups */
#define DRAIN_US (1000 * 1000)    /* after the browser exits, for its last words */
#define HANG_MS 5000              /* a browser that outlives its client's pipe this long is killed */

/* The one connection: DOWN is the client's pipe pair, UP Chromium's. */
struct pipe_run {
	struct core_conn cc;
	struct wrapper *w;
	struct proxy px;
	volatile int stop;
	lws_sorted_usec_list_t sul;
	struct pipeleg leg[2];
	struct lws *rwsi[2], *wwsi[2];  /* NULL once closed */
	int in_done[2];               /* side s's input ended */
	int close_write[2];           /* close side s's output once its queue is written */
	int dirty[2];                 /* out[s] has news: write it at the round's end */
	int pause_after[2];           /* side s was paused inside a cut-through message */
	uint64_t exited_at_us;        /* when the browser was reaped */
};

static struct pipe_run *the_run;

#define run_of(ccp) lws_container_of(ccp, struct pipe_run, cc)

/* The core's asks: writes wait for the end of the event loop's round
 * (pipe_flush), so that a round's messages go out in one writev. */
static void pipe_queued(struct core_conn *cc, enum side s)
{
	run_of(cc)->dirty[s] = 1;
}

static void pipe_reading(struct core_conn *cc, enum side s, int on)
{
	struct pipe_run *r = run_of(cc);

	/* A cut-through message is read to its end even so: it frees the
	 * queue that paused its side only once it is whole and written. */
	r->pause_after[s] = !on && pipeleg_streaming(&r->leg[s]);
	if (r->rwsi[s] && !r->pause_after[s])
		lws_rx_flow_control(r->rwsi[s], on && !r->leg[s].hold);
}

/* The bytes of m (being read from side p) not yet written to the other side. */
static size_t unsent(const struct pipe_run *r, int p, const struct msg *m)
{
	size_t sent = r->cc.out[!p].head == m ? r->leg[!p].head_sent : 0;

	return sent < m->len ? m->len - sent : 0;
}

/* Reading side p holds while the message it cuts through is too far ahead
 * of its writer (core_read_ahead_hold), while the queue's budget (which
 * counts a message only once it is whole) still rules between messages. */
static void hold_check(struct pipe_run *r, int p)
{
	const struct msg *m = r->leg[p].rx;
	int hold = m && core_read_ahead_hold(unsent(r, p, m), r->leg[p].hold);

	if (hold == r->leg[p].hold)
		return;
	r->leg[p].hold = hold;
	if (r->rwsi[p])
		lws_rx_flow_control(r->rwsi[p], !hold && (r->pause_after[p] || !core_paused(&r->cc, (enum side)p)));
}

static const struct core_leg_ops pipe_ops = { pipe_queued, pipe_reading };

/* The legs' reports. */
static void leg_deliver(void *ctx, int side, const char *buf, size_t len)
{
	struct pipe_run *r = ctx;
	struct msg *m = msg_new(len);

	memcpy(MSG_DATA(m), buf, len);
	m->len = len;
	route_deliver(&r->cc, (enum side)side, m);
}

static void leg_refused(void *ctx, int side, uint64_t bytes)
{
	struct pipe_run *r = ctx;

	fprintf(stderr, "cdpproxy-chromium: refused a message from the %s of %llu bytes or more "
		"(no NUL within CDPPROXY_MAX_MESSAGE, %llu bytes): discarded\n", side_name[side],
		(unsigned long long)bytes, (unsigned long long)r->w->cfg.max_message);
	core_report_too_large(&r->cc, (enum side)side, bytes, r->w->cfg.max_message);
}

static void leg_written(void *ctx, int side)
{
	struct pipe_run *r = ctx;

	core_written(&r->cc, (enum side)side);
}

static int leg_begin(void *ctx, int side, struct msg *m)
{
	struct pipe_run *r = ctx;

	return route_begin(&r->cc, (enum side)side, m, 0);
}

static void leg_grew(void *ctx, int side, struct msg *m, size_t old_cost)
{
	struct pipe_run *r = ctx;

	core_stream_grew(&r->cc, (enum side)!side, m, old_cost);
	hold_check(r, side);
}

static void leg_end(void *ctx, int side, struct msg *m)
{
	struct pipe_run *r = ctx;

	route_deliver(&r->cc, (enum side)side, m);
	if (r->pause_after[side]) {   /* a pause asked for while it came applies now */
		r->pause_after[side] = 0;
		if (r->rwsi[side] && core_paused(&r->cc, (enum side)side))
			lws_rx_flow_control(r->rwsi[side], 0);
	}
}

static const struct pipeleg_ops leg_ops = {
	leg_deliver, leg_refused, leg_written, leg_begin, leg_grew, leg_end
};

/* Nothing more goes to side s: its output closes once what is queued is
 * written, so that its reader sees the end (Chromium exits on it). */
static void pipe_end_output(struct pipe_run *r, enum side s)
{
	if (r->close_write[s])
		return;
	r->close_write[s] = 1;
	core_shut(&r->cc, s, 0);
	if (r->wwsi[s])
		lws_callback_on_writable(r->wwsi[s]);
	if (s == UP)   /* the client is gone: the browser has a while to follow */
		wrapper_kill_later(r->w, HANG_MS);
}

/* Writes what is queued for side s; -1 to close its output now. */
static int pipe_write(struct pipe_run *r, enum side s)
{
	char err[160];
	int rc = pipeleg_write(&r->leg[s], &r->cc.out[s], err, sizeof err);

	hold_check(r, !s);
	if (rc < 0)
		return -1;
	if (rc == 2)   /* a cut-through message's bytes: core_stream_grew asks again */
		return 0;
	if (!rc) {   /* full: lws says when it takes more */
		lws_callback_on_writable(r->wwsi[s]);
		return 0;
	}
	return r->close_write[s] ? -1 : 0;
}

/* The end of an event loop round: what the round queued goes out. */
static void pipe_flush(struct proxy *px)
{
	struct pipe_run *r = the_run;

	(void)px;
	for (int s = DOWN; s <= UP; s++) {
		if (!r->dirty[s])
			continue;
		r->dirty[s] = 0;
		if (r->wwsi[s] && pipe_write(r, (enum side)s) < 0)
			lws_set_timeout(r->wwsi[s], PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE,
					LWS_TO_KILL_ASYNC);
	}
}

/* Which leg and which end a wsi is: the leg's side, and *out. */
static int wsi_side(struct pipe_run *r, struct lws *wsi, int *out)
{
	for (int s = DOWN; s <= UP; s++) {
		if (wsi == r->rwsi[s] || wsi == r->wwsi[s]) {
			*out = wsi == r->wwsi[s];
			return s;
		}
	}
	return -1;
}

static int pipe_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
			 void *in, size_t len)
{
	struct pipe_run *r = the_run;
	int out = 0, s = r ? wsi_side(r, wsi, &out) : -1;
	char err[160];

	(void)user, (void)in, (void)len;
	if (s < 0)
		return 0;
	switch (reason) {
	case LWS_CALLBACK_RAW_RX_FILE: {
		int rc;
		core_read_clock(&r->px.core, wsi);
		rc = pipeleg_read(&r->leg[s], err, sizeof err);
		if (rc > 0)
			return 0;
		if (rc < 0)
			fprintf(stderr, "cdpproxy-chromium: %s pipe: %s\n", side_name[s], err);
		/* Its input ended: so does the other side's (the client's close is
		 * Chromium's EOF on fd 3; Chromium's, the client's). */
		r->in_done[s] = 1;
		pipe_end_output(r, (enum side)!s);
		return -1;
	}
	case LWS_CALLBACK_RAW_WRITEABLE_FILE:
		/* Written at the round's end (pipe_flush): lws 4.1.6 clears a
		 * raw file's POLLOUT after this callback, so a wish to write
		 * again, made here, would be lost. */
		if (out)
			r->dirty[s] = 1;
		return 0;
	case LWS_CALLBACK_RAW_CLOSE_FILE:
		if (out) {
			r->wwsi[s] = NULL;
			/* Its reader is gone (or we closed it): nothing can reach it.
			 * A message cut through to it is in the queue dropped now:
			 * the other leg reads its rest and throws it away. */
			pipeleg_rx_release(&r->leg[!s]);
			hold_check(r, !s);
			core_shut(&r->cc, (enum side)s, 1);
			if (s == DOWN)   /* a client that stopped reading is not waited for */
				pipe_end_output(r, UP);
		} else {
			r->rwsi[s] = NULL;
			r->in_done[s] = 1;
		}
		return 0;
	default:
		return 0;
	}
}

/* The pipe leg: its lws protocol, and its writes at each round's end. */
static const struct lws_protocols pipe_protocols[] = {
	{ "cdp-pipe", pipe_callback, 0, 0, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};

static const struct proxy_leg pipe_leg = { .protocols = pipe_protocols, .round = pipe_flush };

/* The client's fd (3 or 4) moved above 4, close-on-exec. -1 if not open. */
static int take_client_fd(int fd)
{
	int moved;

	if (fcntl(fd, F_GETFD) < 0)
		return -1;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, 5);
	close(fd);
	return moved;
}

/* Signals and the browser's state; the end once it is gone and its last
 * words are written (or the drain time is up). */
static void pipe_tend(struct proxy *px)
{
	struct pipe_run *r = the_run;

	(void)px;
	if (!r->exited_at_us && !wrapper_tend(r->w, wrapper_reload))
		r->exited_at_us = util_mono_us();
	if (r->exited_at_us &&
	    ((r->in_done[UP] && (!r->wwsi[DOWN] || !r->cc.out[DOWN].head)) ||
	     util_mono_us() - r->exited_at_us > DRAIN_US))
		r->stop = 1;
}

static void tend_tick(lws_sorted_usec_list_t *sul)
{
	pipe_tend(&the_run->px);
	lws_sul_schedule(the_run->px.ctx, 0, sul, tend_tick, TEND_US);
}

/* Adopts fd into the loop as a raw file of the pipe protocol. */
static struct lws *adopt(struct pipe_run *r, int fd)
{
	lws_sock_file_fd_type d;

	d.filefd = fd;
	return lws_adopt_descriptor_vhost(r->px.vhost, LWS_ADOPT_RAW_FILE_DESC, d, "cdp-pipe", NULL);
}

int wrapper_run_pipe(struct wrapper *w, char *err, size_t errlen)
{
	static struct pipe_run r;
	int in = take_client_fd(3), outfd = take_client_fd(4), to[2], from[2];
	int fds[5] = { -1, -1, -1, -1, -1 };

	if (in < 0 || outfd < 0) {
		snprintf(err, errlen, "--remote-debugging-pipe needs fds 3 (to the browser) and 4 "
			 "(from it) open");
		return -1;
	}
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	/* Fewer, larger reads and writes for big messages, the client's
	 * pipes too (a message cut through goes on as fast as its reader
	 * takes it); a refusal is fine. */
	fcntl(to[1], F_SETPIPE_SZ, PIPE_BYTES);
	fcntl(from[1], F_SETPIPE_SZ, PIPE_BYTES);
	fcntl(in, F_SETPIPE_SZ, PIPE_BYTES);
	fcntl(outfd, F_SETPIPE_SZ, PIPE_BYTES);
	r.w = w;
	the_run = &r;
	wrapper_serve(w, &r.px);
	/* The proxy's HTTP leg listens only as the admin listener (/proxy/). */
	if (wrapper_proxy_start(w, &r.px, NULL, -1, 0, &pipe_leg, err, errlen) < 0)
		return -1;
	if (wrapper_listen_admin(w, &r.px, err, errlen) < 0) {
		wrapper_serve(w, NULL);
		proxy_stop(&r.px);
		return -1;
	}
	fds[3] = to[0];
	fds[4] = from[1];
	if (wrapper_start(w, fds, err, errlen) < 0) {
		proxy_stop(&r.px);
		return -1;
	}
	close(to[0]);
	close(from[1]);

	core_conn_init(&r.px.core, &r.cc, &pipe_ops, "/devtools/browser");
	core_report_open(&r.cc, "pipe", w->cfg.chromium);
	pipeleg_init(&r.leg[DOWN], DOWN, in, outfd, w->cfg.max_message, &leg_ops, &r);
	pipeleg_init(&r.leg[UP], UP, from[0], to[1], w->cfg.max_message, &leg_ops, &r);
	r.leg[DOWN].cut_min = r.leg[UP].cut_min = r.px.core.cut_min;
	r.rwsi[DOWN] = adopt(&r, in);
	r.wwsi[DOWN] = adopt(&r, outfd);
	r.rwsi[UP] = adopt(&r, from[0]);
	r.wwsi[UP] = adopt(&r, to[1]);
	if (!r.rwsi[DOWN] || !r.wwsi[DOWN] || !r.rwsi[UP] || !r.wwsi[UP]) {
		snprintf(err, errlen, "cannot watch the pipes (lws could not adopt them)");
		wrapper_kill(w);
		proxy_stop(&r.px);
		return -1;
	}
	route_conn_opened(&r.cc);
	r.px.on_wake = pipe_tend;
	lws_sul_schedule(r.px.ctx, 0, &r.sul, tend_tick, TEND_US);
	proxy_run(&r.px, &r.stop);
	lws_sul_cancel(&r.sul);
	r.px.on_wake = NULL;
	wrapper_serve(w, NULL);   /* the context goes now */
	for (int s = DOWN; s <= UP; s++)   /* a pipe's end is a normal closure */
		core_report_close(&r.cc, (enum side)s, r.in_done[DOWN] ? "client" : "upstream", 1000, "");
	for (int s = DOWN; s <= UP; s++) {
		if (r.rwsi[s])
			lws_set_timeout(r.rwsi[s], PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_SYNC);
		if (r.wwsi[s])
			lws_set_timeout(r.wwsi[s], PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_SYNC);
	}
	wrapper_push(w, &r.px);
	core_conn_free(&r.cc);
	proxy_stop(&r.px);
	w->log_lost = r.px.log_lost;
	pipeleg_free(&r.leg[DOWN]);
	pipeleg_free(&r.leg[UP]);
	wrapper_exit(w);
}
