/* log_fmt: formats log records as JSON lines: whatever bytes a record holds,
 * one line that parses as JSON. Pure; log.c uses it. */
#include "log_fmt.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A record is written at a cursor o, into room reserved for all of it
 * beforehand: one bounds check per record, not one per field. */
static inline char *at_bytes(char *o, const void *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}

#define AT_LIT(o, lit) at_bytes((o), (lit), sizeof(lit) - 1)

/* Writes v's decimal digits ending just before end; returns where they start.
 * By hand, two digits at a time: printf's parsing showed up in the profile
 * of a logged flood. */
static inline char *digits_before(char *end, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";

	while (v >= 100) {
		end -= 2;
		memcpy(end, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* How many decimal digits v has. */
static inline size_t dec_len(uint64_t v)
{
	size_t n = 1;

	for (uint64_t p = 10; n < 20 && v >= p; p *= 10)
		n++;
	return n;
}

/* The digits go where they belong at once: no copy through a small buffer
 * (a libc call per number, 3% of a logged run's profile). */
static inline char *at_uint(char *o, uint64_t v)
{
	size_t n = dec_len(v);

	digits_before(o + n, v);
	return o + n;
}

/* A short NUL-terminated name (dir, kind, action), byte by byte: shorter than
 * a strlen and a memcpy call for 2 to 8 bytes. */
static inline char *at_name(char *o, const char *s)
{
	while (*s)
		*o++ = *s++;
	return o;
}

static inline char *at_int(char *o, int64_t v)
{
	if (v < 0)
		*o++ = '-';
	return at_uint(o, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}


#if defined(__SSE2__)
#include <emmintrin.h>

/* A mask of the bytes of p[0..16) that a JSON string cannot hold as they
 * are: '"', '\\', below 0x20, or 0x80 and up (checked as UTF-8). The signed
 * compare takes the last two at once. */
static inline unsigned block_unplain(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i m = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
				 _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
					      _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));

	return (unsigned)_mm_movemask_epi8(m);
}
#endif

/* Copies r (< 16) bytes from s to t with at most two overlapping loads. */
static inline void copy_short(char *t, const char *s, size_t r)
{
	if (r >= 8) {
		memcpy(t, s, 8);
		memcpy(t + r - 8, s + r - 8, 8);
	} else if (r >= 4) {
		memcpy(t, s, 4);
		memcpy(t + r - 4, s + r - 4, 4);
	} else {
		for (size_t j = 0; j < r; j++)
			t[j] = s[j];
	}
}

/* Room at_json_str needs for n bytes: 2 + 6 n written at most, and its
 * 16-byte stores may reach 16 bytes past the end of what is written. */
#define JSON_STR_ROOM(n) (2 + 6 * (size_t)(n) + 16)

/* The UTF-8 sequence at s[*i] (of n bytes) as it is, or \ufffd for a byte
 * that starts no valid sequence; *i is left on its last byte. */
static inline char *at_utf8(char *o, const char *s, size_t n, size_t *i)
{
	size_t k = util_utf8_seq((const unsigned char *)s + *i, n - *i);

	if (!k)
		return AT_LIT(o, "\\ufffd");
	memcpy(o, s + *i, k);
	*i += k - 1;
	return o + k;
}

/* Writes s as a JSON string, escaping quotes, backslashes and control bytes
 * (see JSON_STR_ROOM). Bytes off the wire need not be UTF-8 (binary frames,
 * raw bytes inside a string): each byte of a bad sequence becomes U+FFFD so
 * the line stays JSON. */
static char *at_json_str(char *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c;
#if defined(__SSE2__)
		/* Plain runs (method names, session ids, most of a body) are
		 * copied 16 bytes at a time. */
		while (n - i >= 16) {
			unsigned m = block_unplain(s + i);
			size_t k = m ? (size_t)__builtin_ctz(m) : 16;
			memcpy(o, s + i, 16);
			o += k;
			i += k;
			if (m)
				break;
		}
		/* A shorter rest (a method name is one) in one look too, from a
		 * zero-padded copy: the bytes after s + n may not be readable. At
		 * a byte needing care it takes nothing: that is done below. */
		if (i < n && n - i < 16) {
			char t[16] = { 0 };
			size_t r = n - i, k;
			unsigned m;
			copy_short(t, s + i, r);
			m = block_unplain(t) & ((1u << r) - 1);
			k = m ? (size_t)__builtin_ctz(m) : r;
			memcpy(o, t, 16);
			o += k;
			i += k;
		}
		if (i == n)
			break;
#endif
		c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20) {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
		} else if (c < 0x80) {
			*o++ = (char)c;
		} else {
			o = at_utf8(o, s, n, &i);
		}
	}
	*o++ = '"';
	return o;
}

/* Writes n bytes of valid JSON (scan.h: structure, strings, numbers) as
 * they are, but on one line: a CR or LF, which only whitespace between
 * tokens can be, becomes a space; a byte of a bad UTF-8 sequence, which
 * only a string can hold, becomes \ufffd. At most 6 n bytes. */
