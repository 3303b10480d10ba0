/* http: answers plain HTTP on the proxy's port: forwards discovery (/json/...)
 * to Chrome and rewrites its WebSocket URLs, and serves the /proxy/ endpoints. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "discovery.h"
#include "http.h"
#include "listen.h"
#include "proxy.h"
#include "util.h"

#define HTTP_CHUNK (64 * 1024)
#define EVENTS_STREAMS_MAX 8          /* /proxy/events streams open at once */
#define ADMIN_BODY_MAX (1024 * 1024)

/* One answer for one request. The downstream connection (its http_conn,
 * listen.h) owns it; while the upstream request is under way both point at
 * it, and whichever ends last frees it. */
struct http_reply {
	struct lws *down, *up;
	int status;
	char content_type[128];
	char host[300];              /* the proxy as the client addressed it */
	char path[256];              /* without the query, for discovery_rewrites */
	unsigned char *buf;          /* LWS_PRE headroom, then the body */
	size_t len, cap, off;
	int ready, headers_sent;
	int want_body;               /* PUT /proxy/policy: the answer waits for the body */
	int stream;                  /* GET /proxy/events as Server-Sent Events: never complete */
	int admin, dashboard;        /* a /proxy/ answer (admin_headers); the page itself */
	uint64_t next_seq;           /* a stream's next tail entry */
	uint64_t sent_us;            /* a stream's last write (monotonic), for keep-alives */
	uint64_t stalled_us;         /* since when a stream's reader has not taken its bytes; 0: it has */
	lws_sorted_usec_list_t timer;  /* Chrome must have answered by then */
	char *req_body;
	size_t req_len, body_seen;
};

static void reply_append(struct http_reply *r, const void *data, size_t n)
{
	if (r->len + n > r->cap) {
		r->cap = (r->len + n) * 2;
		r->buf = xrealloc(r->buf, LWS_PRE + r->cap);
	}
	memcpy(r->buf + LWS_PRE + r->len, data, n);
	r->len += n;
}

static void reply_free(struct http_reply *r)
{
	lws_sul_cancel(&r->timer);
	free(r->req_body);
	free(r->buf);
	free(r);
}

/* The answer in r is complete: ask to write it. */
static void reply_ready(struct http_reply *r)
{
	r->ready = 1;
	if (r->down)
		lws_callback_on_writable(r->down);
}

/* Replaces the answer by this one and asks to write it. */
static void reply_set(struct http_reply *r, int status, const char *type, const char *body, size_t n)
{
	r->status = status;
	snprintf(r->content_type, sizeof r->content_type, "%s", type);
	r->len = 0;
	reply_append(r, body, n);
	reply_ready(r);
}

static void reply_json(struct http_reply *r, int status, json_t *body)
{
	char *s = json_dumps(body, JSON_INDENT(2));

	reply_set(r, status, "application/json", s, strlen(s));
	free(s);
	json_decref(body);
}

/* {"error": msg}, whatever bytes msg holds (a policy name cut in the middle
 * of a character, say). */
static json_t *error_json(const char *msg)
{
	json_t *o = json_object();

	json_object_set_new(o, "error", util_json_str(msg));
	return o;
}

static json_t *admin_policy(struct proxy *px)
{
	return proxy_policy_json(px);
}

/* Every connection of every leg, and their sessions. */
static json_t *admin_conns(struct proxy *px)
{
	json_t *conns = json_array(), *sessions = json_array();

	for (struct core_conn *cc = px->core.conns; cc; cc = cc->next) {
		json_t *ss = sessions_json(&cc->sessions), *se;
		size_t i;
		json_array_foreach(ss, i, se) {
			json_object_set_new(se, "conn", json_integer((json_int_t)cc->id));
			json_array_append(sessions, se);
		}
		json_decref(ss);
		json_array_append_new(conns, json_pack("{s:I, s:s, s:o, s:I, s:I, s:I}",
			"id", (json_int_t)cc->id, "path", cc->path, "client", client_json(&cc->client),
			"opened_us", (json_int_t)cc->opened_us,
			"queued_up", (json_int_t)cc->out[UP].bytes,
			"queued_down", (json_int_t)cc->out[DOWN].bytes));
	}
	return json_pack("{s:{s:I, s:I, s:o}, s:o}",
		"connections", "open", (json_int_t)px->core.conns_open, "total",
		(json_int_t)px->core.conns_total, "list", conns, "sessions", sessions);
}

