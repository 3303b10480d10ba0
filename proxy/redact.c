/* redact: takes secrets (auth headers, cookies, passwords) out of message
 * bodies before they are logged, by the shapes browser_protocol.pdl gives
 * them (redact.h lists them). Pure. */
#include "redact.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "util.h"

/* What the object being walked is, as its container says. */
enum ctx {
	CTX_NONE,
	CTX_COOKIE,    /* a Cookie or CookieParam: its "value" is the secret */
	CTX_WRAPPED,   /* params of Target.sendMessageToTarget / receivedMessageFromTarget */
};

static const char *const secret_headers[] = {
	"authorization", "proxy-authorization", "cookie", "set-cookie",
};
#define N_SECRET (sizeof secret_headers / sizeof secret_headers[0])

/* Set-Cookie attributes (RFC 6265bis and Chromium's additions): in a cookie
 * line, a segment named otherwise may be a value and is redacted. */
static const char *const cookie_attrs[] = {
	"expires", "max-age", "domain", "path", "secure", "httponly", "samesite",
	"priority", "partitioned", "sameparty",
};
#define N_ATTRS (sizeof cookie_attrs / sizeof cookie_attrs[0])

/* Members only a Network.Cookie or CookieParam has next to name and value. */
static const char *const cookie_keys[] = {
	"domain", "path", "url", "expires", "size", "httpOnly", "secure", "session",
	"sameSite", "priority", "sourceScheme", "sourcePort", "partitionKey",
};
#define N_COOKIE_KEYS (sizeof cookie_keys / sizeof cookie_keys[0])

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Is s[0..n), without the spaces and tabs around it, one of names[] (case
 * aside)? */
static int is_name_in(const char *s, size_t n, const char *const *names, size_t count)
{
	while (n && is_space(*s))
		s++, n--;
	while (n && is_space(s[n - 1]))
		n--;
	for (size_t i = 0; i < count; i++)
		if (strlen(names[i]) == n && !strncasecmp(s, names[i], n))
			return 1;
	return 0;
}

static int is_secret_header(const char *s, size_t n)
{
	return is_name_in(s, n, secret_headers, N_SECRET);
}

/* Does key end with suffix, case aside? */
static int ends_with(const char *key, const char *suffix)
{
	size_t k = strlen(key), s = strlen(suffix);

	return k >= s && !strcasecmp(key + k - s, suffix);
}

/* Could body hold a secret? A cheap test so that most bodies are logged
 * without a parse: a secret's key or header name in any case, or a \u escape
 * of an ASCII letter (which could spell one). */
static int mentions_secret(const char *body, size_t len)
{
	static const char *const words[] = {
		"cookie", "authorization", "password", "binaryresponseheaders",
	};

	for (size_t i = 0; i < len; i++) {
		char c = (char)(body[i] | 0x20);
		if (body[i] == '\\' && i + 5 < len && body[i + 1] == 'u' && body[i + 2] == '0' &&
		    body[i + 3] == '0' && body[i + 4] >= '4' && body[i + 4] <= '7')
			return 1;
		for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
			if (c == words[w][0] && len - i >= strlen(words[w]) &&
			    !strncasecmp(body + i, words[w], strlen(words[w])))
				return 1;
	}
	return 0;
}

/* A growing output buffer. */
struct out {
	char *p;
	size_t len, cap;
};

