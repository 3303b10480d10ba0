/* fuzz_log: libFuzzer driver for the log's record formatter (log_fmt.c):
 * any method, session, body, close reason or path bytes give one line that
 * jansson parses, whose strings are the bytes given when they are UTF-8 and
 * otherwise those bytes with each byte of a bad sequence made U+FFFD (the
 * oracle decides what is UTF-8 by asking jansson); a whole body that is
 * JSON (the scanner's and jansson's) is that JSON. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_fmt.h"
#include "scan.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *line, size_t n)
{
	fprintf(stderr, "fuzz_log: %s\n  line: %.*s\n", what, (int)(n > 4000 ? 4000 : n), line ? line : "");
	abort();
}

/* What the formatter should make of s[0..n): s itself when jansson takes it
 * as UTF-8, else s with each byte of a bad sequence replaced by U+FFFD
 * (a sequence is good when jansson takes it alone). */
static char *expected(const char *s, size_t n, size_t *outlen)
{
	char *o = malloc(3 * n + 1);
	size_t len = 0;
	json_t *all = json_stringn(s, n);

	if (all) {
		json_decref(all);
		memcpy(o, s, n);
		*outlen = n;
		return o;
	}
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		json_t *j = i + k <= n ? json_stringn(s + i, k) : NULL;
		if (j) {
			memcpy(o + len, s + i, k);
			len += k;
			i += k;
			json_decref(j);
		} else {
			memcpy(o + len, "\xef\xbf\xbd", 3);
			len += 3;
			i++;
		}
	}
	*outlen = len;
	return o;
}

/* Does record r's key hold what the formatter should make of s[0..n)? */
static int holds(const json_t *r, const char *key, const char *s, size_t n)
{
	json_t *v = json_object_get(r, key);
	size_t want_len;
	char *want = expected(s, n, &want_len);
	int same = json_is_string(v) && json_string_length(v) == want_len &&
		   !memcmp(json_string_value(v), want, want_len);

	free(want);
	return same;
}

/* The input read as fields. */
struct src {
	const uint8_t *p;
	size_t n, at;
};

static unsigned byte(struct src *s)
{
	return s->at < s->n ? s->p[s->at++] : 0;
}

static uint64_t num(struct src *s)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | byte(s);
	return v;
}

/* The next up to max bytes of the input, as a string field. */
static const char *bytes(struct src *s, size_t max, size_t *len)
{
	size_t want = byte(s) | (size_t)byte(s) << 8;
	const char *p = (const char *)s->p + s->at;

	want %= max + 1;
	if (want > s->n - s->at)
		want = s->n - s->at;
	s->at += want;
	*len = want;
	return p;
}

/* One line, exactly: ends in '\n' and has no other (escapes hide them). */
static json_t *parse_line(const char *line, size_t n)
{
	json_error_t err;
	json_t *j;

	if (n == 0 || line[n - 1] != '\n' || memchr(line, '\n', n - 1))
		fail("not one line", line, n);
	/* \u0000 is JSON; jansson wants to be told. */
	if (!(j = json_loadb(line, n - 1, JSON_ALLOW_NUL, &err)))
		fail(err.text, line, n);
	if (!json_is_object(j))
		fail("not an object", line, n);
	return j;
}

static const char *const dirs[] = { "up", "down" };
static const char *const kinds[] = { "command", "response", "event", "other", "binary", "invalid" };
static const char *const actions[] = { NULL, "pass", "stub", "reject", "rewrite", "drop", "delay" };

