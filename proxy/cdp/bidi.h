/* bidi: the WebDriver BiDi that rides inside CDP, read out of the messages
 * that carry it: a command inside a Runtime.evaluate of
 * onBidiMessage("<JSON string>") (ChromeDriver, chromium-bidi's server;
 * window.onBidiMessage(...) from WebDriverBiDi.NET), an answer or event
 * inside a Runtime.bindingCalled event of the binding sendBidiResponse; and
 * the commands awaiting their answer, for round trips. Pure: bytes and
 * structs only. The bytes are only read, never changed. */
#ifndef CDPPROXY_BIDI_H
#define CDPPROXY_BIDI_H

#include <stddef.h>
#include <stdint.h>

#include "scan.h"
#include "table.h"

/* The largest carrier string decoded (its bytes as they are in the CDP
 * message); a larger one is logged as "too large", its BiDi unread. */
#define BIDI_MAX_BYTES ((size_t)8 << 20)
/* Sets the bound (tests and fuzzers reach it with small inputs); returns
 * the one before. */
size_t bidi_set_max_bytes(size_t n);
/* Room for a method, channel or error code: decoded, cut to BIDI_NAME - 1
 * bytes at a character's start, NUL-terminated. */
#define BIDI_NAME 128
/* Room for an error's message, likewise. */
#define BIDI_MESSAGE 256
/* Commands awaiting an answer kept per connection; past it the oldest is
 * forgotten (its answer then has no method and no round trip). */
#define BIDI_PENDING_MAX 4096

enum bidi_type {
	BIDI_NONE = 0,   /* the message carries no BiDi */
	BIDI_COMMAND,    /* a command to the mapper */
	BIDI_SUCCESS,    /* an answer: {"type":"success","id",...} */
	BIDI_ERROR,      /* an error answer: {"type":"error","id","error","message"} */
	BIDI_EVENT,      /* an event: {"type":"event","method","params"} */
	BIDI_INVALID,    /* a carrier whose BiDi could not be read: why */
};

/* One BiDi message, as read from its carrier. */
struct bidi_msg {
	enum bidi_type type;
	int in_command;            /* its carrier: a command (up), else an event (down) */
	int has_id;
	int64_t id;
	char method[BIDI_NAME];    /* "" when it has none (an answer: see bidi_track_answer) */
	size_t method_len;
	int has_channel;           /* "goog:channel" (or the older "channel") */
	char channel[BIDI_NAME];
	char error[BIDI_NAME];     /* BIDI_ERROR: the error code ("unknown command") */
	char message[BIDI_MESSAGE];/* BIDI_ERROR: its message */
	size_t bytes;              /* the BiDi message's bytes; BIDI_INVALID: the carrier string's */
	const char *why;           /* BIDI_INVALID: "too large", "cut", "bad escape", ... */
};

extern const char *const bidi_type_name[];   /* by enum bidi_type: "command", ... */

/* Reads the BiDi that the CDP message buf (scan_message's r; its method
 * decoded as method[0..mlen)) carries, into m: returns m->type, BIDI_NONE
 * at once for anything but a Runtime.evaluate command and a
 * Runtime.bindingCalled event, and for those when their expression does not
 * start with onBidiMessage( (or window.onBidiMessage() or their binding is
 * not sendBidiResponse. Only then is anything decoded (jansson unescapes the
 * strings; the BiDi text is scanned, not built into a tree), within
 * BIDI_MAX_BYTES. */
enum bidi_type bidi_decode(const char *buf, const struct scan_result *r, const char *method,
			   size_t mlen, struct bidi_msg *m);

/* Is name (len bytes) a method or event the WebDriver BiDi specs define
 * (or chromium-bidi's goog:cdp extension)? Is it such a method's module
 * (its part before the first '.')? What clients send beyond these is
 * counted under one name past a bound (stats.h), as CDP's unknown methods. */
int bidi_method_known(const char *name, size_t len);
int bidi_module_known(const char *name, size_t len);
/* The error codes WebDriver BiDi defines ("invalid argument", ...), and the
 * index of code among them (BIDI_ERROR_CODES: none of them). */
#define BIDI_ERROR_CODES 30
extern const char *const bidi_error_codes[BIDI_ERROR_CODES];
size_t bidi_error_index(const char *code);

/* The commands of one connection awaiting an answer, by CDP session, BiDi
 * channel and BiDi id (ChromeDriver numbers each channel from 1). */
struct bidi_pending;
struct bidi_track {
	struct table pending;      /* key -> struct bidi_pending */
	struct bidi_pending *oldest, *newest;
	size_t max;                /* 0: BIDI_PENDING_MAX */
	uint64_t evicted;          /* forgotten unanswered, for the caller to count */
};

void bidi_track_init(struct bidi_track *t);
void bidi_track_free(struct bidi_track *t);
/* Command m (with an id) was sent on CDP session sid (sidlen bytes, 0: the
 * connection's own) at now_us. */
void bidi_track_command(struct bidi_track *t, const char *sid, size_t sidlen,
			const struct bidi_msg *m, uint64_t now_us);
/* Answer m (with an id) came on session sid at now_us: its command is
 * forgotten, m->method set to the command's and *rtt_us to the time
 * between. 0, or -1 when no such command awaits. */
int bidi_track_answer(struct bidi_track *t, const char *sid, size_t sidlen, struct bidi_msg *m,
		      uint64_t now_us, uint64_t *rtt_us);

#endif