static json_t *admin_stats(struct proxy *px)
{
	json_t *st = admin_conns(px);

	json_object_update_new(st, stats_json(px->core.stats));
	json_object_set_new(st, "uptime_us", json_integer((json_int_t)(util_now_us() - px->started_us)));
	json_object_set_new(st, "since_us", json_integer((json_int_t)px->stats_since_us));
	json_object_set_new(st, "upstream", util_json_str(px->upstream));
	json_object_set_new(st, "policy", admin_policy(px));
	json_object_set_new(st, "http", listen_json(px));
	json_object_set_new(st, "log_lost_records", json_integer((json_int_t)log_lost(px->core.log)));
	return st;
}

/* GET /proxy/stats?format=text: the connections and their clients, then
 * the table printed at exit. */
static void admin_stats_text(struct proxy *px, struct http_reply *r)
{
	char *text = NULL, when[32];
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	time_t since = (time_t)(px->stats_since_us / 1000000);
	struct tm tm;

	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&since, &tm));
	fprintf(f, "connections: %u open, %" PRIu64 " in all; counting since %s\n",
		px->core.conns_open, px->core.conns_total, when);
	for (const struct core_conn *cc = px->core.conns; cc; cc = cc->next) {
		const struct client_id *c = &cc->client;
		fprintf(f, "conn %" PRIu64 "  %s (by %s)  %s  %s  %s\n", cc->id,
			c->library ? c->library : "unknown", c->by ? c->by : "none",
			*c->remote ? c->remote : "-", cc->path, c->user_agent ? c->user_agent : "-");
	}
	fputc('\n', f);
	stats_print(px->core.stats, f);
	fclose(f);
	reply_set(r, 200, "text/plain; charset=utf-8", text, n);
	free(text);
}

/* GET /proxy/metrics: the same counts for Prometheus (metrics.h). */
static void admin_metrics(struct proxy *px, struct http_reply *r)
{
	size_t n;
	char *text = proxy_metrics_text(px, &n);

	reply_set(r, 200, "text/plain; version=0.0.4; charset=utf-8", text, n);
	free(text);
}

/* POST /proxy/stats/reset: the counts start again (a phase), and the log
 * says when. */
static json_t *admin_stats_reset(struct proxy *px)
{
	stats_reset(px->core.stats);
	px->stats_since_us = util_now_us();
	if (px->core.log)
		log_event(px->core.log, 0, "stats_reset", json_object());
	return json_pack("{s:b, s:I}", "reset", 1, "since_us", (json_int_t)px->stats_since_us);
}

/* PUT /proxy/policy: the body is a policy document, or {"name": N} for the
 * file N.json in the policy directory. */
static void admin_put_policy(struct proxy *px, struct http_reply *r)
{
	json_error_t je;
	json_t *doc = json_loadb(r->req_body ? r->req_body : "", r->req_len, 0, &je);
	const char *name = json_string_value(json_object_get(doc, "name"));
	struct policy *p;
	char err[512];

	if (!doc) {
		snprintf(err, sizeof err, "body is not JSON: line %d column %d: %s",
			 je.line, je.column, je.text);
		reply_json(r, 400, error_json(err));
		return;
	}
	if (name && json_object_size(doc) == 1)
		p = proxy_policy_by_name(px, name, err, sizeof err);
	else
		p = policy_parse(doc, "put", "PUT /proxy/policy", err, sizeof err);
	json_decref(doc);
	if (!p) {
		reply_json(r, 400, error_json(err));
		return;
	}
	proxy_set_policy(px, p, "PUT");
	reply_json(r, 200, admin_policy(px));
}

extern const unsigned char dashboard_html[];
extern const size_t dashboard_html_len;
extern const char dashboard_csp[];   /* its inline script and style by hash (Makefile) */

/* GET /proxy/policies: the names a PUT {"name"} takes, from the policy
 * directory; not the schema (cdpproxy-policy.schema.json) beside them. */
