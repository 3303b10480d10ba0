/* redact: takes secrets (auth headers, cookies, passwords, credential
 * fields of request and response bodies, URL userinfo) out of message bodies
 * before they are logged, by the shapes browser_protocol.pdl gives them
 * (redact.h lists them). Pure; linear in the body's size. This file knows
 * where secrets are in a message; redact_body.c reads the bodies, and
 * redact_text.c holds what both share. */
#include "redact.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "jsoncut.h"
#include "redact_body.h"
#include "redact_text.h"
#include "util.h"

/* What the object being walked is, as its container says. */
enum ctx {
	CTX_NONE,
	CTX_COOKIE,    /* a Cookie or CookieParam: its "value" is the secret */
	CTX_WRAPPED,   /* params of Target.sendMessageToTarget / receivedMessageFromTarget */
	CTX_MESSAGE,   /* the message itself: its method says what its params are */
	CTX_FETCH,     /* params of Fetch.fulfillRequest / continueRequest: base64 bodies */
	CTX_HEADERS,   /* a Network.Headers or an array of header entries */
	CTX_ENTRY,     /* an element of postDataEntries: its "bytes" are base64 */
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

static int is_letter(char c)
{
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'z';
}

/* Could body hold a secret? A cheap test so that most bodies are logged
 * without a parse: a key that leads to one anywhere (cookies, the four
 * secret headers, password, a body or base64 headers), a credential's word
 * (cred_words, spelled again below for speed) where there are headers to
 * name, an '@' in a URL's authority, or a \u escape of an ASCII letter, '/',
 * ':' or '@' (which could spell one). A credential's word alone is not
 * enough: base64 (a screenshot) spells "key" every few thousand bytes. CDP's
 * own "sessionId" member, in nearly every message, is no credential's word;
 * "sid" is one only as a word of its own. Each scan for an authority stops
 * at its first '/', so the test stays linear. */
static int mentions_secret(const char *body, size_t len)
{
	int cred = 0, headers = 0;

	for (size_t i = 0; i < len; i++) {
		size_t a, left = len - i;
		const char *b = body + i;
/* The first letter is the switch's; the second, before a call. */
#define AT(w) (left >= sizeof w - 1 && (b[1] | 0x20) == (w)[1] && !strncasecmp(b + 2, (w) + 2, sizeof w - 3))

		if (*b == '\\') {
			if (left > 5 && b[1] == 'u' && b[2] == '0' && b[3] == '0' &&
			    ((b[4] >= '4' && b[4] <= '7') || (b[4] == '2' && (b[5] | 0x20) == 'f') ||
			     (b[4] == '3' && (b[5] | 0x20) == 'a')))
				return 1;
			continue;
		}
		if ((a = redact_text_url_authority(body, len, i))) {
			for (i = a; i < len && !redact_text_ends_authority(body[i]); i++)
				if (body[i] == '@')
					return 1;
			i -= 2;   /* the loop's i++ looks again at the authority's last byte: a ':' of the next "://" */
			continue;
		}
		switch (*b | 0x20) {   /* only letters become letters */
		case 'a':
			if (AT("authorization"))
				return 1;
			cred |= AT("auth");
			break;
		case 'b':
			if (AT("binaryresponseheaders") || AT("base64encoded"))
				return 1;
			break;
		case 'c':
			if (AT("cookie"))
				return 1;
			cred |= AT("credential") || AT("csrf");
			break;
		case 'f':
			if (AT("fulfillrequest"))
				return 1;
			break;
		case 'h':
			headers |= AT("headers");
			break;
		case 'j':
			cred |= AT("jwt");
			break;
		case 'k':
			cred |= AT("key");
			break;
		case 'p':
			if (AT("password") || AT("postdata") || AT("payloaddata"))
				return 1;
			cred |= AT("pass") || AT("pwd");
			break;
		case 's':
			cred |= AT("secret") || AT("sessid") || AT("signature") ||
				(AT("session") && !(i && b[-1] == '"' && left >= 10 && !memcmp(b, "sessionId\"", 10))) ||
				(AT("sid") && !(i && is_letter(b[-1]) && !(i > 1 && b[-2] == '\\')) &&   /* \nsid */
				 !(left > 3 && is_letter(b[3])));
			break;
		case 't':
			cred |= AT("token");
			break;
		case 'x':
			cred |= AT("xsrf");
			break;
		default:
			break;
		}
#undef AT
		if (cred && headers)
			return 1;
	}
	return 0;
}

static int is_eol(char c)
{
	return c == '\r' || c == '\n' || c == '\0';
}

/* Redacts one header line ("Name: value", no terminator); cont: the line
 * before was a secret header, which a line starting with a space or tab
 * continues (obsolete line folding). Returns whether this line is secret. */
static int header_line(struct redact_text_out *o, const char *line, size_t n, int cont)
{
	const char *colon = memchr(line, ':', n);

	if (cont && n && is_space(line[0])) {
		REDACT_TEXT_LIT(o, " " REDACTED);
		return 1;
	}
	if (colon && redact_text_is_cred_name(line, (size_t)(colon - line))) {
		redact_text_put(o, line, (size_t)(colon - line) + 1);
		REDACT_TEXT_LIT(o, " " REDACTED);
		return 1;
	}
	redact_text_put(o, line, n);
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
static void cookie_line(struct redact_text_out *o, const char *line, size_t n)
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
			REDACT_TEXT_LIT(o, ";");
		if (is_blank(seg, len)) {
			redact_text_put(o, seg, len);
		} else if (!k) {
			if (seq)
				redact_text_put(o, seg, (size_t)(seq - seg) + 1);
			REDACT_TEXT_LIT(o, REDACTED);
		} else if (is_name_in(seg, seq ? (size_t)(seq - seg) : len, cookie_attrs, N_ATTRS)) {
			redact_text_put(o, seg, len);
		} else {
			REDACT_TEXT_LIT(o, " " REDACTED);
		}
		if (!semi)
			break;
		i += len + 1;
	}
}

