/* fuzz_scan: libFuzzer driver checking the key scanner against jansson as the oracle. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Disagreement: say what differs, then abort so libFuzzer keeps the input. */
static void differ(const char *what, const struct scan_result *r, const json_error_t *err)
{
	fprintf(stderr, "fuzz_scan: scanner and jansson differ: %s\n", what);
	if (r)
		fprintf(stderr, "  scanner: why '%s' at %zu\n", r->why ? r->why : "", r->error_at);
	if (err)
		fprintf(stderr, "  jansson: '%s' at %d (code %d)\n", err->text, err->position,
			(int)json_error_code(err));
	abort();
}

/* Input the scanner may accept although jansson rejects it: what the
 * scanner does not check (UTF-8 in strings, integer or real overflow, \u0000,
 * lone surrogates; see tests/unit/proxy/cdp/scan_test.c). Anything else is a bug. */
static int excused(const json_error_t *err)
{
	switch (json_error_code(err)) {
	case json_error_invalid_utf8:
	case json_error_numeric_overflow:
	case json_error_null_character:
	case json_error_null_byte_in_key:
		return 1;
	case json_error_invalid_syntax:
		/* "invalid Unicode '\uD800'": a lone surrogate. ("invalid Unicode
		 * escape" is a bad \u, which the scanner must reject itself.) */
		return strncmp(err->text, "invalid Unicode '", 17) == 0;
	default:
		return 0;
	}
}

/* Copies s with scan_str_copy at several buffer sizes; each copy must be a
 * whole-character prefix of the full decoded value. want/wlen is that value
 * as jansson decoded it, or NULL when there is no oracle. */
static void check_copies(const char *buf, const struct scan_str *s, const char *want, size_t wlen)
{
	char none = 'X';
	long n = scan_str_copy(buf, s, &none, 0);
	size_t full = (size_t)n, sizes[] = { 1, 2, 3, 4, 5, 7, full / 2, full, full + 1 };
	char *all = malloc(full + 1), *out = malloc(full + 2);

	if (n < 0)
		differ("scan_str_copy: -1 for a present string", NULL, NULL);
	if (none != 'X')
		differ("scan_str_copy: outlen 0 wrote", NULL, NULL);
	if (scan_str_copy(buf, s, all, full + 1) != n)
		differ("scan_str_copy: length depends on outlen", NULL, NULL);
	if (want && (full != wlen || memcmp(all, want, wlen)))
		differ("decoded string", NULL, NULL);
	/* scan_str_eq compares with a C string: only for values without a NUL. */
	if (strlen(all) == full) {
		if (!scan_str_eq(buf, s, all))
			differ("scan_str_eq on its own decoded value", NULL, NULL);
		if (full && (all[full - 1] ^= 1, scan_str_eq(buf, s, all)))
			differ("scan_str_eq on a changed last byte", NULL, NULL);
		if (full) {
			all[full - 1] ^= 1;
			all[full - 1] = '\0';
			if (scan_str_eq(buf, s, all))
				differ("scan_str_eq on a proper prefix", NULL, NULL);
		}
	}
	if (scan_str_copy(buf, s, all, full + 1) != n)
		differ("scan_str_copy: second copy", NULL, NULL);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		size_t outlen = sizes[i], k;
		if (outlen == 0 || outlen > full + 1)   /* 0 is checked above */
			continue;
		memset(out, 'X', full + 2);
		if (scan_str_copy(buf, s, out, outlen) != n)
			differ("scan_str_copy: length depends on outlen", NULL, NULL);
		if (out[outlen] != 'X')
			differ("scan_str_copy writes past outlen", NULL, NULL);
		k = strnlen(out, outlen);
		if (k == outlen)
			differ("scan_str_copy: no NUL within outlen", NULL, NULL);
		if (memcmp(out, all, k))
			differ("scan_str_copy: a short copy is not a prefix", NULL, NULL);
		/* All of it when it fits, else cut only before a whole character:
		 * at most 3 bytes short, never before a continuation byte. (Raw
		 * bytes >= 0x80 are not checked UTF-8: that rule needs the oracle.) */
		if (!memchr(all, '\0', full) && outlen > full && k != full)
			differ("scan_str_copy: a copy that fits is cut", NULL, NULL);
		if (want && k < full && !memchr(all, '\0', full) &&
		    (k + 3 < outlen - 1 || ((unsigned char)all[k] & 0xC0) == 0x80))
			differ("scan_str_copy: truncation splits or loses a character", NULL, NULL);
	}
	free(all);
	free(out);
}