static json_t *admin_policies(struct proxy *px)
{
	json_t *names = json_array();
	DIR *d = px->cfg.policy_dir ? opendir(px->cfg.policy_dir) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n > 5 && e->d_name[0] != '.' && !strcmp(e->d_name + n - 5, ".json") &&
		    !(n > 12 && !strcmp(e->d_name + n - 12, ".schema.json")))
			json_array_append_new(names, util_json_bytes(e->d_name, n - 5));
	}
	if (d)
		closedir(d);
	return json_pack("{s:o, s:o}", "dir", util_json_str(px->cfg.policy_dir), "policies", names);
}

/* GET /proxy/events?since=SEQ: the live view's entries from SEQ on (at most
 * EVENTS_MAX), how many it missed, and the SEQ to ask next. The ring is fed
 * only while someone reads it: the first read turns it on. With
 * "Accept: text/event-stream" the same objects come as Server-Sent Events,
 * pushed each proxy tick while the reader keeps up (events_tick). */
#define EVENTS_MAX 2000
#define EVENTS_STREAM_BATCH 500           /* entries an event at most: one write */
#define EVENTS_KEEPALIVE_US (15 * 1000 * 1000)
/* A stream whose reader leaves this much unsent (in the socket, or held by
 * lws after a partial write) for this long is closed: its slot is free for
 * a reader that reads. */
#define EVENTS_STALL_BYTES (64 * 1024)
#define EVENTS_STALL_US (5 * 1000 * 1000)

/* The live view's ring: the core feeds it (core.tail) from the first read
 * of /proxy/events until nobody has read it for EVENTS_IDLE_US. */
#define EVENTS_RING_ENTRIES 8192
#define EVENTS_IDLE_US (10 * 1000 * 1000)
static struct tail events_ring;
static uint64_t events_read_us;   /* when /proxy/events was last asked (monotonic) */

/* The seq a reader asking from `since` (0: from now) starts at. */
static uint64_t events_from(struct proxy *px, struct lws *wsi)
{
	char arg[40] = "";
	const char *since = lws_get_urlarg_by_name(wsi, "since=", arg, sizeof arg);   /* the value */
	uint64_t from;

	/* An EventSource that reconnects says where it was in Last-Event-ID. */
	if (lws_hdr_custom_copy(wsi, arg, sizeof arg, "last-event-id:", 14) > 0)
		since = arg;
	from = since ? strtoull(since, NULL, 10) : 0;

	events_read_us = util_mono_us();
	if (!events_ring.ring)
		tail_init(&events_ring, EVENTS_RING_ENTRIES);
	if (!px->core.tail) {
		px->core.tail = &events_ring;
		from = from ? from : events_ring.next_seq;
	}
	return from ? from : events_ring.next_seq;
}

static json_t *events_json(uint64_t from, size_t max, uint64_t *next)
{
	uint64_t lost = 0;
	json_t *entries = tail_json(&events_ring, from, max, &lost, next);

	return json_pack("{s:o, s:I, s:I}", "entries", entries, "lost", (json_int_t)lost,
			 "next", (json_int_t)*next);
}

static json_t *admin_events(struct proxy *px, struct lws *wsi)
{
	uint64_t next;

	return events_json(events_from(px, wsi), EVENTS_MAX, &next);
}

static int wants_event_stream(struct lws *wsi)
{
	char *accept = listen_header_dup(wsi, WSI_TOKEN_HTTP_ACCEPT);
	int yes = strstr(accept, "text/event-stream") != NULL;

	free(accept);
	return yes;
}

/* The open /proxy/events streams: one event loop a process. */
static struct http_reply *events_streams[EVENTS_STREAMS_MAX];

/* Starts an event stream on r, or answers 503 when EVENTS_STREAMS_MAX are open. */
static void events_stream_start(struct proxy *px, struct http_reply *r, struct lws *wsi)
{
	for (size_t i = 0; i < EVENTS_STREAMS_MAX; i++) {
		if (events_streams[i])
			continue;
		events_streams[i] = r;
		r->stream = 1;
		r->next_seq = events_from(px, wsi);
		r->status = 200;
		snprintf(r->content_type, sizeof r->content_type, "text/event-stream");
		reply_ready(r);
		return;
	}
	reply_json(r, 503, error_json("too many /proxy/events streams open; poll without "
				      "Accept: text/event-stream, or close one"));
}

