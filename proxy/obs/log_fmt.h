/* log_fmt: formats log records as JSON lines: whatever bytes a record holds,
 * one line that parses as JSON. Pure; log.c uses it. */
#ifndef CDPPROXY_LOG_FMT_H
#define CDPPROXY_LOG_FMT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* A message record as the proxy's thread hands it over, followed by its
 * method, session and body bytes (or, for text_len > 0, a line formatted
 * already). */
struct log_entry {
	uint32_t size;                /* of the entry, bytes included; a multiple of 8 */
	uint32_t text_len;
	uint64_t t, gen, conn, bytes, rtt_us;
	uint64_t body_bytes;          /* the whole body's length, when it is cut */
	int64_t id, error;
	const char *dir, *kind, *action;   /* static strings, 16 bytes at most */
	uint32_t method_len, session_len, body_len;
	uint8_t has_id, has_rtt, has_error, by_proxy, has_method, has_session;
	uint8_t has_body, body_cut, redacted;
	uint8_t body_json;            /* the body is whole and valid JSON (scan.h): logged as it is */
};

#define LOG_ENTRY_ALIGN(n) (((n) + 7) & ~(size_t)7)

/* The last time formatted and its digits: records read together share it. */
struct log_fmt_clock {
	uint64_t t;
	char digits[24];
	size_t len;
};

/* Bytes log_fmt_entry may touch for e (more than it writes). */
size_t log_fmt_room(const struct log_entry *e);

/* Formats e as one JSON line ending in '\n' at o (log_fmt_room(e) bytes);
 * returns the end of what it wrote. Strings that are not UTF-8 have each
 * byte of a bad sequence written as U+FFFD. A body_json body is written as
 * the JSON it is (line breaks between its tokens made spaces, bad UTF-8 in
 * its strings \ufffd); any other as a string, with "truncated":true and
 * "body_bytes" when it was cut. */
char *log_fmt_entry(char *o, const struct log_entry *e, struct log_fmt_clock *clk);

/* The longest prefix of s[0..n) no longer than max that does not split a
 * UTF-8 sequence (backing up 3 bytes at most). */
size_t log_fmt_utf8_cut(const char *s, size_t n, size_t max);

/* A new line {"t","gen","conn","kind", ...fields}\n (not NUL-terminated,
 * its length in *len) for any fields: NULL, not an object, or holding
 * strings jansson cannot write gives the four and "fields_invalid":true.
 * Does not take fields. Never NULL. */
char *log_fmt_event(uint64_t t, uint64_t gen, uint64_t conn, const char *kind,
		    json_t *fields, size_t *len);


#endif
