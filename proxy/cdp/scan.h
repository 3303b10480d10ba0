/* scan: finds the top-level CDP fields of one JSON message without building a tree. */
#ifndef CDPPROXY_SCAN_H
#define CDPPROXY_SCAN_H

#include <stddef.h>
#include <stdint.h>

enum scan_kind {
	SCAN_OTHER = 0,   /* valid JSON, but neither command, response nor event */
	SCAN_COMMAND,     /* has "id" and "method" */
	SCAN_RESPONSE,    /* has "id", no "method" */
	SCAN_EVENT,       /* has "method", no "id" */
};

/* A JSON string value as it stands in the message: the raw bytes between the
 * quotes (still escaped when `escaped` is set). off/len index the scanned buffer. */
struct scan_str {
	size_t off, len;
	int present, escaped;
};

/* A value's span (from its first to its last byte) in the scanned buffer. */
struct scan_span {
	size_t off, len;
	int present;
};

struct scan_result {
	enum scan_kind kind;
	int has_id, id_is_int;    /* id present; and it is an integer (no fraction or exponent) */
	int64_t id;
	struct scan_str method, session;  /* top-level "method", "sessionId" (strings only) */
	struct scan_span params, result, error;  /* top-level values of any type */
	int has_error_code;       /* "error" is an object with an integer "code" */
	int64_t error_code;
	size_t error_at;          /* on failure: offset of the first bad byte */
	const char *why;          /* on failure: a short reason ("truncated", ...) */
};

/* Scans buf[0..len) as one JSON document whose top level must be an object.
 * Fills r and returns 0; returns -1 with r->why and r->error_at on input that
 * is not valid JSON (structure, strings, numbers, literals; UTF-8 inside
 * strings is not checked), and on a key it reads (id, method, sessionId,
 * params, result, error at the top level; code in the error) given twice in
 * its object: why "duplicate key" (Chromium refuses those too). A key is
 * matched on its decoded form, so "met\u0068od" is "method". */
int scan_message(const char *buf, size_t len, struct scan_result *r);

/* A message's first member, read from its first bytes before the rest has
 * come (cut-through forwarding decides on it): "method" with a plain string
 * (no escapes), or "id" with an integer (at most 18 digits), the two keys
 * Chrome writes first. */
enum scan_first_kind {
	SCAN_FIRST_MORE = -1,   /* the bytes so far do not tell */
	SCAN_FIRST_OTHER = 0,   /* another key, another value, or not an object */
	SCAN_FIRST_METHOD,      /* method: the string */
	SCAN_FIRST_ID,          /* id: the integer */
};
struct scan_first {
	struct scan_str method;
	int64_t id;
	size_t end;             /* just past the member's value (METHOD, ID) */
};
/* Reads the first member of the message that buf[0..len) begins. Nothing
 * after it is looked at: a key repeated later is not seen. */
enum scan_first_kind scan_first(const char *buf, size_t len, struct scan_first *f);
/* Reads the member after the one f holds (scan_first's or scan_next's,
 * METHOD or ID), as scan_first reads the first: a client's command is
 * {"id":N,"method":M,...}. */
enum scan_first_kind scan_next(const char *buf, size_t len, struct scan_first *f);

/* A stream scan: a message read over many reads (cut through) is looked
 * at as its bytes come, while they are in cache, so that its scan once
 * whole need not read it all again. It finds the long strings (min bytes
 * or more: a 117 MiB event is nearly all one postData) and checks their
 * content as scan_message would; scan_message_streamed then steps over
 * them. Only quotes and escapes are followed: a document that is not JSON
 * is still refused, by scan_message_streamed, where scan_message refuses
 * it. */
#define SCAN_HINTS 8
struct scan_hint {
	size_t off, end;              /* a string's first byte, its closing quote */
	int escaped;
};
struct scan_stream {
	size_t at, min;               /* bytes looked at; the strings kept */
	size_t str_off;               /* in a string: its first byte */
	int in_str, escaped, stopped; /* stopped: a bad byte, nothing more kept */
	unsigned n;
	struct scan_hint hint[SCAN_HINTS];  /* the first SCAN_HINTS long strings */
};
void scan_stream_init(struct scan_stream *st, size_t min);
/* buf[0..len) is the message so far (more than at the last call; buf may
 * have moved): looks at the bytes not looked at yet. */
void scan_stream_feed(struct scan_stream *st, const char *buf, size_t len);
/* scan_message of the whole message buf[0..len) that st was fed part of:
 * feeds it the rest, then scans, stepping over the strings it checked;
 * the same result as scan_message. */
int scan_message_streamed(const char *buf, size_t len, struct scan_stream *st,
			  struct scan_result *r);

/* Strings are skipped with AVX2 when the CPU has it (found at start-up),
 * else with SSE2. Turns AVX2 off (0) or back on where there is any, for tests
 * that check both give the same; returns whether it was on. */
int scan_set_avx2(int on);

/* The string members named keys[0..n) (decoded: "na\u006de" is "name")
 * of the object at sp in buf, as scan_message found it: out[i] is keys[i]'s
 * value, not present when the object has none (or its last one is not a
 * string: a key that appears twice counts with its last value). Returns how
 * many were found. Only the object's own members are looked at; their values
 * are stepped over as scan_message does, so the cost is one pass over the
 * object at most. */
size_t scan_member_strs(const char *buf, const struct scan_span *sp, const char *const *keys,
			size_t n, struct scan_str *out);

/* Where the value of the first member named key (decoded) of the object at
 * sp in buf begins: sets *at and returns 0, or returns -1 when it has none.
 * The members before it are stepped over; it is not: a caller that wants
 * only a value's first bytes reads no more than them. (A key repeated later
 * is not seen: Chrome refuses such a message.) */
int scan_member_at(const char *buf, const struct scan_span *sp, const char *key, size_t *at);

/* Copies the decoded value of s (from buf) into out as a NUL-terminated UTF-8
 * string, truncated to outlen-1 bytes (less if that would split a character).
 * Escapes decode to UTF-8; a lone surrogate becomes U+FFFD. Returns the decoded
 * length (which may be more than was copied), or -1 if s is not present. */
long scan_str_copy(const char *buf, const struct scan_str *s, char *out, size_t outlen);

/* Is s (from buf) equal to the NUL-terminated lit, comparing decoded values? */
int scan_str_eq(const char *buf, const struct scan_str *s, const char *lit);

#endif