static void events_stream_forget(struct http_reply *r)
{
	for (size_t i = 0; i < EVENTS_STREAMS_MAX; i++)
		if (events_streams[i] == r)
			events_streams[i] = NULL;
}

/* Writes what the stream has not had yet as one event ("id: NEXT", the
 * /proxy/events object as data), or a comment to keep an idle stream open.
 * A reader that does not read leaves the socket unwritable: this is not
 * called, and the ring moves on without it (its next event says "lost"). */
static int events_stream_write(struct http_reply *r, struct lws *wsi)
{
	uint64_t now = util_mono_us(), next;
	char head[48];
	int n;

	r->len = 0;
	if (r->next_seq < events_ring.next_seq) {
		json_t *o = events_json(r->next_seq, EVENTS_STREAM_BATCH, &next);
		char *s = json_dumps(o, JSON_COMPACT);
		n = snprintf(head, sizeof head, "id: %llu\ndata: ", (unsigned long long)next);
		reply_append(r, head, (size_t)n);
		reply_append(r, s, strlen(s));
		reply_append(r, "\n\n", 2);
		free(s);
		json_decref(o);
		r->next_seq = next;
	} else if (now - r->sent_us >= EVENTS_KEEPALIVE_US) {
		reply_append(r, ":\n\n", 3);
	} else {
		return 0;
	}
	r->sent_us = now;
	if (lws_write(wsi, r->buf + LWS_PRE, r->len, LWS_WRITE_HTTP) < (int)r->len)
		return -1;
	if (r->next_seq < events_ring.next_seq)
		lws_callback_on_writable(wsi);
	return 0;
}

/* Whether the reader of a stream has gone: lws does not read an HTTP/1
 * connection while its answer is being sent, so it would not notice. */
