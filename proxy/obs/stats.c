/* stats: per-method message counters and round-trip histograms (hist.h). */
#include "stats.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bidi.h"
#include "protocol.h"
#include "table.h"
#include "util.h"

#define UNMATCHED "(unmatched)"
#define OTHER_METHODS "(other methods)"
#define OTHER_ERRORS "(other errors)"
#define HLL_BITS 10                    /* 1,024 registers: about 3% error */

struct counts {
	uint64_t messages[2], bytes[2];  /* indexed by the side they went to */
	uint64_t errors;                 /* a domain's (the BiDi table's modules) */
};

struct method_stats {
	struct counts c;
	struct hist rtt;
	uint64_t errors;                 /* error answers (the BiDi table's only) */
};

struct stats {
	struct table methods;  /* method bytes -> struct method_stats */
	/* The last method looked up: a response's count and round trip, and
	 * runs of one event, find it without hashing. */
	char last_name[64];
	size_t last_len;
	struct method_stats *last;
	uint64_t pending_evicted;  /* commands forgotten unanswered (sessions.h) */
	/* Names the protocol does not define get records of their own up to
	 * STATS_OTHER_METHODS; later ones share the OTHER_METHODS record, and
	 * how many distinct names did is estimated (HyperLogLog). */
	size_t unlisted;
	uint8_t hll[1 << HLL_BITS];
	/* The WebDriver BiDi read out of CDP (bidi.h) has a table of its own,
	 * its names bounded by BiDi's (bidi_method_known), and its error
	 * answers by code (bidi_error_codes, then OTHER_ERRORS). */
	struct stats *bidi;              /* NULL in the BiDi table itself */
	int bidi_names;                  /* this is the BiDi table */
	uint64_t errors_by_code[BIDI_ERROR_CODES + 1];
};

/* One line of a printed table, or one entry of the JSON output. */
struct row {
	const char *name;
	size_t len;
	const struct counts *c;
	const struct hist *rtt;  /* NULL for domains */
};

struct stats *stats_new(void)
{
	struct stats *st = xcalloc(1, sizeof *st);

	table_init(&st->methods);
	st->bidi = xcalloc(1, sizeof *st->bidi);
	table_init(&st->bidi->methods);
	st->bidi->bidi_names = 1;
	return st;
}

void stats_free(struct stats *st)
{
	if (!st)
		return;
	stats_free(st->bidi);
	table_free(&st->methods, free);
	free(st);
}

struct stats *stats_bidi(const struct stats *st)
{
	return st->bidi;
}

