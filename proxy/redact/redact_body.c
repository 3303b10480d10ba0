/* redact_body: the credential fields of request and response bodies, read
 * as the servers that receive them would (JSON and JSON in its strings,
 * multipart, forms; base64 decoded and encoded again) and URL userinfo in
 * them, for redact.c. Pure; linear in the body, but for JSON in a JSON
 * string, read again at each level (NEST_MAX of them). */
#define _GNU_SOURCE   /* memmem */
#include "redact_body.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "redact.h"
#include "redact_text.h"
#include "util.h"

/* JSON in a string of a JSON body (in a string of...) is read this many
 * levels deep; deeper, it is withheld if it mentions a credential. Each
 * level doubles the backslashes before a quote, so a body of n bytes
 * holds at most log2(n) levels anyway. */
#define NEST_MAX 8

static int text_fields(struct redact_text_out *o, const char *s, size_t n, int depth);

/* Where JSON starts in s[0..n): past spaces and UTF-8 byte order marks (a
 * server that decodes text drops one), at '{' or '['; n if it does not. */
static size_t json_start(const char *s, size_t n)
{
	size_t k = 0;

	for (;;) {
		while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n'))
			k++;
		if (n - k < 3 || memcmp(s + k, "\xef\xbb\xbf", 3))
			break;
		k += 3;
	}
	return k < n && (s[k] == '{' || s[k] == '[') ? k : n;
}

/* The replacement for a string s[0..n) of a JSON body, or NULL to keep it:
 * read as a body of its own (JSON in it, a form or multipart body: each
 * needs a '=' or a '{' or '['), then for URL userinfo. */
static json_t *string_fields(const char *s, size_t n, int depth)
{
	struct redact_text_out o;
	json_t *j;

	if (!memchr(s, '=', n) && json_start(s, n) == n)
		return redact_text_userinfo_json(s, n);
	o = (struct redact_text_out){ xmalloc(n + 64), 0, n + 64 };
	if (!text_fields(&o, s, n, depth + 1)) {
		free(o.p);
		return redact_text_userinfo_json(s, n);
	}
	/* Cuts fall on ASCII bytes, so the result is UTF-8 when s was. */
	if (!(j = redact_text_userinfo_json(o.p, o.len)) && !(j = json_stringn(o.p, o.len)))
		j = json_string(REDACTED);
	free(o.p);
	return j;
}

/* Redacts, in place, the members of a JSON body named like credentials
 * (whatever their values, but null, booleans and values already redacted)
 * and in its other strings what string_fields finds. Returns whether it
 * replaced anything. */
static int json_fields(json_t *v, int depth)
{
	json_t *child, *rep;
	int hit = 0;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			if (json_is_string(child) &&
			    (rep = string_fields(json_string_value(child), json_string_length(child), depth)))
				hit = 1, json_array_set_new(v, i, rep);
			else
				hit |= json_fields(child, depth);
		}
		return hit;
	}
	if (!json_is_object(v))
		return 0;
	for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
		const char *key = json_object_iter_key(it);
		child = json_object_iter_value(it);
		if (redact_text_is_cred_name(key, strlen(key))) {
			if (!json_is_null(child) && !json_is_boolean(child) &&
			    !(json_is_string(child) && !strcmp(json_string_value(child), REDACTED)))
				hit = 1, json_object_iter_set_new(v, it, json_string(REDACTED));
		} else if (json_is_string(child) &&
			   (rep = string_fields(json_string_value(child), json_string_length(child), depth))) {
			hit = 1, json_object_iter_set_new(v, it, rep);
		} else {
			hit |= json_fields(child, depth);
		}
	}
	return hit;
}

/* Is a form field's name[0..n) a credential's, as it is or %XX-decoded? */
static int form_name_is_cred(const char *name, size_t n)
{
	char *d;
	int cred;

	if (redact_text_is_cred_name(name, n))
		return 1;
	if (!memchr(name, '%', n))   /* '+' for a space makes no word and breaks none */
		return 0;
	d = xmalloc(n + 1);
	cred = redact_text_is_cred_name(d, redact_text_percent_decode(d, name, n, 1));
	free(d);
	return cred;
}

/* Spans of a body to redact, as the readings below find them. */
struct span {
	size_t from, to;
};
struct spans {
	struct span *p;
	size_t len, cap;
};

