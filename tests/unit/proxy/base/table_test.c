/* table_test: put/get/del, inline and long keys, keys with NUL bytes, and
 * random operations checked against a plain array. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* xorshift64: deterministic, so a failure reproduces. */
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t count_entries(const struct table *t)
{
	struct table_slot *s;
	size_t n = 0;

	for (size_t i = 0; (s = table_next(t, &i)); )
		n++;
	return n;
}

static void test_basic(void)
{
	struct table t;
	int a = 1, b = 2;
	void **v, **w;

	table_init(&t);
	ok(table_get(&t, "x", 1) == NULL, "empty: get is NULL");
	ok(table_del(&t, "x", 1) == NULL, "empty: del is NULL");
	is_int(count_entries(&t), 0, "empty: iteration visits nothing");

	v = table_put(&t, "alpha", 5);
	ok(v && *v == NULL, "put of a new key gives a NULL value slot");
	*v = &a;
	w = table_put(&t, "alpha", 5);
	ok(w == v && *w == &a, "put of an existing key gives the same slot, value kept");
	*table_put(&t, "alphabet", 8) = &b;
	ok(*table_get(&t, "alpha", 5) == &a, "get alpha");
	ok(*table_get(&t, "alphabet", 8) == &b, "get alphabet (alpha is a prefix)");
	ok(table_get(&t, "alph", 4) == NULL, "get of a prefix is NULL");
	ok(table_get(&t, "alphax", 6) == NULL, "get of an unknown key is NULL");
	is_int(t.n, 2, "n counts entries");
	ok(table_del(&t, "alpha", 5) == &a, "del returns the value");
	ok(table_get(&t, "alpha", 5) == NULL, "gone after del");
	ok(table_del(&t, "alpha", 5) == NULL, "second del is NULL");
	ok(*table_get(&t, "alphabet", 8) == &b, "other key survives the del");
	is_int(t.n, 1, "n after del");
	table_free(&t, NULL);
	ok(t.cap == 0 && t.n == 0 && t.slots == NULL, "free leaves an empty table");
	ok(table_get(&t, "alphabet", 8) == NULL, "a freed table can be read");
	*table_put(&t, "again", 5) = &a;
	ok(*table_get(&t, "again", 5) == &a, "a freed table can be reused");
	table_free(&t, NULL);
}

/* 12 entries fill 16 slots to the 3/4 bound: the 13th grows the table, but a
 * put of one of the 12 is a lookup and must not move the slots. */
static void test_no_grow_on_hit(void)
{
	struct table t;
	struct table_slot *before;

	table_init(&t);
	for (int i = 0; i < 12; i++)
		table_put(&t, &"abcdefghijkl"[i], 1);
	before = t.slots;
	table_put(&t, "a", 1);
	ok(t.slots == before && t.cap == 16, "put of a present key at the load bound does not grow");
	table_put(&t, "m", 1);
	is_int(t.cap, 32, "put of a new key at the load bound grows");
	table_free(&t, NULL);
}

static void test_nul_keys(void)
{
	struct table t;
	int v[5];

	table_init(&t);
	*table_put(&t, "a\0b", 3) = &v[0];
	*table_put(&t, "a\0c", 3) = &v[1];
	*table_put(&t, "a", 1) = &v[2];
	*table_put(&t, "", 0) = &v[3];
	*table_put(&t, "\0", 1) = &v[4];
	is_int(t.n, 5, "keys differing after a NUL are distinct");
	ok(*table_get(&t, "a\0b", 3) == &v[0], "get a\\0b");
	ok(*table_get(&t, "a\0c", 3) == &v[1], "get a\\0c");
	ok(*table_get(&t, "a", 1) == &v[2], "get a");
	ok(*table_get(&t, "", 0) == &v[3], "get the empty key");
	ok(*table_get(&t, "\0", 1) == &v[4], "get \\0 (not the empty key)");
	ok(table_del(&t, "", 0) == &v[3], "del the empty key");
	ok(*table_get(&t, "\0", 1) == &v[4], "\\0 survives the empty key's del");
	table_free(&t, NULL);
}

static int freed;
static void count_free(void *p) { (void)p; freed++; }

static void test_key_storage(void)
{
	struct table t;
	char key[200];
	struct table_slot *s;
	int inl = 0, heap = 0, wrong = 0;

	table_init(&t);
	/* Lengths around TABLE_INLINE_KEY, through several grows and deletes. */
	for (size_t len = 1; len < sizeof key; len++) {
		memset(key, 'k', len);
		key[len - 1] = (char)('0' + len % 10);
		*table_put(&t, key, len) = (void *)(uintptr_t)len;
	}
	for (size_t len = 2; len < sizeof key; len += 3) {
		memset(key, 'k', len);
		key[len - 1] = (char)('0' + len % 10);
		if (table_del(&t, key, len) != (void *)(uintptr_t)len)
			wrong++;
	}
	is_int(wrong, 0, "deleted keys of every length gave their values back");
	for (size_t i = 0; (s = table_next(&t, &i)); ) {
		if (s->klen <= TABLE_INLINE_KEY)
			inl += s->key == s->ikey;
		else
			heap += s->key != s->ikey;
		if ((void *)(uintptr_t)s->klen != s->val || s->key[s->klen - 1] != '0' + (char)(s->klen % 10))
			wrong++;
	}
	/* Lengths 1..48 left after deleting 2, 5, ..., 47: 48 - 16 = 32. */
	is_int(inl, 32, "keys <= TABLE_INLINE_KEY live in the slot");
	is_int(heap, t.n - (size_t)inl, "longer keys live on the heap");
	is_int(wrong, 0, "every remaining key and value intact after moves");
	for (size_t len = 1; len < sizeof key; len++) {
		void **v;
		memset(key, 'k', len);
		key[len - 1] = (char)('0' + len % 10);
		v = table_get(&t, key, len);
		if (len % 3 == 2 ? v != NULL : !v || *v != (void *)(uintptr_t)len)
			wrong++;
	}
	is_int(wrong, 0, "get agrees for every length 1..199");
	freed = 0;
	table_free(&t, count_free);
	is_int(freed, 199 - 66, "table_free calls free_val once per entry");
}

