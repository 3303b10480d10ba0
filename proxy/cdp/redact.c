/* redact: takes secrets (auth headers, cookies, passwords, credential
 * fields of request and response bodies, URL userinfo) out of message bodies
 * before they are logged, by the shapes browser_protocol.pdl gives them
 * (redact.h lists them). Pure; linear in the body's size. */
#define _GNU_SOURCE   /* memmem */
#include "redact.h"

#include <ctype.h>
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
	CTX_MESSAGE,   /* the message itself: its method says what its params are */
	CTX_FETCH,     /* params of Fetch.fulfillRequest / continueRequest: base64 bodies */
	CTX_HEADERS,   /* a Network.Headers or an array of header entries */
	CTX_ENTRY,     /* an element of postDataEntries: its "bytes" are base64 */
};

/* Words that make a name a credential's (case aside, anywhere in the name):
 * header names in header objects, entries and lines; members of JSON bodies;
 * form fields; multipart parts. Broad on purpose: a log loses a value it
 * did not need rather than keeps one it should not have. mentions_secret
 * spells them again (redact_test checks each). */
#define WORD(w) { w, sizeof w - 1 }
static const struct word {
	const char *w;
	size_t n;
} cred_words[] = {
	WORD("pass"), WORD("pwd"), WORD("secret"), WORD("token"), WORD("key"), WORD("auth"), WORD("credential"),
	WORD("session"), WORD("sessid"), WORD("cookie"), WORD("csrf"), WORD("xsrf"), WORD("jwt"), WORD("signature"),
};
#define N_CRED (sizeof cred_words / sizeof cred_words[0])
/* Their first letters, either case: most bytes of a name are none. */
static const unsigned char cred_first[256] = {
	['p'] = 1, ['s'] = 1, ['t'] = 1, ['k'] = 1, ['a'] = 1, ['c'] = 1, ['x'] = 1, ['j'] = 1,
	['P'] = 1, ['S'] = 1, ['T'] = 1, ['K'] = 1, ['A'] = 1, ['C'] = 1, ['X'] = 1, ['J'] = 1,
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

/* Is s[0..n) a credential's name: one of cred_words[] in it, or "sid"? */
static int is_cred_name(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!cred_first[(unsigned char)s[i]])
			continue;
		for (size_t w = 0; w < N_CRED; w++)
			if ((s[i] | 0x20) == cred_words[w].w[0] && n - i >= cred_words[w].n &&
			    !strncasecmp(s + i, cred_words[w].w, cred_words[w].n))
				return 1;
	}
	return n == 3 && !strncasecmp(s, "sid", 3);
}

/* Does key end with suffix, case aside? */
static int ends_with(const char *key, const char *suffix)
{
	size_t k = strlen(key), s = strlen(suffix);

	return k >= s && !strcasecmp(key + k - s, suffix);
}

/* Can a URL's userinfo be at s[i] (a ':' of "://", or of ":\/\/" in JSON
 * text)? Returns the index past the "//", or 0. */
static size_t url_authority(const char *s, size_t n, size_t i)
{
	if (s[i] != ':')
		return 0;
	if (n - i >= 3 && s[i + 1] == '/' && s[i + 2] == '/')
		return i + 3;
	if (n - i >= 5 && !memcmp(s + i + 1, "\\/\\/", 4))
		return i + 5;
	return 0;
}

/* Does c end a URL's authority (or is it one that a userinfo cannot hold
 * unescaped)? '\\' too: WHATWG URLs read it as '/' in http(s). */
