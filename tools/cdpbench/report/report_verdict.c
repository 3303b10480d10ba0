/* report_verdict: one word per ratio (slower, faster, no clear effect,
 * inconclusive) from its CI against the A/A band; the rule is in the README,
 * "Verdicts". */
#include "report.h"

#include <math.h>

const char *report_verdict_name(enum report_verdict v)
{
	static const char *const names[] = {
		[REPORT_NO_VERDICT] = "", [REPORT_SLOWER] = "slower", [REPORT_FASTER] = "faster",
		[REPORT_NO_CLEAR_EFFECT] = "no clear effect", [REPORT_INCONCLUSIVE] = "inconclusive",
	};

	return v >= REPORT_NO_VERDICT && v <= REPORT_INCONCLUSIVE ? names[v] : "";
}

enum report_verdict report_verdict_of(const struct estimate_ci *ratio, double aa_spread,
				      int aa_failed, double *band, const char **why)
{
	double core = 1 + REPORT_VERDICT_CORE, same = 1 + REPORT_VERDICT_SAME;
	/* The band is the A/A check's spread, never narrower than the core: a
	 * slower or faster must clear both, so it can never sit inside the core. */
	double b = isnan(aa_spread) || aa_spread < core ? core : aa_spread;

	*band = b;
	if (ratio->n < REPORT_VERDICT_ROUNDS || isnan(ratio->lo) || isnan(ratio->hi)) {
		*why = "fewer than " REPORT_VERDICT_ROUNDS_TEXT " paired rounds";
		return REPORT_INCONCLUSIVE;
	}
	if (ratio->hi < 1 / b) {
		*why = "the whole CI is below the A/A band";
		return REPORT_SLOWER;
	}
	if (ratio->lo > b) {
		*why = "the whole CI is above the A/A band";
		return REPORT_FASTER;
	}
	if (aa_failed) {
		*why = "within the error of a failed A/A check";
		return REPORT_INCONCLUSIVE;
	}
	if (ratio->lo >= 1 / same && ratio->hi <= same) {
		*why = "the whole CI is within " REPORT_VERDICT_SAME_TEXT " of 1.0";
		return REPORT_NO_CLEAR_EFFECT;
	}
	*why = "the CI reaches past " REPORT_VERDICT_SAME_TEXT " without clearing the A/A band";
	return REPORT_INCONCLUSIVE;
}
