/* tail: the last messages and events in a bounded ring, for a live view
 * (/proxy/events) that must never hold up forwarding: a reader that falls
 * behind loses the oldest entries, and is told how many. Pure. */
#ifndef CDPPROXY_TAIL_H
#define CDPPROXY_TAIL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "log.h"

struct tail_entry {
	uint64_t seq;                 /* 1, 2, ... in the order they happened */
	uint64_t t_us, conn;
	size_t bytes;
	int64_t rtt_us;               /* -1: none */
	char kind[12], dir[6], action[10];
	char method[64], session[48];
	char label[96];               /* a mark's label, a policy's name */
	int by_proxy;
};

struct tail {
	struct tail_entry *ring;
	size_t cap;
	uint64_t next_seq;            /* the seq the next entry gets */
};

/* A ring of cap entries (a power of two). */
void tail_init(struct tail *t, size_t cap);
void tail_free(struct tail *t);
/* A message, as the log has it (its body is not kept). */
void tail_message(struct tail *t, const struct log_rec *rec, uint64_t now_us);
/* Something else that happened: kind "mark" or "policy", with its label. */
void tail_note(struct tail *t, const char *kind, uint64_t conn, const char *label,
	       uint64_t now_us);
/* Up to max entries from seq `from` on, as a JSON array; *lost: entries
 * after `from` that the ring no longer holds; *next: the seq to ask for
 * next time. */
json_t *tail_json(const struct tail *t, uint64_t from, size_t max, uint64_t *lost,
		  uint64_t *next);

#endif
