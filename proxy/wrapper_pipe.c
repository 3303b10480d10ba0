/* wrapper_pipe: cdpproxy-chromium's pipe mode: the client's fds 3 and 4 on one
 * leg, a pipe pair of Chromium's own on the other, and a poll loop between. */
#define _GNU_SOURCE   /* pipe2, F_SETPIPE_SZ */
#include "wrapper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "log.h"
#include "pipeleg.h"
#include "policy.h"
#include "util.h"

/* The legs, in the order of the core's enum side: DOWN, UP. */
enum { CLIENT, BROWSER };
static const char *const side_name[] = { "client", "browser" };

#define PIPE_BYTES (1 << 20)      /* asked of the kernel for Chromium's pipes */
#define DRAIN_MS 1000             /* after the browser exits, for its last words */
#define HANG_MS 5000              /* a browser that outlives its client's pipe this long is killed */

struct relay {
	struct wrapper *w;
	struct pipeleg leg[2];
	struct log *log;              /* CDPPROXY_LOG, or NULL */
};

/* Where the message core plugs in: each whole message from one leg, to be
 * written to the other. Today it goes unchanged (no scan, policy or log). */
static void relay_deliver(void *ctx, int side, const char *buf, size_t len)
{
	struct relay *r = ctx;

	pipeleg_send(&r->leg[!side], buf, len);
}

/* A message past CDPPROXY_MAX_MESSAGE with no NUL: refused, said once. */
static void relay_refused(void *ctx, int side, uint64_t bytes)
{
	struct relay *r = ctx;

	fprintf(stderr, "cdpproxy-chromium: refused a message from the %s of %llu bytes or more "
		"(no NUL within CDPPROXY_MAX_MESSAGE, %llu bytes): discarded\n", side_name[side],
		(unsigned long long)bytes, (unsigned long long)r->w->cfg.max_message);
	if (r->log)
		log_event(r->log, 1, "refused", json_pack("{s:s, s:I, s:I}", "from", side_name[side],
			  "bytes", (json_int_t)bytes, "max_message", (json_int_t)r->w->cfg.max_message));
}

static const struct pipeleg_ops relay_ops = { relay_deliver, relay_refused };

/* SIGHUP's new policy: the core will apply it; for now it is only kept. */
static void relay_reload(struct wrapper *w, struct policy *p)
{
	policy_free(w->cfg.policy);
	w->cfg.policy = p;
}

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

static void poll_leg(struct pollfd *p, int *n, const struct pipeleg *l, int idx[2])
{
	idx[0] = idx[1] = -1;
	if (pipeleg_wants_read(l)) {
		idx[0] = *n;
		p[(*n)++] = (struct pollfd){ .fd = l->rfd, .events = POLLIN };
	}
	/* Always watched while open: POLLERR says the reader went away. */
	if (l->wfd >= 0) {
		idx[1] = *n;
		p[(*n)++] = (struct pollfd){ .fd = l->wfd, .events = pipeleg_wants_write(l) ? POLLOUT : 0 };
	}
}

