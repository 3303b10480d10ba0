/* stats_test: histogram buckets and quantiles, per-method and per-domain
 * counters, JSON shape and the printed table, with hand-worked values. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "stats.h"
#include "tap.h"

/* The bucket a single value lands in, or -1 if it is not exactly one. */
static int bucket_of(uint64_t v)
{
	struct hist h;
	int found = -1;

	memset(&h, 0, sizeof h);
	hist_add(&h, v);
	for (int b = 0; b < HIST_BUCKETS; b++) {
		if (h.bucket[b] == 1 && found < 0)
			found = b;
		else if (h.bucket[b])
			return -1;
	}
	return found;
}

static void test_buckets(void)
{
	is_int(bucket_of(0), 0, "0 -> bucket 0");
	is_int(bucket_of(1), 1, "1 -> bucket 1 [1,2)");
	is_int(bucket_of(2), 2, "2 -> bucket 2 [2,4)");
	is_int(bucket_of(3), 2, "3 -> bucket 2 [2,4)");
	is_int(bucket_of(4), 3, "4 -> bucket 3 [4,8)");
	is_int(bucket_of(7), 3, "7 -> bucket 3 [4,8)");
	is_int(bucket_of(8), 4, "8 -> bucket 4 [8,16)");
	is_int(bucket_of((1ull << 40) - 1), 40, "2^40-1 -> bucket 40");
	is_int(bucket_of(1ull << 40), 41, "2^40 -> bucket 41");
	is_int(bucket_of((1ull << 62) - 1), 62, "2^62-1 -> bucket 62");
	is_int(bucket_of(1ull << 62), 63, "2^62 -> bucket 63");
	is_int(bucket_of(UINT64_MAX), 63, "2^64-1 -> last bucket 63, not past the array");
}

static void test_quantiles(void)
{
	struct hist h;

	memset(&h, 0, sizeof h);
	is_int(hist_quantile(&h, 0.5), 0, "empty: p50 is 0");
	is_int(hist_quantile(&h, 1.0), 0, "empty: p100 is 0");

	for (uint64_t v = 1; v <= 100; v++)
		hist_add(&h, v);
	/* Cumulative counts by bucket: [1,2) 1, [2,4) 3, [4,8) 7, [8,16) 15,
	 * [16,32) 31, [32,64) 63, [64,128) 100. */
	is_int(h.n, 100, "1..100: n");
	is_int(h.sum, 5050, "1..100: sum");
	is_int(h.max, 100, "1..100: max");
	is_int(h.bucket[7], 37, "1..100: 64..100 are 37 values in bucket 7");
	is_int(hist_quantile(&h, 0.01), 2, "1..100: p1 (rank 1) is bound 2");
	is_int(hist_quantile(&h, 0.03), 4, "1..100: p3 (rank 3) is bound 4");
	is_int(hist_quantile(&h, 0.04), 8, "1..100: p4 (rank 4) is bound 8");
	is_int(hist_quantile(&h, 0.31), 32, "1..100: p31 (rank 31) is bound 32");
	is_int(hist_quantile(&h, 0.32), 64, "1..100: p32 (rank 32) is bound 64");
	is_int(hist_quantile(&h, 0.50), 64, "1..100: p50 is bound 64");
	is_int(hist_quantile(&h, 0.63), 64, "1..100: p63 (rank 63) is bound 64");
	is_int(hist_quantile(&h, 0.64), 100, "1..100: p64 is bound 128 capped at max");
	is_int(hist_quantile(&h, 0.90), 100, "1..100: p90 is bound 128 capped at max 100");
	is_int(hist_quantile(&h, 0.99), 100, "1..100: p99 is bound 128 capped at max 100");
	is_int(hist_quantile(&h, 1.00), 100, "1..100: p100 is max");

	memset(&h, 0, sizeof h);
	for (int i = 0; i < 99; i++)
		hist_add(&h, 10);
	hist_add(&h, 5000);
	is_int(hist_quantile(&h, 0.50), 16, "99x10 + 5000: p50 is bound 16");
	is_int(hist_quantile(&h, 0.99), 16, "99x10 + 5000: p99 is bound 16");
	is_int(hist_quantile(&h, 1.00), 5000, "99x10 + 5000: p100 is bound 8192 capped at 5000");
	is_int(h.max, 5000, "99x10 + 5000: max");
	is_int(h.sum, 5990, "99x10 + 5000: sum");

	memset(&h, 0, sizeof h);
	hist_add(&h, 0);
	is_int(hist_quantile(&h, 0.5), 0, "single 0: p50 is 0");
	hist_add(&h, UINT64_MAX);
	ok(hist_quantile(&h, 1.0) == UINT64_MAX, "0 + 2^64-1: p100 is max, not 2^63");
	is_int(hist_quantile(&h, 0.5), 0, "0 + 2^64-1: p50 is 0");

	memset(&h, 0, sizeof h);
	hist_add(&h, 1000);
	is_int(hist_quantile(&h, 0.5), 1000, "single 1000: p50 is bound 1024 capped at 1000");
}

