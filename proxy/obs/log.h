/* log: JSON Lines records of every message and connection, buffered for a
 * round of the event loop and written by log_flush (log.c). */
#ifndef CDPPROXY_LOG_H
#define CDPPROXY_LOG_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "side.h"

/* One forwarded message. kind and action are short names (16 bytes at
 * most, NUL-terminated); method, session and body are decoded bytes (not
 * NUL-terminated). NULL leaves a field out. */
struct log_rec {
	uint64_t t;               /* wall clock, us; 0: now */
	uint64_t conn;
	enum side to;             /* where it goes: logged as "dir", side_dir[to] */
	const char *kind;         /* command, response, event, other, binary, invalid */
	int has_id;
	int64_t id;
	const char *method, *session;
	size_t method_len, session_len;
	size_t bytes;
	int has_rtt, has_error;
	uint64_t rtt_us;
	int64_t error;
	const char *action;       /* the policy action applied, when a rule matched */
	int by_proxy;             /* the proxy wrote this message itself */
	const char *body;         /* the message, logged only with --log-bodies */
	size_t body_len;
	int body_whole;           /* with --log-bodies, logged whole, past its cut */
};

struct log;

/* Opens (appends to) path, created with mode 0600 (an existing file keeps
 * its mode); only a regular file or a character device, never through a
 * symlink, never waiting for a FIFO. body_max > 0 logs message bodies
 * truncated to that many bytes. NULL with a reason in err. */
struct log *log_open(const char *path, size_t body_max, char *err, size_t errlen);
void log_message(struct log *lg, const struct log_rec *rec);
/* A record of its own: {"t","gen","conn","kind", ...fields}; steals fields.
 * NULL fields (json_pack's answer to a string that is not UTF-8: build such
 * strings with util_json_str) give a record with "fields_invalid":true. */
void log_event(struct log *lg, uint64_t conn, const char *kind, json_t *fields);
/* The same, stamped t_us (wall clock, us): an event caused by a message
 * takes the message's time, so it sorts where the message does. */
void log_event_at(struct log *lg, uint64_t t_us, uint64_t conn, const char *kind, json_t *fields);
/* Log bodies with their secrets (auth headers, cookies); by default they are
 * redacted (redact.h). */
void log_show_secrets(struct log *lg);
/* Every record from now on carries "gen": the policy generation. */
void log_set_gen(struct log *lg, uint64_t gen);
/* Writes what is buffered, in one write(2), before returning: call it
 * before the bytes the records describe are forwarded. Records are also
 * written, unasked, when 256 KiB are buffered. */
void log_flush(struct log *lg);
/* Records that could not be written (a full disk, --log /dev/full): each
 * failed write says so on stderr, once a second at most. */
uint64_t log_lost(const struct log *lg);
/* Has a record been lost? For --log-required: stop forwarding when it has. */
int log_failed(const struct log *lg);
/* Flushes, waits until all is written, closes and frees; NULL is fine.
 * Returns the records lost in all (log_lost), for the exit status. */
uint64_t log_close(struct log *lg);

#endif