static int events_reader_gone(struct lws *wsi)
{
	char c;
	ssize_t n = recv(lws_get_socket_fd(wsi), &c, 1, MSG_PEEK | MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Whether a stream's reader has left EVENTS_STALL_BYTES unsent for
 * EVENTS_STALL_US: it stopped reading, or reads too slowly to follow. */
static int events_reader_stalled(struct http_reply *r, uint64_t now)
{
	int unsent = 0;

	if (!lws_partial_buffered(r->down) &&
	    (ioctl(lws_get_socket_fd(r->down), SIOCOUTQ, &unsent) < 0 || unsent < EVENTS_STALL_BYTES)) {
		r->stalled_us = 0;
		return 0;
	}
	if (!r->stalled_us)
		r->stalled_us = now;
	return now - r->stalled_us >= EVENTS_STALL_US;
}

/* Each proxy tick: keeps the ring fed while a stream is open, closes the
 * streams whose readers have gone or stalled, asks to write to the streams
 * with something to send, and stops feeding the ring when nobody reads it. */
static void http_events_tick(struct proxy *px)
{
	uint64_t now = util_mono_us();

	for (size_t i = 0; i < EVENTS_STREAMS_MAX; i++) {
		struct http_reply *r = events_streams[i];
		if (!r || !r->headers_sent)
			continue;
		if (events_reader_gone(r->down) || events_reader_stalled(r, now)) {
			events_stream_forget(r);
			lws_set_timeout(r->down, PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_ASYNC);
			continue;
		}
		events_read_us = now;
		if (r->next_seq < events_ring.next_seq || now - r->sent_us >= EVENTS_KEEPALIVE_US)
			lws_callback_on_writable(r->down);
	}
	/* Nobody has read the live view for a while: stop feeding its ring. */
	if (px->core.tail && util_mono_us() - events_read_us > EVENTS_IDLE_US)
		px->core.tail = NULL;
}

/* proxy_stop, once the core is freed: the ring goes. */
static void http_stop(struct proxy *px)
{
	(void)px;
	tail_free(&events_ring);
}

/* Does the request ask for ?format=text? */
static int text_wanted(struct lws *wsi)
{
	char arg[16];
	const char *v = lws_get_urlarg_by_name(wsi, "format=", arg, sizeof arg);

	return v && !strcmp(v, "text");
}

static void admin(struct proxy *px, struct http_reply *r, struct lws *wsi, const char *method,
		  const char *path)
{
	r->admin = 1;
	if ((!strcmp(path, "/proxy/") || !strcmp(path, "/proxy")) && !strcmp(method, "GET")) {
		r->dashboard = 1;
		reply_set(r, 200, "text/html; charset=utf-8", (const char *)dashboard_html,
			  dashboard_html_len);
	}
	else if (!strcmp(path, "/proxy/events") && !strcmp(method, "GET") && wants_event_stream(wsi))
		events_stream_start(px, r, wsi);
	else if (!strcmp(path, "/proxy/events") && !strcmp(method, "GET"))
		reply_json(r, 200, admin_events(px, wsi));
	else if (!strcmp(path, "/proxy/policies") && !strcmp(method, "GET"))
		reply_json(r, 200, admin_policies(px));
	else if (!strcmp(path, "/proxy/stats") && !strcmp(method, "GET") && text_wanted(wsi))
		admin_stats_text(px, r);
	else if (!strcmp(path, "/proxy/stats") && !strcmp(method, "GET"))
		reply_json(r, 200, admin_stats(px));
	else if (!strcmp(path, "/proxy/metrics") && !strcmp(method, "GET"))
		admin_metrics(px, r);
	else if (!strcmp(path, "/proxy/stats/reset") && !strcmp(method, "POST"))
		reply_json(r, 200, admin_stats_reset(px));
	else if (!strcmp(path, "/proxy/policy") && !strcmp(method, "GET"))
		reply_json(r, 200, admin_policy(px));
	else if (!strcmp(path, "/proxy/policy") && !strcmp(method, "PUT") &&
		 lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) <= 0)
		reply_json(r, 400, error_json("PUT /proxy/policy needs a body: "
					      "a policy, or {\"name\": \"no-network\"}"));
	else if (!strcmp(path, "/proxy/policy") && !strcmp(method, "PUT"))
		r->want_body = 1;   /* answered at LWS_CALLBACK_HTTP_BODY_COMPLETION */
	else
		reply_json(r, 404, error_json("no such endpoint: GET /proxy/ (the dashboard), "
					      "/proxy/stats (?format=text), /proxy/metrics, /proxy/policy, /proxy/policies, "
					      "/proxy/events, PUT /proxy/policy and POST /proxy/stats/reset are"));
}

static void up_done(struct http_reply *r, const char *error);

/* Chrome took the request but has not answered in time: 502. */
static void forward_timeout(lws_sorted_usec_list_t *sul)
{
	struct http_reply *r = lws_container_of(sul, struct http_reply, timer);

	if (r->ready)
		return;
	if (r->up) {   /* let it go without us, and have lws kill it */
		lws_set_opaque_user_data(r->up, NULL);
		lws_set_timeout(r->up, PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_ASYNC);
		r->up = NULL;
	}
	up_done(r, "no answer in time (--upstream-timeout)");
	if (!r->down)
		reply_free(r);
}

/* Sends the request on to Chrome; the answer comes back in http_up_callback. */
static void forward(struct proxy *px, struct http_reply *r, const char *method,
		    const char *path_and_query)
{
	struct lws_client_connect_info i;

	proxy_connect_info(px, &i, "cdp-up-http", r, &r->up);
	i.path = path_and_query;
	i.host = px->upstream;
	i.method = method;
	i.alpn = "http/1.1";
	if (!lws_client_connect_via_info(&i) && !r->ready) {
		char msg[256];
		int n = snprintf(msg, sizeof msg, "cdpproxy: cannot connect to upstream %s\n", px->upstream);
		reply_set(r, 502, "text/plain", msg, (size_t)n);
	}
	if (!r->ready)
		lws_sul_schedule(px->ctx, 0, &r->timer, forward_timeout,
				 (lws_usec_t)px->cfg.upstream_timeout * LWS_US_PER_SEC);
}

static const char *request_method(struct lws *wsi)
{
	static const struct { enum lws_token_indexes tok; const char *name; } methods[] = {
		{ WSI_TOKEN_GET_URI, "GET" }, { WSI_TOKEN_PUT_URI, "PUT" },
		{ WSI_TOKEN_POST_URI, "POST" }, { WSI_TOKEN_DELETE_URI, "DELETE" },
		{ WSI_TOKEN_HEAD_URI, "HEAD" }, { WSI_TOKEN_OPTIONS_URI, "OPTIONS" },
		{ WSI_TOKEN_PATCH_URI, "PATCH" },
	};

	for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
		if (lws_hdr_total_length(wsi, methods[i].tok))
			return methods[i].name;
	return "GET";
}

/* The headers of every /proxy/ answer: no page of another origin may frame
 * one (a click on a framed dashboard would switch the policy), none is
 * sniffed as another type, cached, or told where it was linked from; the
 * dashboard runs only its own script and style. */
static int admin_headers(struct lws *wsi, const struct http_reply *r, unsigned char **p,
			 unsigned char *end)
{
	static const struct { const char *name, *value; } fixed[] = {
		{ "x-frame-options:", "DENY" },
		{ "x-content-type-options:", "nosniff" },
		{ "referrer-policy:", "no-referrer" },
	};
	/* A stream says no-cache (EventSource readers expect it), the rest no-store. */
	const char *cache = r->stream ? "no-cache" : "no-store";
	const char *csp = r->dashboard ? dashboard_csp : "default-src 'none'; frame-ancestors 'none'";

	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (lws_add_http_header_by_name(wsi, (const unsigned char *)fixed[i].name,
						(const unsigned char *)fixed[i].value,
						(int)strlen(fixed[i].value), p, end))
			return -1;
	return lws_add_http_header_by_name(wsi, (const unsigned char *)"content-security-policy:",
					   (const unsigned char *)csp, (int)strlen(csp), p, end) ||
	       lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
					    (const unsigned char *)cache, (int)strlen(cache), p, end);
}

