/* har_entry: a HAR 1.2 entry (request, response, timings) from the CDP
 * Network events of one request hop. Pure. */
#include "har.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util.h"

void har_entry_iso(double wall, char *out, size_t outlen)
{
	time_t s;
	int ms;
	struct tm tm;
	char day[32];

	/* A time gmtime_r can take and ISO 8601 can write (years 0 to 9999). */
	if (!(wall >= -62167219200.0 && wall < 253402300800.0))
		wall = 0;
	s = (time_t)floor(wall);
	ms = (int)((wall - floor(wall)) * 1000);
	gmtime_r(&s, &tm);
	strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, outlen, "%s.%03dZ", day, ms > 999 ? 999 : ms);
}

double har_num(json_t *o, const char *k, double dflt)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

int64_t har_count(json_t *o, const char *k)
{
	double v = har_num(o, k, 0);

	return v >= 0 && v < 1e15 ? (int64_t)v : 0;
}

const char *har_str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* Milliseconds, to the microsecond; -1 (unknown) for what a log's odd
 * timestamps make of them past a double's range. */
static json_t *ms(double v)
{
	double r = round(v * 1000) / 1000;

	return json_real(isfinite(r) ? r : -1);
}

/* The least of the values that are >= 0, or -1. */
static double least_nonneg(const double *v, size_t n)
{
	double m = -1;

	for (size_t i = 0; i < n; i++)
		if (v[i] >= 0 && (m < 0 || v[i] < m))
			m = v[i];
	return m;
}

json_t *har_entry_timings(json_t *timing, double issue, double resp_at, double end_at, double *total)
{
	double blocked = 0, dns = -1, ssl = -1, connect = -1, send = 0, wait = 0, receive = 0;
	double start = issue, highest = 0, wait_end;

	if (!json_is_object(timing) && !resp_at) {
		/* Nothing after the request was sent (failed or never answered). */
		blocked = end_at > issue && issue > 0 ? (end_at - issue) * 1000 : 0;
	} else {
		if (json_is_object(timing)) {
			double starts[3] = { har_num(timing, "dnsStart", -1), har_num(timing, "connectStart", -1),
					     har_num(timing, "sendStart", -1) };
			double bs = least_nonneg(starts, 3), dns_end = har_num(timing, "dnsEnd", -1);
			double connect_end = har_num(timing, "connectEnd", -1), send_end = har_num(timing, "sendEnd", -1);
			double ssl_end = har_num(timing, "sslEnd", -1);

			start = har_num(timing, "requestTime", issue);
			blocked = issue > 0 && issue < start ? (start - issue) * 1000 : 0;
			if (bs < 0)
				bs = 0;
			blocked += bs;
			if (dns_end >= 0)
				dns = dns_end - bs;
			if (ssl_end > 0)
				ssl = ssl_end - har_num(timing, "sslStart", 0);
			if (connect_end >= 0) {
				double from[2] = { dns_end, bs };
				connect = connect_end - least_nonneg(from, 2);
			}
			if (send_end >= 0)
				send = send_end - fmax(fmax(connect_end, dns_end), bs);
			if (send < 0)
				send = 0;
			highest = fmax(fmax(fmax(send_end, connect_end), fmax(ssl_end, dns_end)), fmax(bs, 0));
		}
		wait_end = json_is_object(timing) && har_num(timing, "receiveHeadersEnd", -1) > 0 ?
			   har_num(timing, "receiveHeadersEnd", -1) : resp_at ? (resp_at - start) * 1000 : highest;
		wait = fmax(wait_end - highest, 0);
		receive = end_at ? fmax((end_at - start) * 1000 - wait_end, 0) : 0;
	}
	*total = blocked + fmax(dns, 0) + fmax(connect, 0) + send + wait + receive;
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "blocked", ms(blocked), "dns", ms(dns),
			 "ssl", ms(ssl), "connect", ms(connect), "send", ms(send), "wait", ms(wait),
			 "receive", ms(receive));
}

/* A CDP Headers object {name: value} as HAR headers [{name, value}]; a value
 * of several lines (repeated headers, as Chrome joins them) gives one each. */
static json_t *headers(json_t *h)
{
	json_t *arr = json_array(), *v;
	const char *k;

	json_object_foreach(h, k, v) {
		const char *s = json_string_value(v), *nl;
		if (!s)
			continue;
		while ((nl = strchr(s, '\n'))) {
			json_array_append_new(arr, json_pack("{s:s,s:o}", "name", k, "value", util_json_bytes(s, (size_t)(nl - s))));
			s = nl + 1;
		}
		json_array_append_new(arr, json_pack("{s:s,s:o}", "name", k, "value", util_json_str(s)));
	}
	return arr;
}

