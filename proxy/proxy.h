/* proxy: the lws context, its listener, and what every connection shares. */
#ifndef CDPPROXY_PROXY_H
#define CDPPROXY_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include <libwebsockets.h>

#include "access.h"
#include "launch.h"
#include "log.h"
#include "policy.h"
#include "stats.h"

struct proxy_config {
	char listen_host[128];
	int listen_port;              /* 0: any free port */
	char upstream_host[128];
	int upstream_port;
	const char *log_path;
	const char *policy_path;      /* --policy, reloaded on SIGHUP */
	const char *policy_dir;       /* where PUT {"name":N} finds N.json */
	size_t log_bodies;            /* 0: no bodies */
	uint64_t max_message;         /* bytes */
	uint64_t queue_bytes;         /* per direction, before reading pauses */
	const char *chromium;         /* --launch: the browser to start, else NULL */
	char **chromium_args;         /* extra flags after -- */
	int chromium_argc;
	const char *token;            /* --token / CDPPROXY_TOKEN: required on every request */
	unsigned max_connections;     /* client WebSockets at once */
	unsigned upstream_timeout;    /* seconds to connect to Chrome and hear its answer */
	int log_secrets;              /* --log-secrets: no redaction of logged bodies */
	int allow_remote;             /* --allow-remote: non-loopback --listen addresses */
	struct access_list allow_hosts;    /* --allow-host */
	struct access_list allow_origins;  /* --allow-origin */
};

struct conn;

#define BATCH_BYTES (256 * 1024)
/* A request target as passed on: lws takes 8 KiB of request head, each
 * byte of which may come out as %XX. */
#define PROXY_TARGET_MAX (3 * 8192 + 2)

struct proxy {
	struct proxy_config cfg;
	struct lws_context *ctx;
	struct lws_vhost *vhost;
	int port;                     /* the one actually listened on */
	char upstream[160];           /* "host:port" as sent in Host headers */
	struct log *log;              /* NULL without --log */
	struct stats *stats;
	struct conn *conns;           /* open WebSocket pairs */
	struct conn *dirty;           /* pairs with messages queued this round */
	uint64_t next_conn_id, conns_total;
	unsigned conns_open;
	struct launch chrome;         /* with --launch */
	struct policy *policy;        /* never NULL */
	uint64_t policy_gen;          /* 1 for the first, +1 at every switch */
	uint64_t policy_since_us;
	uint64_t started_us;
	lws_sorted_usec_list_t tick;  /* log flush and browser watch */
	void (*on_wake)(struct proxy *px);  /* after lws_cancel_service */
	unsigned char *batch;         /* LWS_PRE + BATCH_BYTES: frames written at once */
	/* When the bytes being handled were read (proxy_read_clock). */
	uint64_t read_mono_us, read_wall_us;
	struct lws *read_wsi;         /* ... from this socket, in this round */
	struct listen_state *listen;  /* listen.c: sockets and accepted HTTP connections */
};

/* Creates the context and listener, with policy p (taken; NULL: pass
 * everything). 0, or -1 with a reason in err. */
int proxy_start(struct proxy *px, const struct proxy_config *cfg, struct policy *p,
		char *err, size_t errlen);
/* Loads the policy named name (a file NAME.json in the policy directory). */
struct policy *proxy_policy_by_name(const struct proxy *px, const char *name,
				    char *err, size_t errlen);
/* Serves until *stop becomes non-zero (set it from a signal handler, then call
 * lws_cancel_service). */
void proxy_run(struct proxy *px, volatile int *stop);
/* Closes every connection, flushes the log, stops a launched browser. */
void proxy_stop(struct proxy *px);
/* Makes p (taken) the policy for every connection, and brings live sessions
 * in line with it. source says how ("start", "PUT", "SIGHUP"). */
void proxy_set_policy(struct proxy *px, struct policy *p, const char *source);
/* Fills i for a connection to the upstream, served by protocol, with opaque
 * as its user data and its wsi stored in *pwsi; the caller adds the rest. */
void proxy_connect_info(struct proxy *px, struct lws_client_connect_info *i,
			const char *protocol, void *opaque, struct lws **pwsi);
/* The request target to pass on: path (lws's decoded one) and the URL
 * arguments as lws decoded them, each re-encoded (access_encode), joined
 * by '&' after a '?', without any token= argument (access_strip_token).
 * 0, or -1 when it does not fit outlen. */
int proxy_request_target(struct lws *wsi, const char *path, char *out, size_t outlen);
/* The request's token= URL arguments against token (access_token_arg on
 * each as lws decoded it): 1 one is right, -1 there are some and none is,
 * 0 there is none. */
int proxy_query_token(struct lws *wsi, const char *token);
/* Bytes were read from wsi: the clock is read once per read of a socket,
 * not once per message in it (lws hands over a read's frames one by one). */
void proxy_read_clock(struct proxy *px, struct lws *wsi);

/* conn.c: the WebSocket pairs. */
int conn_up_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		     void *in, size_t len);
json_t *conn_list_json(struct proxy *px);
/* downstream.c: the client legs, raw sockets after their upgrade. */
int conn_down_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		       void *in, size_t len);
/* Writes what this round of the event loop queued, at once. */
void conn_flush(struct proxy *px);
void conn_close_all(struct proxy *px);

/* http.c: discovery forwarding and the /proxy/ admin endpoints. */
int http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		  void *in, size_t len);
int http_up_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		     void *in, size_t len);
/* The whole value of a request header, however long (lws_hdr_copy joins
 * repeated ones with ','); "" when absent. Free it. */
char *http_header_dup(struct lws *wsi, enum lws_token_indexes tok);
/* Answers status with why as a plain text body, at once. 0, or -1. */
int http_refuse(struct lws *wsi, unsigned status, const char *why);

#endif
