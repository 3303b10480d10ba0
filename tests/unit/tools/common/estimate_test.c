/* estimate_test: median, type-7 quantiles, the bootstrap interval of the median
 * and paired ratios, against values worked out by hand. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "estimate.h"
#include "tap.h"

#define near(got, want, ...) ok(fabs((got) - (want)) < 1e-9, __VA_ARGS__)

static void test_rng(void)
{
	/* Vigna's splitmix64.c with x = 1234567 (also Java's SplittableRandom). */
	static const uint64_t want[] = {
		6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull,
		4593380528125082431ull, 16408922859458223821ull,
	};
	struct estimate_rng r;
	int same = 1;

	estimate_rng_seed(&r, 1234567);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		same &= estimate_rng_next(&r) == want[i];
	ok(same, "splitmix64 from 1234567 gives the reference sequence");
}

static void test_median(void)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, holes[] = { NAN, 1, 3, NAN };
	double one[] = { 42 }, none[] = { NAN };

	near(estimate_median(odd, 3), 3, "median {5,1,3} = 3");
	ok(odd[0] == 5 && odd[1] == 1 && odd[2] == 3, "median leaves its input alone");
	near(estimate_median(even, 4), 2.5, "median {4,1,3,2} = (2+3)/2 = 2.5");
	near(estimate_median(holes, 4), 2, "median skips NaN: {1,3} -> 2");
	near(estimate_median(one, 1), 42, "median of one value is that value");
	ok(isnan(estimate_median(none, 1)), "median of only NaN is NaN");
	ok(isnan(estimate_median(NULL, 0)), "median of nothing is NaN");
}

static void test_quantile(void)
{
	double s[] = { 10, 20, 30, 40 }, one[] = { 7 };

	/* Type 7: h = (n-1) q, interpolate between s[floor h] and s[floor h + 1]. */
	near(estimate_quantile_sorted(s, 4, 0.5), 25, "q0.5 of 10..40: h=1.5 -> 25");
	near(estimate_quantile_sorted(s, 4, 0.25), 17.5, "q0.25: h=0.75 -> 10 + 0.75*10 = 17.5");
	near(estimate_quantile_sorted(s, 4, 0.9), 37, "q0.9: h=2.7 -> 30 + 0.7*10 = 37");
	near(estimate_quantile_sorted(s, 4, 0), 10, "q0 is the minimum");
	near(estimate_quantile_sorted(s, 4, 1), 40, "q1 is the maximum");
	near(estimate_quantile_sorted(one, 1, 0.3), 7, "any quantile of one value is it");
	ok(isnan(estimate_quantile_sorted(NULL, 0, 0.5)), "quantile of nothing is NaN");
}

