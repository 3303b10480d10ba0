/* wrapper_push: the wrapper's final metrics PUT to a Prometheus Pushgateway
 * at exit (CDPPROXY_PUSHGATEWAY), with libwebsockets' HTTP client: a wrapper
 * lives as long as a test worker, too short to be scraped. */
#include "wrapper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "proxy.h"
#include "util.h"

#define PUSH_CHUNK 16384

struct push {
	const char *body;
	size_t len, off;
	int status;                   /* the gateway's HTTP status, once known */
	int done;
	char err[256];                /* why it failed; "" when it did not */
	struct lws_context *ctx;
	lws_sorted_usec_list_t deadline;
};

static void push_late(struct push *p)
{
	if (!p->done)
		snprintf(p->err, sizeof p->err, "no answer within %d ms", WRAPPER_PUSH_TIMEOUT_MS);
	p->done = 1;
}

/* The gateway took too long: whatever is under way is given up. lws runs
 * this before its poll, which would then wait for lws's next timer (seconds
 * away): the cancel makes that poll return at once. */
static void push_timeout(lws_sorted_usec_list_t *sul)
{
	struct push *p = lws_container_of(sul, struct push, deadline);

	push_late(p);
	lws_cancel_service(p->ctx);
}

static void push_end(struct push *p, const char *why)
{
	if (p->done)
		return;
	if (why)
		snprintf(p->err, sizeof p->err, "%s", why);
	else if (p->status >= 300 && p->status <= 399)
		snprintf(p->err, sizeof p->err, "the gateway answered HTTP %d (a redirect is not followed)",
			 p->status);
	else if (p->status < 200 || p->status > 299)
		snprintf(p->err, sizeof p->err, "the gateway answered HTTP %d", p->status);
	p->done = 1;
}

static int push_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
			 void *in, size_t len)
{
	struct push *p = lws_get_opaque_user_data(wsi);

	if (!p)
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	switch (reason) {
	case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER: {
		unsigned char **h = in, *end = *h + len - 1;
		static const char type[] = "text/plain; version=0.0.4; charset=utf-8";
		char n[24];
		int nl = snprintf(n, sizeof n, "%zu", p->len);
		if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE,
						 (const unsigned char *)type, (int)strlen(type), h, end) ||
		    lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH,
						 (const unsigned char *)n, nl, h, end))
			return -1;
		lws_client_http_body_pending(wsi, 1);
		lws_callback_on_writable(wsi);
		return 0;
	}
	case LWS_CALLBACK_CLIENT_HTTP_WRITEABLE: {
		unsigned char buf[LWS_PRE + PUSH_CHUNK];
		size_t n = p->len - p->off < PUSH_CHUNK ? p->len - p->off : PUSH_CHUNK;
		int last = p->off + n == p->len;
		memcpy(buf + LWS_PRE, p->body + p->off, n);
		if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n)
			return -1;
		p->off += n;
		if (last)
			lws_client_http_body_pending(wsi, 0);
		else
			lws_callback_on_writable(wsi);
		return 0;
	}
	case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
		p->status = (int)lws_http_client_http_response(wsi);
		return 0;
	case LWS_CALLBACK_RECEIVE_CLIENT_HTTP: {
		char buf[LWS_PRE + 4096], *b = buf + LWS_PRE;
		int n = sizeof buf - LWS_PRE;
		return lws_http_client_read(wsi, &b, &n) < 0 ? -1 : 0;
	}
	case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
		return 0;
	case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
		push_end(p, NULL);
		return 0;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		push_end(p, in ? (const char *)in : "cannot connect");
		lws_set_opaque_user_data(wsi, NULL);
		return 0;
	case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
		push_end(p, p->status ? NULL : "the connection closed before an answer");
		lws_set_opaque_user_data(wsi, NULL);
		return 0;
	default:
		return 0;
	}
}

