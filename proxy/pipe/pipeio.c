/* pipeio: what is called back on the pipe leg: its answers to the core's
 * asks (leg_ops: write a side's queue as NUL-ended messages, read a side or
 * not, how much of a cut-through message went), when the core asks
 * (leg.c); and the endpoints' reports (pipeleg_ops: the contract's own, and
 * a message refused). */
#include "pipe.h"

#include <stdio.h>

/* A message over the maximum, said on stderr as well as in the log (there
 * may be none), since the client sees nothing of it. */
static void pipeio_refused(void *ctx, int side, uint64_t bytes)
{
	struct core_conn *cc = ctx;

	fprintf(stderr, "cdpproxy-chromium: refused a message from the %s of %llu bytes or more "
		"(no NUL within CDPPROXY_MAX_MESSAGE, %llu bytes): discarded\n", side_name[side],
		(unsigned long long)bytes, (unsigned long long)cc->core->max_message);
	leg_too_large(cc, (enum side)side, bytes);
}

const struct pipeleg_ops pipeio_reports = { leg_deliver, leg_begin, leg_grew, pipeio_refused };

/* Writes what is queued for side s as far as its pipe takes it; once it is
 * all written, a side whose output is to close (pipe_conn.close_write) is
 * closed. Always at the round's end: lws 4.1.6 clears a raw file's POLLOUT
 * after its writeable callback, so a wish to write again made there would
 * be lost (pipe.c asks leg_write_later). */
static int pipeio_write(struct core_conn *cc, enum side s, int writable)
{
	struct pipe_conn *p = pipe_of(cc);
	char err[160];
	int rc;

	(void)writable;
	if (!p->wwsi[s])
		return 0;
	rc = pipeleg_write(&p->leg[s], &cc->out[s], err, sizeof err);
	if (rc == 0)   /* full: lws says when it takes more */
		lws_callback_on_writable(p->wwsi[s]);
	if (rc == 0 || rc == 2 || (rc == 1 && !p->close_write[s]))
		return 0;   /* 2: a cut-through message's bytes: leg_grew asks again */
	lws_set_timeout(p->wwsi[s], PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_ASYNC);
	return -1;
}

static void pipeio_flow(struct core_conn *cc, enum side s, int on)
{
	struct pipe_conn *p = pipe_of(cc);

	p->leg[s].hold = !on;   /* pipeleg_read stops between its reads */
	if (p->rwsi[s])
		lws_rx_flow_control(p->rwsi[s], on);
}

static size_t pipeio_sent(const struct core_conn *cc, enum side s, const struct msg *m)
{
	return cc->out[s].head == m ? pipe_of(cc)->leg[s].head_sent : 0;
}

const struct leg_ops pipeio_ops = { pipeio_write, pipeio_flow, pipeio_sent, NULL, NULL };
