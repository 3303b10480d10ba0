/* redact_body: the credential fields of request and response bodies, by
 * their formats (JSON, multipart, forms; base64 decoded and encoded again)
 * and URL userinfo in them, for redact.c. Pure; linear in the body. */
#define _GNU_SOURCE   /* memmem */
#include "redact_body.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "redact.h"
#include "redact_text.h"
#include "util.h"

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
			    (rep = redact_text_userinfo_json(json_string_value(child), json_string_length(child))))
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
		if (redact_text_is_cred_name(key, strlen(key))) {
			if (!json_is_null(child) && !json_is_boolean(child) &&
			    !(json_is_string(child) && !strcmp(json_string_value(child), REDACTED)))
				hit = 1, json_object_iter_set_new(v, it, json_string(REDACTED));
		} else if (json_is_string(child) &&
			   (rep = redact_text_userinfo_json(json_string_value(child), json_string_length(child)))) {
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
		return redact_text_is_cred_name(name, n);
	d = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		if (name[i] == '%' && n - i >= 3 && hex_value(name[i + 1]) >= 0 && hex_value(name[i + 2]) >= 0) {
			d[k++] = (char)(hex_value(name[i + 1]) << 4 | hex_value(name[i + 2]));
			i += 2;
		} else {
			d[k++] = name[i] == '+' ? ' ' : name[i];
		}
	}
	cred = redact_text_is_cred_name(d, k);
	free(d);
	return cred;
}

/* A form body (application/x-www-form-urlencoded, or any text read as one):
 * the value of each "name=value" between '&'s whose name is a credential's. */
static int form_fields(struct redact_text_out *o, const char *s, size_t n)
{
	int hit = 0;

	for (size_t i = 0;;) {
		const char *amp = memchr(s + i, '&', n - i);
		size_t len = amp ? (size_t)(amp - (s + i)) : n - i;
		const char *eq = memchr(s + i, '=', len);
		size_t name = eq ? (size_t)(eq - (s + i)) : len;

		if (eq && name + 1 < len && form_name_is_cred(s + i, name)) {
			redact_text_put(o, s + i, name + 1);
			REDACT_TEXT_LIT(o, REDACTED);
			hit = 1;
		} else {
			redact_text_put(o, s + i, len);
		}
		if (!amp)
			return hit;
		REDACT_TEXT_LIT(o, "&");
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
		if (redact_text_is_cred_name(v, len))
			return 1;
	}
	return 0;
}

/* A multipart body: its first line is the boundary; the content of each part
 * named like a credential is redacted, up to the next boundary line (or the
 * end, when the body is cut). */
static int multipart_fields(struct redact_text_out *o, const char *s, size_t n)
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
	redact_text_put(o, s, pos);
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
		redact_text_put(o, s + pos, start - pos);
		if (end > start && part_is_cred(s + pos, start - pos)) {
			REDACT_TEXT_LIT(o, REDACTED);
			hit = 1;
		} else {
			redact_text_put(o, s + start, end - start);
		}
		pos = end;
		if (!next)
			break;
		/* The boundary line, kept. */
		nl = memchr(next + 1, '\n', n - (size_t)(next + 1 - s));
		end = nl ? (size_t)(nl + 1 - s) : n;
		redact_text_put(o, s + pos, end - pos);
		pos = end;
	}
	redact_text_put(o, s + pos, n - pos);
	free(delim);
	return hit;
}

/* A body as JSON: its credential members. One that looks like JSON but does
 * not parse (cut, or a form that starts with '{') is read as a form, and
 * withheld whole if that finds nothing and a credential word is in it. */
static int json_body(struct redact_text_out *o, const char *s, size_t n)
{
	json_t *j = json_loadb(s, n, JSON_ALLOW_NUL | JSON_DECODE_ANY, NULL);
	char *text;

	if (!j) {
		size_t mark = o->len;
		if (!memchr(s, '\0', n) && form_fields(o, s, n))
			return 1;
		o->len = mark;
		if (!redact_text_is_cred_name(s, n)) {
			redact_text_put(o, s, n);
			return 0;
		}
		REDACT_TEXT_LIT(o, REDACTED);
		return 1;
	}
	if (!json_fields(j) || !(text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY))) {
		json_decref(j);
		redact_text_put(o, s, n);
		return 0;
	}
	redact_text_put(o, text, strlen(text));
	free(text);
	json_decref(j);
	return 1;
}

/* Appends a request or response body s[0..n) to o with its credential
 * fields redacted, and returns whether any was: a JSON object or array by
 * its members, a multipart body ("--boundary" on its first line) by its
 * parts' names, and any other text without NUL bytes (such a multipart
 * body too, when no part was named so) as a form. */
static int body_fields(struct redact_text_out *o, const char *s, size_t n)
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
	redact_text_put(o, s, n);
	return 0;
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
	int hit = body_fields(&f, text, raw ? len : n);

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