static void check_entry(struct src *s)
{
	size_t mlen, slen, blen, room;
	const char *method = bytes(s, 300, &mlen), *session = bytes(s, 100, &slen);
	const char *body = bytes(s, 4000, &blen);
	unsigned flags = byte(s);
	struct log_entry *e;
	struct log_fmt_clock clk = { 0 };
	struct scan_result sr;
	json_t *want_body = NULL;
	char *buf, *line, *end;
	json_t *r;

	e = calloc(1, LOG_ENTRY_ALIGN(sizeof *e + mlen + slen + blen));
	/* Numbers past INT64_MAX are not what the proxy logs (times, counts)
	 * and not what jansson reads. */
	e->t = num(s) >> 1;
	e->gen = num(s) >> 1;
	e->conn = num(s) >> 1;
	e->bytes = num(s) >> 1;
	e->rtt_us = num(s) >> 1;
	e->id = (int64_t)num(s);
	e->error = (int64_t)num(s);
	e->dir = dirs[flags & 1];
	e->kind = kinds[(flags >> 1) % 6];
	e->action = actions[byte(s) % 7];
	e->has_id = flags >> 4 & 1;
	e->has_rtt = flags >> 5 & 1;
	e->has_error = flags >> 6 & 1;
	e->by_proxy = flags >> 7;
	e->has_method = mlen > 0;
	e->has_session = slen > 0;
	e->has_body = blen > 0;
	e->body_cut = byte(s) & 1;
	/* As log.c: a whole body the scanner takes is written as JSON. jansson,
	 * the oracle, must take it too (it refuses numbers past its range). */
	if (blen && !e->body_cut && scan_message(body, blen, &sr) == 0 &&
	    (want_body = json_loadb(body, blen, JSON_ALLOW_NUL, NULL)))
		e->body_json = 1;
	e->body_bytes = blen + byte(s);
	e->method_len = (uint32_t)mlen;
	e->session_len = (uint32_t)slen;
	e->body_len = (uint32_t)blen;
	memcpy((char *)(e + 1), method, mlen);
	memcpy((char *)(e + 1) + mlen, session, slen);
	memcpy((char *)(e + 1) + mlen + slen, body, blen);
	room = log_fmt_room(e);
	buf = malloc(room);
	end = log_fmt_entry(buf, e, &clk);
	if ((size_t)(end - buf) > room)
		fail("wrote past log_fmt_room", buf, room);
	/* An exact copy: ASan sees a read past what was written. */
	line = malloc((size_t)(end - buf));
	memcpy(line, buf, (size_t)(end - buf));
	r = parse_line(line, (size_t)(end - buf));
	if ((uint64_t)json_integer_value(json_object_get(r, "t")) != e->t ||
	    (uint64_t)json_integer_value(json_object_get(r, "conn")) != e->conn ||
	    (uint64_t)json_integer_value(json_object_get(r, "bytes")) != e->bytes ||
	    strcmp(json_string_value(json_object_get(r, "dir")), e->dir) ||
	    strcmp(json_string_value(json_object_get(r, "kind")), e->kind))
		fail("numbers or names do not round-trip", line, (size_t)(end - buf));
	if ((e->has_id && json_integer_value(json_object_get(r, "id")) != e->id) ||
	    (e->has_error && json_integer_value(json_object_get(r, "error")) != e->error))
		fail("id or error does not round-trip", line, (size_t)(end - buf));
	if ((mlen && !holds(r, "method", method, mlen)) || (slen && !holds(r, "session", session, slen)) ||
	    (blen && !e->body_json && !holds(r, "body", body, blen)))
		fail("a string is not the bytes given (or their U+FFFD form)", line, (size_t)(end - buf));
	if (want_body && !json_equal(want_body, json_object_get(r, "body")))
		fail("a JSON body is not the JSON given", line, (size_t)(end - buf));
	if (blen && e->body_cut && !e->body_json &&
	    (uint64_t)json_integer_value(json_object_get(r, "body_bytes")) != e->body_bytes)
		fail("a cut body's body_bytes does not round-trip", line, (size_t)(end - buf));
	json_decref(want_body);
	json_decref(r);
	free(line);
	free(buf);
	free(e);
}

/* An event record, as conn.c writes a close: the reason and path are bytes
 * off the wire. */
static void check_event(struct src *s)
{
	size_t rlen, plen, n, cut;
	const char *reason = bytes(s, 200, &rlen), *path = bytes(s, 200, &plen);
	unsigned how = byte(s) % 3;
	json_t *fields = NULL, *r;
	char *line;

	if (how == 0)
		fields = json_pack("{s:s, s:i, s:o, s:o}", "side", "down", "code", 1000, "reason",
				   util_json_bytes(reason, rlen), "path", util_json_bytes(path, plen));
	else if (how == 1)   /* what json_pack makes of raw bytes: NULL when not UTF-8 */
		fields = json_pack("{s:s%}", "reason", reason, rlen);
	line = log_fmt_event(1, 2, 3, "close", fields, &n);
	r = parse_line(line, n);
	if (how == 0 && (!holds(r, "reason", reason, rlen) || !holds(r, "path", path, plen)))
		fail("reason or path is not the bytes given (or their U+FFFD form)", line, n);
	if (how == 1 && !fields && !json_is_true(json_object_get(r, "fields_invalid")))
		fail("NULL fields without fields_invalid", line, n);
	if (how == 1 && fields && !holds(r, "reason", reason, rlen))
		fail("a UTF-8 reason does not round-trip", line, n);
	json_decref(r);
	json_decref(fields);
	free(line);
	/* A body cut for --log-bodies never splits a sequence: cutting valid
	 * UTF-8 gives valid UTF-8. */
	cut = log_fmt_utf8_cut(path, plen, rlen);
	if (cut > plen || (rlen < plen && (cut > rlen || cut + 3 < rlen)))
		fail("log_fmt_utf8_cut out of bounds", path, plen);
	if ((r = json_stringn(path, plen))) {
		json_t *prefix = json_stringn(path, cut);
		if (!prefix)
			fail("log_fmt_utf8_cut split a UTF-8 sequence", path, plen);
		json_decref(prefix);
		json_decref(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct src s = { data, size, 0 };

	check_entry(&s);
	check_event(&s);
	return 0;
}
