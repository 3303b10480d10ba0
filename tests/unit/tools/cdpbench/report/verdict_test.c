/* verdict_test: the rule that gives each ratio one word (slower, faster, no
 * clear effect, inconclusive) from its CI and the A/A band, at its edges: a
 * CI touching the band, a failed A/A check, too few rounds, no check at all;
 * and that no CI judged slower can ever overlap one judged no clear effect,
 * whatever either run's A/A spread. */
#include <math.h>

#include "report.h"
#include "tap.h"

static enum report_verdict judge(double lo, double hi, size_t n, double aa, int failed)
{
	struct estimate_ci ci = { sqrt(lo * hi), lo, hi, n };
	double band;
	const char *why;

	return report_verdict_of(&ci, aa, failed, &band, &why);
}

int main(void)
{
	double core = 1 + REPORT_VERDICT_CORE, same = 1 + REPORT_VERDICT_SAME, band;
	const char *why;
	struct estimate_ci ci = { 0.5, 0.4, 0.6, 8 };

	ok(judge(0.40, 0.60, 8, 1.10, 0) == REPORT_SLOWER, "a CI far below 1: slower");
	ok(judge(1.30, 1.50, 8, 1.10, 0) == REPORT_FASTER, "a CI far above 1: faster");
	ok(judge(0.95, 1.05, 8, 1.10, 0) == REPORT_NO_CLEAR_EFFECT, "a narrow CI around 1: no clear effect");
	ok(judge(0.80, 1.05, 8, 1.10, 0) == REPORT_INCONCLUSIVE,
	   "a CI from 0.80 to 1.05 (past the core, not clear of the band): inconclusive");
	ok(judge(0.80, 0.90, 8, 1.10, 0) == REPORT_INCONCLUSIVE,
	   "a CI excluding 1.0 but within the band's core (0.90 > 1/1.15): inconclusive, not slower");

	/* The band is the A/A spread, never less than the core. */
	report_verdict_of(&ci, 1.05, 0, &band, &why);
	ok(fabs(band - core) < 1e-12, "a tight A/A check (x1.05) is widened to the core x%.2f", band);
	report_verdict_of(&ci, 1.30, 0, &band, &why);
	ok(fabs(band - 1.30) < 1e-12, "a wide one (x1.30) is the band itself");
	report_verdict_of(&ci, NAN, 0, &band, &why);
	ok(fabs(band - core) < 1e-12, "no A/A check in the matrix: the core alone");
	ok(judge(0.70, 0.80, 8, 1.30, 0) == REPORT_INCONCLUSIVE && judge(0.70, 0.76, 8, 1.30, 0) == REPORT_SLOWER,
	   "with an A/A spread of x1.30, slower needs the CI below 1/1.30 = 0.77");

	/* A CI touching the band: not clear of it. */
	ok(judge(0.80, 1 / core, 8, NAN, 0) == REPORT_INCONCLUSIVE,
	   "a CI whose top touches 1/band from below: inconclusive");
	ok(judge(0.80, nextafter(1 / core, 0), 8, NAN, 0) == REPORT_SLOWER, "just below it: slower");
	ok(judge(core, 1.40, 8, NAN, 0) == REPORT_INCONCLUSIVE, "a CI whose bottom touches band: inconclusive");
	ok(judge(1 / same, same, 8, NAN, 0) == REPORT_NO_CLEAR_EFFECT,
	   "a CI exactly x1.10 either side (touching from inside): no clear effect");
	ok(judge(nextafter(1 / same, 0), 1.0, 8, NAN, 0) == REPORT_INCONCLUSIVE,
	   "a hair past x1.10: inconclusive");
	ok(judge(0.872, 1.039, 8, NAN, 0) == REPORT_INCONCLUSIVE && judge(0.627, 0.862, 8, NAN, 0) == REPORT_SLOWER,
	   "Network-capped's two runs (0.87-1.04, then 0.63-0.86): inconclusive, then slower, not a flip");

	/* A failed A/A check: cells beyond its error stand; none is "no clear effect". */
	ok(judge(0.95, 1.05, 8, 1.20, 1) == REPORT_INCONCLUSIVE, "A/A failed: a narrow CI around 1 is inconclusive");
	report_verdict_of(&(struct estimate_ci){ 1, 0.95, 1.05, 8 }, 1.20, 1, &band, &why);
	ok(strstr(why, "failed A/A"), "and says why: %s", why);
	ok(judge(0.05, 0.08, 8, 1.20, 1) == REPORT_SLOWER, "A/A failed: Network's 0.06 still stands as slower");
	ok(judge(0.75, 0.85, 8, 1.20, 1) == REPORT_INCONCLUSIVE,
	   "A/A failed by x1.20: a CI up to 0.85 (> 1/1.20) is inconclusive");

	/* Too few rounds. */
	ok(judge(0.05, 0.08, REPORT_VERDICT_ROUNDS - 1, 1.10, 0) == REPORT_INCONCLUSIVE,
	   "%d paired rounds: inconclusive even at 0.06", REPORT_VERDICT_ROUNDS - 1);
	ok(judge(0.05, 0.08, REPORT_VERDICT_ROUNDS, 1.10, 0) == REPORT_SLOWER, "%d: slower",
	   REPORT_VERDICT_ROUNDS);
	report_verdict_of(&(struct estimate_ci){ 0.06, 0.05, 0.08, 1 }, 1.1, 0, &band, &why);
	ok(strstr(why, "fewer than"), "and says why: %s", why);
	ok(judge(NAN, NAN, 8, 1.10, 0) == REPORT_INCONCLUSIVE, "no interval: inconclusive");

	/* Why a rerun cannot turn a slower into a no clear effect: slower needs
	 * hi < 1/band <= 1/core, no clear effect needs lo >= 1/same > 1/core, so
	 * the two runs' CIs are apart by the gap at least: two 95% intervals of
	 * one true ratio that do not even come within 0.04 of each other.
	 * Checked over a grid of CIs and A/A spreads of two runs. */
	{
		int overlapping_flips = 0, pairs = 0;
		double gap = 1 / same - 1 / core;   /* between the two edges below 1 */
		for (double lo1 = 0.5; lo1 < 1.3; lo1 += 0.02)
			for (double w1 = 0.02; w1 < 0.4; w1 += 0.04)
				for (double aa1 = 1.0; aa1 < 1.4; aa1 += 0.05)
					for (double lo2 = 0.5; lo2 < 1.3; lo2 += 0.02)
						for (double aa2 = 1.0; aa2 < 1.4; aa2 += 0.1) {
							double hi1 = lo1 + w1, hi2 = lo2 + 0.1;
							enum report_verdict a = judge(lo1, hi1, 8, aa1, 0);
							enum report_verdict b = judge(lo2, hi2, 8, aa2, 0);
							int flip = (a == REPORT_SLOWER || a == REPORT_FASTER) &&
								   b == REPORT_NO_CLEAR_EFFECT;
							pairs += flip;
							overlapping_flips += flip && lo1 <= hi2 + gap && lo2 <= hi1 + gap;
						}
		ok(pairs > 0 && !overlapping_flips,
		   "slower/faster against no clear effect: %d pairs, none with CIs closer than the gap", pairs);
	}

	ok(!strcmp(report_verdict_name(REPORT_NO_CLEAR_EFFECT), "no clear effect") &&
	   !strcmp(report_verdict_name(REPORT_NO_VERDICT), ""), "the words");
	return tap_done();
}