/* o[key] as an integer; -1 when missing or not an integer. */
static long long jint(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* o[key][i] as an integer; -1 when missing. */
static long long jat(const json_t *o, const char *key, size_t i)
{
	json_t *v = json_array_get(json_object_get(o, key), i);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

static void test_hist_json(void)
{
	struct hist h;
	json_t *j, *b;

	memset(&h, 0, sizeof h);
	j = hist_json(&h);
	is_int(json_object_size(j), 7, "empty hist json: 7 keys");
	is_int(jint(j, "n"), 0, "empty hist json: n");
	ok(json_is_real(json_object_get(j, "mean")) &&
	   json_real_value(json_object_get(j, "mean")) == 0.0, "empty hist json: mean 0.0");
	is_int(jint(j, "p99"), 0, "empty hist json: p99");
	is_int(json_object_size(json_object_get(j, "buckets")), 0, "empty hist json: no buckets");
	json_decref(j);

	hist_add(&h, 0);
	for (uint64_t v = 1; v <= 100; v++)
		hist_add(&h, v);
	j = hist_json(&h);
	b = json_object_get(j, "buckets");
	is_int(jint(j, "n"), 101, "hist json: n");
	ok(json_real_value(json_object_get(j, "mean")) == 5050.0 / 101, "hist json: mean 5050/101");
	is_int(jint(j, "p50"), 64, "hist json: p50 (rank 51) is bound 64");
	is_int(jint(j, "p90"), 100, "hist json: p90 capped at max");
	is_int(jint(j, "p99"), 100, "hist json: p99 capped at max");
	is_int(jint(j, "max"), 100, "hist json: max");
	is_int(json_object_size(b), 8, "hist json: only non-empty buckets");
	is_int(jint(b, "0"), 1, "hist json: bucket \"0\" holds the zero");
	is_int(jint(b, "2"), 1, "hist json: bucket \"2\" holds 1");
	is_int(jint(b, "4"), 2, "hist json: bucket \"4\" holds 2,3");
	is_int(jint(b, "64"), 32, "hist json: bucket \"64\" holds 32..63");
	is_int(jint(b, "128"), 37, "hist json: bucket \"128\" holds 64..100");
	json_decref(j);
}

/* A stats object with hand-counted traffic; see test_counts for the sums. */
static struct stats *sample(void)
{
	struct stats *st = stats_new();
	static const char buf[] = "Page.navigateXYZ";  /* methods are not NUL-terminated */

	stats_count(st, "Network.enable", 14, UP, 40);
	stats_count(st, "Network.enable", 14, DOWN, 20);
	stats_count(st, "Network.requestWillBeSent", 25, DOWN, 1000);
	stats_count(st, "Network.requestWillBeSent", 25, DOWN, 1500);
	stats_count(st, buf, 13, UP, 100);
	stats_count(st, buf, 13, DOWN, 50);
	stats_count(st, NULL, 0, DOWN, 30);
	stats_count(st, "(unmatched)", 11, DOWN, 5);
	stats_count(st, "Target", 6, UP, 7);
	stats_rtt(st, "Network.enable", 14, 250);
	stats_rtt(st, buf, 13, 12000);
	stats_rtt(st, buf, 13, 3000);
	return st;
}

static void test_counts(void)
{
	struct stats *st = sample();
	json_t *j = stats_json(st), *m, *d, *o, *r;
	char *text = json_dumps(j, JSON_COMPACT);
	json_error_t err;

	/* The shape must survive a trip through text. */
	json_decref(j);
	j = json_loads(text, 0, &err);
	ok(j != NULL, "stats json parses back: %s", j ? "ok" : err.text);
	free(text);
	m = json_object_get(j, "methods");
	d = json_object_get(j, "domains");
	is_int(json_object_size(j), 5, "stats json: methods, domains, pending_evicted, other_methods, bidi");
	is_int(json_integer_value(json_object_get(j, "pending_evicted")), 0, "stats json: no command forgotten");
	is_int(json_object_size(m), 5, "stats json: 5 methods");
	is_int(json_object_size(d), 4, "stats json: 4 domains");

	o = json_object_get(m, "Network.enable");
	is_int(jat(o, "messages", 0), 1, "Network.enable: 1 message up");
	is_int(jat(o, "messages", 1), 1, "Network.enable: 1 message down");
	is_int(jat(o, "bytes", 0), 40, "Network.enable: 40 bytes up");
	is_int(jat(o, "bytes", 1), 20, "Network.enable: 20 bytes down");
	is_int(json_object_size(o), 3, "method entry: messages, bytes, rtt_us");
	r = json_object_get(o, "rtt_us");
	is_int(jint(r, "n"), 1, "Network.enable rtt: n");
	is_int(jint(r, "p50"), 250, "Network.enable rtt: p50 is bound 256 capped at 250");
	is_int(jint(json_object_get(r, "buckets"), "256"), 1, "Network.enable rtt: 250 in bucket \"256\"");

	o = json_object_get(m, "Network.requestWillBeSent");
	is_int(jat(o, "messages", 0), 0, "requestWillBeSent: 0 up");
	is_int(jat(o, "messages", 1), 2, "requestWillBeSent: 2 down");
	is_int(jat(o, "bytes", 1), 2500, "requestWillBeSent: 2500 bytes down");
	is_int(jint(json_object_get(o, "rtt_us"), "n"), 0, "requestWillBeSent: no rtt (an event)");

	o = json_object_get(m, "Page.navigate");
	ok(o != NULL, "Page.navigate filed by mlen, not by NUL");
	is_int(jat(o, "bytes", 0), 100, "Page.navigate: 100 bytes up");
	is_int(jat(o, "bytes", 1), 50, "Page.navigate: 50 bytes down");
	r = json_object_get(o, "rtt_us");
	is_int(jint(r, "n"), 2, "Page.navigate rtt: n");
	ok(json_real_value(json_object_get(r, "mean")) == 7500.0, "Page.navigate rtt: mean 7500");
	is_int(jint(r, "p50"), 4096, "Page.navigate rtt: p50 is 3000's bound 4096");
	is_int(jint(r, "p99"), 12000, "Page.navigate rtt: p99 is bound 16384 capped at 12000");
	is_int(jint(r, "max"), 12000, "Page.navigate rtt: max");

	o = json_object_get(m, "(unmatched)");
	is_int(jat(o, "messages", 1), 2, "(unmatched): NULL method and \"(unmatched)\" share a record");
	is_int(jat(o, "bytes", 1), 35, "(unmatched): 35 bytes down");

	o = json_object_get(d, "Network");
	is_int(jat(o, "messages", 0), 1, "domain Network: 1 message up");
	is_int(jat(o, "messages", 1), 3, "domain Network: 3 messages down");
	is_int(jat(o, "bytes", 0), 40, "domain Network: 40 bytes up");
	is_int(jat(o, "bytes", 1), 2520, "domain Network: 2520 bytes down");
	is_int(json_object_size(o), 2, "domain entry: messages and bytes only");
	o = json_object_get(d, "Page");
	is_int(jat(o, "bytes", 0) + jat(o, "bytes", 1), 150, "domain Page: 150 bytes");
	o = json_object_get(d, "Target");
	is_int(jat(o, "messages", 0), 1, "method without a dot is its own domain");
	o = json_object_get(d, "(unmatched)");
	is_int(jat(o, "messages", 1), 2, "domain (unmatched): 2 messages down");

	json_decref(j);
	stats_free(st);
}

/* The hot path: once a method has been seen, counting it allocates nothing.
 * Measured with glibc's mallinfo2, which sees nothing under ASan's allocator:
 * an allocation of its own must show first, else the check is skipped. */
static void test_no_alloc(void)
{
#ifdef __GLIBC__
	struct stats *st = stats_new();
	char method[32];
	static void *volatile probe;   /* volatile: the compiler may not elide it */
	size_t before = mallinfo2().uordblks;
	int seen;

	probe = malloc(4096);
	seen = mallinfo2().uordblks > before;
	free(probe);
	if (!seen) {
		ok(1, "# SKIP mallinfo2 does not see allocations here (a sanitizer's allocator)");
		stats_free(st);
		return;
	}

	for (int i = 0; i < 100; i++)
		stats_count(st, method, (size_t)snprintf(method, sizeof method, "D%d.m", i),
			    UP, 1);
	before = mallinfo2().uordblks;
	for (int r = 0; r < 1000; r++)
		for (int i = 0; i < 100; i++) {
			size_t len = (size_t)snprintf(method, sizeof method, "D%d.m", i);
			stats_count(st, method, len, DOWN, 10);
			stats_rtt(st, method, len, (uint64_t)r * 97);
		}
	is_int(mallinfo2().uordblks - before, 0, "counting seen methods allocates nothing");
	stats_free(st);
#else
	ok(1, "# SKIP mallinfo2 is glibc only");
#endif
}

/* Raw bytes off the wire that are not UTF-8 still get a (sanitized) key. */
static void test_bad_utf8(void)
{
	struct stats *st = stats_new();
	json_t *j;

	stats_count(st, "\xff\xfe.x", 4, UP, 1);
	j = stats_json(st);
	is_int(jat(json_object_get(json_object_get(j, "methods"), "??.x"), "messages", 0), 1,
	       "invalid UTF-8 method is kept as ??.x");
	is_int(jat(json_object_get(json_object_get(j, "domains"), "??"), "messages", 0), 1,
	       "invalid UTF-8 domain is kept as ??");
	json_decref(j);
	stats_free(st);
	stats_free(NULL);   /* a no-op: the test goes on */
}

/* A flood of names the protocol does not define: STATS_OTHER_METHODS get
 * records of their own, the rest one shared record with their messages and
 * an estimate of how many names they were; the protocol's own names and
 * the internal ones still get theirs. */
static void test_bounded(void)
{
	struct stats *st = stats_new();
	const int n = 100000;
	char method[64];
	json_t *j, *m, *o;
	long long pooled;

	for (int i = 0; i < n; i++)
		stats_count(st, method, (size_t)snprintf(method, sizeof method, "D%d.m%08x", i % 97,
							  (unsigned)i * 2654435761u), UP, 10);
	stats_count(st, "Network.enable", 14, UP, 30);
	stats_count(st, "Target.attachedToTarget", 23, DOWN, 40);
	stats_count(st, NULL, 0, DOWN, 5);
	stats_count(st, "(invalid)", 9, UP, 7);
	j = stats_json(st);
	m = json_object_get(j, "methods");
	is_int(json_object_size(m), STATS_OTHER_METHODS + 5,
	       "methods: 256 unlisted, 2 of the protocol, 2 internal, 1 pool");
	o = json_object_get(m, "(other methods)");
	is_int(jat(o, "messages", 0), n - STATS_OTHER_METHODS, "the pool has the other names' messages");
	is_int(jat(o, "bytes", 0), 10LL * (n - STATS_OTHER_METHODS), "and their bytes");
	is_int(jat(json_object_get(m, "Network.enable"), "bytes", 0), 30,
	       "a protocol name after the flood has its own record");
	is_int(jat(json_object_get(m, "Target.attachedToTarget"), "bytes", 1), 40, "an event's too");
	is_int(jat(json_object_get(m, "(invalid)"), "bytes", 0), 7, "an internal name its own");
	o = json_object_get(j, "other_methods");
	is_int(jint(o, "limit"), STATS_OTHER_METHODS, "other_methods.limit");
	is_int(jint(o, "named"), STATS_OTHER_METHODS, "other_methods.named");
	pooled = jint(o, "pooled_names");
	ok(pooled > (n - STATS_OTHER_METHODS) * 0.9 && pooled < (n - STATS_OTHER_METHODS) * 1.1,
	   "pooled_names %lld estimates %d within 10%%", pooled, n - STATS_OTHER_METHODS);
	json_decref(j);

	for (int i = 0; i < n; i++)   /* the same names again: the estimate stays */
		stats_count(st, method, (size_t)snprintf(method, sizeof method, "D%d.m%08x", i % 97,
							  (unsigned)i * 2654435761u), UP, 10);
	j = stats_json(st);
	is_int(jint(json_object_get(j, "other_methods"), "pooled_names"), pooled,
	       "names seen twice are counted once");
	is_int(jat(json_object_get(json_object_get(j, "methods"), "(other methods)"), "messages", 0),
	       2 * (n - STATS_OTHER_METHODS), "and their messages twice");
	json_decref(j);

	stats_reset(st);
	stats_count(st, "Y.new", 5, UP, 1);
	j = stats_json(st);
	ok(json_object_get(json_object_get(j, "methods"), "Y.new") != NULL,
	   "after a reset, an unlisted name has its own record again");
	is_int(jint(json_object_get(j, "other_methods"), "pooled_names"), 0, "and the pool is empty");
	json_decref(j);
	stats_free(st);
}

/* The position of the line starting with word (after from), or -1. */
static long line_at(const char *text, const char *from, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = from; (p = strstr(p, word)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == ' ')
			return p - text;
	return -1;
}

static void test_print(void)
{
	struct stats *st = sample();
	char *text = NULL, name[64];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	unsigned long long v[8];
	const char *dom;
	long a, b, c, e;

	stats_print(st, out);
	fclose(out);
	/* Every method has 2 messages but Target (1): ties go by bytes. */
	a = line_at(text, text, "Network.requestWillBeSent");
	b = line_at(text, text, "Page.navigate");
	c = line_at(text, text, "Network.enable");
	e = line_at(text, text, "(unmatched)");
	ok(strncmp(text, "method ", 7) == 0, "table starts with a method header");
	ok(a > 0 && a < b && b < c && c < e, "methods busiest first: 2500, 150, 60, 35 bytes");
	ok(line_at(text, text, "Target") > e, "Target (1 message) is last");
	is_int(sscanf(text + b, "%63s %llu %llu %llu %llu %llu %llu %llu %llu", name,
		      &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]), 9,
	       "Page.navigate row has 8 numbers");
	ok(v[0] == 1 && v[1] == 1 && v[2] == 100 && v[3] == 50,
	   "Page.navigate row: messages 1/1, bytes 100/50");
	ok(v[4] == 4096 && v[5] == 12000 && v[6] == 12000 && v[7] == 12000,
	   "Page.navigate row: p50 4096, p90/p99/max 12000");
	ok(sscanf(text + a, "%63s %llu %llu %llu %llu %63s", name, &v[0], &v[1], &v[2], &v[3],
		  name) == 6 && strcmp(name, "-") == 0, "no rtt (an event) prints as -");
	dom = strstr(text, "\ndomain ");
	ok(dom != NULL, "a domain table follows");
	a = dom ? line_at(text, dom, "Network") : -1;
	b = dom ? line_at(text, dom, "Page") : -1;
	c = dom ? line_at(text, dom, "(unmatched)") : -1;
	ok(a > 0 && a < b && b < c, "domains busiest first: Network, Page, (unmatched)");
	is_int(sscanf(text + a, "%63s %llu %llu %llu %llu", name, &v[0], &v[1], &v[2], &v[3]), 5,
	       "Network row has 4 numbers");
	ok(v[0] == 1 && v[1] == 3 && v[2] == 40 && v[3] == 2520,
	   "Network row: messages 1/3, bytes 40/2520");
	free(text);
	stats_free(st);
}

/* The BiDi table: counted apart from CDP's, errors by method and by code,
 * its names bounded by BiDi's own, reset and printed with the rest. */
static void test_bidi(void)
{
	struct stats *st = stats_new(), *b = stats_bidi(st);
	json_t *j, *bj, *m;
	char name[32], *text = NULL;
	size_t len = 0;
	FILE *out;

	ok(b && b != st && !stats_bidi(b), "a table of its own, with none in it");
	stats_count(b, "script.evaluate", 15, UP, 300);
	stats_count(b, "script.evaluate", 15, DOWN, 200);
	stats_rtt(b, "script.evaluate", 15, 1500);
	stats_count(b, "nosuch.command", 14, UP, 76);
	stats_count(b, "nosuch.command", 14, DOWN, 120);
	stats_error(b, "nosuch.command", 14, "unknown command");
	stats_error(b, "nosuch.command", 14, "made up");
	j = stats_json(st);
	bj = json_object_get(j, "bidi");
	ok(json_object_size(json_object_get(j, "methods")) == 0, "CDP's table has none of it");
	m = json_object_get(json_object_get(bj, "methods"), "nosuch.command");
	is_int(json_integer_value(json_object_get(m, "errors")), 2, "errors by method");
	is_int(json_integer_value(json_array_get(json_object_get(m, "messages"), 0)), 1, "messages up");
	is_int(json_integer_value(json_object_get(json_object_get(json_object_get(bj, "modules"), "nosuch"),
						  "errors")), 2, "errors by module");
	is_int(json_integer_value(json_object_get(json_object_get(bj, "errors"), "unknown command")), 1,
	       "errors by code");
	is_int(json_integer_value(json_object_get(json_object_get(bj, "errors"), "(other errors)")), 1,
	       "a code BiDi does not define");
	is_int(json_integer_value(json_object_get(json_object_get(json_object_get(json_object_get(bj, "methods"),
		"script.evaluate"), "rtt_us"), "n")), 1, "round trips by method");
	ok(!json_object_get(bj, "bidi"), "no table in the table");
	json_decref(j);

	for (int i = 0; i < STATS_OTHER_METHODS + 50; i++) {
		snprintf(name, sizeof name, "x%d.y", i);
		stats_count(b, name, strlen(name), UP, 1);
	}
	stats_count(b, "session.new", 11, UP, 1);
	j = stats_json(st);
	bj = json_object_get(j, "bidi");
	ok(json_object_get(json_object_get(bj, "methods"), "session.new") != NULL,
	   "BiDi's own names keep a record past the bound");
	ok(json_object_size(json_object_get(bj, "methods")) <= STATS_OTHER_METHODS + 4,
	   "others past the bound share one (%zu records)", json_object_size(json_object_get(bj, "methods")));
	json_decref(j);

	out = open_memstream(&text, &len);
	stats_print(st, out);
	fclose(out);
	ok(strstr(text, "\nBiDi method ") && strstr(text, "\nBiDi module "), "printed: BiDi methods and modules");
	ok(strstr(text, "BiDi errors: (other errors) 1, unknown command 1") || strstr(text, "BiDi errors: unknown command 1, (other errors) 1"),
	   "and errors by code: %s", strstr(text, "BiDi errors") ? strstr(text, "BiDi errors") : "none");
	free(text);

	stats_reset(st);
	j = stats_json(st);
	ok(json_object_size(json_object_get(json_object_get(j, "bidi"), "methods")) == 0 &&
	   json_object_size(json_object_get(json_object_get(j, "bidi"), "errors")) == 0, "reset with the rest");
	json_decref(j);
	stats_free(st);
}

static void test_domain_len(void)
{
	is_int(stats_domain_len("Network.enable", 14), 7, "a method's domain is its part before the first dot");
	is_int(stats_domain_len("A.b.c", 5), 1, "the first dot");
	is_int(stats_domain_len("(unmatched)", 11), 11, "no dot: all of it");
}

int main(void)
{
	test_domain_len();
	test_buckets();
	test_quantiles();
	test_hist_json();
	test_counts();
	test_no_alloc();
	test_bad_utf8();
	test_bounded();
	test_print();
	test_bidi();
	return tap_done();
}