static void out_put(struct out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		o->cap = 2 * (o->cap + n + 1);
		o->p = xrealloc(o->p, o->cap);
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

#define OUT_LIT(o, lit) out_put((o), (lit), sizeof(lit) - 1)

static int is_eol(char c)
{
	return c == '\r' || c == '\n' || c == '\0';
}

/* Redacts one header line ("Name: value", no terminator); cont: the line
 * before was a secret header, which a line starting with a space or tab
 * continues (obsolete line folding). Returns whether this line is secret. */
static int header_line(struct out *o, const char *line, size_t n, int cont)
{
	const char *colon = memchr(line, ':', n);

	if (cont && n && is_space(line[0])) {
		OUT_LIT(o, " " REDACTED);
		return 1;
	}
	if (colon && is_secret_header(line, (size_t)(colon - line))) {
		out_put(o, line, (size_t)(colon - line) + 1);
		OUT_LIT(o, " " REDACTED);
		return 1;
	}
	out_put(o, line, n);
	return 0;
}

/* Is s[0..n) only spaces and tabs? */
static int is_blank(const char *s, size_t n)
{
	while (n && is_space(*s))
		s++, n--;
	return n == 0;
}

/* Redacts a Set-Cookie line ("name=value; Attr=x; ..."): the value, and any
 * segment that is not a known attribute. A line of the form "Set-Cookie: ..."
 * is redacted as a header. */
static void cookie_line(struct out *o, const char *line, size_t n)
{
	const char *colon = memchr(line, ':', n), *eq = memchr(line, '=', n);

	if (colon && (!eq || colon < eq) && is_secret_header(line, (size_t)(colon - line))) {
		header_line(o, line, n, 0);
		return;
	}
	for (size_t i = 0, k = 0;; k++) {
		const char *seg = line + i, *semi = memchr(seg, ';', n - i);
		size_t len = semi ? (size_t)(semi - seg) : n - i;
		const char *seq = memchr(seg, '=', len);

		if (k)
			OUT_LIT(o, ";");
		if (is_blank(seg, len)) {
			out_put(o, seg, len);
		} else if (!k) {
			if (seq)
				out_put(o, seg, (size_t)(seq - seg) + 1);
			OUT_LIT(o, REDACTED);
		} else if (is_name_in(seg, seq ? (size_t)(seq - seg) : len, cookie_attrs, N_ATTRS)) {
			out_put(o, seg, len);
		} else {
			OUT_LIT(o, " " REDACTED);
		}
		if (!semi)
			break;
		i += len + 1;
	}
}

/* Applies a line redactor to each line of text[0..n): lines end at \r, \n
 * or NUL (as raw header text, bare \r included, and binary header lists
 * do); the terminators are kept as they are. */
static void each_line(struct out *o, const char *text, size_t n, int cookies)
{
	int secret = 0;

	for (size_t i = 0; i < n;) {
		size_t len = 0;
		while (i + len < n && !is_eol(text[i + len]))
			len++;
		if (cookies)
			cookie_line(o, text + i, len);
		else
			secret = header_line(o, text + i, len, secret);
		i += len;
		while (i < n && is_eol(text[i]))
			out_put(o, text + i++, 1);
	}
}

/* A JSON string of the text's lines redacted: raw header text (cookies 0)
 * or cookie lines (cookies 1). */
static json_t *redact_lines(const char *text, size_t n, int cookies)
{
	struct out o = { xmalloc(n + 64), 0, n + 64 };
	json_t *j;

	each_line(&o, text, n, cookies);
	/* Cuts fall on ASCII bytes, so the result is UTF-8 when the text was. */
	j = json_stringn(o.p, o.len);
	free(o.p);
	return j ? j : json_string(REDACTED);
}

static const char b64_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Decodes base64 s[0..n) (padded or not); NULL if it is not base64. */
static char *b64_decode(const char *s, size_t n, size_t *outlen)
{
	char *out = xmalloc(n / 4 * 3 + 3);
	unsigned acc = 0, bits = 0;
	size_t len = 0;

	while (n && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		const char *p = s[i] ? strchr(b64_chars, s[i]) : NULL;
		if (!p) {
			free(out);
			return NULL;
		}
		acc = acc << 6 | (unsigned)(p - b64_chars);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[len++] = (char)(acc >> bits & 0xff);
		}
	}
	*outlen = len;
	return out;
}

static json_t *b64_encode(const char *s, size_t n)
{
	char *out = xmalloc((n + 2) / 3 * 4 + 1);
	size_t len = 0;
	json_t *j;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)s[i] << 16;
		if (i + 1 < n)
			v |= (unsigned char)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)s[i + 2];
		out[len++] = b64_chars[v >> 18 & 63];
		out[len++] = b64_chars[v >> 12 & 63];
		out[len++] = i + 1 < n ? b64_chars[v >> 6 & 63] : '=';
		out[len++] = i + 2 < n ? b64_chars[v & 63] : '=';
	}
	j = json_stringn(out, len);
	free(out);
	return j;
}

/* Fetch's binaryResponseHeaders: base64 of NUL-separated "name: value"
 * lines. What does not decode is redacted whole. */
static json_t *redact_binary_headers(const char *s, size_t n)
{
	size_t len;
	char *raw = b64_decode(s, n, &len);
	struct out o;
	json_t *j;

	if (!raw)
		return json_string(REDACTED);
	o.p = xmalloc(len + 64);
	o.len = 0;
	o.cap = len + 64;
	each_line(&o, raw, len, 0);
	j = b64_encode(o.p, o.len);
	free(o.p);
	free(raw);
	return j;
}

static char *redact_json(json_t *j, size_t *outlen);
static void redact_walk(json_t *v, enum ctx ctx);

/* The "message" of a Target.sendMessageToTarget: a CDP message as a string. */
static json_t *redact_wrapped(const char *s, size_t n)
{
	json_t *inner;
	size_t len;
	char *text;

	if (!mentions_secret(s, n))
		return NULL;
	if (!(inner = json_loadb(s, n, JSON_ALLOW_NUL, NULL)))
		return json_string(REDACTED_NOT_JSON);
	if (!(text = redact_json(inner, &len)))
		return NULL;
	inner = json_stringn(text, len);
	free(text);
	return inner;
}

/* Is v (an object) a Network.Cookie or CookieParam, wherever it is? */
static int looks_like_cookie(json_t *v)
{
	if (!json_is_string(json_object_get(v, "name")) || !json_object_get(v, "value"))
		return 0;
	for (size_t i = 0; i < N_COOKIE_KEYS; i++)
		if (json_object_get(v, cookie_keys[i]))
			return 1;
	return 0;
}