/* One pass over what poll said about a leg; side is CLIENT or BROWSER. */
static void serve_leg(struct relay *r, int side, const struct pollfd *p, const int idx[2])
{
	struct pipeleg *l = &r->leg[side];
	char err[256];

	if (idx[0] >= 0 && p[idx[0]].revents && pipeleg_read(l, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy-chromium: %s pipe: %s\n", side_name[side], err);
		close(l->rfd);
		l->rfd = -1;
	}
	if (idx[1] >= 0 && p[idx[1]].revents) {
		if (p[idx[1]].revents & (POLLERR | POLLHUP) && !(p[idx[1]].revents & POLLOUT))
			pipeleg_peer_gone(l);   /* nothing queued for it can arrive */
		else
			pipeleg_flush(l, err, sizeof err);
	}
}

static void relay_loop(struct relay *r)
{
	struct wrapper *w = r->w;
	uint64_t exited_at = 0;
	int running = 1, tend = 1;
	char err[256];

	for (;;) {
		struct pollfd p[5];
		int n = 0, idx[2][2], ready;

		/* Signals and the browser's state: after a signal (SIGCHLD
		 * included) or a quiet interval, not at every message. */
		if (tend || w->kill_at_us)
			running = wrapper_tend(w, relay_reload);

		/* Backpressure: a side whose peer is slow stops being read. */
		pipeleg_pause(&r->leg[CLIENT], pipeleg_queued(&r->leg[BROWSER]) > w->cfg.queue_bytes);
		pipeleg_pause(&r->leg[BROWSER], pipeleg_queued(&r->leg[CLIENT]) > w->cfg.queue_bytes);
		/* An end of input travels on: the client's close is Chromium's EOF
		 * on fd 3 (it then exits); Chromium's is the client's. */
		for (int s = CLIENT; s <= BROWSER; s++)
			if (r->leg[s].rfd < 0 && !r->leg[!s].closing) {
				pipeleg_close_write(&r->leg[!s]);
				if (s == CLIENT)
					wrapper_kill_later(w, HANG_MS);
			}
		/* A client that stopped reading is not waited for either. */
		if (r->leg[CLIENT].wfd < 0 && !r->leg[BROWSER].closing) {
			pipeleg_close_write(&r->leg[BROWSER]);
			wrapper_kill_later(w, HANG_MS);
		}
		if (!running) {
			if (!exited_at)
				exited_at = util_mono_us();
			if ((r->leg[BROWSER].rfd < 0 && !pipeleg_wants_write(&r->leg[CLIENT])) ||
			    util_mono_us() - exited_at > DRAIN_MS * 1000ull)
				break;
		}
		p[n++] = (struct pollfd){ .fd = w->wake_fd, .events = POLLIN };
		poll_leg(p, &n, &r->leg[CLIENT], idx[CLIENT]);
		poll_leg(p, &n, &r->leg[BROWSER], idx[BROWSER]);
		ready = poll(p, (nfds_t)n, 100);
		tend = ready <= 0 || p[0].revents;
		if (ready <= 0)
			continue;
		serve_leg(r, CLIENT, p, idx[CLIENT]);
		serve_leg(r, BROWSER, p, idx[BROWSER]);
		/* What was just read goes out now, not after another poll. */
		for (int s = CLIENT; s <= BROWSER; s++)
			if (pipeleg_wants_write(&r->leg[s]))
				pipeleg_flush(&r->leg[s], err, sizeof err);
		if (r->log)
			log_flush(r->log);
	}
}

int wrapper_run_pipe(struct wrapper *w, char *err, size_t errlen)
{
	struct relay r = { .w = w };
	int in = take_client_fd(3), out = take_client_fd(4), to[2], from[2];
	int fds[5] = { -1, -1, -1, -1, -1 };

	if (in < 0 || out < 0) {
		snprintf(err, errlen, "--remote-debugging-pipe needs fds 3 (to the browser) and 4 "
			 "(from it) open");
		return -1;
	}
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	/* Fewer, larger reads and writes for big messages; a refusal is fine. */
	fcntl(to[1], F_SETPIPE_SZ, PIPE_BYTES);
	fcntl(from[1], F_SETPIPE_SZ, PIPE_BYTES);
	if (*w->cfg.log_path &&
	    !(r.log = log_open(w->cfg.log_path, w->cfg.log_bodies, err, errlen)))
		return -1;
	if (*w->cfg.control_host)
		/* TODO(core): serve /proxy/stats and /proxy/policy here: needs the
		 * HTTP admin side without a WebSocket listener (http.c). */
		fprintf(stderr, "cdpproxy-chromium: CDPPROXY_CONTROL is not served in pipe mode yet\n");
	fds[3] = to[0];
	fds[4] = from[1];
	if (wrapper_start(w, fds, err, errlen) < 0) {
		log_close(r.log);
		return -1;
	}
	close(to[0]);
	close(from[1]);
	pipeleg_init(&r.leg[CLIENT], CLIENT, in, out, w->cfg.max_message, &relay_ops, &r);
	pipeleg_init(&r.leg[BROWSER], BROWSER, from[0], to[1], w->cfg.max_message, &relay_ops, &r);
	if (r.log)
		log_event(r.log, 1, "open", json_pack("{s:s, s:s}", "path", "pipe", "browser",
			  w->cfg.chromium));
	relay_loop(&r);
	if (r.log)
		log_event(r.log, 1, "close", json_pack("{s:i, s:s}", "code", 1000, "by",
			  r.leg[CLIENT].rfd < 0 ? "client" : "upstream"));
	pipeleg_free(&r.leg[CLIENT]);
	pipeleg_free(&r.leg[BROWSER]);
	log_close(r.log);
	wrapper_exit(w);
}
