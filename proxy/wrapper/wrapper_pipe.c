/* wrapper_pipe: cdpproxy-chromium's pipe mode: the client's fds 3 and 4
 * and a pipe pair of Chromium's own, joined by the pipe leg (pipe.h) in the
 * proxy's loop, with the admin listener (CDPPROXY_CONTROL) served by the
 * same HTTP leg; the browser's life around it. */
#define _GNU_SOURCE   /* pipe2 */
#include "wrapper.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pipe.h"
#include "util.h"

#define TEND_US (100 * 1000)      /* signals and the kill time, between wake-ups */
#define DRAIN_US (1000 * 1000)    /* after the browser exits, for its last words */
#define HANG_MS 5000              /* a browser that outlives its client's pipe this long is killed */

struct pipe_run {
	struct wrapper *w;
	struct proxy px;
	struct pipe_conn pc;
	volatile int stop;
	lws_sorted_usec_list_t sul;
	uint64_t exited_at_us;        /* when the browser was reaped */
};

static struct pipe_run *the_run;

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

/* The client's pipe closed: the browser has a while to follow. */
static void client_gone(void *arg)
{
	wrapper_kill_later(arg, HANG_MS);
}

/* Signals and the browser's state; the end once it is gone and its last
 * words are written (or the drain time is up). */
static void pipe_tend(struct proxy *px)
{
	struct pipe_run *r = the_run;

	(void)px;
	if (!r->exited_at_us && !wrapper_tend(r->w, wrapper_reload))
		r->exited_at_us = util_mono_us();
	if (r->exited_at_us && (pipe_drained(&r->pc) || util_mono_us() - r->exited_at_us > DRAIN_US))
		r->stop = 1;
}

static void tend_tick(lws_sorted_usec_list_t *sul)
{
	pipe_tend(&the_run->px);
	lws_sul_schedule(the_run->px.ctx, 0, sul, tend_tick, TEND_US);
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
	r.w = w;
	the_run = &r;
	wrapper_serve(w, &r.px);
	/* The proxy's HTTP leg listens only as the admin listener (/proxy/). */
	if (wrapper_proxy_start(w, &r.px, NULL, -1, 0, err, errlen) < 0)
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
	r.pc.client_gone = client_gone;
	r.pc.arg = w;
	if (pipe_open(&r.pc, &r.px, in, outfd, from[0], to[1], w->cfg.chromium, err, errlen) < 0) {
		wrapper_kill(w);
		proxy_stop(&r.px);
		return -1;
	}
	r.px.on_wake = pipe_tend;
	lws_sul_schedule(r.px.ctx, 0, &r.sul, tend_tick, TEND_US);
	proxy_run(&r.px, &r.stop);
	lws_sul_cancel(&r.sul);
	r.px.on_wake = NULL;
	wrapper_serve(w, NULL);   /* the context goes now */
	pipe_close(&r.pc);
	wrapper_push(w, &r.px);
	pipe_free(&r.pc);
	proxy_stop(&r.px);
	w->log_lost = r.px.log_lost;
	wrapper_exit(w);
}