static const char *header_value(json_t *h, const char *name)
{
	const char *k;
	json_t *v;

	json_object_foreach(h, k, v)
		if (!strcasecmp(k, name))
			return json_string_value(v);
	return NULL;
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
}

/* s[0..n) with %XX and '+' decoded. */
static json_t *url_decoded(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	size_t w = 0;
	json_t *j;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
			d[w++] = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
			i += 2;
		} else {
			d[w++] = s[i] == '+' ? ' ' : s[i];
		}
	}
	j = util_json_bytes(d, w);
	free(d);
	return j;
}

/* The URL's query as HAR [{name, value}]. */
static json_t *query(const char *url)
{
	json_t *arr = json_array();
	const char *q = strchr(url, '?'), *end;

	if (!q)
		return arr;
	q++;
	end = q + strcspn(q, "#");
	while (q < end) {
		const char *amp = memchr(q, '&', (size_t)(end - q)), *eq;
		if (!amp)
			amp = end;
		if (amp > q) {
			eq = memchr(q, '=', (size_t)(amp - q));
			json_array_append_new(arr, json_pack("{s:o,s:o}", "name",
				url_decoded(q, (size_t)((eq ? eq : amp) - q)), "value",
				eq ? url_decoded(eq + 1, (size_t)(amp - eq - 1)) : json_string("")));
		}
		q = amp + 1;
	}
	return arr;
}

/* The cookies sent, from requestWillBeSentExtraInfo's associatedCookies
 * (their values as the log has them: redacted). */
static json_t *cookies_sent(json_t *extra)
{
	json_t *arr = json_array(), *ac;
	size_t i;

	json_array_foreach(json_object_get(extra, "associatedCookies"), i, ac) {
		json_t *c = json_object_get(ac, "cookie"), *hc;
		if (!har_str(c, "name") || json_array_size(json_object_get(ac, "blockedReasons")))
			continue;
		hc = json_pack("{s:s,s:s}", "name", har_str(c, "name"), "value", har_str(c, "value") ? har_str(c, "value") : "");
		if (har_str(c, "path"))
			json_object_set_new(hc, "path", json_string(har_str(c, "path")));
		if (har_str(c, "domain"))
			json_object_set_new(hc, "domain", json_string(har_str(c, "domain")));
		json_object_set_new(hc, "httpOnly", json_boolean(json_is_true(json_object_get(c, "httpOnly"))));
		json_object_set_new(hc, "secure", json_boolean(json_is_true(json_object_get(c, "secure"))));
		json_array_append_new(arr, hc);
	}
	return arr;
}

/* "HTTP/1.1" from CDP's protocol ("http/1.1", "h2", "h3"). */
static const char *http_version(json_t *resp)
{
	const char *p = har_str(resp, "protocol");

	if (!p)
		return "";
	if (!strcasecmp(p, "http/1.1"))
		return "HTTP/1.1";
	if (!strcasecmp(p, "http/1.0"))
		return "HTTP/1.0";
	if (!strcasecmp(p, "h2"))
		return "HTTP/2";
	if (!strncasecmp(p, "h3", 2) || !strncasecmp(p, "http/2+quic", 11))
		return "HTTP/3";
	return p;
}

static json_t *request_of(const struct har_hop *h, const char *version)
{
	json_t *req = h->request, *hdrs = json_object_get(h->req_extra, "headers"), *o;
	const char *url = har_str(req, "url") ? har_str(req, "url") : "";
	const char *frag = har_str(req, "urlFragment"), *post = har_str(req, "postData");
	char *full = xmalloc(strlen(url) + (frag ? strlen(frag) : 0) + 1);

	strcpy(full, url);
	if (frag)
		strcat(full, frag);
	if (!json_is_object(hdrs))
		hdrs = json_object_get(req, "headers");
	o = json_pack("{s:s,s:o,s:s,s:o,s:o,s:o,s:i,s:I}", "method", har_str(req, "method") ? har_str(req, "method") : "GET",
		      "url", util_json_str(full), "httpVersion", version, "cookies", cookies_sent(h->req_extra),
		      "headers", headers(hdrs), "queryString", query(full), "headersSize", -1,
		      "bodySize", (json_int_t)(post ? strlen(post) : 0));
	if (post) {
		const char *type = header_value(hdrs, "content-type");
		json_object_set_new(o, "postData", json_pack("{s:s,s:s}", "mimeType", type ? type : "",
							     "text", post));
	} else if (json_is_true(json_object_get(req, "hasPostData"))) {
		json_object_set_new(o, "comment", json_string("its body is not in the log: Chrome sent none "
			"with the event and no Network.getRequestPostData answer is logged"));
	}
	free(full);
	return o;
}

