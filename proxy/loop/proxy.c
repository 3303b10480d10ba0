/* proxy: the event loop: the lws context, its listener, what every
 * connection shares, and the legs' hooks, called in turn (no leg named). */
#include "proxy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "leg.h"
#include "listen.h"
#include "route.h"
#include "util.h"

#define TICK_US (200 * 1000)   /* browser watch and live view period */

static int tick_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
			 void *in, size_t len);

/* The loop's own protocols, after the legs'. */
static const struct lws_protocols loop_protocols[] = {
	{ "cdp-listen", listen_callback, 0, 0, 0, NULL, 0 },
	{ "cdp-tick", tick_callback, 0, 0, 0, NULL, 0 },
};

#define each_leg(px, l) \
	for (const struct proxy_leg *const *l = (px)->cfg.legs; *l; l++)

/* The legs' protocols and the loop's, one array for lws (ended by a NULL
 * name); the first leg's first one serves HTTP. */
static struct lws_protocols *protocols_of(struct proxy *px)
{
	size_t n = sizeof loop_protocols / sizeof loop_protocols[0], k = 0;
	struct lws_protocols *all;

	each_leg(px, l)
		for (const struct lws_protocols *p = (*l)->protocols; p && p->name; p++)
			n++;
	all = xcalloc(n + 1, sizeof *all);
	each_leg(px, l)
		for (const struct lws_protocols *p = (*l)->protocols; p && p->name; p++)
			all[k++] = *p;
	for (size_t i = 0; i < sizeof loop_protocols / sizeof loop_protocols[0]; i++)
		all[k++] = loop_protocols[i];
	return all;
}

int proxy_upgrade(struct proxy *px, struct lws *wsi)
{
	each_leg(px, l)
		if ((*l)->upgrade)
			return (*l)->upgrade(px, wsi);
	return -1;
}

void proxy_connect_info(struct proxy *px, struct lws_client_connect_info *i,
			const char *protocol, void *opaque, struct lws **pwsi)
{
	memset(i, 0, sizeof *i);
	i->context = px->ctx;
	i->vhost = px->vhost;
	i->address = px->cfg.upstream_host;
	i->port = px->cfg.upstream_port;
	i->local_protocol_name = protocol;
	i->opaque_user_data = opaque;
	i->pwsi = pwsi;
}

char *proxy_request_target(struct proxy *px, struct lws *wsi)
{
	struct http_conn *hc = listen_conn(px, wsi);
	char *out;

	if (!hc || !hc->target)
		return NULL;
	out = xmalloc(strlen(hc->target) + 1);
	access_strip_token(hc->target, strlen(hc->target), out);
	return out;
}

int proxy_query_token(struct lws *wsi, const char *token)
{
	int total = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS), len, found = 0;
	char *arg;

	if (total <= 0)
		return 0;
	arg = xmalloc((size_t)total + 1);
	/* Decoded, one by one: "token=a%26b" is the token "a&b". */
	for (int i = 0; found < 1 && (len = lws_hdr_copy_fragment(wsi, arg, total + 1,
						WSI_TOKEN_HTTP_URI_ARGS, i)) >= 0; i++) {
		int t = access_token_arg(token, arg, (size_t)len);
		found = t ? t : found;
	}
	free(arg);
	return found;
}