/* The replacement for member key's value child of an object, or NULL to
 * leave it (and walk into it). */
static json_t *redact_member(const char *key, json_t *child, enum ctx ctx)
{
	const char *s = json_string_value(child);
	size_t n = json_string_length(child);

	if (is_secret_header(key, strlen(key)))
		/* A Network.Headers member, whatever its kind; an object under
		 * "cookie" is an AssociatedCookie's or a BlockedSetCookieWithReason's
		 * cookie, walked as one. */
		return json_is_object(child) ? NULL : json_string(REDACTED);
	if (!s)
		return NULL;
	if (ends_with(key, "cookieLine"))           /* cookieLine, rawCookieLine */
		return redact_lines(s, n, 1);
	if (ends_with(key, "headersText"))          /* headersText, requestHeadersText */
		return redact_lines(s, n, 0);
	if (!strcmp(key, "binaryResponseHeaders"))
		return redact_binary_headers(s, n);
	if (!strcasecmp(key, "password"))           /* AuthChallengeResponse */
		return json_string(REDACTED);
	if (ctx == CTX_WRAPPED && !strcmp(key, "message"))
		return redact_wrapped(s, n);
	return NULL;
}

/* Walks v, replacing secrets in place; ctx: what v's container says v is. */
static void redact_walk(json_t *v, enum ctx ctx)
{
	const char *key, *name;
	json_t *child;
	void *it;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, child)
			redact_walk(child, ctx == CTX_COOKIE ? CTX_COOKIE : CTX_NONE);
		return;
	}
	if (!json_is_object(v))
		return;
	/* A Cookie; a header entry {"name": "Cookie", "value": ...} (Fetch,
	 * CacheStorage); a PrerenderMismatchedHeaders {headerName, ...Value}. */
	name = json_string_value(json_object_get(v, "name"));
	if (json_object_get(v, "value") &&
	    (ctx == CTX_COOKIE || looks_like_cookie(v) || (name && is_secret_header(name, strlen(name)))))
		json_object_set_new(v, "value", json_string(REDACTED));
	name = json_string_value(json_object_get(v, "headerName"));
	if (name && is_secret_header(name, strlen(name))) {
		json_object_foreach(v, key, child)
			if (strcmp(key, "headerName"))
				json_object_set_new(v, key, json_string(REDACTED));
	}
	/* json_object_foreach_safe's own temporaries shadow ours: iterate by hand. */
	for (it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
		json_t *rep;
		key = json_object_iter_key(it);
		child = json_object_iter_value(it);
		if ((rep = redact_member(key, child, ctx)))
			json_object_iter_set_new(v, it, rep);
		else if (!strcasecmp(key, "cookies") || is_secret_header(key, strlen(key)))
			redact_walk(child, CTX_COOKIE);
		else
			redact_walk(child, CTX_NONE);
	}
}

/* Does s name cookies (Network.setCookie, Storage.setCookies...), case aside? */
static int mentions_cookie(const char *s)
{
	for (; *s; s++)
		if (!strncasecmp(s, "cookie", 6))
			return 1;
	return 0;
}

/* Redacts message j (a CDP message), frees it, and returns its text. */
static char *redact_json(json_t *j, size_t *outlen)
{
	/* Read before the walk, which may replace the method's string. */
	const char *method = json_string_value(json_object_get(j, "method"));
	int cookies = method && mentions_cookie(method);
	int wrapped = method && (!strcmp(method, "Target.sendMessageToTarget") ||
				 !strcmp(method, "Target.receivedMessageFromTarget"));
	json_t *params = json_object_get(j, "params");
	char *out;

	char *before = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_incref(params);   /* and params itself */
	redact_walk(j, CTX_NONE);
	/* Network.setCookie carries a CookieParam as its params. */
	if (cookies && json_is_object(params) && json_object_get(params, "value"))
		json_object_set_new(params, "value", json_string(REDACTED));
	if (wrapped)
		redact_walk(params, CTX_WRAPPED);
	json_decref(params);
	out = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (!out)   /* jansson's own strings are UTF-8: not expected */
		out = xstrdup(REDACTED_NOT_JSON);
	/* A message that names a secret without holding one (a Cookie header
	 * already empty, say) is not redacted. */
	if (before && !strcmp(before, out)) {
		free(out);
		out = NULL;
	}
	free(before);
	if (out)
		*outlen = strlen(out);
	return out;
}

char *redact_body(const char *body, size_t len, size_t *outlen)
{
	json_t *j;
	char *out;

	if (!mentions_secret(body, len))
		return NULL;
	j = json_loadb(body, len, JSON_ALLOW_NUL, NULL);
	if (!j) {
		out = xstrdup(REDACTED_NOT_JSON);
		*outlen = strlen(out);
		return out;
	}
	return redact_json(j, outlen);
}
