/* proxy: the event loop: the lws context, its listener, what every
 * connection shares, and one list of hooks. The legs (WebSocket, HTTP, a
 * pipe) are given to it in the configuration: each brings its lws
 * protocols and its hooks (as redis's beforeSleep); the loop names none. */
#ifndef CDPPROXY_PROXY_H
#define CDPPROXY_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include <signal.h>
#include <libwebsockets.h>

#include "access.h"
#include "core.h"

struct proxy;

/* What a leg adds to the loop; every member may be NULL. */
struct proxy_leg {
	/* Its lws protocols, ended by one with a NULL name. The first leg's
	 * first protocol serves HTTP (lws gives it accepted connections). */
	const struct lws_protocols *protocols;
	/* After each round of the loop, once the log is written and the core
	 * has written what the round queued (leg_round). */
	void (*round)(struct proxy *px);
	/* Every tick of the loop (200 ms). */
	void (*tick)(struct proxy *px);
	/* An allowed WebSocket upgrade on wsi, handed over by the leg that read
	 * the request: returns what LWS_CALLBACK_HTTP_CONFIRM_UPGRADE returns. */
	int (*upgrade)(struct proxy *px, struct lws *wsi);
	/* proxy_stop: close every connection, then wait until settled says
	 * there is nothing more to wait for (each read of anything waits
	 * quiet_us more). */
	void (*close_all)(struct proxy *px);
	int (*settled)(struct proxy *px, uint64_t quiet_us);
	/* Last in proxy_stop, once the core is freed: what the leg kept for
	 * the whole run. */
	void (*stop)(struct proxy *px);
	/* Opens a connection to Chrome at path whose client side is another
	 * leg's endpoint (down: its answers to the core's asks, leg.h), for
	 * client: logged open and ready; NULL when it cannot. proxy_dial asks
	 * the first leg that has this (the WebSocket leg). */
	struct core_conn *(*dial)(struct proxy *px, const char *path, const struct client_id *client,
				  const struct leg_ops *down);
	/* The BiDi mapper's channel (core.h, core_channel_open_fn): the
	 * mapper's connection for host. The first leg that has this serves
	 * every channel, unless cfg.no_bidi_channel or there is no upstream. */
	struct core_conn *(*channel)(struct proxy *px, struct core_conn *host);
};

struct proxy_config {
	const struct proxy_leg *const *legs;  /* NULL-ended: every leg (legs.h, legs_all) */
	char listen_host[128];
	int listen_port;              /* 0: any free port */
	char upstream_host[128];
	int upstream_port;
	const char *log_path;
	const char *policy_path;      /* --policy, reloaded on SIGHUP */
	const char *policy_dir;       /* where PUT {"name":N} finds N.json */
	size_t log_bodies;            /* 0: no bodies */
	uint64_t record_bodies;       /* --record-bodies' budget per connection; 0: off */
	uint64_t max_message;         /* bytes */
	uint64_t queue_bytes;         /* per direction, before reading pauses */
	/* --launch's browser (the program's, which starts and restarts it in
	 * on_tick; the loop starts none): its path, else NULL, and the extra
	 * flags after -- */
	const char *chromium;
	char **chromium_args;
	int chromium_argc;
	const char *token;            /* --token / CDPPROXY_TOKEN: required on every request */
	unsigned max_connections;     /* client WebSockets at once */
	unsigned upstream_timeout;    /* seconds to connect to Chrome and hear its answer */
	int log_secrets;              /* --log-secrets: no redaction of logged bodies */
	int log_required;             /* --log-required: stop when the log loses a record */
	int no_control_domain;        /* --no-control-domain: CDPProxy.* goes to Chrome */
	int no_bidi_channel;          /* --no-bidi-channel: Target.exposeDevToolsProtocol goes to Chrome */
	int allow_remote;             /* --allow-remote: non-loopback --listen addresses */
	struct access_list allow_hosts;    /* --allow-host */
	struct access_list allow_origins;  /* --allow-origin */
};

