/* table: an open-addressing hash table from byte-string keys to pointers.
 * Linear probing with backward-shift deletion, so there are no tombstones. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

uint64_t table_hash(const void *key, size_t klen)
{
	/* Eight bytes a step, each step multiplied and folded: keys are short
	 * but not tiny (a pending command's key holds a 32-character session id),
	 * and a byte a step (FNV-1a) showed in the profile. The last fold mixes
	 * the high bits into the low ones, which pick the slot. */
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ klen, v;

	for (; klen >= 8; p += 8, klen -= 8) {
		memcpy(&v, p, 8);
		h = (h ^ v) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	for (v = 0; klen--; )   /* the last 0-7 bytes, in order */
		v |= (uint64_t)p[klen] << (8 * klen);
	h = (h ^ v) * 0x94d049bb133111ebull;
	h ^= h >> 29;
	return h ? h : 1;
}

void table_init(struct table *t)
{
	memset(t, 0, sizeof *t);
}

static void slot_clear(struct table_slot *s)
{
	if (s->key != s->ikey)
		free(s->key);
	s->hash = 0;
}

void table_free(struct table *t, void (*free_val)(void *))
{
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i].hash)
			continue;
		if (free_val)
			free_val(t->slots[i].val);
		slot_clear(&t->slots[i]);
	}
	free(t->slots);
	table_init(t);
}

static struct table_slot *find(const struct table *t, const void *key, size_t klen, uint64_t h)
{
	size_t mask = t->cap - 1;

	if (!t->cap)
		return NULL;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct table_slot *s = &t->slots[i];
		if (!s->hash)
			return s;
		if (s->hash == h && s->klen == klen && !memcmp(s->key, key, klen))
			return s;
	}
}

void **table_get(const struct table *t, const void *key, size_t klen)
{
	struct table_slot *s = find(t, key, klen, table_hash(key, klen));

	return s && s->hash ? &s->val : NULL;
}

/* Moves a slot's content to a new place, keeping an inline key inline. */
static void slot_move(struct table_slot *to, struct table_slot *from)
{
	*to = *from;
	if (from->key == from->ikey)
		to->key = to->ikey;
	from->hash = 0;
}

static void grow(struct table *t)
{
	struct table old = *t;

	t->cap = old.cap ? old.cap * 2 : 16;
	t->slots = xcalloc(t->cap, sizeof *t->slots);
	for (size_t i = 0; i < old.cap; i++) {
		struct table_slot *s = &old.slots[i];
		if (s->hash)
			slot_move(find(t, s->key, s->klen, s->hash), s);
	}
	free(old.slots);
}

void **table_put(struct table *t, const void *key, size_t klen)
{
	uint64_t h = table_hash(key, klen);
	struct table_slot *s = find(t, key, klen, h);

	if (s && s->hash)
		return &s->val;
	/* Grow only to insert: a key already present never costs a rehash. */
	if ((t->n + 1) * 4 > t->cap * 3) {
		grow(t);
		s = find(t, key, klen, h);
	}
	s->hash = h;
	s->klen = klen;
	s->key = klen <= TABLE_INLINE_KEY ? s->ikey : xmalloc(klen);
	memcpy(s->key, key, klen);
	s->val = NULL;
	t->n++;
	return &s->val;
}

void *table_del(struct table *t, const void *key, size_t klen)
{
	struct table_slot *s = find(t, key, klen, table_hash(key, klen));
	size_t mask = t->cap - 1, i, j;
	void *val;

	if (!s || !s->hash)
		return NULL;
	val = s->val;
	slot_clear(s);
	t->n--;
	/* Backward shift: pull later entries of the probe run into the hole. */
	i = (size_t)(s - t->slots);
	for (j = (i + 1) & mask; t->slots[j].hash; j = (j + 1) & mask) {
		size_t home = t->slots[j].hash & mask;
		/* Entry j may move to i only if its home is not in (i, j]. */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			slot_move(&t->slots[i], &t->slots[j]);
			i = j;
		}
	}
	return val;
}

struct table_slot *table_next(const struct table *t, size_t *i)
{
	while (*i < t->cap) {
		struct table_slot *s = &t->slots[(*i)++];
		if (s->hash)
			return s;
	}
	return NULL;
}