static void test_median_ci(void)
{
	double one[] = { 7 }, flat[] = { 2, 2, 2, 2 }, two[] = { 3, 1 }, three[] = { 3, 1, 2 };
	double holes[] = { NAN, 5, NAN };
	struct estimate_ci ci, again;

	estimate_median_ci(one, 1, 0, ESTIMATE_SEED, 0.95, &ci);
	ok(ci.point == 7 && ci.lo == 7 && ci.hi == 7 && ci.n == 1, "one sample: 7 [7, 7]");
	estimate_median_ci(flat, 4, 0, ESTIMATE_SEED, 0.95, &ci);
	ok(ci.point == 2 && ci.lo == 2 && ci.hi == 2, "equal samples: a zero-width interval");
	estimate_median_ci(holes, 3, 0, ESTIMATE_SEED, 0.95, &ci);
	ok(ci.point == 5 && ci.n == 1, "NaN samples are not counted");
	estimate_median_ci(NULL, 0, 0, ESTIMATE_SEED, 0.95, &ci);
	ok(isnan(ci.point) && isnan(ci.lo) && isnan(ci.hi) && ci.n == 0, "no samples: NaN");

	/* {1,3}: a resample's median is 1 with p 1/4, 2 with p 1/2, 3 with p 1/4.
	 * 95%: the 2.5% and 97.5% points fall in the end masses -> [1, 3].
	 * 40%: the 30% and 70% points both fall in the middle mass -> [2, 2]. */
	estimate_median_ci(two, 2, 0, ESTIMATE_SEED, 0.95, &ci);
	ok(ci.point == 2 && ci.lo == 1 && ci.hi == 3, "{1,3} at 95%%: 2 [1, 3] (got %g [%g, %g])",
	   ci.point, ci.lo, ci.hi);
	estimate_median_ci(two, 2, 0, ESTIMATE_SEED, 0.40, &ci);
	ok(ci.lo == 2 && ci.hi == 2, "{1,3} at 40%%: [2, 2] (got [%g, %g])", ci.lo, ci.hi);

	/* {1,2,3}: P(median of 3 draws = 1) = P(at least two 1s) = 3(1/3)^2(2/3) +
	 * (1/3)^3 = 7/27 = 0.259; the same for 3; 13/27 for 2. So the 20% point
	 * is 1 and the 80% point is 3 (60% interval), while the 30% and 70% points
	 * are both 2 (40% interval). */
	estimate_median_ci(three, 3, 0, ESTIMATE_SEED, 0.60, &ci);
	ok(ci.point == 2 && ci.lo == 1 && ci.hi == 3, "{1,2,3} at 60%%: 2 [1, 3] (got [%g, %g])",
	   ci.lo, ci.hi);
	estimate_median_ci(three, 3, 0, ESTIMATE_SEED, 0.40, &ci);
	ok(ci.lo == 2 && ci.hi == 2, "{1,2,3} at 40%%: [2, 2] (got [%g, %g])", ci.lo, ci.hi);

	estimate_median_ci(three, 3, 1000, 99, 0.90, &ci);
	estimate_median_ci(three, 3, 1000, 99, 0.90, &again);
	ok(memcmp(&ci, &again, sizeof ci) == 0, "the same seed gives the same interval");
}

static void test_paired_ratio(void)
{
	double a[] = { 100, 200, 300 }, b[] = { 50, 100, 150 };
	double a2[] = { 10, NAN, 30, 40 }, b2[] = { 5, 7, 0, 20 };
	double a3[] = { 1, 4, 9 }, b3[] = { 1, 2, 3 };
	struct estimate_ci ci;

	estimate_paired_ratio_ci(a, b, 3, 0, ESTIMATE_SEED, 0.95, &ci);
	ok(ci.point == 2 && ci.lo == 2 && ci.hi == 2 && ci.n == 3,
	   "rounds that all run at 2x: 2 [2, 2] although the rounds differ 3x");
	estimate_paired_ratio_ci(a2, b2, 4, 0, ESTIMATE_SEED, 0.95, &ci);
	ok(ci.n == 2 && ci.point == 2, "pairs with NaN or a zero baseline are skipped (n %zu)", ci.n);
	/* Ratios {1, 2, 3}: the same masses as the {1,2,3} median case above. */
	estimate_paired_ratio_ci(a3, b3, 3, 0, ESTIMATE_SEED, 0.60, &ci);
	ok(ci.point == 2 && ci.lo == 1 && ci.hi == 3, "ratios {1,2,3} at 60%%: 2 [1, 3]");
	estimate_paired_ratio_ci(a3, b3, 3, 0, ESTIMATE_SEED, 0.40, &ci);
	ok(ci.lo == 2 && ci.hi == 2, "ratios {1,2,3} at 40%%: [2, 2]");
	estimate_paired_ratio_ci(NULL, NULL, 0, 0, ESTIMATE_SEED, 0.95, &ci);
	ok(ci.n == 0 && isnan(ci.point), "no pairs: NaN");
}

static void test_excludes(void)
{
	struct estimate_ci in = { 1, 0.9, 1.1, 5 }, above = { 1.1, 1.05, 1.2, 5 };
	struct estimate_ci below = { 0.2, 0.1, 0.5, 5 }, edge = { 1, 1, 1.2, 5 };
	struct estimate_ci unknown = { NAN, NAN, NAN, 0 };

	ok(!estimate_ci_excludes(&in, 1), "[0.9, 1.1] does not exclude 1");
	ok(estimate_ci_excludes(&above, 1), "[1.05, 1.2] excludes 1");
	ok(estimate_ci_excludes(&below, 1), "[0.1, 0.5] excludes 1");
	ok(!estimate_ci_excludes(&edge, 1), "[1, 1.2] touches 1: not excluded");
	ok(!estimate_ci_excludes(&unknown, 1), "an unknown interval excludes nothing");
}

