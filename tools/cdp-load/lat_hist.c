/* lat_hist: latency histogram with 64 sub-buckets per power of two. */
#include "lat_hist.h"

#include <string.h>

static unsigned ilog2(uint64_t v)
{
	return 63u - (unsigned)__builtin_clzll(v);
}

static unsigned bucket(uint64_t v)
{
	unsigned e;

	if (v < LAT_HIST_SUB)
		return (unsigned)v;
	e = ilog2(v);  /* >= 6: width 2^(e-6), 64 buckets in [2^e, 2^(e+1)) */
	if (e > 46)
		return LAT_HIST_BUCKETS - 1;
	return LAT_HIST_SUB + (e - 6) * LAT_HIST_SUB + (unsigned)((v >> (e - 6)) - LAT_HIST_SUB);
}

static void bucket_range(unsigned i, uint64_t *low, uint64_t *width)
{
	unsigned e, sub;

	if (i < LAT_HIST_SUB) {
		*low = i;
		*width = 1;
		return;
	}
	e = (i - LAT_HIST_SUB) / LAT_HIST_SUB + 6;
	sub = (i - LAT_HIST_SUB) % LAT_HIST_SUB;
	*low = (uint64_t)(LAT_HIST_SUB + sub) << (e - 6);
	*width = (uint64_t)1 << (e - 6);
}

void lat_hist_add(struct lat_hist *h, uint64_t v)
{
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	h->b[bucket(v)]++;
}

uint64_t lat_hist_quantile(const struct lat_hist *h, double q)
{
	uint64_t rank = (uint64_t)(q * (double)h->n + 0.999999), seen = 0, low, width, mid;

	if (!h->n)
		return 0;
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < LAT_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			bucket_range(i, &low, &width);
			mid = low + width / 2;
			if (mid > h->max)
				mid = h->max;
			return mid < h->min ? h->min : mid;
		}
	}
	return h->max;
}

void lat_hist_print(const struct lat_hist *h, FILE *out, uint64_t unit, const char *unit_name)
{
	uint64_t log2b[64], peak = 0, low, width;
	int first = 64, last = -1;

	memset(log2b, 0, sizeof log2b);
	for (unsigned i = 0; i < LAT_HIST_BUCKETS; i++) {
		unsigned k;
		if (!h->b[i])
			continue;
		bucket_range(i, &low, &width);
		k = low / unit ? ilog2(low / unit) + 1 : 0;  /* 0: below 1 unit */
		log2b[k] += h->b[i];
	}
	for (int k = 0; k < 64; k++) {
		if (!log2b[k])
			continue;
		first = k < first ? k : first;
		last = k;
		peak = log2b[k] > peak ? log2b[k] : peak;
	}
	for (int k = first; k <= last; k++) {
		char range[48];
		int bar = peak ? (int)(log2b[k] * 40 / peak) : 0;
		if (k == 0)
			snprintf(range, sizeof range, "< 1 %s", unit_name);
		else
			snprintf(range, sizeof range, "[%llu, %llu) %s", 1ull << (k - 1), 1ull << k, unit_name);
		fprintf(out, "  %-22s %10llu  %.*s\n", range, (unsigned long long)log2b[k], bar,
			"########################################");
	}
}