static json_t *response_of(const struct har_hop *h, const char *version, const char *redirect_url,
			   const char *failed)
{
	json_t *resp = h->response, *hdrs = json_object_get(h->resp_extra, "headers"), *o, *content;
	const char *text = har_str(h->resp_extra, "headersText"), *mime = har_str(resp, "mimeType");
	json_int_t hsize = text ? (json_int_t)strlen(text) : -1, bsize = -1;
	double st = har_num(resp, "status", har_num(h->resp_extra, "statusCode", 0));
	int status = st >= 0 && st < 1000 ? (int)st : 0;

	if (!json_is_object(hdrs))
		hdrs = json_object_get(resp, "headers");
	if (h->has_encoded)
		bsize = hsize >= 0 && h->encoded_len >= hsize ? h->encoded_len - hsize : h->encoded_len;
	else if (redirect_url && resp)
		bsize = 0;
	content = json_pack("{s:I,s:s}", "size", (json_int_t)h->data_len, "mimeType",
			    mime && *mime ? mime : "x-unknown");
	o = json_pack("{s:i,s:s,s:s,s:[],s:o,s:o,s:s,s:I,s:I}", "status", status, "statusText",
		      har_str(resp, "statusText") ? har_str(resp, "statusText") : "", "httpVersion", version,
		      "cookies", "headers", json_is_object(hdrs) ? headers(hdrs) : json_array(),
		      "content", content, "redirectURL", redirect_url ? redirect_url : "",
		      "headersSize", hsize, "bodySize", bsize);
	if (failed)
		json_object_set_new(o, "_error", json_string(failed));
	return o;
}

/* "[::1]" as HAR's serverIPAddress wants it: "::1". */
static json_t *ip_address(const char *ip)
{
	size_t n = strlen(ip);

	if (n >= 2 && ip[0] == '[' && ip[n - 1] == ']')
		return util_json_bytes(ip + 1, n - 2);
	return json_string(ip);
}

json_t *har_entry_build(const struct har_hop *h, const char *pageref, const char *redirect_url,
			const char *failed)
{
	const char *version = http_version(h->response);
	double total;
	char when[40];
	json_t *e, *timing = json_object_get(h->response, "timing");

	har_entry_iso(h->wall, when, sizeof when);
	e = json_pack("{s:s,s:o,s:o,s:o,s:{},s:o}", "startedDateTime", when, "time", json_real(0),
		      "request", request_of(h, version), "response", response_of(h, version, redirect_url, failed),
		      "cache", "timings", har_entry_timings(timing, h->issue, h->resp_at, h->end_at, &total));
	json_object_set_new(e, "time", ms(total));
	if (pageref)
		json_object_set_new(e, "pageref", json_string(pageref));
	if (har_str(h->response, "remoteIPAddress") && *har_str(h->response, "remoteIPAddress"))
		json_object_set_new(e, "serverIPAddress", ip_address(har_str(h->response, "remoteIPAddress")));
	if (json_is_number(json_object_get(h->response, "connectionId")))
		json_object_set_new(e, "connection", json_sprintf("%.0f", har_num(h->response, "connectionId", 0)));
	if (h->type) {
		/* Chrome DevTools' own export names the type so; its importer reads it. */
		char type[32];
		size_t i;
		for (i = 0; h->type[i] && i < sizeof type - 1; i++)
			type[i] = (char)(h->type[i] >= 'A' && h->type[i] <= 'Z' ? h->type[i] + 32 : h->type[i]);
		type[i] = '\0';
		json_object_set_new(e, "_resourceType", json_string(type));
	}
	return e;
}

static json_t *content_of(json_t *entry)
{
	return json_object_get(json_object_get(entry, "response"), "content");
}

void har_entry_set_body(json_t *entry, json_t *result)
{
	json_t *c = content_of(entry), *body = json_object_get(result, "body");
	int b64 = json_is_true(json_object_get(result, "base64Encoded"));

	if (!json_is_string(body))
		return;
	json_object_set(c, "text", body);
	if (b64)
		json_object_set_new(c, "encoding", json_string("base64"));
	if (json_integer_value(json_object_get(c, "size")) == 0 && json_string_length(body)) {
		size_t n = json_string_length(body);
		/* The decoded size of base64: 3 bytes per 4, less the padding. */
		if (b64) {
			const char *s = json_string_value(body);
			n = n / 4 * 3 - (n >= 1 && s[n - 1] == '=') - (n >= 2 && s[n - 2] == '=');
		}
		json_object_set_new(c, "size", json_integer((json_int_t)n));
	}
	json_object_del(c, "comment");
}

void har_entry_set_comment(json_t *entry, const char *why)
{
	json_object_set_new(content_of(entry), "comment", json_string(why));
}
