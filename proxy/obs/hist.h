/* hist: log2 histograms of microseconds (round trips): fixed memory, the
 * tail kept (max), quantiles as bucket bounds. Pure. */
#ifndef CDPPROXY_HIST_H
#define CDPPROXY_HIST_H

#include <stdint.h>

#include <jansson.h>

#define HIST_BUCKETS 64

/* Bucket b counts values v with 2^(b-1) <= v < 2^b (bucket 0: v == 0). */
struct hist {
	uint64_t bucket[HIST_BUCKETS];
	uint64_t n, sum, max;
};

void hist_add(struct hist *h, uint64_t v);
/* The q-quantile (0 < q <= 1) as the upper bound of its bucket, capped at max;
 * 0 when empty. */
uint64_t hist_quantile(const struct hist *h, double q);
/* {"n","mean","p50","p90","p99","max","buckets":{"<upper bound>":count,...}} */
json_t *hist_json(const struct hist *h);

#endif
