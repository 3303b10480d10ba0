/* hist: log2 histograms of microseconds (round trips). */
#include "hist.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

void hist_add(struct hist *h, uint64_t v)
{
	/* Bucket 63 also takes v >= 2^63, which has no bucket of its own. */
	int b = v ? 64 - __builtin_clzll(v) : 0;

	h->bucket[b < HIST_BUCKETS ? b : HIST_BUCKETS - 1]++;
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

/* The exclusive upper bound 2^b of bucket b; 0 for bucket 0 (v == 0), and
 * UINT64_MAX for the last bucket, which is open-ended. */
static uint64_t bucket_bound(int b)
{
	if (b == 0)
		return 0;
	return b < HIST_BUCKETS - 1 ? 1ull << b : UINT64_MAX;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	/* The rank of the q-quantile is ceil(q n); the slack keeps 0.9 * 100
	 * from rounding up to 91. */
	rank = (uint64_t)ceil(q * (double)h->n - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	for (int b = 0; b < HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			uint64_t bound = bucket_bound(b);
			return bound < h->max ? bound : h->max;
		}
	}
	return h->max;
}

json_t *hist_json(const struct hist *h)
{
	json_t *buckets = json_object();
	char key[24];

	for (int b = 0; b < HIST_BUCKETS; b++) {
		if (!h->bucket[b])
			continue;
		snprintf(key, sizeof key, "%" PRIu64, bucket_bound(b));
		json_object_set_new(buckets, key, json_integer((json_int_t)h->bucket[b]));
	}
	return json_pack("{s:I,s:f,s:I,s:I,s:I,s:I,s:o}",
			 "n", (json_int_t)h->n,
			 "mean", h->n ? (double)h->sum / (double)h->n : 0.0,
			 "p50", (json_int_t)hist_quantile(h, 0.50),
			 "p90", (json_int_t)hist_quantile(h, 0.90),
			 "p99", (json_int_t)hist_quantile(h, 0.99),
			 "max", (json_int_t)h->max,
			 "buckets", buckets);
}