struct proxy {
	struct proxy_config cfg;
	struct lws_context *ctx;
	/* Set before ctx is destroyed: a signal handler that would wake the
	 * loop (lws_cancel_service) must not touch ctx once this is set. */
	volatile sig_atomic_t ctx_gone;
	struct lws_vhost *vhost;
	int port;                     /* the one actually listened on */
	char upstream[160];           /* "host:port" as sent in Host headers */
	struct core core;             /* policy, stats, log, connections */
	uint64_t started_us;
	uint64_t stats_since_us;      /* the start, or the last POST /proxy/stats/reset */
	void (*on_wake)(struct proxy *px);  /* the loop's owner's: after lws_cancel_service */
	void (*on_tick)(struct proxy *px);  /* the loop's owner's: every tick, before the legs' */
	struct lws_protocols *protocols;    /* the legs' and the loop's, for lws */
	struct listen_state *listen;  /* listen.c: sockets and accepted HTTP connections */
	uint64_t log_lost;            /* records the log lost, once it is closed */
	int failed;                   /* --log-required and the log lost a record: stop */
};

/* Creates the context with cfg's legs, and the listener, with policy p
 * (taken; NULL: pass everything). 0, or -1 with a reason in err. */
int proxy_start(struct proxy *px, const struct proxy_config *cfg, struct policy *p,
		char *err, size_t errlen);
/* One more listener on host:port (0: any free one, into *bound), served
 * like the first: the wrapper's admin listener (CDPPROXY_CONTROL). 0, or
 * -1 with err. */
int proxy_listen_also(struct proxy *px, const char *host, int port, int *bound,
		      char *err, size_t errlen);
/* Serves until *stop becomes non-zero (set it from a signal handler, then call
 * lws_cancel_service). */
void proxy_run(struct proxy *px, volatile int *stop);
/* Closes every connection, flushes the log. */
void proxy_stop(struct proxy *px);
/* Points new connections to the upstream at host:port (a browser started
 * again on another port). */
void proxy_set_upstream(struct proxy *px, const char *host, int port);
/* Fills i for a connection to the upstream, served by protocol, with opaque
 * as its user data and its wsi stored in *pwsi; the caller adds the rest. */
void proxy_connect_info(struct proxy *px, struct lws_client_connect_info *i,
			const char *protocol, void *opaque, struct lws **pwsi);
/* The request target to pass on for the request in hand on wsi: as the
 * client wrote it (listen.h), less its token= arguments (access.h); NULL
 * when its request line was longer than lws takes or its target holds a
 * control byte (answered 400 with PROXY_TARGET_REFUSED). Free it. */
char *proxy_request_target(struct proxy *px, struct lws *wsi);
#define PROXY_TARGET_REFUSED "the request target cannot be passed on: over 8 KiB, or a control byte in it"
/* The request's token= URL arguments against token (access_token_arg on
 * each as lws decoded it): 1 one is right, -1 there are some and none is,
 * 0 there is none. */
int proxy_query_token(struct lws *wsi, const char *token);

/* The core's policy and metrics, for the layers above the loop (a leg
 * calls the core through leg.h or these, the wrapper and the programs
 * through these). Makes p (taken) the policy, logs it, and brings every
 * live session in line with it (route_set_policy). source says how
 * ("SIGHUP", "PUT"). */
void proxy_set_policy(struct proxy *px, struct policy *p, const char *source);
/* The policy named name in the policy directory (core_policy_by_name). */
struct policy *proxy_policy_by_name(struct proxy *px, const char *name, char *err, size_t errlen);
/* {"name","gen","since_us","policy"}: the policy in force. */
json_t *proxy_policy_json(struct proxy *px);
/* Everything /proxy/metrics says, as Prometheus text (core_metrics_text):
 * a new buffer of *len bytes, NUL-terminated. */
char *proxy_metrics_text(struct proxy *px, size_t *len);

/* A connection to Chrome at path whose client side is down's (a leg's
 * dial); NULL when no leg dials or it cannot. */
struct core_conn *proxy_dial(struct proxy *px, const char *path, const struct client_id *client,
			     const struct leg_ops *down);

/* Hands the allowed WebSocket upgrade on wsi to the leg that takes it
 * (proxy_leg's upgrade): what LWS_CALLBACK_HTTP_CONFIRM_UPGRADE returns;
 * refused (-1) when no leg does. */
int proxy_upgrade(struct proxy *px, struct lws *wsi);

#endif
