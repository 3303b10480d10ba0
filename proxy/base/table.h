/* table: an open-addressing hash table from byte-string keys to pointers. */
#ifndef CDPPROXY_TABLE_H
#define CDPPROXY_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define TABLE_INLINE_KEY 48  /* keys up to this long live in the slot: no allocation */

struct table_slot {
	uint64_t hash;          /* 0 marks an empty slot */
	size_t klen;
	char *key;              /* points at ikey, or at a heap copy for long keys */
	char ikey[TABLE_INLINE_KEY];
	void *val;
};

struct table {
	struct table_slot *slots;
	size_t cap, n;          /* cap is 0 or a power of two */
};

void table_init(struct table *t);
/* Frees the table; calls free_val (if not NULL) on every value. */
void table_free(struct table *t, void (*free_val)(void *));
/* The value slot of key, or NULL when absent. */
void **table_get(const struct table *t, const void *key, size_t klen);
/* The value slot of key, inserted with a NULL value when absent. The pointer
 * is valid until the next table_put or table_del. */
void **table_put(struct table *t, const void *key, size_t klen);
/* Removes key; returns its value, or NULL when absent. */
void *table_del(struct table *t, const void *key, size_t klen);
/* Iteration: for (i = 0; (s = table_next(t, &i)); ) ... visits every entry once. */
struct table_slot *table_next(const struct table *t, size_t *i);
/* The table's 64-bit hash of key (never 0), for other uses of the same mix. */
uint64_t table_hash(const void *key, size_t klen);

#endif
