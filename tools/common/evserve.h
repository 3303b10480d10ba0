/* evserve: the libevent server skeleton of the tools' peers (cdp-echo,
 * uploadsink): a listener on an IPv4 address, the list of its connections,
 * and a loop that SIGINT and SIGTERM end. */
#ifndef TOOLS_EVSERVE_H
#define TOOLS_EVSERVE_H

#include <stddef.h>
#include <stdint.h>

#include <event2/buffer.h>
#include <event2/event.h>

struct evserve;

/* One connection; a tool's own connection struct starts with it. */
struct evserve_conn {
	struct evserve *srv;
	struct evserve_conn *prev, *next;
	evutil_socket_t fd;           /* non-blocking, TCP_NODELAY */
	struct event *rd, *wr;        /* persistent; rd is added at accept */
	struct evbuffer *out;
};

struct evserve_ops {
	size_t conn_size;                            /* the tool's struct */
	void (*on_open)(struct evserve_conn *c);     /* optional */
	void (*on_read)(struct evserve_conn *c);     /* rd fired */
	void (*on_write)(struct evserve_conn *c);    /* wr fired */
	void (*on_free)(struct evserve_conn *c);     /* optional: frees the tool's parts */
};

struct evserve {
	struct event_base *base;
	struct evconnlistener *listener;
	struct event *sigs[2];
	struct evserve_ops ops;
	void *arg;                    /* the tool's */
	int port;                     /* the port bound (0 asks for a free one) */
	struct evserve_conn *conns;
};

/* Listens on host (an IPv4 address) and port, with SIGPIPE ignored. 0, or -1
 * with a reason in err. */
int evserve_open(struct evserve *s, const char *host, int port, const struct evserve_ops *ops,
		 void *arg, char *err, size_t errlen);

/* Runs the loop until SIGINT or SIGTERM. */
void evserve_run(struct evserve *s);

/* Queues an HTTP/1.1 answer's head (status, Content-Type, Content-Length,
 * no caching, whether the connection stays) on c->out; the body follows. */
void evserve_http_head(struct evserve_conn *c, int status, const char *content_type,
		       uint64_t len, int keep_alive);

/* Closes c and frees it (on_free first). */
void evserve_conn_free(struct evserve_conn *c);

/* Frees every connection, the listener and the loop. */
void evserve_close(struct evserve *s);

#endif
