/* hist: latency histogram, 64 buckets per power of two (1.6% resolution),
 * summarised as percentiles and printed as log2 buckets. */
#ifndef CDP_HIST_H
#define CDP_HIST_H

#include <stdint.h>
#include <stdio.h>

#define HIST_SUB 64
#define HIST_BUCKETS (HIST_SUB + 41 * HIST_SUB)

struct hist {
	uint64_t n, sum, min, max;
	uint64_t b[HIST_BUCKETS];
};

void hist_add(struct hist *h, uint64_t v);
/* The value below which a fraction q of the samples lie (bucket midpoint,
 * never above max). */
uint64_t hist_quantile(const struct hist *h, double q);
/* Prints log2 buckets of v / unit (e.g. unit 1000 for ns shown as µs). */
void hist_print(const struct hist *h, FILE *out, uint64_t unit, const char *unit_name);

#endif
