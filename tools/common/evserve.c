/* evserve: listener, connection list and signal-ended loop on libevent. */
#include "evserve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/listener.h>
#include <http_parser.h>   /* http_status_str */

#include "util.h"

static void on_read(evutil_socket_t fd, short what, void *arg)
{
	struct evserve_conn *c = arg;

	(void)fd;
	(void)what;
	c->srv->ops.on_read(c);
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
	struct evserve_conn *c = arg;

	(void)fd;
	(void)what;
	c->srv->ops.on_write(c);
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
		      int salen, void *arg)
{
	struct evserve *s = arg;
	struct evserve_conn *c = xcalloc(1, s->ops.conn_size);
	int one = 1;

	(void)l;
	(void)sa;
	(void)salen;
	/* CDP and the sink's answers are write-write-read: no Nagle stalls. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	c->srv = s;
	c->fd = fd;
	c->out = evbuffer_new();
	c->rd = event_new(s->base, fd, EV_READ | EV_PERSIST, on_read, c);
	c->wr = event_new(s->base, fd, EV_WRITE | EV_PERSIST, on_write, c);
	c->next = s->conns;
	if (c->next)
		c->next->prev = c;
	s->conns = c;
	event_add(c->rd, NULL);
	if (s->ops.on_open)
		s->ops.on_open(c);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	event_base_loopbreak(arg);
}

int evserve_open(struct evserve *s, const char *host, int port, const struct evserve_ops *ops,
		 void *arg, char *err, size_t errlen)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t slen = sizeof sin;
	static const int sig[2] = { SIGINT, SIGTERM };

	memset(s, 0, sizeof *s);
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		snprintf(err, errlen, "'%s' is not an IPv4 address", host);
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	s->ops = *ops;
	s->arg = arg;
	s->base = event_base_new();
	s->listener = evconnlistener_new_bind(s->base, on_accept, s, LEV_OPT_CLOSE_ON_FREE |
					      LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC, 511,
					      (struct sockaddr *)&sin, sizeof sin);
	if (!s->listener) {
		snprintf(err, errlen, "cannot listen on %s:%d: %s", host, port, strerror(errno));
		event_base_free(s->base);
		return -1;
	}
	getsockname(evconnlistener_get_fd(s->listener), (struct sockaddr *)&sin, &slen);
	s->port = ntohs(sin.sin_port);
	for (int i = 0; i < 2; i++) {
		s->sigs[i] = evsignal_new(s->base, sig[i], on_signal, s->base);
		event_add(s->sigs[i], NULL);
	}
	return 0;
}

void evserve_run(struct evserve *s)
{
	event_base_dispatch(s->base);
}

void evserve_http_head(struct evserve_conn *c, int status, const char *content_type,
		       uint64_t len, int keep_alive)
{
	evbuffer_add_printf(c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %llu\r\n"
			    "Cache-Control: no-store\r\nConnection: %s\r\n\r\n", status,
			    http_status_str((enum http_status)status), content_type,
			    (unsigned long long)len, keep_alive ? "keep-alive" : "close");
}

void evserve_conn_free(struct evserve_conn *c)
{
	struct evserve *s = c->srv;

	*(c->prev ? &c->prev->next : &s->conns) = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (s->ops.on_free)
		s->ops.on_free(c);
	event_free(c->rd);
	event_free(c->wr);
	evbuffer_free(c->out);
	evutil_closesocket(c->fd);
	free(c);
}

void evserve_close(struct evserve *s)
{
	while (s->conns)
		evserve_conn_free(s->conns);
	for (int i = 0; i < 2; i++)
		event_free(s->sigs[i]);
	evconnlistener_free(s->listener);
	event_base_free(s->base);
}