static const struct lws_protocols push_protocols[] = {
	{ "cdp-push", push_callback, 0, 0, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};

/* Appends "/NAME/VALUE" to path: VALUE as it is when it is plain, else as
 * "NAME@base64/BASE64URL" (the Pushgateway's way for '/' and the rest, and
 * for "." and "..", which would be dot segments in the path). */
static void path_label(char *path, size_t cap, const char *name, const char *value)
{
	size_t n = strlen(path), vlen = strlen(value);
	char b64[1024];

	if (vlen && strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == vlen &&
	    strcmp(value, ".") && strcmp(value, "..")) {
		snprintf(path + n, cap - n, "/%s/%s", name, value);
		return;
	}
	if (lws_b64_encode_string_url(value, (int)vlen, b64, sizeof b64) < 0)
		b64[0] = '\0';
	snprintf(path + n, cap - n, "/%s@base64/%s", name, *b64 ? b64 : "=");
}

/* The PUT itself, in a loop of its own (the proxy's has stopped serving),
 * bounded by the clock between lws_service calls and by a timer that wakes
 * lws's poll; a redirect is an answer, never followed (the body would go
 * wherever the gateway said). */
static int push_put(const struct wrapper_config *c, const char *body, size_t len, char *err,
		    size_t errlen)
{
	struct lws_context_creation_info info;
	struct lws_client_connect_info i;
	struct lws_context *ctx;
	struct push p = { .body = body, .len = len };
	uint64_t until = util_mono_us() + (uint64_t)WRAPPER_PUSH_TIMEOUT_MS * 1000;
	char url[sizeof c->pushgateway], path[2048], host[300];
	const char *prot, *ads, *prefix;
	size_t pl;
	int port;

	snprintf(url, sizeof url, "%s", c->pushgateway);
	if (lws_parse_uri(url, &prot, &ads, &port, &prefix)) {
		snprintf(err, errlen, "not a URL");
		return -1;
	}
	/* lws_parse_uri drops the path's leading '/' (none: "/"); a prefix
	 * (a gateway behind a reverse proxy) goes before /metrics. */
	while (*prefix == '/')
		prefix++;
	for (pl = strlen(prefix); pl && prefix[pl - 1] == '/'; pl--)
		;
	snprintf(path, sizeof path, "%s%.*s/metrics", pl ? "/" : "", (int)pl, prefix);
	path_label(path, sizeof path, "job", c->push_job);
	path_label(path, sizeof path, "instance", c->push_instance);

	memset(&info, 0, sizeof info);
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = push_protocols;
	info.connect_timeout_secs = (WRAPPER_PUSH_TIMEOUT_MS + 999) / 1000;
	if (!strcmp(prot, "https"))
		info.options = LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
	if (!(ctx = lws_create_context(&info))) {
		snprintf(err, errlen, "cannot create an event loop");
		return -1;
	}
	memset(&i, 0, sizeof i);
	i.context = ctx;
	i.address = ads;
	i.port = port;
	i.path = path;
	snprintf(host, sizeof host, "%s:%d", ads, port);
	i.host = host;
	i.method = "PUT";
	i.protocol = push_protocols[0].name;
	i.alpn = "http/1.1";
	i.ssl_connection = LCCSCF_HTTP_NO_FOLLOW_REDIRECT | (!strcmp(prot, "https") ? LCCSCF_USE_SSL : 0);
	i.opaque_user_data = &p;
	p.ctx = ctx;
	lws_sul_schedule(ctx, 0, &p.deadline, push_timeout,
			 (lws_usec_t)WRAPPER_PUSH_TIMEOUT_MS * LWS_US_PER_MS);
	if (!lws_client_connect_via_info(&i) && !p.done)
		push_end(&p, "cannot connect");
	while (!p.done)
		if (util_mono_us() >= until)
			push_late(&p);
		else if (lws_service(ctx, 0) < 0)
			push_end(&p, "the event loop failed");
	lws_sul_cancel(&p.deadline);
	lws_context_destroy(ctx);
	if (*p.err) {
		snprintf(err, errlen, "%s", p.err);
		return -1;
	}
	return 0;
}

int wrapper_push_configure(struct wrapper_config *c, char *err, size_t errlen)
{
	const char *v = getenv("CDPPROXY_PUSHGATEWAY");
	char url[sizeof c->pushgateway], host[256] = "";
	const char *prot, *ads, *path;
	int port;

	if (!v || !*v)
		return 0;
	snprintf(url, sizeof url, "%s", v);
	if (strlen(v) >= sizeof url || lws_parse_uri(url, &prot, &ads, &port, &path) ||
	    (strcmp(prot, "http") && strcmp(prot, "https")) || !*ads || !strstr(v, "://")) {
		snprintf(err, errlen, "CDPPROXY_PUSHGATEWAY: '%.200s' is not an http:// or https:// URL "
			 "(e.g. http://127.0.0.1:9091)", v);
		return -1;
	}
	snprintf(c->pushgateway, sizeof c->pushgateway, "%s", v);
	v = getenv("CDPPROXY_PUSHGATEWAY_JOB");
	snprintf(c->push_job, sizeof c->push_job, "%s", v && *v ? v : "cdpproxy");
	if ((v = getenv("CDPPROXY_PUSHGATEWAY_INSTANCE")) && *v) {
		snprintf(c->push_instance, sizeof c->push_instance, "%s", v);
	} else {
		if (gethostname(host, sizeof host - 1) < 0)
			snprintf(host, sizeof host, "localhost");
		snprintf(c->push_instance, sizeof c->push_instance, "%s-%ld", host, (long)getpid());
	}
	return 0;
}

void wrapper_push(struct wrapper *w, struct proxy *px)
{
	char err[512];
	size_t len;
	char *body;

	if (!*w->cfg.pushgateway)
		return;
	body = proxy_metrics_text(px, &len);
	/* lws's own lines would be a second one for one failure. */
	lws_set_log_level(0, NULL);
	if (push_put(&w->cfg, body, len, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy-chromium: CDPPROXY_PUSHGATEWAY: cannot push to %s: %s\n",
			w->cfg.pushgateway, err);
		if (px->core.log)
			log_event(px->core.log, 0, "pushgateway", json_pack("{s:o, s:o, s:o, s:o}",
				  "url", util_json_str(w->cfg.pushgateway),
				  "job", util_json_str(w->cfg.push_job),
				  "instance", util_json_str(w->cfg.push_instance),
				  "error", util_json_str(err)));
	}
	lws_set_log_level(LLL_ERR, NULL);
	free(body);
}
