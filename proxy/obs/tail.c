/* tail: the last messages and events in a bounded ring, for a live view
 * (/proxy/events) that must never hold up forwarding: a reader that falls
 * behind loses the oldest entries, and is told how many. Pure. */
#include "tail.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void tail_init(struct tail *t, size_t cap)
{
	t->ring = xcalloc(cap, sizeof *t->ring);
	t->cap = cap;
	t->next_seq = 1;
}

void tail_free(struct tail *t)
{
	free(t->ring);
	t->ring = NULL;
}

/* The slot the next entry goes in, cleared and numbered. */
static struct tail_entry *tail_slot(struct tail *t, uint64_t now_us)
{
	struct tail_entry *e = &t->ring[t->next_seq & (t->cap - 1)];

	memset(e, 0, sizeof *e);
	e->seq = t->next_seq++;
	e->t_us = now_us;
	e->rtt_us = -1;
	return e;
}

/* Copies n bytes of s into dst (size bytes), cut at a character's start. */
static void copy_cut(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size) {
		n = size - 1;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

void tail_message(struct tail *t, const struct log_rec *rec, uint64_t now_us)
{
	struct tail_entry *e = tail_slot(t, rec->t ? rec->t : now_us);

	e->conn = rec->conn;
	e->bytes = rec->bytes;
	e->by_proxy = rec->by_proxy;
	if (rec->has_rtt)
		e->rtt_us = (int64_t)rec->rtt_us;
	util_copy(e->kind, rec->kind ? rec->kind : "", sizeof e->kind);
	util_copy(e->dir, side_dir[rec->to], sizeof e->dir);
	util_copy(e->action, rec->action ? rec->action : "", sizeof e->action);
	if (rec->method)
		copy_cut(e->method, sizeof e->method, rec->method, rec->method_len);
	if (rec->session)
		copy_cut(e->session, sizeof e->session, rec->session, rec->session_len);
}

void tail_note(struct tail *t, const char *kind, uint64_t conn, const char *label,
	       uint64_t now_us)
{
	struct tail_entry *e = tail_slot(t, now_us);

	e->conn = conn;
	util_copy(e->kind, kind, sizeof e->kind);
	copy_cut(e->label, sizeof e->label, label, strlen(label));
}

static json_t *entry_json(const struct tail_entry *e)
{
	json_t *j = json_object();

	json_object_set_new(j, "seq", json_integer((json_int_t)e->seq));
	json_object_set_new(j, "t", json_integer((json_int_t)e->t_us));
	json_object_set_new(j, "conn", json_integer((json_int_t)e->conn));
	json_object_set_new(j, "kind", util_json_bytes(e->kind, strlen(e->kind)));
	if (*e->dir) {
		json_object_set_new(j, "dir", json_string(e->dir));
		json_object_set_new(j, "bytes", json_integer((json_int_t)e->bytes));
	}
	if (*e->method)
		json_object_set_new(j, "method", util_json_bytes(e->method, strlen(e->method)));
	if (*e->session)
		json_object_set_new(j, "session", util_json_bytes(e->session, strlen(e->session)));
	if (*e->action)
		json_object_set_new(j, "action", json_string(e->action));
	if (*e->label)
		json_object_set_new(j, "label", util_json_bytes(e->label, strlen(e->label)));
	if (e->rtt_us >= 0)
		json_object_set_new(j, "rtt_us", json_integer((json_int_t)e->rtt_us));
	if (e->by_proxy)
		json_object_set_new(j, "by", json_string("proxy"));
	return j;
}

json_t *tail_json(const struct tail *t, uint64_t from, size_t max, uint64_t *lost,
		  uint64_t *next)
{
	uint64_t oldest = t->next_seq > t->cap ? t->next_seq - t->cap : 1;
	json_t *a = json_array();

	if (from < 1)
		from = 1;
	*lost = from < oldest ? oldest - from : 0;
	if (from < oldest)
		from = oldest;
	for (; from < t->next_seq && json_array_size(a) < max; from++)
		json_array_append_new(a, entry_json(&t->ring[from & (t->cap - 1)]));
	*next = from;
	return a;
}
