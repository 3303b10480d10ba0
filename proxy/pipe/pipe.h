/* pipe: the pipe leg: a client's pipe pair (Chromium's
 * --remote-debugging-pipe: fds 3 and 4, NUL-framed) and a browser's, as one
 * connection of the message core through the leg contract (leg.h), its four
 * fds raw files of the loop (pipe_leg). Its files: pipe.c (the leg as the
 * loop and the wrapper see it: the lws callback, open, close) calls
 * pipeleg.c (NUL framing); pipeio.c holds what is called back (the core's
 * asks, the endpoints' reports), so that no call comes back into pipe.c
 * while it reads (proxy/pipe/README.md, one message traced). */
#ifndef CDPPROXY_PIPE_H
#define CDPPROXY_PIPE_H

#include <stddef.h>

#include "leg.h"
#include "pipeleg.h"
#include "proxy.h"

/* The one connection: DOWN is the client's pipe pair, UP the browser's. */
struct pipe_conn {
	struct core_conn cc;          /* the messages: queues, sessions, id, path */
	struct pipeleg leg[2];
	struct lws *rwsi[2], *wwsi[2];  /* side s's read and write ends in the loop; NULL once closed */
	int in_done[2];               /* side s's input ended */
	int close_write[2];           /* close side s's output once its queue is written */
	/* The client's end closed: the browser is to follow (the wrapper's). */
	void (*client_gone)(void *arg);
	void *arg;
};

/* The pipe leg's protocol, as the loop takes it. */
extern const struct proxy_leg pipe_leg;

/* Opens p (zeroed; client_gone and arg may be set) on px's loop: DOWN
 * reads cin and writes cout, the client's; UP reads bin and writes bout,
 * the browser's, named by browser in the log's open record. The fds are
 * p's from now on. 0, or -1 with err: nothing is left open then. */
int pipe_open(struct pipe_conn *p, struct proxy *px, int cin, int cout, int bin, int bout,
	      const char *browser, char *err, size_t errlen);
/* Has the browser's output ended, and what was for the client been written
 * (or can it never be: the client's input is gone)? */
int pipe_drained(const struct pipe_conn *p);
/* The end: both sides' close records (a pipe's end is a normal closure,
 * 1000, by whichever side ended first), its fds out of the loop. */
void pipe_close(struct pipe_conn *p);
/* Frees what p holds; pipe_close first. */
void pipe_free(struct pipe_conn *p);

/* pipeio.c: the core's asks of p (leg_ops), given to leg_conn_init; and
 * what p's endpoints report (pipeleg_init), with ctx &p->cc. */
extern const struct leg_ops pipeio_ops;
extern const struct pipeleg_ops pipeio_reports;
#define pipe_of(ccp) lws_container_of(ccp, struct pipe_conn, cc)

#endif
