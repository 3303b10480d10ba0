/* cdp: cdpbench's own CDP client on libwebsockets: sends commands, reads every
 * message whole, and continues requests that Fetch paused. */
#define _GNU_SOURCE   /* memmem */
#include "cdp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "util.h"

#define RX_CHUNK (256 * 1024)

struct cdp_out {
	struct cdp_out *next;
	size_t len;
	unsigned char buf[];          /* LWS_PRE bytes of headroom, then the message */
};

static lws_sorted_usec_list_t wake;

/* Copies the string value of "key" inside buf[0..len) (a params object) into
 * out. Chrome's ids need no unescaping, and an unescaped "key":" cannot occur
 * inside a JSON string, so the first match is the field. 0, or -1. */
static int find_string_field(const char *buf, size_t len, const char *key, char *out,
			     size_t outlen)
{
	char pat[64];
	size_t plen = (size_t)snprintf(pat, sizeof pat, "\"%s\"", key);
	const char *p = memmem(buf, len, pat, plen), *end = buf + len, *q;

	if (!p)
		return -1;
	for (p += plen; p < end && (*p == ' ' || *p == ':' || *p == '\t'); p++)
		;
	if (p >= end || *p != '"' || !(q = memchr(p + 1, '"', (size_t)(end - p - 1))))
		return -1;
	snprintf(out, outlen, "%.*s", (int)(q - p - 1), p + 1);
	return 0;
}

static void on_message(struct cdp *c, const char *buf, size_t len)
{
	struct scan_result r;
	char id[256], params[320];

	if (len > c->st.max_message)
		c->st.max_message = len;
	if (scan_message(buf, len, &r) < 0)
		return;
	if (r.kind == SCAN_RESPONSE) {
		c->st.responses++;
		if (c->inflight)
			c->inflight--;
		if (r.error.present) {
			const char *method = r.has_id && r.id >= 1 && (size_t)r.id <= c->nmethods ?
				c->methods[r.id - 1] : "?";
			c->st.errors++;
			json_array_append_new(c->failed, json_pack("{s:s,s:s%}", "method", method,
				"error", buf + r.error.off, r.error.len < 300 ? r.error.len : 300));
		}
	} else if (r.kind == SCAN_EVENT) {
		c->st.events++;
		c->st.event_bytes += len;
		if (scan_str_eq(buf, &r.method, "Fetch.requestPaused") && r.params.present &&
		    find_string_field(buf + r.params.off, r.params.len, "requestId", id, sizeof id) == 0) {
			c->st.paused++;
			snprintf(params, sizeof params, "{\"requestId\":\"%s\"}", id);
			cdp_send(c, "Fetch.continueRequest", params);
			c->st.continued++;
		} else if (scan_str_eq(buf, &r.method, "Page.screencastFrame") && r.params.present) {
			/* Chrome sends the next frame once the last ones are acknowledged. */
			json_t *p = json_loadb(buf + r.params.off, r.params.len, 0, NULL);
			json_t *sid = json_object_get(p, "sessionId");
			if (json_is_integer(sid)) {
				snprintf(params, sizeof params, "{\"sessionId\":%" JSON_INTEGER_FORMAT "}",
					 json_integer_value(sid));
				cdp_send(c, "Page.screencastFrameAck", params);
			}
			json_decref(p);
		}
	}
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
		    size_t len)
{
	struct cdp *c = lws_get_opaque_user_data(wsi);
	struct cdp_out *o;

	(void)user;
	if (!c)
		return 0;
	switch (reason) {
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		snprintf(c->why, sizeof c->why, "cannot connect: %s", in ? (const char *)in : "error");
		c->closed = 1;
		c->open = 0;
		c->wsi = NULL;
		break;
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		c->open = 1;
		if (c->out_head)
			lws_callback_on_writable(wsi);
		break;
	case LWS_CALLBACK_CLIENT_RECEIVE:
		if (c->rx_len + len + 1 > c->rx_cap) {
			c->rx_cap = c->rx_cap * 2 > c->rx_len + len + 1 ? c->rx_cap * 2 : c->rx_len + len + 1;
			c->rx = xrealloc(c->rx, c->rx_cap);
		}
		memcpy(c->rx + c->rx_len, in, len);
		c->rx_len += len;
		if (lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) {
			on_message(c, c->rx, c->rx_len);
			c->rx_len = 0;
		}
		break;
	case LWS_CALLBACK_CLIENT_WRITEABLE:
		if (!(o = c->out_head))
			break;
		if (lws_write(wsi, o->buf + LWS_PRE, o->len, LWS_WRITE_TEXT) < (int)o->len) {
			snprintf(c->why, sizeof c->why, "write failed");
			return -1;
		}
		if (!(c->out_head = o->next))
			c->out_tail = &c->out_head;
		free(o);
		if (c->out_head)
			lws_callback_on_writable(wsi);
		break;
	case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
		snprintf(c->why, sizeof c->why, "the browser closed the connection (%u)",
			 len >= 2 ? ((unsigned)((unsigned char *)in)[0] << 8 | ((unsigned char *)in)[1]) : 0);
		break;
	case LWS_CALLBACK_CLIENT_CLOSED:
		if (!c->why[0])
			snprintf(c->why, sizeof c->why, "the connection closed");
		c->closed = 1;
		c->open = 0;
		c->wsi = NULL;
		break;
	default:
		break;
	}
	return 0;
}

