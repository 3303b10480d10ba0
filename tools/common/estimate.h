/* estimate: medians, percentile-bootstrap confidence intervals (fixed seed) and
 * paired ratios, for benchmark samples. Pure: arrays of doubles in, numbers out. */
#ifndef CDPPROXY_ESTIMATE_H
#define CDPPROXY_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#define ESTIMATE_RESAMPLES 4000     /* bootstrap resamples unless told otherwise */
#define ESTIMATE_SEED 0x5eedcdbull  /* the default seed: reports reproduce from their samples */

/* splitmix64: small, fast, and with published reference outputs to test against. */
struct estimate_rng {
	uint64_t state;
};

void estimate_rng_seed(struct estimate_rng *r, uint64_t seed);
uint64_t estimate_rng_next(struct estimate_rng *r);

/* A point estimate and its confidence interval over n usable samples.
 * With n == 0 all three are NaN. */
struct estimate_ci {
	double point, lo, hi;
	size_t n;
};

/* The median of the non-NaN values of x[0..n) (x is not modified); NaN if none. */
double estimate_median(const double *x, size_t n);

/* The q-quantile (0 <= q <= 1) of sorted[0..n) by linear interpolation between
 * order statistics (Hyndman and Fan type 7, R's default); NaN when n == 0. */
double estimate_quantile_sorted(const double *sorted, size_t n, double q);

/* The median of x's non-NaN values and its percentile-bootstrap interval at
 * `level` (0.95 for 95%): `resamples` resamples with replacement drawn from a
 * generator seeded with `seed`, so the same input gives the same interval. */
void estimate_median_ci(const double *x, size_t n, unsigned resamples, uint64_t seed,
			double level, struct estimate_ci *out);

/* Paired ratio a/b: rounds i where a[i] and b[i] are both finite and b[i] > 0
 * give r[i] = a[i] / b[i]; the point is the median of those ratios and the
 * interval bootstraps whole rounds, so what a round shares (a slow moment of
 * the machine) cancels out. */
void estimate_paired_ratio_ci(const double *a, const double *b, size_t n, unsigned resamples,
			      uint64_t seed, double level, struct estimate_ci *out);

/* The same two figures as cdpbench's reports (the matrix and audit) give
 * them, from this one implementation: at ESTIMATE_LEVEL, and a single
 * usable sample has no spread, so its interval is unknown (NaN), not [x, x]. */
#define ESTIMATE_LEVEL 0.95
void estimate_report_median(const double *x, size_t n, unsigned resamples, uint64_t seed,
			    struct estimate_ci *out);
void estimate_report_ratio(const double *a, const double *b, size_t n, unsigned resamples,
			   uint64_t seed, struct estimate_ci *out);

/* A one-way random-effects split of the variance of grouped values: x holds
 * ngroups groups one after the other (group g has len[g] values; NaN values
 * are left out), for example the log throughput of each transfer of each
 * trial. `within` is the variance inside a group (the pooled mean square);
 * `between` the variance of the groups' true means (ANOVA estimator, method
 * of moments, floored at 0). Either is NaN when the data cannot tell it: within
 * needs a group with two values, between that and two groups with values. */
struct estimate_split {
	double between, within;
	size_t groups, values;   /* that had values, and those values */
};

void estimate_variance_split(const double *x, const size_t *len, size_t ngroups,
			     struct estimate_split *out);

/* How far the interval reaches from its point, relative to it: the larger of
 * hi/point - 1 and 1 - lo/point (0.1 for "within +-10%"). NaN when unknown. */
double estimate_ci_rel_halfwidth(const struct estimate_ci *ci);

/* Widens ci to at least the interval a median of ci->n values has at
 * ESTIMATE_LEVEL when their logs scatter with standard deviation sigma_log
 * (normal theory: the median's error is sqrt(pi/2) sigma / sqrt(n)), around
 * its point. A bootstrap over a few values is narrow when they happen to lie
 * close; a sigma pooled over many cells measured alike is not. Unchanged when
 * sigma_log or the interval is unknown (NaN). */
void estimate_ci_widen(struct estimate_ci *ci, double sigma_log);

/* Does the interval lie entirely on one side of v (so it "excludes" v)? 0 when
 * the interval is unknown (NaN). */
int estimate_ci_excludes(const struct estimate_ci *ci, double v);

#endif