int stats_internal_name(const char *name, size_t len)
{
	static const char *const names[] = { UNMATCHED, "(binary)", "(invalid)", "(other)" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (len == strlen(names[i]) && !memcmp(name, names[i], len))
			return 1;
	return 0;
}

/* Adds a name that fell into OTHER_METHODS to the distinct-count sketch. */
static void hll_add(struct stats *st, const char *name, size_t len)
{
	uint64_t h = table_hash(name, len);
	uint64_t rest;
	int rank;

	/* splitmix64's finaliser: every bit of the hash depends on every other. */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	rest = h << HLL_BITS;
	rank = rest ? __builtin_clzll(rest) + 1 : 64 - HLL_BITS + 1;
	if (rank > st->hll[h >> (64 - HLL_BITS)])
		st->hll[h >> (64 - HLL_BITS)] = (uint8_t)rank;
}

/* HyperLogLog's estimate of the distinct names in the sketch, with its
 * small-range correction (linear counting while registers are empty). */
static uint64_t hll_estimate(const struct stats *st)
{
	const double m = 1 << HLL_BITS, alpha = 0.7213 / (1 + 1.079 / m);
	double sum = 0, e;
	size_t zeros = 0;

	for (size_t i = 0; i < sizeof st->hll; i++) {
		sum += ldexp(1.0, -st->hll[i]);
		zeros += !st->hll[i];
	}
	e = alpha * m * m / sum;
	if (e <= 2.5 * m && zeros)
		e = m * log(m / (double)zeros);
	return (uint64_t)llround(e);
}

/* The record of method, created on first sight. A missing or empty method is
 * filed under "(unmatched)". Looks up before inserting so that a method seen
 * before costs one hash and no allocation. The table is bounded: every name
 * the protocol defines, the internal ones, and STATS_OTHER_METHODS others;
 * later names share one record. */
static struct method_stats *method_get(struct stats *st, const char *method, size_t mlen)
{
	void **v;

	if (!method || !mlen) {
		method = UNMATCHED;
		mlen = strlen(UNMATCHED);
	}
	if (st->last && mlen == st->last_len && !memcmp(method, st->last_name, mlen))
		return st->last;
	v = table_get(&st->methods, method, mlen);
	if (!v && !(st->bidi_names ? bidi_method_known : protocol_known)(method, mlen) &&
	    !stats_internal_name(method, mlen)) {
		if (st->unlisted < STATS_OTHER_METHODS) {
			st->unlisted++;
		} else {
			hll_add(st, method, mlen);
			method = OTHER_METHODS;
			mlen = strlen(OTHER_METHODS);
			v = table_get(&st->methods, method, mlen);
		}
	}
	if (!v) {
		v = table_put(&st->methods, method, mlen);
		*v = xcalloc(1, sizeof(struct method_stats));
	}
	if (mlen <= sizeof st->last_name) {   /* records never move: keep it */
		memcpy(st->last_name, method, mlen);
		st->last_len = mlen;
		st->last = *v;
	}
	return *v;
}

void stats_reset(struct stats *st)
{
	if (st->bidi)
		stats_reset(st->bidi);
	memset(st->errors_by_code, 0, sizeof st->errors_by_code);
	table_free(&st->methods, free);
	table_init(&st->methods);
	st->last = NULL;
	st->last_len = 0;
	st->pending_evicted = 0;
	st->unlisted = 0;
	memset(st->hll, 0, sizeof st->hll);
}

void stats_count(struct stats *st, const char *method, size_t mlen,
		 enum side to, size_t bytes)
{
	struct method_stats *m = method_get(st, method, mlen);

	m->c.messages[to]++;
	m->c.bytes[to] += bytes;
}

void stats_rtt(struct stats *st, const char *method, size_t mlen, uint64_t usec)
{
	hist_add(&method_get(st, method, mlen)->rtt, usec);
}

void stats_error(struct stats *st, const char *method, size_t mlen, const char *code)
{
	method_get(st, method, mlen)->errors++;
	st->errors_by_code[bidi_error_index(code)]++;
}

uint64_t stats_errors_by_code(const struct stats *st, size_t i)
{
	return i <= BIDI_ERROR_CODES ? st->errors_by_code[i] : 0;
}

size_t stats_domain_len(const char *method, size_t mlen)
{
	const char *dot = memchr(method, '.', mlen);

	return dot ? (size_t)(dot - method) : mlen;
}

/* Sums the methods' counts into domains (domain bytes -> struct counts). */
static void domains_collect(const struct stats *st, struct table *domains)
{
	struct table_slot *s;

	table_init(domains);
	for (size_t i = 0; (s = table_next(&st->methods, &i)); ) {
		const struct method_stats *m = s->val;
		void **v = table_put(domains, s->key, stats_domain_len(s->key, s->klen));
		struct counts *d = *v ? *v : (*v = xcalloc(1, sizeof(struct counts)));

		for (int to = DOWN; to <= UP; to++) {
			d->messages[to] += m->c.messages[to];
			d->bytes[to] += m->c.bytes[to];
		}
		d->errors += m->errors;
	}
}

/* Sets obj[key] = val, taking val's reference. Keys come off the wire as raw
 * bytes: one that is not valid UTF-8 is stored with its bytes outside
 * printable ASCII replaced by '?'. */
static void set_raw_key(json_t *obj, const char *key, size_t klen, json_t *val)
{
	char *safe;

	if (json_object_setn_new(obj, key, klen, json_incref(val)) == 0) {
		json_decref(val);
		return;
	}
	safe = xstrndup(key, klen);
	for (size_t i = 0; i < klen; i++)
		if ((unsigned char)safe[i] < 0x20 || (unsigned char)safe[i] > 0x7e)
			safe[i] = '?';
	json_object_setn_new(obj, safe, klen, val);
	free(safe);
}

static json_t *counts_json(const struct counts *c)
{
	return json_pack("{s:[I,I],s:[I,I]}",
			 "messages", (json_int_t)c->messages[UP],
			 (json_int_t)c->messages[DOWN],
			 "bytes", (json_int_t)c->bytes[UP],
			 (json_int_t)c->bytes[DOWN]);
}

/* The BiDi table's error answers by code, those it has. */
static json_t *errors_json(const struct stats *st)
{
	json_t *o = json_object();

	for (size_t i = 0; i <= BIDI_ERROR_CODES; i++)
		if (st->errors_by_code[i])
			json_object_set_new(o, i < BIDI_ERROR_CODES ? bidi_error_codes[i] : OTHER_ERRORS,
					    json_integer((json_int_t)st->errors_by_code[i]));
	return o;
}

json_t *stats_json(const struct stats *st)
{
	json_t *methods = json_object(), *domains = json_object(), *j;
	struct table dt;
	struct table_slot *s;

	for (size_t i = 0; (s = table_next(&st->methods, &i)); ) {
		const struct method_stats *m = s->val;
		json_t *o = counts_json(&m->c);

		json_object_set_new(o, "rtt_us", hist_json(&m->rtt));
		if (st->bidi_names)
			json_object_set_new(o, "errors", json_integer((json_int_t)m->errors));
		set_raw_key(methods, s->key, s->klen, o);
	}
	domains_collect(st, &dt);
	for (size_t i = 0; (s = table_next(&dt, &i)); ) {
		const struct counts *c = s->val;
		json_t *o = counts_json(c);
		if (st->bidi_names)
			json_object_set_new(o, "errors", json_integer((json_int_t)c->errors));
		set_raw_key(domains, s->key, s->klen, o);
	}
	table_free(&dt, free);
	j = json_pack("{s:o,s:o,s:I,s:{s:I,s:I,s:I}}", "methods", methods,
		      st->bidi_names ? "modules" : "domains", domains,
		      "pending_evicted", (json_int_t)st->pending_evicted,
		      "other_methods", "limit", (json_int_t)STATS_OTHER_METHODS,
		      "named", (json_int_t)st->unlisted,
		      "pooled_names", (json_int_t)hll_estimate(st));
	if (st->bidi_names)
		json_object_set_new(j, "errors", errors_json(st));
	if (st->bidi)
		json_object_set_new(j, "bidi", stats_json(st->bidi));
	return j;
}

void stats_add_evicted(struct stats *st, uint64_t n)
{
	st->pending_evicted += n;
}

int stats_next(const struct stats *st, size_t *i, struct stats_entry *e)
{
	struct table_slot *s = table_next(&st->methods, i);
	const struct method_stats *m;

	if (!s)
		return 0;
	m = s->val;
	e->name = s->key;
	e->len = s->klen;
	e->messages = m->c.messages;
	e->bytes = m->c.bytes;
	e->rtt = &m->rtt;
	e->errors = m->errors;
	return 1;
}

uint64_t stats_evicted(const struct stats *st)
{
	return st->pending_evicted;
}

uint64_t stats_unlisted_names(const struct stats *st)
{
	return st->unlisted + hll_estimate(st);
}

static uint64_t row_messages(const struct row *r)
{
	return r->c->messages[UP] + r->c->messages[DOWN];
}

static uint64_t row_bytes(const struct row *r)
{
	return r->c->bytes[UP] + r->c->bytes[DOWN];
}

/* Busiest first: more messages, then more bytes, then by name. */
static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t xm = row_messages(x), ym = row_messages(y);
	uint64_t xb = row_bytes(x), yb = row_bytes(y);
	int c;

	if (xm != ym)
		return xm < ym ? 1 : -1;
	if (xb != yb)
		return xb < yb ? 1 : -1;
	c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The entries of t as rows sorted busiest first; *n gets their count. Values
 * are struct method_stats when with_rtt, else struct counts. */
static struct row *rows_sorted(const struct table *t, int with_rtt, size_t *n)
{
	struct row *rows = xcalloc(t->n, sizeof *rows);
	struct table_slot *s;

	*n = 0;
	for (size_t i = 0; (s = table_next(t, &i)); ) {
		struct row *r = &rows[(*n)++];
		r->name = s->key;
		r->len = s->klen;
		if (with_rtt) {
			const struct method_stats *m = s->val;
			r->c = &m->c;
			r->rtt = &m->rtt;
		} else {
			r->c = s->val;
		}
	}
	qsort(rows, *n, sizeof *rows, row_cmp);
	return rows;
}

static void print_rows(FILE *out, const char *title, int with_rtt,
		       const struct row *rows, size_t n)
{
	int w = (int)strlen(title);

	for (size_t i = 0; i < n; i++)
		if (rows[i].len > (size_t)w)
			w = rows[i].len < 60 ? (int)rows[i].len : 60;
	fprintf(out, "%-*s %10s %10s %12s %12s", w, title,
		"msgs_up", "msgs_down", "bytes_up", "bytes_down");
	if (with_rtt)
		fprintf(out, " %10s %10s %10s %10s", "p50_us", "p90_us", "p99_us", "max_us");
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		fprintf(out, "%-*.*s %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64,
			w, (int)(r->len < 60 ? r->len : 60), r->name,
			r->c->messages[UP], r->c->messages[DOWN],
			r->c->bytes[UP], r->c->bytes[DOWN]);
		if (r->rtt && !r->rtt->n)  /* events and unanswered commands */
			fprintf(out, " %10s %10s %10s %10s", "-", "-", "-", "-");
		else if (r->rtt)
			fprintf(out, " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64,
				hist_quantile(r->rtt, 0.50), hist_quantile(r->rtt, 0.90),
				hist_quantile(r->rtt, 0.99), r->rtt->max);
		fputc('\n', out);
	}
}

void stats_print(const struct stats *st, FILE *out)
{
	struct table dt;
	struct row *rows;
	size_t n;
	const char *sep = "";

	rows = rows_sorted(&st->methods, 1, &n);
	print_rows(out, st->bidi_names ? "BiDi method" : "method", 1, rows, n);
	free(rows);
	fputc('\n', out);
	domains_collect(st, &dt);
	rows = rows_sorted(&dt, 0, &n);
	print_rows(out, st->bidi_names ? "BiDi module" : "domain", 0, rows, n);
	free(rows);
	table_free(&dt, free);
	if (st->bidi_names) {
		fputs("\nBiDi errors:", out);
		for (size_t i = 0; i <= BIDI_ERROR_CODES; i++) {
			if (!st->errors_by_code[i])
				continue;
			fprintf(out, "%s %s %" PRIu64, sep, i < BIDI_ERROR_CODES ? bidi_error_codes[i] :
				OTHER_ERRORS, st->errors_by_code[i]);
			sep = ",";
		}
		fputc('\n', out);
	}
	if (st->bidi && st->bidi->methods.n) {   /* only once there is BiDi */
		fputc('\n', out);
		stats_print(st->bidi, out);
	}
}