/* Does the span hold exactly the JSON value j (which may be NULL)? */
static int same_span(const char *buf, const struct scan_span *s, json_t *j, size_t flags)
{
	json_t *v;
	int same;

	if (!j || !s->present)
		return !j && !s->present;
	v = json_loadb(buf + s->off, s->len, JSON_DECODE_ANY | flags, NULL);
	same = v && json_equal(v, j);
	json_decref(v);
	return same;
}

static void check_string(const char *buf, const struct scan_str *s, json_t *j, const char *what)
{
	if (!json_is_string(j) != !s->present)
		differ(what, NULL, NULL);
	if (s->present) {
		check_copies(buf, s, json_string_value(j), json_string_length(j));
	} else {
		char out[4] = "X";
		if (scan_str_copy(buf, s, out, sizeof out) != -1 || out[0] != 'X' || scan_str_eq(buf, s, ""))
			differ("an absent string copies or compares", NULL, NULL);
	}
}

/* The scanner accepted and jansson parsed an object j: every field must agree. */
static void compare(const char *buf, const struct scan_result *r, json_t *j, size_t flags)
{
	json_t *id = json_object_get(j, "id"), *m = json_object_get(j, "method");
	json_t *e = json_object_get(j, "error");
	json_t *code = json_is_object(e) ? json_object_get(e, "code") : NULL;
	enum scan_kind kind = id ? (json_is_string(m) ? SCAN_COMMAND : SCAN_RESPONSE) :
			      json_is_string(m) ? SCAN_EVENT : SCAN_OTHER;

	if (r->kind != kind)
		differ("kind", r, NULL);
	if (r->has_id != !!id || r->id_is_int != json_is_integer(id) ||
	    (r->id_is_int && r->id != json_integer_value(id)))
		differ("id", r, NULL);
	check_string(buf, &r->method, m, "method");
	check_string(buf, &r->session, json_object_get(j, "sessionId"), "sessionId");
	if (!same_span(buf, &r->params, json_object_get(j, "params"), flags))
		differ("params span", r, NULL);
	if (!same_span(buf, &r->result, json_object_get(j, "result"), flags))
		differ("result span", r, NULL);
	if (!same_span(buf, &r->error, e, flags))
		differ("error span", r, NULL);
	if (r->has_error_code != json_is_integer(code) ||
	    (r->has_error_code && r->error_code != json_integer_value(code)))
		differ("error code", r, NULL);
}

/* buf[0..size) scans: every proper prefix that ends before its closing '}'
 * must be rejected as "truncated" at its end. A few such prefixes, each in
 * an exact-size copy so ASan sees a read past it. */
static void check_prefixes(const char *buf, size_t size)
{
	size_t close = size, cuts[3];
	struct scan_result r;

	while (close > 0 && buf[close - 1] != '}')
		close--;
	cuts[0] = close - 1;
	cuts[1] = close / 2;
	cuts[2] = close > 4 ? close - 1 - size % (close / 4 + 1) : 0;
	for (size_t i = 0; i < 3; i++) {
		char *pre = malloc(cuts[i] ? cuts[i] : 1);
		memcpy(pre, buf, cuts[i]);
		if (scan_message(pre, cuts[i], &r) != -1 || strcmp(r.why, "truncated") || r.error_at != cuts[i])
			differ("a proper prefix is not rejected as truncated at its end", &r, NULL);
		free(pre);
	}
}

/* scan_first (what cut-through forwarding decides on) reads within the
 * bytes it is given, and a prefix that tells gives what the whole does. */
static void check_first(const char *buf, size_t size)
{
	struct scan_first whole, part;
	enum scan_first_kind k = scan_first(buf, size, &whole);

	if (k < SCAN_FIRST_MORE || k > SCAN_FIRST_ID)
		differ("scan_first: no such kind", NULL, NULL);
	if (k == SCAN_FIRST_METHOD && whole.method.off + whole.method.len > size)
		differ("scan_first: a method past the end", NULL, NULL);
	for (size_t n = 0; n < size; n += 1 + n / 4) {
		enum scan_first_kind kp = scan_first(buf, n, &part);
		if (kp == SCAN_FIRST_MORE)
			continue;
		if (kp != k || (k == SCAN_FIRST_ID && part.id != whole.id) ||
		    (k == SCAN_FIRST_METHOD && (part.method.off != whole.method.off ||
						part.method.len != whole.method.len)))
			differ("scan_first: a prefix and the whole disagree", NULL, NULL);
	}
}