/* Applies a line redactor to each line of text[0..n): lines end at \r, \n
 * or NUL (as raw header text, bare \r included, and binary header lists
 * do); the terminators are kept as they are. */
static void each_line(struct redact_text_out *o, const char *text, size_t n, int cookies)
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
			redact_text_put(o, text + i++, 1);
	}
}

/* A JSON string of the text's lines redacted: raw header text (cookies 0)
 * or cookie lines (cookies 1). */
static json_t *redact_lines(const char *text, size_t n, int cookies)
{
	struct redact_text_out o = { xmalloc(n + 64), 0, n + 64 }, u = { xmalloc(n + 64), 0, n + 64 };
	json_t *j;

	each_line(&o, text, n, cookies);
	redact_text_userinfo(&u, o.p, o.len);   /* a Location or Referer line */
	/* Cuts fall on ASCII bytes, so the result is UTF-8 when the text was. */
	j = json_stringn(u.p, u.len);
	free(o.p);
	free(u.p);
	return j ? j : json_string(REDACTED);
}

/* Fetch's binaryResponseHeaders: base64 of NUL-separated "name: value"
 * lines. What does not decode is redacted whole. */
static json_t *redact_binary_headers(const char *s, size_t n)
{
	size_t len;
	char *raw = redact_text_b64_decode(s, n, &len);
	struct redact_text_out o;
	json_t *j;

	if (!raw)
		return json_string(REDACTED);
	struct redact_text_out u = { xmalloc(len + 64), 0, len + 64 };

	o.p = xmalloc(len + 64);
	o.len = 0;
	o.cap = len + 64;
	each_line(&o, raw, len, 0);
	redact_text_userinfo(&u, o.p, o.len);
	j = redact_text_b64_encode(u.p, u.len);
	free(o.p);
	free(u.p);
	free(raw);
	return j;
}

static char *redact_json(json_t *j, size_t *outlen);
static int redact_walk(json_t *v, enum ctx ctx);

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