void proxy_set_upstream(struct proxy *px, const char *host, int port)
{
	if (host != px->cfg.upstream_host)
		snprintf(px->cfg.upstream_host, sizeof px->cfg.upstream_host, "%s", host);
	px->cfg.upstream_port = port;
	snprintf(px->upstream, sizeof px->upstream, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

/* Every TICK_US: the loop's owner (with --launch, the browser's watch),
 * then the legs (the live view). */
static void tick(struct proxy *px)
{
	if (px->on_tick)
		px->on_tick(px);
	each_leg(px, l)
		if ((*l)->tick)
			(*l)->tick(px);
	msg_spare_trim();
}

/* The tick comes from a timerfd in the loop, not an lws timer: lws 4.1.6
 * polls with the time to its next timer rounded down to a whole ms, so in
 * the last ms before each one it polls without waiting, again and again
 * (under load, a third of its polls; the README's cost section). */
static int tick_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
			 void *in, size_t len)
{
	struct proxy *px = lws_context_user(lws_get_context(wsi));
	uint64_t expirations;

	(void)user;
	(void)in;
	(void)len;
	if (reason == LWS_CALLBACK_RAW_RX_FILE &&
	    read(lws_get_socket_fd(wsi), &expirations, sizeof expirations) == sizeof expirations)
		tick(px);
	/* lws_cancel_service: every protocol hears it; the loop's owner is told. */
	if (reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED && px->on_wake)
		px->on_wake(px);
	return 0;
}

static int tick_start(struct proxy *px)
{
	struct itimerspec every = { .it_interval = { 0, TICK_US * 1000 }, .it_value = { 0, TICK_US * 1000 } };
	lws_sock_file_fd_type fd;

	fd.filefd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd.filefd < 0 || timerfd_settime(fd.filefd, 0, &every, NULL) < 0 ||
	    !lws_adopt_descriptor_vhost(px->vhost, LWS_ADOPT_RAW_FILE_DESC, fd, "cdp-tick", NULL)) {
		if (fd.filefd >= 0)
			close(fd.filefd);
		return -1;
	}
	return 0;
}

/* The core's channel_open: the first leg's that has one, with px. */
static struct core_conn *channel_open(struct core *core, struct core_conn *host)
{
	struct proxy *px = lws_container_of(core, struct proxy, core);

	each_leg(px, l)
		if ((*l)->channel)
			return (*l)->channel(px, host);
	return NULL;
}

/* The BiDi mapper's channel is on, or off and why (the log says). */
static void channel_setup(struct proxy *px)
{
	int some = 0;

	each_leg(px, l)
		some |= (*l)->channel != NULL;
	if (px->cfg.no_bidi_channel)
		px->core.channel_off = "turned off (--no-bidi-channel)";
	else if (!px->cfg.upstream_port)
		px->core.channel_off = "no second connection to the browser (pipe mode)";
	else if (!some)
		px->core.channel_off = "no leg serves it";
	else
		px->core.channel_open = channel_open;
}

struct core_conn *proxy_dial(struct proxy *px, const char *path, const struct client_id *client,
			     const struct leg_ops *down)
{
	each_leg(px, l)
		if ((*l)->dial)
			return (*l)->dial(px, path, client, down);
	return NULL;
}

