/* pipe: the pipe leg as the loop and the wrapper see it: a client's pipe
 * pair and a browser's, adopted into the loop as raw files of the protocol
 * cdp-pipe, one connection of the message core between them (the same
 * scan, sessions, policy, stats and log as the WebSocket leg); the pipes'
 * ends. */
#define _GNU_SOURCE   /* F_SETPIPE_SZ */
#include "pipe.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define PIPE_BYTES (1 << 20)      /* asked of the kernel for each pipe */

/* Nothing more goes to side s: its output closes once what is queued is
 * written, so that its reader sees the end (Chromium exits on it). */
static void end_output(struct pipe_conn *p, enum side s)
{
	if (p->close_write[s])
		return;
	p->close_write[s] = 1;
	leg_shut(&p->cc, s, 0);
	if (p->wwsi[s])
		lws_callback_on_writable(p->wwsi[s]);
	if (s == UP && p->client_gone)   /* the client is gone: the browser follows */
		p->client_gone(p->arg);
}

/* Which side and which end a wsi is: the side, and *out. */
static int wsi_side(struct pipe_conn *p, struct lws *wsi, int *out)
{
	for (int s = DOWN; s <= UP; s++) {
		if (wsi == p->rwsi[s] || wsi == p->wwsi[s]) {
			*out = wsi == p->wwsi[s];
			return s;
		}
	}
	return -1;
}

static int pipe_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
			 void *in, size_t len)
{
	struct pipe_conn *p = lws_get_opaque_user_data(wsi);
	int out = 0, s = p ? wsi_side(p, wsi, &out) : -1;
	char err[160];

	(void)user, (void)in, (void)len;
	if (s < 0)
		return 0;
	switch (reason) {
	case LWS_CALLBACK_RAW_RX_FILE: {
		int rc;
		leg_read(p->cc.core, wsi);
		rc = pipeleg_read(&p->leg[s], err, sizeof err);
		if (rc > 0)
			return 0;
		if (rc < 0)
			fprintf(stderr, "cdpproxy-chromium: %s pipe: %s\n", side_name[s], err);
		/* Its input ended: so does the other side's (the client's close is
		 * Chromium's EOF on fd 3; Chromium's, the client's). */
		p->in_done[s] = 1;
		end_output(p, (enum side)!s);
		return -1;
	}
	case LWS_CALLBACK_RAW_WRITEABLE_FILE:
		if (out)
			leg_write_later(&p->cc, (enum side)s);   /* pipeio_write says why */
		return 0;
	case LWS_CALLBACK_RAW_CLOSE_FILE:
		lws_set_opaque_user_data(wsi, NULL);
		if (out) {
			p->wwsi[s] = NULL;
			/* Its reader is gone (or we closed it): nothing can reach it.
			 * A message cut through to it is in the queue dropped now:
			 * the other leg reads its rest and throws it away. */
			pipeleg_rx_release(&p->leg[!s]);
			leg_shut(&p->cc, (enum side)s, 1);
			if (s == DOWN)   /* a client that stopped reading is not waited for */
				end_output(p, UP);
		} else {
			p->rwsi[s] = NULL;
			p->in_done[s] = 1;
		}
		return 0;
	default:
		return 0;
	}
}

static const struct lws_protocols pipe_protocols[] = {
	{ "cdp-pipe", pipe_callback, 0, 0, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};

const struct proxy_leg pipe_leg = { .protocols = pipe_protocols };

/* p's fds out of the loop, closed, now. */
static void unwatch(struct pipe_conn *p)
{
	for (int s = DOWN; s <= UP; s++) {
		if (p->rwsi[s])
			lws_set_timeout(p->rwsi[s], PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_SYNC);
		if (p->wwsi[s])
			lws_set_timeout(p->wwsi[s], PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_SYNC);
	}
}

/* Adopts fd into px's loop as a raw file of the pipe protocol, for p. */
static struct lws *adopt(struct pipe_conn *p, struct proxy *px, int fd)
{
	lws_sock_file_fd_type d;
	struct lws *wsi;

	/* Fewer, larger reads and writes for big messages (a message cut
	 * through goes on as fast as its reader takes it); a refusal is fine. */
	fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES);
	d.filefd = fd;
	wsi = lws_adopt_descriptor_vhost(px->vhost, LWS_ADOPT_RAW_FILE_DESC, d, "cdp-pipe", NULL);
	if (wsi)
		lws_set_opaque_user_data(wsi, p);
	else
		close(fd);
	return wsi;
}

int pipe_open(struct pipe_conn *p, struct proxy *px, int cin, int cout, int bin, int bout,
	      const char *browser, char *err, size_t errlen)
{
	leg_conn_init(&px->core, &p->cc, &pipeio_ops, "/devtools/browser");
	leg_report_open(&p->cc, "pipe", browser);
	pipeleg_init(&p->leg[DOWN], DOWN, cin, cout, px->cfg.max_message, &pipeio_reports, &p->cc);
	pipeleg_init(&p->leg[UP], UP, bin, bout, px->cfg.max_message, &pipeio_reports, &p->cc);
	p->leg[DOWN].cut_min = p->leg[UP].cut_min = px->core.cut_min;
	p->rwsi[DOWN] = adopt(p, px, cin);
	p->wwsi[DOWN] = adopt(p, px, cout);
	p->rwsi[UP] = adopt(p, px, bin);
	p->wwsi[UP] = adopt(p, px, bout);
	if (!p->rwsi[DOWN] || !p->wwsi[DOWN] || !p->rwsi[UP] || !p->wwsi[UP]) {
		snprintf(err, errlen, "cannot watch the pipes (lws could not adopt them)");
		unwatch(p);
		pipe_free(p);
		return -1;
	}
	leg_conn_ready(&p->cc);
	return 0;
}

int pipe_drained(const struct pipe_conn *p)
{
	return p->in_done[UP] && (!p->wwsi[DOWN] || !p->cc.out[DOWN].head);
}

void pipe_close(struct pipe_conn *p)
{
	for (int s = DOWN; s <= UP; s++)   /* a pipe's end is a normal closure */
		leg_report_close(&p->cc, (enum side)s, p->in_done[DOWN] ? "client" : "upstream", 1000, "");
	unwatch(p);
}

void pipe_free(struct pipe_conn *p)
{
	leg_conn_free(&p->cc);
	pipeleg_free(&p->leg[DOWN]);
	pipeleg_free(&p->leg[UP]);
}
