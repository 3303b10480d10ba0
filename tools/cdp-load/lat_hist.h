/* lat_hist: cdp-load's latency histogram (not proxy/obs/stats.h's log2
 * hist), 64 buckets per power of two (1.6% resolution), summarised as
 * percentiles and printed as log2 buckets. */
#ifndef CDP_LAT_HIST_H
#define CDP_LAT_HIST_H

#include <stdint.h>
#include <stdio.h>

#define LAT_HIST_SUB 64
#define LAT_HIST_BUCKETS (LAT_HIST_SUB + 41 * LAT_HIST_SUB)

struct lat_hist {
	uint64_t n, sum, min, max;
	uint64_t b[LAT_HIST_BUCKETS];
};

void lat_hist_add(struct lat_hist *h, uint64_t v);
/* The value below which a fraction q of the samples lie (bucket midpoint,
 * never above max). */
uint64_t lat_hist_quantile(const struct lat_hist *h, double q);
/* Prints log2 buckets of v / unit (e.g. unit 1000 for ns shown as µs). */
void lat_hist_print(const struct lat_hist *h, FILE *out, uint64_t unit, const char *unit_name);

#endif