/* Is v (a member of obj) base64, as obj's "base64Encoded" says? */
static int is_b64(json_t *obj)
{
	return json_is_true(json_object_get(obj, "base64Encoded"));
}

/* The replacement for member key's value child of object obj, or NULL to
 * leave it (and walk into it). */
static json_t *redact_member(json_t *obj, const char *key, json_t *child, enum ctx ctx)
{
	const char *s = json_string_value(child);
	size_t n = json_string_length(child);
	json_t *op;

	if (ctx == CTX_HEADERS && redact_text_is_cred_name(key, strlen(key)))
		return json_string(REDACTED);   /* a header named like a credential */
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
	/* Bodies: Network.Request's postData (text; base64 in Fetch.continueRequest
	 * and when a getRequestPostData result says so), postDataEntries' bytes,
	 * Fetch.fulfillRequest's body, the body of a getResponseBody result and
	 * the data of an IO.read one, WebSocket frames' payloadData (base64 but
	 * for text frames, opcode 1). */
	if (!strcmp(key, "postData"))
		return redact_body_member(s, n, ctx == CTX_FETCH || is_b64(obj));
	if (ctx == CTX_ENTRY && !strcmp(key, "bytes"))
		return redact_body_member(s, n, 1);
	if (!strcmp(key, "body") && (ctx == CTX_FETCH || json_object_get(obj, "base64Encoded")))
		return redact_body_member(s, n, ctx == CTX_FETCH || is_b64(obj));
	if (!strcmp(key, "data") && json_object_get(obj, "base64Encoded"))
		return redact_body_member(s, n, is_b64(obj));
	if (!strcmp(key, "payloadData"))
		return redact_body_member(s, n, json_is_number(op = json_object_get(obj, "opcode")) &&
						       json_number_value(op) != 1);
	return redact_text_userinfo_json(s, n);
}

/* What the params of message v are, by its method. */
static enum ctx params_ctx(json_t *v)
{
	const char *method = json_string_value(json_object_get(v, "method"));

	if (!method)
		return CTX_NONE;
	if (!strcmp(method, "Target.sendMessageToTarget") || !strcmp(method, "Target.receivedMessageFromTarget"))
		return CTX_WRAPPED;
	if (!strcmp(method, "Fetch.fulfillRequest") || !strcmp(method, "Fetch.continueRequest"))
		return CTX_FETCH;
	return CTX_NONE;
}

/* The context member key's value gets, in an object of context ctx. */
static enum ctx member_ctx(const char *key, enum ctx ctx, enum ctx params)
{
	if (ctx == CTX_MESSAGE && !strcmp(key, "params"))
		return params;
	if (!strcasecmp(key, "cookies") || is_secret_header(key, strlen(key)))
		return CTX_COOKIE;
	if (ends_with(key, "headers"))   /* headers, requestHeaders, responseHeaders... */
		return CTX_HEADERS;
	if (!strcmp(key, "postDataEntries"))
		return CTX_ENTRY;
	return CTX_NONE;
}

/* Sets member key of object v to rep (a new reference); returns whether
 * that changed v. */
static int set_member(json_t *v, const char *key, json_t *rep)
{
	int changed = !json_equal(json_object_get(v, key), rep);

	json_object_set_new(v, key, rep);
	return changed;
}

/* Walks v, replacing secrets in place; ctx: what v's container says v is.
 * Returns whether anything changed (a replacement may equal what it
 * replaces: an empty Cookie header, a header text with no secret line). */