/* Refuses a request without the --token (401), whose Host or Origin Chrome
 * itself would refuse (403), or an upgrade past --max-connections (503):
 * 0 when it may go on, else it has answered and the caller returns 1.
 * Headers are checked whole, however long. */
static int http_check_access(struct proxy *px, struct lws *wsi, int upgrade)
{
	char *host = listen_header_dup(wsi, WSI_TOKEN_HOST);
	char *origin = listen_header_dup(wsi, WSI_TOKEN_ORIGIN);
	char *auth = listen_header_dup(wsi, WSI_TOKEN_HTTP_AUTHORIZATION);
	char why[400];
	unsigned status = HTTP_STATUS_FORBIDDEN;
	int rc = 1, in_query = px->cfg.token ? proxy_query_token(wsi, px->cfg.token) : 0;

	if (px->cfg.token && !access_token_ok(px->cfg.token, auth, NULL) && in_query != 1) {
		status = HTTP_STATUS_UNAUTHORIZED;
		snprintf(why, sizeof why, "%s token (send Authorization: Bearer TOKEN, or ?token=TOKEN)",
			 *auth || in_query ? "wrong" : "missing");
	} else if (!access_host_ok(host, &px->cfg.allow_hosts)) {
		snprintf(why, sizeof why, "Host header '%.200s%s' is not an IP address or localhost "
			 "(allow it with --allow-host)", host, strlen(host) > 200 ? "..." : "");
	} else if (!access_origin_ok(origin, host, &px->cfg.allow_origins)) {
		snprintf(why, sizeof why, "Origin '%.200s%s' is not allowed (allow it with --allow-origin)",
			 origin, strlen(origin) > 200 ? "..." : "");
	} else if (upgrade && px->core.conns_open >= px->cfg.max_connections) {
		status = HTTP_STATUS_SERVICE_UNAVAILABLE;
		snprintf(why, sizeof why, "too many connections: %u open (--max-connections %u)",
			 px->core.conns_open, px->cfg.max_connections);
	} else {
		rc = 0;
	}
	if (rc && px->core.log)
		log_event(px->core.log, 0, "refused", json_pack("{s:o, s:o, s:o, s:i}",
			  "host", util_json_str(host), "origin", util_json_str(origin),
			  "reason", util_json_str(why), "status", (int)status));
	if (rc)
		listen_refuse(wsi, status, why);
	free(auth);
	free(origin);
	free(host);
	return rc;
}