/* Adds to sp the value of each field of the form s[0..n), split at the
 * bytes of seps, whose name (up to its first '=') is a credential's. */
static void form_reading(struct spans *sp, const char *s, size_t n, const char *seps)
{
	unsigned char is_sep[256] = { 0 };

	for (const char *c = seps; *c; c++)
		is_sep[(unsigned char)*c] = 1;
	for (size_t i = 0; i < n;) {
		size_t e = i, eq = SIZE_MAX;

		for (; e < n && !is_sep[(unsigned char)s[e]]; e++)
			if (s[e] == '=' && eq == SIZE_MAX)
				eq = e;
		if (eq != SIZE_MAX && e > eq + 1 && form_name_is_cred(s + i, eq - i)) {
			if (sp->len == sp->cap)
				sp->p = xrealloc(sp->p, (sp->cap = 2 * sp->cap + 8) * sizeof *sp->p);
			sp->p[sp->len++] = (struct span){ eq + 1, e };
		}
		i = e + 1;
	}
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* A form body (or any text): read as each kind of server splits it, the
 * value of each field whose name is a credential's in any of the readings
 * (their union, so a value is redacted as far as any reading runs it):
 * application/x-www-form-urlencoded at '&' (WHATWG, most servers) and at
 * '&' or ';' (Python's parse_qs before 3.10, Go's before 1.17), and
 * text/plain at line ends (when it has a CRLF: a form's text/plain body
 * ends each field with one). NUL bytes are bytes of names and values. */
static int form_fields(struct redact_text_out *o, const char *s, size_t n)
{
	struct spans sp = { NULL, 0, 0 };
	size_t done = 0;

	if (!memchr(s, '=', n)) {
		redact_text_put(o, s, n);
		return 0;
	}
	form_reading(&sp, s, n, "&");
	if (memchr(s, ';', n))
		form_reading(&sp, s, n, "&;");
	/* Only a body with a CRLF: the HTML standard's text/plain encoding
	 * ends each field with one, and read at any line end, source text
	 * (a script's "const token = ...") would lose its code. */
	if (memmem(s, n, "\r\n", 2))
		form_reading(&sp, s, n, "\r\n");
	if (sp.len > 1)
		qsort(sp.p, sp.len, sizeof *sp.p, span_cmp);
	for (size_t i = 0; i < sp.len; i++) {
		size_t from = sp.p[i].from, to = sp.p[i].to;

		for (; i + 1 < sp.len && sp.p[i + 1].from <= to; i++)   /* overlapping readings: one span */
			if (sp.p[i + 1].to > to)
				to = sp.p[i + 1].to;
		redact_text_put(o, s + done, from - done);
		REDACT_TEXT_LIT(o, REDACTED);
		done = to;
	}
	redact_text_put(o, s + done, n - done);
	free(sp.p);
	return sp.len > 0;
}

static int is_token_byte(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '*' || c == '.';
}

/* One way of reading a part's name parameters: their pieces, joined. */
struct names {
	char *p;
	size_t len;
};

/* Appends the value v[0..n) of a name parameter (ext: RFC 2231's, after
 * its charset'lang', %XX-encoded) to nm, %XX-decoded; returns whether the
 * value, as it is or decoded, is a credential's name. */
static int name_piece(struct names *nm, const char *v, size_t n, int ext)
{
	char *d = nm->p + nm->len;
	int cred = redact_text_is_cred_name(v, n);
	size_t k;

	if (ext) {
		const char *q = memchr(v, '\'', n), *q2 = q ? memchr(q + 1, '\'', n - (size_t)(q + 1 - v)) : NULL;
		if (q2) {
			n -= (size_t)(q2 + 1 - v);
			v = q2 + 1;
		}
	}
	k = redact_text_percent_decode(d, v, n, 0);
	nm->len += k;
	return cred || redact_text_is_cred_name(d, k);
}

static int ends_token(char c)
{
	return c == ';' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Does a multipart part's header block h[0..n) name it as a credential?
 * Its name parameters, as servers read them: name="x", name=x, spaces
 * around '=', and RFC 2231's name*=charset'lang'%XX and continued name*0=,
 * name*1*= pieces; each piece as it is and %XX-decoded, and all pieces
 * joined; a quoted value both to its first quote and with backslashes
 * escaping (servers differ). filename= names a file, not the part. Each
 * parameter is read from past the last one's first reading, so the whole
 * stays linear. */
static int part_is_cred(const char *h, size_t n)
{
	struct names raw = { xmalloc(n + 1), 0 }, esc = { xmalloc(2 * n + 1), 0 };
	char *unq = xmalloc(n + 1);
	int cred = 0;

	for (size_t i = 0; i + 5 <= n && !cred; i++) {
		size_t p = i + 4, v;
		int ext = 0;

		if (strncasecmp(h + i, "name", 4) || (i && is_token_byte(h[i - 1])))
			continue;
		if (p < n && h[p] == '*') {
			size_t digits = ++p;
			while (p < n && isdigit((unsigned char)h[p]))
				p++;
			if (p == digits)
				ext = 1;
			else if (p < n && h[p] == '*')
				ext = 1, p++;
		}
		while (p < n && (h[p] == ' ' || h[p] == '\t'))
			p++;
		if (p >= n || h[p] != '=')
			continue;
		for (p++; p < n && (h[p] == ' ' || h[p] == '\t'); p++)
			;
		if (p < n && h[p] == '"') {
			size_t k = 0;
			for (v = ++p; p < n && h[p] != '"' && h[p] != '\r' && h[p] != '\n'; p++)
				;
			cred |= name_piece(&raw, h + v, p - v, ext);
			/* Quoted values do not nest: each of these ends at the next
			 * one's opening quote at the latest. */
			for (size_t q = v; q < n && h[q] != '"' && h[q] != '\r' && h[q] != '\n'; q++) {
				if (h[q] == '\\' && q + 1 < n)
					q++;
				unq[k++] = h[q];
			}
			cred |= name_piece(&esc, unq, k, ext);
		} else {
			for (v = p; p < n && !ends_token(h[p]); p++)
				;
			cred |= name_piece(&raw, h + v, p - v, ext);
			cred |= name_piece(&esc, h + v, p - v, ext);
		}
		i = p - 1;
	}
	cred |= redact_text_is_cred_name(raw.p, raw.len) || redact_text_is_cred_name(esc.p, esc.len);
	free(raw.p);
	free(esc.p);
	free(unq);
	return cred;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next line of s[from..n) (from at a '\n') that is the delimiter d[0..dn)
 * ("\n--boundary"): the whole line, but for "--" (the last one's) and
 * spaces after it. A line that only starts with it ends a part for some
 * servers, not for others: the part runs on past it. */
static const char *next_delimiter(const char *s, size_t n, size_t from, const char *d, size_t dn)
{
	for (const char *p; (p = memmem(s + from, n - from, d, dn)); from = (size_t)(p - s) + 1) {
		size_t k = (size_t)(p - s) + dn;
		if (n - k >= 2 && s[k] == '-' && s[k + 1] == '-')
			k += 2;
		while (k < n && (s[k] == '\r' || is_blank(s[k])))
			k++;
		if (k == n || s[k] == '\n')
			return p;
	}
	return NULL;
}

/* A multipart body, read without its boundary (that is in the Content-Type
 * header, not in the body): each line that starts with "--" may be a part's
 * delimiter, wherever it is (after a preamble; lines may end in LF alone),
 * and the part's header lines follow it up to the first blank line. The
 * content of a part whose headers name a credential is redacted up to the
 * next line that is the same delimiter (next_delimiter), or to the end.
 * Returns whether any was. */
static int multipart_fields(struct redact_text_out *o, const char *s, size_t n)
{
	/* The next blank lines of each kind, searched again only once passed:
	 * each search starts past the last, so the whole stays linear. */
	const char *crlf = s, *lf = s;
	size_t done = 0;
	int hit = 0;

	for (size_t i = 0; i + 2 < n;) {
		const char *eol = memchr(s + i, '\n', n - i), *blank, *next;
		size_t e, h, start, end, dlen;
		char *delim;

		if (!eol)
			break;
		e = (size_t)(eol - s);
		h = e + 1;
		if (s[i] != '-' || s[i + 1] != '-') {
			i = h;
			continue;
		}
		if (crlf && crlf < eol)
			crlf = memmem(eol, n - e, "\n\r\n", 3);
		if (lf && lf < eol)
			lf = memmem(eol, n - e, "\n\n", 2);
		blank = crlf && (!lf || crlf < lf) ? crlf : lf;
		if (!blank || blank == eol || !part_is_cred(s + h, (size_t)(blank - s) - h)) {
			i = h;
			continue;
		}
		start = (size_t)(blank - s) + (blank == crlf ? 3 : 2);
		for (dlen = e - i; dlen > 2 && (s[i + dlen - 1] == '\r' || is_blank(s[i + dlen - 1]));)
			dlen--;
		delim = xmalloc(dlen + 1);   /* "\n--boundary" */
		delim[0] = '\n';
		memcpy(delim + 1, s + i, dlen);
		next = next_delimiter(s, n, start - 1, delim, dlen + 1);   /* the content may be empty */
		free(delim);
		end = next ? (size_t)(next - s) : n;
		if (next && end > start && s[end - 1] == '\r')
			end--;
		if (end > start) {
			redact_text_put(o, s + done, start - done);
			REDACT_TEXT_LIT(o, REDACTED);
			done = end;
			hit = 1;
		}
		if (!next)
			break;
		i = (size_t)(next - s) + 1;
	}
	redact_text_put(o, s + done, n - done);
	return hit;
}

static int other_text(struct redact_text_out *o, const char *s, size_t n);

/* A body whose text starts like JSON at s[k] (json_start): its credential
 * members and strings. One that does not parse (cut short, or a form or
 * log line that starts with '{' or '['), or that lies NEST_MAX levels
 * deep in JSON strings, is withheld whole if a credential is mentioned in
 * it (in a name a reading could take for a form's, a secret can hide from
 * the reading), and read as other text otherwise (a multipart part's name
 * may be in RFC 2231 pieces that spell no word apart). */
static int json_body(struct redact_text_out *o, const char *s, size_t n, size_t k, int depth)
{
	json_t *j = depth < NEST_MAX ? json_loadb(s + k, n - k, JSON_ALLOW_NUL, NULL) : NULL;
	char *text;

	if (!j) {
		if (!redact_text_mentions_cred(s, n))
			return other_text(o, s, n);
		REDACT_TEXT_LIT(o, REDACTED);
		return 1;
	}
	if (!json_fields(j, depth)) {
		json_decref(j);
		redact_text_put(o, s, n);
		return 0;
	}
	text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	json_decref(j);
	if (!text) {   /* not expected: jansson's own strings are UTF-8 */
		REDACT_TEXT_LIT(o, REDACTED);
		return 1;
	}
	redact_text_put(o, s, k);   /* a byte order mark stays */
	redact_text_put(o, text, strlen(text));
	free(text);
	return 1;
}

/* Appends a request or response body s[0..n) to o with its credential
 * fields redacted, and returns whether any was: JSON (json_start) by its
 * members and strings; any other text, binary included, as other_text
 * reads it. depth: how deep in JSON strings s is. */
static int text_fields(struct redact_text_out *o, const char *s, size_t n, int depth)
{
	size_t k = json_start(s, n);

	return k < n ? json_body(o, s, n, k, depth) : other_text(o, s, n);
}

/* A body that is not JSON, binary included, as a multipart body and then
 * as a form. */
static int other_text(struct redact_text_out *o, const char *s, size_t n)
{
	struct redact_text_out m;
	int hit;

	if (!memmem(s, n, "--", 2))
		return form_fields(o, s, n);
	m = (struct redact_text_out){ xmalloc(n + 64), 0, n + 64 };
	hit = multipart_fields(&m, s, n);
	hit |= form_fields(o, m.p, m.len);
	free(m.p);
	return hit;
}

/* The replacement for a body member s[0..n) (base64 when b64 says so and it
 * decodes), or NULL when it holds no credential field or URL userinfo. */
json_t *redact_body_member(const char *s, size_t n, int b64)
{
	size_t len = n;
	char *raw = b64 ? redact_text_b64_decode(s, n, &len) : NULL;
	const char *text = raw ? raw : s;
	struct redact_text_out f = { xmalloc(len + 64), 0, len + 64 }, u = { xmalloc(len + 64), 0, len + 64 };
	json_t *j = NULL;
	int hit = text_fields(&f, text, raw ? len : n, 0);

	if (redact_text_userinfo(&u, f.p, f.len) || hit) {
		j = raw ? redact_text_b64_encode(u.p, u.len) : json_stringn(u.p, u.len);
		if (!j)
			j = json_string(REDACTED);
	}
	free(f.p);
	free(u.p);
	free(raw);
	return j;
}