static char *at_json_raw(char *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n' || c == '\r') {
			*o++ = ' ';
		} else if (c < 0x80) {
			*o++ = (char)c;
		} else {
			o = at_utf8(o, s, n, &i);
		}
	}
	return o;
}

size_t log_fmt_utf8_cut(const char *s, size_t n, size_t max)
{
	/* A sequence is at most 4 bytes: back up at most 3, so a binary body of
	 * stray continuation bytes is not cut to nothing. */
	if (n <= max)
		return n;
	for (int k = 0; k < 3 && max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80; k++)
		max--;
	return max;
}

size_t log_fmt_room(const struct log_entry *e)
{
	if (e->text_len)
		return e->text_len;
	/* The fixed keys (under 170 bytes), three short names (48), seven
	 * numbers (140), the digits of t copied whole (24), the strings, and
	 * the end. */
	return 372 + JSON_STR_ROOM(e->method_len) + JSON_STR_ROOM(e->session_len) +
	       (e->has_body ? 64 + JSON_STR_ROOM(e->body_len) : 0);
}

char *log_fmt_entry(char *o, const struct log_entry *e, struct log_fmt_clock *clk)
{
	const char *method = (const char *)(e + 1), *session = method + e->method_len;
	const char *body = session + e->session_len;

	if (e->text_len)
		return at_bytes(o, method, e->text_len);
	if (e->t != clk->t || !clk->len) {
		char *d = digits_before(clk->digits + sizeof clk->digits, e->t);
		clk->len = (size_t)(clk->digits + sizeof clk->digits - d);
		memmove(clk->digits, d, clk->len);
		clk->t = e->t;
	}
	o = AT_LIT(o, "{\"t\":");
	memcpy(o, clk->digits, sizeof clk->digits);
	o += clk->len;
	o = at_uint(AT_LIT(o, ",\"gen\":"), e->gen);
	o = at_uint(AT_LIT(o, ",\"conn\":"), e->conn);
	o = at_name(AT_LIT(o, ",\"dir\":\""), e->dir);
	o = at_name(AT_LIT(o, "\",\"kind\":\""), e->kind);
	*o++ = '"';
	if (e->has_id)
		o = at_int(AT_LIT(o, ",\"id\":"), e->id);
	if (e->has_method)
		o = at_json_str(AT_LIT(o, ",\"method\":"), method, e->method_len);
	if (e->has_session)
		o = at_json_str(AT_LIT(o, ",\"session\":"), session, e->session_len);
	o = at_uint(AT_LIT(o, ",\"bytes\":"), e->bytes);
	if (e->has_rtt)
		o = at_uint(AT_LIT(o, ",\"rtt_us\":"), e->rtt_us);
	if (e->has_error)
		o = at_int(AT_LIT(o, ",\"error\":"), e->error);
	if (e->action) {
		o = at_name(AT_LIT(o, ",\"action\":\""), e->action);
		*o++ = '"';
	}
	if (e->by_proxy)
		o = AT_LIT(o, ",\"by\":\"proxy\"");
	if (e->has_body && e->body_json) {
		o = at_json_raw(AT_LIT(o, ",\"body\":"), body, e->body_len);
	} else if (e->has_body) {
		o = at_json_str(AT_LIT(o, ",\"body\":"), body, e->body_len);
		if (e->body_cut)
			o = at_uint(AT_LIT(o, ",\"truncated\":true,\"body_bytes\":"), e->body_bytes);
	}
	if (e->has_body && e->redacted)
		o = AT_LIT(o, ",\"redacted\":true");
	o = AT_LIT(o, "}\n");
	return o;
}

char *log_fmt_event(uint64_t t, uint64_t gen, uint64_t conn, const char *kind,
		    json_t *fields, size_t *len)
{
	json_t *rec = json_object();
	char *line = NULL;
	size_t n;

	json_object_set_new(rec, "t", json_integer((json_int_t)t));
	json_object_set_new(rec, "gen", json_integer((json_int_t)gen));
	json_object_set_new(rec, "conn", json_integer((json_int_t)conn));
	json_object_set_new(rec, "kind", util_json_str(kind));
	if (json_is_object(fields)) {
		json_t *all = json_copy(rec);
		/* json_dumps fails on a string made with json_stringn_nocheck
		 * that is not UTF-8: then the record says its fields were bad. */
		if (!json_object_update(all, fields))
			line = json_dumps(all, JSON_COMPACT);
		json_decref(all);
	}
	if (!line) {
		json_object_set_new(rec, "fields_invalid", json_true());
		line = json_dumps(rec, JSON_COMPACT);
	}
	json_decref(rec);
	n = strlen(line);
	line = xrealloc(line, n + 1);
	line[n] = '\n';
	*len = n + 1;
	return line;
}