static int redact_walk(json_t *v, enum ctx ctx)
{
	const char *key, *name;
	json_t *child, *rep;
	enum ctx params;
	int changed = 0;
	void *it;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			if (json_is_string(child) &&
			    (rep = redact_text_userinfo_json(json_string_value(child), json_string_length(child))))
				changed = 1, json_array_set_new(v, i, rep);
			else
				changed |= redact_walk(child, ctx == CTX_COOKIE || ctx == CTX_HEADERS || ctx == CTX_ENTRY ?
								      ctx : CTX_NONE);
		}
		return changed;
	}
	if (!json_is_object(v))
		return 0;
	/* Before the members below may replace the method. */
	params = ctx == CTX_MESSAGE ? params_ctx(v) : CTX_NONE;
	/* A Cookie; a header entry {"name": "Cookie", "value": ...} (Fetch,
	 * CacheStorage), or one named like a credential in a headers array; a
	 * PrerenderMismatchedHeaders {headerName, ...Value}. */
	name = json_string_value(json_object_get(v, "name"));
	if (json_object_get(v, "value") &&
	    (ctx == CTX_COOKIE || looks_like_cookie(v) || (name && is_secret_header(name, strlen(name))) ||
	     (name && ctx == CTX_HEADERS && redact_text_is_cred_name(name, strlen(name)))))
		changed |= set_member(v, "value", json_string(REDACTED));
	name = json_string_value(json_object_get(v, "headerName"));
	if (name && redact_text_is_cred_name(name, strlen(name))) {
		json_object_foreach(v, key, child)
			if (strcmp(key, "headerName"))
				changed |= set_member(v, key, json_string(REDACTED));
	}
	/* json_object_foreach_safe's own temporaries shadow ours: iterate by hand.
	 * A header entry's own members are not headers. */
	if (ctx == CTX_HEADERS && json_object_get(v, "name"))
		ctx = CTX_NONE;
	for (it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
		key = json_object_iter_key(it);
		child = json_object_iter_value(it);
		if ((rep = redact_member(v, key, child, ctx))) {
			changed |= !json_equal(child, rep);
			json_object_iter_set_new(v, it, rep);
		} else {
			changed |= redact_walk(child, member_ctx(key, ctx, params));
		}
	}
	return changed;
}

/* Does s name cookies (Network.setCookie, Storage.setCookies...), case aside? */
static int mentions_cookie(const char *s)
{
	for (; *s; s++)
		if (!strncasecmp(s, "cookie", 6))
			return 1;
	return 0;
}

/* Redacts message j (a CDP message), frees it, and returns its text; NULL
 * when nothing changed (a message that names a secret without holding one,
 * a Cookie header already empty, say: not redacted). */
static char *redact_json(json_t *j, size_t *outlen)
{
	/* Read before the walk, which may replace the method's string. */
	const char *method = json_string_value(json_object_get(j, "method"));
	int cookies = method && mentions_cookie(method), changed;
	json_t *params = json_object_get(j, "params");
	char *out = NULL;

	json_incref(params);   /* and params itself */
	changed = redact_walk(j, CTX_MESSAGE);
	/* Network.setCookie carries a CookieParam as its params. */
	if (cookies && json_is_object(params) && json_object_get(params, "value"))
		changed |= set_member(params, "value", json_string(REDACTED));
	json_decref(params);
	if (changed && !(out = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER)))
		out = xstrdup(REDACTED_NOT_JSON);   /* jansson's own strings are UTF-8: not expected */
	json_decref(j);
	if (out)
		*outlen = strlen(out);
	return out;
}

char *redact_url(const char *s)
{
	size_t n = strlen(s);
	struct redact_text_out o = { xmalloc(n + 16), 0, n + 16 };

	redact_text_userinfo(&o, s, n);
	o.p[o.len] = '\0';   /* out_put keeps a byte spare */
	return o.p;
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

char *redact_body_head(const char *body, size_t len, size_t keep, size_t *outlen)
{
	size_t span = REDACT_HEAD_SPAN(keep), used, n;
	char *head, *out;

	if (len <= span)
		return redact_body(body, len, outlen);
	if (!mentions_secret(body, span))
		return NULL;
	if (!(head = jsoncut_close(body, span, &used, &n)) || used < keep) {
		free(head);
		out = xstrdup(REDACTED_NOT_JSON);
		*outlen = strlen(out);
		return out;
	}
	out = redact_body(head, n, outlen);
	free(head);
	return out;
}