int proxy_start(struct proxy *px, const struct proxy_config *cfg, struct policy *p,
		char *err, size_t errlen)
{
	struct lws_context_creation_info info;
	struct log *lg = NULL;

	memset(px, 0, sizeof *px);
	px->cfg = *cfg;
	px->started_us = px->stats_since_us = util_now_us();
	proxy_set_upstream(px, cfg->upstream_host, cfg->upstream_port);
	if (cfg->log_path && !(lg = log_open(cfg->log_path, cfg->log_bodies, err, errlen))) {
		policy_free(p);
		return -1;
	}
	if (lg && cfg->log_secrets)
		log_show_secrets(lg);
	core_init(&px->core, p, lg, cfg->queue_bytes);
	px->core.max_message = cfg->max_message;
	px->core.policy_dir = cfg->policy_dir;
	px->core.selfdomain = !cfg->no_control_domain;
	px->core.record_budget = cfg->record_bodies;
	channel_setup(px);

	memset(&info, 0, sizeof info);
	info.port = CONTEXT_PORT_NO_LISTEN_SERVER;   /* listen.c listens */
	info.protocols = px->protocols = protocols_of(px);
	info.user = px;
	info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
	info.pt_serv_buf_size = 256 * 1024;
	info.max_http_header_data = 8192;
	/* An upstream that accepts but never answers is timed by the legs
	 * themselves: lws 4.1.6 does not time an awaited upgrade. */
	info.connect_timeout_secs = cfg->upstream_timeout;
	info.vhost_name = "cdpproxy";
	px->ctx = lws_create_context(&info);
	if (!px->ctx) {
		snprintf(err, errlen, "cannot create the event loop");
		return -1;
	}
	px->vhost = lws_create_vhost(px->ctx, &info);
	if (!px->vhost) {
		snprintf(err, errlen, "cannot create the server");
		return -1;
	}
	/* A port of -1: no listener (the wrapper's pipe mode without an admin listener). */
	if (cfg->listen_port >= 0 &&
	    listen_start(px, cfg->listen_host, cfg->listen_port, cfg->allow_remote, &px->port,
			 err, errlen) < 0)
		return -1;
	if (tick_start(px) < 0) {
		snprintf(err, errlen, "cannot start the tick timer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void proxy_run(struct proxy *px, volatile int *stop)
{
	while (!*stop && !px->failed && lws_service(px->ctx, 0) >= 0) {
		core_new_round(&px->core);   /* each round reads each socket once */
		/* The round's records go to the file before the round's messages
		 * go to their peers (redis writes its AOF in beforeSleep, before
		 * replies): a client that saw an answer and SIGKILLs us finds it
		 * in the log. One write, and none when the round logged nothing. */
		if (px->core.log) {
			log_flush(px->core.log);
			if (px->cfg.log_required && log_failed(px->core.log)) {
				fprintf(stderr, "cdpproxy: --log-required: the log lost records; stopping\n");
				px->failed = 1;
				break;
			}
		}
		leg_round(&px->core);
		each_leg(px, l)
			if ((*l)->round)
				(*l)->round(px);
	}
}

void proxy_set_policy(struct proxy *px, struct policy *p, const char *source)
{
	route_set_policy(&px->core, p, source);
}

struct policy *proxy_policy_by_name(struct proxy *px, const char *name, char *err, size_t errlen)
{
	return core_policy_by_name(&px->core, name, err, errlen);
}

json_t *proxy_policy_json(struct proxy *px)
{
	return core_policy_json(&px->core);
}

char *proxy_metrics_text(struct proxy *px, size_t *len)
{
	return core_metrics_text(&px->core, len);
}

#define STOP_GRACE_US 1000000
#define STOP_QUIET_US 50000

static int legs_settled(struct proxy *px, uint64_t quiet_us)
{
	each_leg(px, l)
		if ((*l)->settled && !(*l)->settled(px, quiet_us))
			return 0;
	return 1;
}

void proxy_stop(struct proxy *px)
{
	/* Give open connections their close frames, then let the loop send
	 * them and read the answers: for up to a second, as a client still
	 * sending may not read its socket at once (twenty turns of the loop
	 * without waiting were gone before it did, and the client saw no close
	 * frame: 1006). But not for a client that has been sent its close
	 * frame and sends nothing: ChromeDriver, after Browser.close, waits
	 * for the browser's process and reads nothing, and the wrapper then
	 * outlived Chromium by this second (issue 33.1). */
	uint64_t until = util_mono_us() + STOP_GRACE_US;

	each_leg(px, l)
		if ((*l)->close_all)
			(*l)->close_all(px);
	while (px->core.conns && util_mono_us() < until && !legs_settled(px, STOP_QUIET_US)) {
		core_new_round(&px->core);   /* each read reads the clock */
		lws_service(px->ctx, 10);
	}
	px->ctx_gone = 1;
	lws_context_destroy(px->ctx);
	listen_stop(px);
	px->log_lost = log_close(px->core.log);
	px->core.log = NULL;
	core_free(&px->core);
	each_leg(px, l)
		if ((*l)->stop)
			(*l)->stop(px);
	free(px->protocols);
}

int proxy_listen_also(struct proxy *px, const char *host, int port, int *bound,
		      char *err, size_t errlen)
{
	return listen_start(px, host, port, 0, bound, err, errlen);
}