static int on_request(struct proxy *px, struct http_conn *hc, struct lws *wsi, const char *uri)
{
	struct http_reply *r = xcalloc(1, sizeof *r);
	const char *method = request_method(wsi);
	char *full;

	hc->reply = r;
	r->down = wsi;
	snprintf(r->path, sizeof r->path, "%s", uri);
	if (lws_hdr_copy(wsi, r->host, sizeof r->host, WSI_TOKEN_HOST) <= 0)
		snprintf(r->host, sizeof r->host, "%s:%d", px->cfg.listen_host, px->port);
	if (!strncmp(uri, "/proxy/", 7) || !strcmp(uri, "/proxy")) {
		admin(px, r, wsi, method, uri);
		return 0;
	}
	/* Passed on byte for byte, as Chrome would have read it. */
	if (!(full = proxy_request_target(px, wsi)))
		reply_json(r, 400, error_json(PROXY_TARGET_REFUSED));
	else
		forward(px, r, method, full);
	free(full);
	return 0;
}


/* Writes the status line and headers, then the body a chunk at a time (or,
 * for an event stream, the events as they come). */
static int on_writeable(struct http_conn *hc, struct lws *wsi)
{
	struct http_reply *r = hc->reply;
	size_t n;

	if (!r || !r->ready)
		return 0;
	if (!r->headers_sent) {
		unsigned char hdr[LWS_PRE + 2048], *start = hdr + LWS_PRE, *p = start;
		unsigned char *end = hdr + sizeof hdr - 1;
		if (listen_headers(wsi, (unsigned)r->status, r->content_type,
				   r->stream ? LWS_ILLEGAL_HTTP_CONTENT_LEN : r->len, &p, end) ||
		    (r->admin && admin_headers(wsi, r, &p, end)) ||
		    lws_finalize_write_http_header(wsi, start, &p, end))
			return -1;
		r->headers_sent = 1;
		if (r->stream)
			lws_http_mark_sse(wsi);   /* no lws timeout from now on */
		lws_callback_on_writable(wsi);
		return 0;
	}
	if (r->stream)
		return events_stream_write(r, wsi);
	n = r->len - r->off < HTTP_CHUNK ? r->len - r->off : HTTP_CHUNK;
	/* Later chunks reuse already-sent body bytes before them as LWS_PRE. */
	if (n && lws_write(wsi, r->buf + LWS_PRE + r->off, n,
			   r->off + n == r->len ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n)
		return -1;
	r->off += n;
	if (r->off < r->len) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	return -1;   /* answered: the connection closes (common_headers) */
}

/* The downstream side of its reply is done with it. */
static void reply_release_down(struct http_conn *hc)
{
	struct http_reply *r = hc ? hc->reply : NULL;

	if (!r)
		return;
	hc->reply = NULL;
	r->down = NULL;
	if (r->stream)
		events_stream_forget(r);
	if (!r->up)
		reply_free(r);
}

/* The lifetime rule: a downstream HTTP connection's state is its http_conn
 * (listen.c makes it at accept, forgets it at WSI_DESTROY); the request's
 * is hc->reply, let go of at the next request, at CLOSED_HTTP or
 * DROP_PROTOCOL, and at WSI_DESTROY, whichever comes first. lws may call
 * any of these for a connection that never sent a whole request. */
static int http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		  void *in, size_t len)
{
	struct proxy *px = lws_context_user(lws_get_context(wsi));
	struct http_conn *hc;

	switch (reason) {
	case LWS_CALLBACK_HTTP:
		if (!(hc = listen_conn(px, wsi)))
			return -1;
		reply_release_down(hc);   /* the previous request on a kept-alive connection */
		if (http_check_access(px, wsi, 0))
			return -1;   /* refused: the connection closes */
		on_request(px, hc, wsi, in);
		/* Chrome's answer is timed by --upstream-timeout; a body still to come, by us. */
		listen_deadline(hc, hc->reply && hc->reply->want_body);
		return 0;
	case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
		if (strcasecmp(in, "websocket"))   /* h2c */
			return -1;
		return http_check_access(px, wsi, 1) ? 1 : proxy_upgrade(px, wsi);
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (!(hc = listen_conn(px, wsi)))
			return 0;
		return on_writeable(hc, wsi);
	case LWS_CALLBACK_HTTP_BODY:
		if ((hc = listen_conn(px, wsi)) && hc->reply && hc->reply->want_body) {
			struct http_reply *r = hc->reply;
			r->body_seen += len;   /* past the limit, read on but keep nothing */
			if (r->body_seen > ADMIN_BODY_MAX)
				return 0;
			r->req_body = xrealloc(r->req_body, r->req_len + len + 1);
			memcpy(r->req_body + r->req_len, in, len);
			r->req_len += len;
		}
		return 0;
	case LWS_CALLBACK_HTTP_BODY_COMPLETION:
		if ((hc = listen_conn(px, wsi)) && hc->reply && hc->reply->want_body) {
			listen_deadline(hc, 0);
			hc->reply->want_body = 0;
			if (hc->reply->body_seen > ADMIN_BODY_MAX)
				reply_json(hc->reply, 413, error_json("a policy is at most 1 MiB"));
			else
				admin_put_policy(px, hc->reply);
		}
		return 0;
	case LWS_CALLBACK_CLOSED_HTTP:
	case LWS_CALLBACK_HTTP_DROP_PROTOCOL:   /* the transaction is over */
		reply_release_down(listen_conn(px, wsi));
		return 0;
	case LWS_CALLBACK_WSI_DESTROY:   /* every wsi of the vhost comes here */
		reply_release_down(listen_conn(px, wsi));
		listen_forget(px, wsi);
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

/* Chrome's answer is complete (or never came): rewrite it and send it down. */
static void up_done(struct http_reply *r, const char *error)
{
	lws_sul_cancel(&r->timer);
	if (error) {
		char msg[300];
		int n = snprintf(msg, sizeof msg, "cdpproxy: upstream request failed: %s\n", error);
		reply_set(r, 502, "text/plain", msg, (size_t)n);
	} else {
		size_t outlen;
		char *body = discovery_rewrites(r->path) ?
			discovery_rewrite((char *)r->buf + LWS_PRE, r->len, r->host, &outlen) : NULL;
		if (body) {
			r->len = 0;
			reply_append(r, body, outlen);
			free(body);
		}
		reply_ready(r);
	}
}

static int http_up_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		     void *in, size_t len)
{
	struct http_reply *r = lws_get_opaque_user_data(wsi);

	if (!r)
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	switch (reason) {
	case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
		r->status = (int)lws_http_client_http_response(wsi);
		if (lws_hdr_copy(wsi, r->content_type, sizeof r->content_type,
				 WSI_TOKEN_HTTP_CONTENT_TYPE) <= 0)
			snprintf(r->content_type, sizeof r->content_type, "text/plain");
		return 0;
	case LWS_CALLBACK_RECEIVE_CLIENT_HTTP: {
		char buf[LWS_PRE + 16384], *p = buf + LWS_PRE;
		int n = sizeof buf - LWS_PRE;
		return lws_http_client_read(wsi, &p, &n) < 0 ? -1 : 0;
	}
	case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
		if (!r->ready)
			reply_append(r, in, len);
		return 0;
	case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
		if (!r->ready)
			up_done(r, NULL);
		return 0;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
	case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
		if (!r->ready)
			up_done(r, in && reason == LWS_CALLBACK_CLIENT_CONNECTION_ERROR ?
				(const char *)in : "connection closed before the answer was complete");
		lws_set_opaque_user_data(wsi, NULL);
		r->up = NULL;
		if (!r->down)
			reply_free(r);
		return 0;
	default:
		return 0;
	}
}

/* "cdp" first: lws gives it the accepted connections (listen.c). */
static const struct lws_protocols http_protocols[] = {
	{ "cdp", http_callback, 0, 256 * 1024, 0, NULL, 0 },
	{ "cdp-up-http", http_up_callback, 0, 0, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};

const struct proxy_leg http_leg = {
	.protocols = http_protocols,
	.tick = http_events_tick,
	.stop = http_stop,
};