#define MANY 100000

/* Key i: "key-<i>", every 5th one padded past TABLE_INLINE_KEY. */
static size_t many_key(char *buf, size_t i)
{
	int n = snprintf(buf, 128, "key-%zu", i);

	if (i % 5 == 0) {
		memset(buf + n, '.', 80);
		return (size_t)n + 80;
	}
	return (size_t)n;
}

static void test_many(void)
{
	static char val[MANY];  /* entry i's value is &val[i] */
	static unsigned char in[MANY], seen[MANY];
	struct table t;
	struct table_slot *s;
	char key[128];
	size_t n = 0, wrong = 0, twice = 0;

	table_init(&t);
	for (size_t i = 0; i < MANY; i++) {
		*table_put(&t, key, many_key(key, i)) = &val[i];
		in[i] = 1;
	}
	n = MANY;
	/* Random deletes (some of absent keys), then random re-inserts. */
	for (int op = 0; op < MANY; op++) {
		size_t i = rnd() % MANY;
		void *got = table_del(&t, key, many_key(key, i));
		if (got != (in[i] ? &val[i] : NULL))
			wrong++;
		n -= in[i];
		in[i] = 0;
	}
	is_int(wrong, 0, "100k random deletes return the value, or NULL when absent");
	for (int op = 0; op < MANY / 4; op++) {
		size_t i = rnd() % MANY;
		void **v = table_put(&t, key, many_key(key, i));
		if (*v != (in[i] ? &val[i] : NULL))
			wrong++;
		*v = &val[i];
		n += !in[i];
		in[i] = 1;
	}
	is_int(wrong, 0, "25k random puts find present keys and add absent ones");
	is_int(t.n, n, "n matches the reference count");
	for (size_t i = 0; i < MANY; i++) {
		void **v = table_get(&t, key, many_key(key, i));
		if (in[i] ? !v || *v != &val[i] : v != NULL)
			wrong++;
	}
	is_int(wrong, 0, "get agrees with the reference for all 100k keys");
	for (size_t i = 0; (s = table_next(&t, &i)); ) {
		size_t k = (size_t)((char *)s->val - val);
		if (k >= MANY || !in[k] || s->klen != many_key(key, k) || memcmp(s->key, key, s->klen))
			wrong++;
		else
			twice += seen[k]++;
	}
	is_int(wrong, 0, "iteration visits only live entries, with their keys");
	is_int(twice, 0, "iteration visits no entry twice");
	for (size_t i = 0; i < MANY; i++)
		wrong += in[i] != seen[i];
	is_int(wrong, 0, "iteration visits every entry");
	table_free(&t, NULL);
}

/* Few keys, many operations: small tables, long probe runs that wrap past the
 * end of the slot array, and backward-shift deletes across the wrap. */
static void test_churn(void)
{
	enum { KEYS = 40, OPS = 200000 };
	uintptr_t ref[KEYS] = { 0 };  /* 0: absent, else the value */
	struct table t;
	char key[16];
	size_t wrong = 0, n = 0;

	table_init(&t);
	for (uintptr_t op = 1; op <= OPS; op++) {
		size_t i = rnd() % KEYS, klen = (size_t)snprintf(key, sizeof key, "%zu", i);
		void **v;

		switch (rnd() % 3) {
		case 0:
			v = table_put(&t, key, klen);
			wrong += (uintptr_t)*v != ref[i];
			n += !ref[i];
			*v = (void *)(ref[i] = op);
			break;
		case 1:
			wrong += (uintptr_t)table_del(&t, key, klen) != ref[i];
			n -= !!ref[i];
			ref[i] = 0;
			break;
		default:
			v = table_get(&t, key, klen);
			wrong += v ? (uintptr_t)*v != ref[i] : ref[i] != 0;
		}
		wrong += t.n != n;
	}
	for (size_t i = 0; i < KEYS; i++) {
		size_t klen = (size_t)snprintf(key, sizeof key, "%zu", i);
		void **v = table_get(&t, key, klen);
		wrong += v ? (uintptr_t)*v != ref[i] : ref[i] != 0;
	}
	is_int(wrong, 0, "200k random put/del/get on 40 keys agree with the reference");
	is_int(count_entries(&t), n, "iteration count matches after churn");
	table_free(&t, NULL);
}

int main(void)
{
	test_basic();
	test_no_grow_on_hit();
	test_nul_keys();
	test_key_storage();
	test_many();
	test_churn();
	return tap_done();
}