/* The stream scan (cut-through messages, scan_stream_feed): the input fed
 * in splits drawn from its bytes, each prefix in a fresh exact-size copy
 * (the buffer moves as a growing message's does, and ASan sees a read past
 * what has come), strings of a length from 1 up kept as hints; then
 * scan_message_streamed must give what scan_message gave, failures alike. */
static void check_stream(const char *buf, size_t size, int rc, const struct scan_result *r)
{
	struct scan_stream st;
	struct scan_result r2;
	uint32_t x = 2166136261u;
	size_t at = 0;
	char *part = NULL;
	int rc2;

	for (size_t i = 0; i < size && i < 16; i++)
		x = (x ^ (unsigned char)buf[i]) * 16777619u;
	scan_stream_init(&st, 1 + size % 9);
	while (at < size) {
		x = x * 1103515245u + 12345u;
		at += 1 + (x >> 16) % (size / 3 + 8);
		if (at > size)
			at = size;
		free(part);
		part = malloc(at);
		memcpy(part, buf, at);
		scan_stream_feed(&st, part, at);
		if (st.at > at || st.n > SCAN_HINTS)
			differ("the stream scan looked past what has come", r, NULL);
	}
	free(part);
	rc2 = scan_message_streamed(buf, size, &st, &r2);
	if (rc2 != rc || memcmp(r, &r2, sizeof r2))
		differ("the stream scan's result differs from scan_message's", r, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* libFuzzer's buffer is exactly size bytes: a read past it trips ASan. */
	const char *buf = (const char *)data;
	struct scan_result r;
	json_error_t err;
	json_t *j;
	size_t flags = 0;
	int rc = scan_message(buf, size, &r);

	check_first(buf, size);
	check_stream(buf, size, rc, &r);

	if (rc != 0 && rc != -1)
		differ("scan_message returned neither 0 nor -1", &r, NULL);
	if (rc < 0 && (!r.why || r.error_at > size))
		differ("a rejection without why, or with error_at past the end", &r, NULL);
	{	/* The same with SSE2 alone, as on a CPU without AVX2: all alike. */
		struct scan_result r2;
		int was = scan_set_avx2(0), rc2 = scan_message(buf, size, &r2);
		scan_set_avx2(was);
		if (rc2 != rc || memcmp(&r, &r2, sizeof r))
			differ("the scan differs with and without AVX2", &r, NULL);
	}
	if (rc == 0)
		check_prefixes(buf, size);
	j = json_loadb(buf, size, 0, &err);
	if (!j && rc == 0 && json_error_code(&err) == json_error_null_character) {
		/* \u0000 in a value: the scanner handles it, so compare with
		 * jansson told to allow it rather than skip the input. */
		flags = JSON_ALLOW_NUL;
		j = json_loadb(buf, size, flags, &err);
	}
	if (!j) {
		if (rc == 0 && !excused(&err))
			differ("the scanner accepts what jansson rejects", &r, &err);
		if (rc == 0) {
			/* No oracle, but the strings must still decode consistently. */
			if (r.method.present)
				check_copies(buf, &r.method, NULL, 0);
			if (r.session.present)
				check_copies(buf, &r.session, NULL, 0);
		}
		return 0;
	}
	if (!json_is_object(j)) {
		if (rc == 0)
			differ("the scanner accepts a top level that is not an object", &r, NULL);
	} else if (rc < 0) {
		/* jansson 2.14 skips a NUL byte right after a number or literal
		 * (akheron/jansson#331); the scanner follows RFC 8259. A key the
		 * scanner reads, twice: jansson keeps the last, and told to refuse
		 * duplicates it must find one. */
		if (!strcmp(r.why, "duplicate key")) {
			json_t *d = json_loadb(buf, size, flags | JSON_REJECT_DUPLICATES, &err);
			if (d || json_error_code(&err) != json_error_duplicate_key)
				differ("the scanner says duplicate key where jansson finds none", &r, &err);
			json_decref(d);
		} else if (r.error_at >= size || buf[r.error_at] != '\0') {
			differ("the scanner rejects what jansson accepts", &r, NULL);
		}
	} else {
		compare(buf, &r, j, flags);
	}
	json_decref(j);
	return 0;
}
