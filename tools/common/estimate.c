/* estimate: medians, percentile-bootstrap confidence intervals (fixed seed) and
 * paired ratios, for benchmark samples. */
#include "estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void estimate_rng_seed(struct estimate_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t estimate_rng_next(struct estimate_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Copies the non-NaN values of x into a new array; their count in *m. */
static double *finite_copy(const double *x, size_t n, size_t *m)
{
	double *y = xmalloc((n ? n : 1) * sizeof *y);

	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			y[(*m)++] = x[i];
	return y;
}

/* The median of y[0..m), which it sorts. */
static double median_sorting(double *y, size_t m)
{
	if (!m)
		return NAN;
	qsort(y, m, sizeof *y, cmp_double);
	return m % 2 ? y[m / 2] : (y[m / 2 - 1] + y[m / 2]) / 2;
}

double estimate_median(const double *x, size_t n)
{
	size_t m;
	double *y = finite_copy(x, n, &m);
	double med = median_sorting(y, m);

	free(y);
	return med;
}

double estimate_quantile_sorted(const double *sorted, size_t n, double q)
{
	double h, lo;
	size_t i;

	if (!n)
		return NAN;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	h = (double)(n - 1) * q;
	lo = floor(h);
	i = (size_t)lo;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (h - lo) * (sorted[i + 1] - sorted[i]);
}

/* Fills out from the m finite values y: their median, and the bootstrap
 * interval of the median. */
static void bootstrap_median(const double *y, size_t m, unsigned resamples, uint64_t seed,
			     double level, struct estimate_ci *out)
{
	struct estimate_rng rng;
	double *stat, *draw, *copy;

	out->n = m;
	if (!m) {
		out->point = out->lo = out->hi = NAN;
		return;
	}
	copy = xmalloc(m * sizeof *copy);
	memcpy(copy, y, m * sizeof *copy);
	out->point = median_sorting(copy, m);
	free(copy);
	if (!resamples)
		resamples = ESTIMATE_RESAMPLES;
	stat = xmalloc(resamples * sizeof *stat);
	draw = xmalloc(m * sizeof *draw);
	estimate_rng_seed(&rng, seed);
	for (unsigned b = 0; b < resamples; b++) {
		/* The modulo's bias is below m / 2^64: nothing at these sizes. */
		for (size_t i = 0; i < m; i++)
			draw[i] = y[estimate_rng_next(&rng) % m];
		stat[b] = median_sorting(draw, m);
	}
	qsort(stat, resamples, sizeof *stat, cmp_double);
	out->lo = estimate_quantile_sorted(stat, resamples, (1 - level) / 2);
	out->hi = estimate_quantile_sorted(stat, resamples, 1 - (1 - level) / 2);
	free(draw);
	free(stat);
}

void estimate_median_ci(const double *x, size_t n, unsigned resamples, uint64_t seed,
			double level, struct estimate_ci *out)
{
	size_t m;
	double *y = finite_copy(x, n, &m);

	bootstrap_median(y, m, resamples, seed, level, out);
	free(y);
}

void estimate_paired_ratio_ci(const double *a, const double *b, size_t n, unsigned resamples,
			      uint64_t seed, double level, struct estimate_ci *out)
{
	double *r = xmalloc((n ? n : 1) * sizeof *r);
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(a[i]) && isfinite(b[i]) && b[i] > 0)
			r[m++] = a[i] / b[i];
	bootstrap_median(r, m, resamples, seed, level, out);
	free(r);
}

static void need_two(struct estimate_ci *ci)
{
	if (ci->n < 2)
		ci->lo = ci->hi = NAN;
}

void estimate_report_median(const double *x, size_t n, unsigned resamples, uint64_t seed,
			    struct estimate_ci *out)
{
	estimate_median_ci(x, n, resamples, seed, ESTIMATE_LEVEL, out);
	need_two(out);
}

void estimate_report_ratio(const double *a, const double *b, size_t n, unsigned resamples,
			   uint64_t seed, struct estimate_ci *out)
{
	estimate_paired_ratio_ci(a, b, n, resamples, seed, ESTIMATE_LEVEL, out);
	need_two(out);
}

/* The standard normal's quantile at 1 - (1 - ESTIMATE_LEVEL) / 2. */
#define ESTIMATE_Z 1.959963984540054

void estimate_ci_widen(struct estimate_ci *ci, double sigma_log)
{
	double h;

	if (isnan(sigma_log) || isnan(ci->lo) || isnan(ci->hi) || !(ci->point > 0) || !ci->n)
		return;
	h = ESTIMATE_Z * sqrt(M_PI / 2) * sigma_log / sqrt((double)ci->n);
	ci->lo = fmin(ci->lo, ci->point * exp(-h));
	ci->hi = fmax(ci->hi, ci->point * exp(h));
}

int estimate_ci_excludes(const struct estimate_ci *ci, double v)
{
	if (isnan(ci->lo) || isnan(ci->hi))
		return 0;
	return ci->lo > v || ci->hi < v;
}

void estimate_variance_split(const double *x, const size_t *len, size_t ngroups,
			     struct estimate_split *out)
{
	double sum = 0, ssw = 0, ssb = 0, sum_n2 = 0, *mean = xmalloc((ngroups ? ngroups : 1) * sizeof *mean);
	size_t *n = xcalloc(ngroups ? ngroups : 1, sizeof *n), off = 0, k = 0, N = 0, dfw = 0;

	/* Two passes per group (mean, then squares): no cancellation at these sizes. */
	for (size_t g = 0; g < ngroups; off += len[g++]) {
		double s = 0;
		for (size_t i = 0; i < len[g]; i++)
			if (!isnan(x[off + i])) {
				s += x[off + i];
				n[g]++;
			}
		if (!n[g])
			continue;
		mean[g] = s / (double)n[g];
		for (size_t i = 0; i < len[g]; i++)
			if (!isnan(x[off + i]))
				ssw += (x[off + i] - mean[g]) * (x[off + i] - mean[g]);
		sum += s;
		N += n[g];
		sum_n2 += (double)n[g] * (double)n[g];
		dfw += n[g] - 1;
		k++;
	}
	out->groups = k;
	out->values = N;
	out->within = dfw ? ssw / (double)dfw : NAN;
	out->between = NAN;
	/* Without within-group spread the groups' variance mixes both: unknown. */
	if (k >= 2 && dfw) {
		double grand = sum / (double)N, msb, n0;
		for (size_t g = 0; g < ngroups; g++)
			if (n[g])
				ssb += (double)n[g] * (mean[g] - grand) * (mean[g] - grand);
		msb = ssb / (double)(k - 1);
		/* n0: the "average" group size of unbalanced one-way ANOVA. */
		n0 = ((double)N - sum_n2 / (double)N) / (double)(k - 1);
		out->between = fmax(0, (msb - out->within) / n0);
	}
	free(n);
	free(mean);
}

double estimate_ci_rel_halfwidth(const struct estimate_ci *ci)
{
	if (isnan(ci->lo) || isnan(ci->hi) || !(ci->point > 0))
		return NAN;
	return fmax(ci->hi / ci->point - 1, 1 - ci->lo / ci->point);
}
