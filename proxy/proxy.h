/* proxy: the lws context, its listener, and what every connection shares. */
#ifndef CDPPROXY_PROXY_H
#define CDPPROXY_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include <libwebsockets.h>

#include "launch.h"
#include "log.h"
#include "stats.h"

struct proxy_config {
	char listen_host[128];
	int listen_port;              /* 0: any free port */
	char upstream_host[128];
	int upstream_port;
	const char *log_path;
	size_t log_bodies;            /* 0: no bodies */
	uint64_t max_message;         /* bytes */
	uint64_t queue_bytes;         /* per direction, before reading pauses */
	const char *chromium;         /* --launch: the browser to start, else NULL */
	char **chromium_args;         /* extra flags after -- */
	int chromium_argc;
};

struct conn;

struct proxy {
	struct proxy_config cfg;
	struct lws_context *ctx;
	struct lws_vhost *vhost;
	int port;                     /* the one actually listened on */
	char upstream[160];           /* "host:port" as sent in Host headers */
	struct log *log;              /* NULL without --log */
	struct stats *stats;
	struct conn *conns;           /* open WebSocket pairs */
	uint64_t next_conn_id, conns_total;
	unsigned conns_open;
	struct launch chrome;         /* with --launch */
	uint64_t started_us;
	lws_sorted_usec_list_t tick;  /* log flush and browser watch */
};

/* Creates the context and listener. 0, or -1 with a reason in err. */
int proxy_start(struct proxy *px, const struct proxy_config *cfg, char *err, size_t errlen);
/* Serves until *stop becomes non-zero (set it from a signal handler, then call
 * lws_cancel_service). */
void proxy_run(struct proxy *px, volatile int *stop);
/* Closes every connection, flushes the log, stops a launched browser. */
void proxy_stop(struct proxy *px);
/* Points new connections at host:port. */
void proxy_set_upstream(struct proxy *px, const char *host, int port);

/* conn.c: the WebSocket pairs. */
int conn_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		  void *in, size_t len);
int conn_up_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		     void *in, size_t len);
json_t *conn_list_json(struct proxy *px);
void conn_close_all(struct proxy *px);

/* http.c: discovery forwarding and the /proxy/ admin endpoints. */
int http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		  void *in, size_t len);
int http_up_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		     void *in, size_t len);

/* Per downstream wsi (HTTP or WebSocket, the same protocol). */
struct pss {
	struct conn *conn;            /* WebSocket */
	struct http_reply *reply;     /* HTTP */
};

#endif