static const struct lws_protocols protocols[] = {
	{ "cdp-client", callback, 0, RX_CHUNK, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};

struct lws_context *cdp_context(int verbose)
{
	struct lws_context_creation_info info;

	lws_set_log_level(verbose ? LLL_ERR | LLL_WARN | LLL_NOTICE : 0, NULL);
	memset(&info, 0, sizeof info);
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = protocols;
	info.pt_serv_buf_size = RX_CHUNK;
	info.connect_timeout_secs = 10;
	return lws_create_context(&info);
}

static void on_wake(lws_sorted_usec_list_t *sul)
{
	(void)sul;
}

void cdp_service(struct lws_context *ctx, int ms)
{
	lws_sul_schedule(ctx, 0, &wake, on_wake, (lws_usec_t)ms * 1000);
	lws_service(ctx, 0);
}

int cdp_open(struct cdp *c, struct lws_context *ctx, const char *ws_url, int timeout_ms,
	     char *err, size_t errlen)
{
	struct lws_client_connect_info i;
	char host[128], hostport[160], path[1024];
	int port;
	uint64_t deadline = util_mono_us() + (uint64_t)timeout_ms * 1000;

	memset(c, 0, sizeof *c);
	c->out_tail = &c->out_head;
	c->failed = json_array();
	if (sscanf(ws_url, "ws://%127[^:/]:%d%1023s", host, &port, path) != 3) {
		snprintf(err, errlen, "'%s' is not a ws://HOST:PORT/PATH URL", ws_url);
		cdp_close(c);
		return -1;
	}
	snprintf(hostport, sizeof hostport, "%s:%d", host, port);
	memset(&i, 0, sizeof i);
	i.context = ctx;
	i.address = host;
	i.port = port;
	i.path = path;
	i.host = hostport;
	i.ietf_version_or_minus_one = -1;
	i.local_protocol_name = "cdp-client";
	i.opaque_user_data = c;
	i.pwsi = &c->wsi;
	lws_client_connect_via_info(&i);
	while (!c->open && !c->closed && util_mono_us() < deadline)
		cdp_service(ctx, 20);
	if (!c->open) {
		snprintf(err, errlen, "%s: %s", ws_url, c->closed ? c->why : "timed out connecting");
		cdp_close(c);
		return -1;
	}
	return 0;
}

int64_t cdp_send(struct cdp *c, const char *method, const char *params)
{
	int64_t id = ++c->next_id;
	size_t cap = strlen(method) + strlen(params) + 64;
	struct cdp_out *o = xmalloc(sizeof *o + LWS_PRE + cap);

	o->len = (size_t)snprintf((char *)o->buf + LWS_PRE, cap, "{\"id\":%lld,\"method\":\"%s\","
				  "\"params\":%s}", (long long)id, method, params);
	o->next = NULL;
	*c->out_tail = o;
	c->out_tail = &o->next;
	c->methods = xrealloc(c->methods, (c->nmethods + 1) * sizeof *c->methods);
	c->methods[c->nmethods++] = xstrdup(method);
	c->inflight++;
	c->st.commands++;
	if (c->wsi && c->open)
		lws_callback_on_writable(c->wsi);
	return id;
}

void cdp_close(struct cdp *c)
{
	if (c->wsi) {
		/* Synchronous: the CLOSED callback runs now, while c is still valid. */
		lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
		c->wsi = NULL;
	}
	while (c->out_head) {
		struct cdp_out *o = c->out_head;
		c->out_head = o->next;
		free(o);
	}
	c->out_tail = &c->out_head;
	for (size_t i = 0; i < c->nmethods; i++)
		free(c->methods[i]);
	free(c->methods);
	c->methods = NULL;
	c->nmethods = 0;
	free(c->rx);
	c->rx = NULL;
	c->rx_len = c->rx_cap = 0;
	json_decref(c->failed);
	c->failed = NULL;
	c->open = 0;
}

json_t *cdp_stats_json(const struct cdp *c)
{
	json_t *j = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
			      "commands", (json_int_t)c->st.commands,
			      "responses", (json_int_t)c->st.responses,
			      "errors", (json_int_t)c->st.errors, "events", (json_int_t)c->st.events,
			      "event_bytes", (json_int_t)c->st.event_bytes,
			      "max_message", (json_int_t)c->st.max_message,
			      "paused", (json_int_t)c->st.paused,
			      "continued", (json_int_t)c->st.continued);

	json_object_set_new(j, "failed", c->failed ? json_deep_copy(c->failed) : json_array());
	return j;
}
