/* redact_text: what every redactor of redact.c and redact_body.c shares:
 * the words that make a name a credential's, URL userinfo, base64 and a
 * growing output buffer. Pure. */
#include "redact_text.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "redact.h"
#include "util.h"

/* Words that make a name a credential's (case aside, anywhere in the name):
 * header names in header objects, entries and lines; members of JSON bodies;
 * form fields; multipart parts. Broad on purpose: a log loses a value it
 * did not need rather than keeps one it should not have. redact.c's
 * mentions_secret spells them again (redact_test checks each). */
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

/* Is one of cred_words[] in s[0..n)? */
static int has_cred_word(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!cred_first[(unsigned char)s[i]])
			continue;
		for (size_t w = 0; w < N_CRED; w++)
			if ((s[i] | 0x20) == cred_words[w].w[0] && n - i >= cred_words[w].n &&
			    !strncasecmp(s + i, cred_words[w].w, cred_words[w].n))
				return 1;
	}
	return 0;
}

/* Is s[0..n) a credential's name: one of cred_words[] in it, or "sid"? */
int redact_text_is_cred_name(const char *s, size_t n)
{
	return has_cred_word(s, n) || (n == 3 && !strncasecmp(s, "sid", 3));
}

static int is_letter(char c)
{
	return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
}

/* Is s[i] the '%' of a %XX? */
static int at_percent(const char *s, size_t n, size_t i)
{
	return s[i] == '%' && n - i >= 3 && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0;
}

size_t redact_text_percent_decode(char *d, const char *s, size_t n, int plus)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (at_percent(s, n, i)) {
			d[k++] = (char)(hex_digit(s[i + 1]) << 4 | hex_digit(s[i + 2]));
			i += 2;
		} else {
			d[k++] = plus && s[i] == '+' ? ' ' : s[i];
		}
	}
	return k;
}

/* A credential's word in s[0..n), or "sid" between non-letters? */
static int mentions_word(const char *s, size_t n)
{
	if (has_cred_word(s, n))
		return 1;
	for (size_t i = 0; i + 3 <= n; i++)
		if (!strncasecmp(s + i, "sid", 3) && !(i && is_letter(s[i - 1])) && !(i + 3 < n && is_letter(s[i + 3])))
			return 1;
	return 0;
}

int redact_text_mentions_cred(const char *s, size_t n)
{
	size_t k = 0;
	char *d;
	int found;

	if (mentions_word(s, n))
		return 1;
	if (!memchr(s, '\\', n) && !memchr(s, '%', n))
		return 0;
	d = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		while (j < n && s[j] == '\\')
			j++;
		if (j > i && n - j >= 5 && s[j] == 'u' && hex_digit(s[j + 1]) >= 0 && hex_digit(s[j + 2]) >= 0 &&
		    hex_digit(s[j + 3]) >= 0 && hex_digit(s[j + 4]) >= 0) {
			unsigned c = (unsigned)(hex_digit(s[j + 1]) << 12 | hex_digit(s[j + 2]) << 8 |
						hex_digit(s[j + 3]) << 4 | hex_digit(s[j + 4]));
			d[k++] = c < 0x80 ? (char)c : '?';
			i = j + 4;
		} else if (at_percent(s, n, i)) {
			d[k++] = (char)(hex_digit(s[i + 1]) << 4 | hex_digit(s[i + 2]));
			i += 2;
		} else {
			d[k++] = s[i];
		}
	}
	found = mentions_word(d, k);
	free(d);
	return found;
}

void redact_text_put(struct redact_text_out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		o->cap = 2 * (o->cap + n + 1);
		o->p = xrealloc(o->p, o->cap);
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

/* Appends s[0..n) to o with the userinfo of each URL in it
 * ("scheme://user:password@host", the last '@' of the authority as WHATWG
 * reads it) replaced by "<redacted>", user and password both: a token is
 * often the user alone. Returns whether any was. */
int redact_text_userinfo(struct redact_text_out *o, const char *s, size_t n)
{
	size_t done = 0;
	int hit = 0;

	for (size_t i = 0; i < n; i++) {
		size_t a = redact_text_url_authority(s, n, i), e, at = 0;
		if (!a)
			continue;
		for (e = a; e < n && !redact_text_ends_authority(s[e]); e++)
			if (s[e] == '@')
				at = e;
		if (at > a) {
			redact_text_put(o, s + done, a - done);
			REDACT_TEXT_LIT(o, REDACTED);
			done = at;
			hit = 1;
		}
		i = e - 2;   /* past the loop's i++, the authority's last byte: a ':' of the next "://" */
	}
	redact_text_put(o, s + done, n - done);
	return hit;
}

/* A JSON string of s[0..n) with URL userinfo redacted, or NULL if it has
 * none. Cuts fall on ASCII bytes, so the result is UTF-8 when s was. */
json_t *redact_text_userinfo_json(const char *s, size_t n)
{
	struct redact_text_out o;
	json_t *j = NULL;

	if (!memchr(s, '@', n))
		return NULL;
	o.p = xmalloc(n + 16);
	o.len = 0;
	o.cap = n + 16;
	if (redact_text_userinfo(&o, s, n) && !(j = json_stringn(o.p, o.len)))
		j = json_string(REDACTED);
	free(o.p);
	return j;
}

static const char b64_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Decodes base64 s[0..n) (padded or not); NULL if it is not base64. */
char *redact_text_b64_decode(const char *s, size_t n, size_t *outlen)
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

json_t *redact_text_b64_encode(const char *s, size_t n)
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