static int ends_authority(char c)
{
	return c == '/' || c == '\\' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '<' ||
	       c == '>' || c == '`' || (unsigned char)c <= ' ';
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
		if ((a = url_authority(body, len, i))) {
			for (i = a; i < len && !ends_authority(body[i]); i++)
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

/* Appends s[0..n) to o with the userinfo of each URL in it
 * ("scheme://user:password@host", the last '@' of the authority as WHATWG
 * reads it) replaced by "<redacted>", user and password both: a token is
 * often the user alone. Returns whether any was. */
static int userinfo_redact(struct out *o, const char *s, size_t n)
{
	size_t done = 0;
	int hit = 0;

	for (size_t i = 0; i < n; i++) {
		size_t a = url_authority(s, n, i), e, at = 0;
		if (!a)
			continue;
		for (e = a; e < n && !ends_authority(s[e]); e++)
			if (s[e] == '@')
				at = e;
		if (at > a) {
			out_put(o, s + done, a - done);
			OUT_LIT(o, REDACTED);
			done = at;
			hit = 1;
		}
		i = e - 2;   /* past the loop's i++, the authority's last byte: a ':' of the next "://" */
	}
	out_put(o, s + done, n - done);
	return hit;
}

/* A JSON string of s[0..n) with URL userinfo redacted, or NULL if it has
 * none. Cuts fall on ASCII bytes, so the result is UTF-8 when s was. */
static json_t *userinfo_json(const char *s, size_t n)
{
	struct out o;
	json_t *j = NULL;

	if (!memchr(s, '@', n))
		return NULL;
	o.p = xmalloc(n + 16);
	o.len = 0;
	o.cap = n + 16;
	if (userinfo_redact(&o, s, n) && !(j = json_stringn(o.p, o.len)))
		j = json_string(REDACTED);
	free(o.p);
	return j;
}

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
	if (colon && is_cred_name(line, (size_t)(colon - line))) {
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
	struct out o = { xmalloc(n + 64), 0, n + 64 }, u = { xmalloc(n + 64), 0, n + 64 };
	json_t *j;

	each_line(&o, text, n, cookies);
	userinfo_redact(&u, o.p, o.len);   /* a Location or Referer line */
	/* Cuts fall on ASCII bytes, so the result is UTF-8 when the text was. */
	j = json_stringn(u.p, u.len);
	free(o.p);
	free(u.p);
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
	struct out u = { xmalloc(len + 64), 0, len + 64 };

	o.p = xmalloc(len + 64);
	o.len = 0;
	o.cap = len + 64;
	each_line(&o, raw, len, 0);
	userinfo_redact(&u, o.p, o.len);
	j = b64_encode(u.p, u.len);
	free(o.p);
	free(u.p);
	free(raw);
	return j;
}

/* Redacts, in place, the members of a JSON body named like credentials
 * (whatever their values, but null, booleans and values already redacted)
 * and URL userinfo in its strings. Returns whether it replaced anything. */
static int json_fields(json_t *v)
{
	json_t *child, *rep;
	int hit = 0;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			if (json_is_string(child) &&
			    (rep = userinfo_json(json_string_value(child), json_string_length(child))))
				hit = 1, json_array_set_new(v, i, rep);
			else
				hit |= json_fields(child);
		}
		return hit;
	}
	if (!json_is_object(v))
		return 0;
	for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
		const char *key = json_object_iter_key(it);
		child = json_object_iter_value(it);
		if (is_cred_name(key, strlen(key))) {
			if (!json_is_null(child) && !json_is_boolean(child) &&
			    !(json_is_string(child) && !strcmp(json_string_value(child), REDACTED)))
				hit = 1, json_object_iter_set_new(v, it, json_string(REDACTED));
		} else if (json_is_string(child) &&
			   (rep = userinfo_json(json_string_value(child), json_string_length(child)))) {
			hit = 1, json_object_iter_set_new(v, it, rep);
		} else {
			hit |= json_fields(child);
		}
	}
	return hit;
}

static int hex_value(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
}

/* Is a form field's name[0..n) a credential's, once %XX and '+' decode? */
static int form_name_is_cred(const char *name, size_t n)
{
	char *d;
	size_t k = 0;
	int cred;

	if (!memchr(name, '%', n))   /* '+' for a space makes no word and breaks none */
		return is_cred_name(name, n);
	d = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '%' && n - i >= 3 && hex_value(name[i + 1]) >= 0 && hex_value(name[i + 2]) >= 0) {
			d[k++] = (char)(hex_value(name[i + 1]) << 4 | hex_value(name[i + 2]));
			i += 2;
		} else {
			d[k++] = name[i] == '+' ? ' ' : name[i];
		}
	}
	cred = is_cred_name(d, k);
	free(d);
	return cred;
}

/* A form body (application/x-www-form-urlencoded, or any text read as one):
 * the value of each "name=value" between '&'s whose name is a credential's. */
static int form_fields(struct out *o, const char *s, size_t n)
{
	int hit = 0;

	for (size_t i = 0;;) {
		const char *amp = memchr(s + i, '&', n - i);
		size_t len = amp ? (size_t)(amp - (s + i)) : n - i;
		const char *eq = memchr(s + i, '=', len);
		size_t name = eq ? (size_t)(eq - (s + i)) : len;

		if (eq && name + 1 < len && form_name_is_cred(s + i, name)) {
			out_put(o, s + i, name + 1);
			OUT_LIT(o, REDACTED);
			hit = 1;
		} else {
			out_put(o, s + i, len);
		}
		if (!amp)
			return hit;
		OUT_LIT(o, "&");
		i += len + 1;
	}
}

/* Does a multipart part's header block h[0..n) name it (name="...", not
 * filename=) as a credential? */
static int part_is_cred(const char *h, size_t n)
{
	for (size_t i = 0; i + 5 <= n; i++) {
		const char *v;
		size_t len = 0;
		if (strncasecmp(h + i, "name=", 5) || (i && (isalnum((unsigned char)h[i - 1]) || h[i - 1] == '-')))
			continue;
		v = h + i + 5;
		if (v < h + n && *v == '"')
			for (v++; v + len < h + n && v[len] != '"' && v[len] != '\r' && v[len] != '\n';)
				len++;
		else
			while (v + len < h + n && v[len] != ';' && v[len] != '\r' && v[len] != '\n')
				len++;
		if (is_cred_name(v, len))
			return 1;
	}
	return 0;
}

/* A multipart body: its first line is the boundary; the content of each part
 * named like a credential is redacted, up to the next boundary line (or the
 * end, when the body is cut). */