/* A standard normal draw (Box-Muller) from the module's own generator. */
static double normal(struct estimate_rng *r)
{
	double u = ((double)(estimate_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
	double v = (double)(estimate_rng_next(r) >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void test_variance_split(void)
{
	/* Means 2 and 6: within ((1)^2 * 4) / (4 - 2) = 2; the means' variance 8
	 * less within / 2 (the group size) = 7. */
	double two[] = { 1, 3, 5, 7 }, same[] = { 1, 3, 1, 3 }, uneven[] = { 1, 3, 5, 10 };
	double holes[] = { 1, NAN, 3, 5, 7 }, single[] = { 1, 2, 3 };
	size_t len2[] = { 2, 2 }, len3[] = { 3, 1 }, lenh[] = { 3, 2 }, len1[] = { 1, 1, 1 };
	struct estimate_split s;
	struct estimate_rng rng;
	enum { G = 400, T = 4 };
	static double x[G * T];
	size_t len[G];

	estimate_variance_split(two, len2, 2, &s);
	near(s.within, 2, "{1,3},{5,7}: within 2 (got %g)", s.within);
	near(s.between, 7, "{1,3},{5,7}: between 7 (got %g)", s.between);
	ok(s.groups == 2 && s.values == 4, "two groups, four values");
	estimate_variance_split(same, len2, 2, &s);
	ok(s.between == 0 && s.within == 2, "equal groups: between floored at 0, within 2");
	/* Unbalanced: n0 = (4 - (9 + 1) / 4) / 1 = 1.5; MSB = 3 * 1.75^2 + 5.25^2 = 36.75;
	 * within from the first group alone: 4. Between (36.75 - 4) / 1.5. */
	estimate_variance_split(uneven, len3, 2, &s);
	near(s.within, 4, "{1,3,5},{10}: within 4 (got %g)", s.within);
	near(s.between, (36.75 - 4) / 1.5, "{1,3,5},{10}: between 21.83 (got %g)", s.between);
	estimate_variance_split(holes, lenh, 2, &s);
	ok(s.values == 4 && fabs(s.within - 2) < 1e-9 && fabs(s.between - 7) < 1e-9,
	   "NaN values are left out: {1,3},{5,7} again");
	estimate_variance_split(single, len1, 3, &s);
	ok(isnan(s.within) && isnan(s.between) && s.groups == 3,
	   "one value a group: neither part can be told");
	estimate_variance_split(two, len2, 1, &s);
	ok(!isnan(s.within) && isnan(s.between), "one group: within only");

	/* Synthetic trials: a trial effect with sd 0.3 and transfers with sd 0.1
	 * around it. 400 trials of 4 recover 0.09 and 0.01 within 20%. */
	estimate_rng_seed(&rng, 42);
	for (size_t g = 0; g < G; g++) {
		double trial = 0.3 * normal(&rng);
		len[g] = T;
		for (size_t i = 0; i < T; i++)
			x[g * T + i] = 5 + trial + 0.1 * normal(&rng);
	}
	estimate_variance_split(x, len, G, &s);
	ok(fabs(s.between / 0.09 - 1) < 0.2, "synthetic: between %.4f, made with 0.09", s.between);
	ok(fabs(s.within / 0.01 - 1) < 0.2, "synthetic: within %.4f, made with 0.01", s.within);
}

static void test_rel_halfwidth(void)
{
	struct estimate_ci a = { 2, 1.8, 2.1, 5 }, b = { 1, 0.95, 1.2, 5 }, u = { 1, NAN, NAN, 1 };

	near(estimate_ci_rel_halfwidth(&a), 0.1, "2 [1.8, 2.1]: -10%%/+5%% -> 0.1");
	near(estimate_ci_rel_halfwidth(&b), 0.2, "1 [0.95, 1.2]: the wider side, 0.2");
	ok(isnan(estimate_ci_rel_halfwidth(&u)), "unknown interval: NaN");
}

static void test_widen(void)
{
	struct estimate_ci narrow = { 1, 0.98, 1.03, 6 }, wide = { 1, 0.5, 2, 6 }, u = { 1, NAN, NAN, 1 };
	struct estimate_rng r;
	int covered = 0, sets = 4000;

	/* 1.96 * sqrt(pi / 2) * 0.2 / sqrt(6) = 0.20057 either side, in logs */
	estimate_ci_widen(&narrow, 0.2);
	ok(fabs(narrow.lo - exp(-0.200568)) < 1e-5 && fabs(narrow.hi - exp(0.200568)) < 1e-5,
	   "1 [0.98, 1.03] of 6 at sigma 0.2 -> [%.4f, %.4f]", narrow.lo, narrow.hi);
	estimate_ci_widen(&wide, 0.2);
	ok(wide.lo == 0.5 && wide.hi == 2, "an interval wider already is kept");
	estimate_ci_widen(&u, 0.2);
	ok(isnan(u.lo) && isnan(u.hi), "an unknown interval stays unknown");
	narrow = (struct estimate_ci){ 1, 0.98, 1.03, 6 };
	estimate_ci_widen(&narrow, NAN);
	ok(narrow.lo == 0.98 && narrow.hi == 1.03, "an unknown sigma changes nothing");
	/* The floor alone (an interval of no width around the median) holds the
	 * true median 1 at least 95% of the time: medians of 6 log-normal values. */
	estimate_rng_seed(&r, 42);
	for (int k = 0; k < sets; k++) {
		double x[6];
		struct estimate_ci ci;
		for (int i = 0; i < 6; i++)
			x[i] = exp(0.2 * normal(&r));
		ci.point = ci.lo = ci.hi = estimate_median(x, 6);
		ci.n = 6;
		estimate_ci_widen(&ci, 0.2);
		covered += ci.lo <= 1 && 1 <= ci.hi;
	}
	ok(covered >= sets * 95 / 100, "the floor alone covers the true median in %d of %d sets", covered, sets);
}

/* Two runs of one cell, 6 rounds each, whose log per-round ratios scatter
 * by sigma around a true ratio of 1: of the pairs where either run's CI is
 * within +-10% (the bootstrap's, widened to sigma when widen), how many have
 * medians over 20% apart (the atlas's two-run check). */
static void two_runs(double sigma, int widen, int pairs, int *tight, int *apart)
{
	struct estimate_rng r;

	*tight = *apart = 0;
	estimate_rng_seed(&r, 7);
	for (int k = 0; k < pairs; k++) {
		struct estimate_ci ci[2];
		int either = 0;
		for (int run = 0; run < 2; run++) {
			double x[6];
			for (int i = 0; i < 6; i++)
				x[i] = exp(sigma * normal(&r));
			estimate_median_ci(x, 6, 1000, (uint64_t)k * 2 + (uint64_t)run, ESTIMATE_LEVEL, &ci[run]);
			if (widen)
				estimate_ci_widen(&ci[run], sigma);
			either |= estimate_ci_rel_halfwidth(&ci[run]) < 0.10;
		}
		*tight += either;
		*apart += either && fabs(log(ci[0].point / ci[1].point)) > log(1.2);
	}
}

static void test_two_runs(void)
{
	int tight, apart;

	/* The atlas's rounds scatter by about 0.2 (tools/cdpbench/README.md, "Why
	 * the CIs are widened"): a bootstrap that calls such a cell within +-10%
	 * is often wrong. */
	two_runs(0.2, 0, 2000, &tight, &apart);
	ok(tight > 50 && apart * 20 > tight, "sigma 0.2, bootstrap alone: %d of 2000 pairs have a cell "
	   "within +-10%%, and %d of those (%.0f%%) are over 20%% apart", tight, apart, 100.0 * apart / tight);
	two_runs(0.2, 1, 2000, &tight, &apart);
	ok(tight == 0, "sigma 0.2, widened: %d pairs have a cell within +-10%%", tight);
	/* A quieter workload keeps cells within +-10% once widened, and they agree. */
	two_runs(0.08, 1, 2000, &tight, &apart);
	ok(tight > 1000 && apart * 100 <= tight, "sigma 0.08, widened: %d of 2000 pairs have a cell within "
	   "+-10%%, %d of those over 20%% apart", tight, apart);
}

int main(void)
{
	test_rng();
	test_median();
	test_quantile();
	test_median_ci();
	test_paired_ratio();
	test_excludes();
	test_variance_split();
	test_rel_halfwidth();
	test_widen();
	test_two_runs();
	return tap_done();
}