static int multipart_fields(struct out *o, const char *s, size_t n)
{
	const char *eol = memchr(s, '\n', n);
	size_t blen = (size_t)(eol - s), pos = blen + 1;
	char *delim;
	int hit = 0;

	if (blen && s[blen - 1] == '\r')
		blen--;
	delim = xmalloc(blen + 1);   /* "\n--boundary" */
	delim[0] = '\n';
	memcpy(delim + 1, s, blen);
	out_put(o, s, pos);
	/* The next blank line of each kind, searched again only once passed:
	 * each search starts past the last, so the whole stays linear. */
	const char *crlf = s, *lf = s;

	while (pos < n) {
		const char *hend, *next, *nl;
		size_t start, end;

		if (crlf && crlf < s + pos)
			crlf = memmem(s + pos, n - pos, "\n\r\n", 3);
		if (lf && lf < s + pos)
			lf = memmem(s + pos, n - pos, "\n\n", 2);
		hend = crlf && (!lf || crlf < lf) ? crlf + 3 : lf ? lf + 2 : NULL;

		if (!hend)
			break;
		start = (size_t)(hend - s);
		next = memmem(s + start, n - start, delim, blen + 1);
		end = next ? (size_t)(next - s) : n;
		if (next && end > start && s[end - 1] == '\r')
			end--;
		out_put(o, s + pos, start - pos);
		if (end > start && part_is_cred(s + pos, start - pos)) {
			OUT_LIT(o, REDACTED);
			hit = 1;
		} else {
			out_put(o, s + start, end - start);
		}
		pos = end;
		if (!next)
			break;
		/* The boundary line, kept. */
		nl = memchr(next + 1, '\n', n - (size_t)(next + 1 - s));
		end = nl ? (size_t)(nl + 1 - s) : n;
		out_put(o, s + pos, end - pos);
		pos = end;
	}
	out_put(o, s + pos, n - pos);
	free(delim);
	return hit;
}

/* A body as JSON: its credential members. One that looks like JSON but does
 * not parse (cut, or a form that starts with '{') is read as a form, and
 * withheld whole if that finds nothing and a credential word is in it. */
static int json_body(struct out *o, const char *s, size_t n)
{
	json_t *j = json_loadb(s, n, JSON_ALLOW_NUL | JSON_DECODE_ANY, NULL);
	char *text;

	if (!j) {
		size_t mark = o->len;
		if (!memchr(s, '\0', n) && form_fields(o, s, n))
			return 1;
		o->len = mark;
		if (!is_cred_name(s, n)) {
			out_put(o, s, n);
			return 0;
		}
		OUT_LIT(o, REDACTED);
		return 1;
	}
	if (!json_fields(j) || !(text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY))) {
		json_decref(j);
		out_put(o, s, n);
		return 0;
	}
	out_put(o, text, strlen(text));
	free(text);
	json_decref(j);
	return 1;
}

/* Appends a request or response body s[0..n) to o with its credential
 * fields redacted, and returns whether any was: a JSON object or array by
 * its members, a multipart body ("--boundary" on its first line) by its
 * parts' names, and any other text without NUL bytes (such a multipart
 * body too, when no part was named so) as a form. */
static int body_fields(struct out *o, const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n'))
		k++;
	if (k < n && (s[k] == '{' || s[k] == '['))
		return json_body(o, s, n);
	if (n > 2 && s[0] == '-' && s[1] == '-' && memchr(s, '\n', n)) {
		size_t mark = o->len;
		if (multipart_fields(o, s, n))
			return 1;
		o->len = mark;   /* no part named so: perhaps a form after all */
	}
	if (!memchr(s, '\0', n))
		return form_fields(o, s, n);
	out_put(o, s, n);
	return 0;
}

/* The replacement for a body member s[0..n) (base64 when b64 says so and it
 * decodes), or NULL when it holds no credential field or URL userinfo. */
static json_t *redact_body_member(const char *s, size_t n, int b64)
{
	size_t len = n;
	char *raw = b64 ? b64_decode(s, n, &len) : NULL;
	const char *text = raw ? raw : s;
	struct out f = { xmalloc(len + 64), 0, len + 64 }, u = { xmalloc(len + 64), 0, len + 64 };
	json_t *j = NULL;
	int hit = body_fields(&f, text, raw ? len : n);

	if (userinfo_redact(&u, f.p, f.len) || hit) {
		j = raw ? b64_encode(u.p, u.len) : json_stringn(u.p, u.len);
		if (!j)
			j = json_string(REDACTED);
	}
	free(f.p);
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

	if (ctx == CTX_HEADERS && is_cred_name(key, strlen(key)))
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
	return userinfo_json(s, n);
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
			    (rep = userinfo_json(json_string_value(child), json_string_length(child))))
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
	     (name && ctx == CTX_HEADERS && is_cred_name(name, strlen(name)))))
		changed |= set_member(v, "value", json_string(REDACTED));
	name = json_string_value(json_object_get(v, "headerName"));
	if (name && is_cred_name(name, strlen(name))) {
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
	struct out o = { xmalloc(n + 16), 0, n + 16 };

	userinfo_redact(&o, s, n);
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
