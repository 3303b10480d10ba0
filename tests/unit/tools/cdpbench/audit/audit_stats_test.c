/* audit_stats_test: cdpbench audit and cdpbench's report give the same figures
 * for the same samples: one implementation (estimate_report_median and
 * estimate_report_ratio), reached by both. A failed run or trial is left out
 * of both alike, and the ratio's direction is the same (arm / baseline). */
#include <math.h>
#include <string.h>

#include "audit.h"
#include "replay.h"
#include "scenario.h"
#include "report.h"

#include "tap.h"

#define ROUNDS 6

/* The same numbers: as a matrix cell's Mbps and as an arm's seconds. */
static const double base[ROUNDS] = { 41.5, 44.0, 39.8, 47.2, 43.3, 40.9 };
static const double other[ROUNDS] = { 380.0, 402.5, NAN, 371.9, 420.0, 399.1 };   /* NaN: failed */

static int same(const struct estimate_ci *x, const struct estimate_ci *y)
{
	return x->n == y->n && memcmp(&x->point, &y->point, sizeof x->point) == 0 &&
	       ((isnan(x->lo) && isnan(y->lo)) || x->lo == y->lo) &&
	       ((isnan(x->hi) && isnan(y->hi)) || x->hi == y->hi);
}

int main(void)
{
	struct bench_config cfg;
	struct scenario sc[2];
	struct scenario_list scs = { sc, 2 };
	struct report_cell cells[2];
	struct bench_sample samples[2][ROUNDS + 1];
	const char *bodies[] = { "u8" };
	struct report rep;
	struct audit_arm arms[2];
	struct audit_run runs[(ROUNDS + 1) * 2];
	struct audit a;
	struct estimate_ci direct;

	memset(&cfg, 0, sizeof cfg);
	cfg.resamples = 2000;
	cfg.seed = ESTIMATE_SEED;
	cfg.rounds = ROUNDS;
	cfg.warmup_rounds = 1;
	memset(sc, 0, sizeof sc);
	snprintf(sc[0].name, sizeof sc[0].name, "none");
	sc[0].kind = SCENARIO_NONE;
	snprintf(sc[1].name, sizeof sc[1].name, "Network-capped");
	sc[1].kind = SCENARIO_CDP;
	memset(samples, 0, sizeof samples);
	memset(runs, 0, sizeof runs);
	for (int k = 0; k <= ROUNDS; k++) {
		/* round 0 is the warm-up: wild values that must count nowhere */
		double b = k ? base[k - 1] : 1e6, o = k ? other[k - 1] : 1e-6;
		samples[0][k] = (struct bench_sample){ .ran = 1, .ok = 1, .page_mbps = b, .sink_mbps = NAN };
		samples[1][k] = (struct bench_sample){ .ran = 1, .ok = !isnan(o), .page_mbps = o, .sink_mbps = NAN };
		runs[k * 2] = (struct audit_run){ .ran = 1, .ok = 1, .seconds = b };
		runs[k * 2 + 1] = (struct audit_run){ .ran = 1, .ok = !isnan(o), .seconds = o };
	}
	memset(cells, 0, sizeof cells);
	for (int i = 0; i < 2; i++) {
		cells[i].sc = &sc[i];
		cells[i].body = "u8";
		cells[i].samples = samples[i];
	}
	memset(&rep, 0, sizeof rep);
	rep.cfg = &cfg;
	rep.cells = cells;
	rep.ncells = 2;
	rep.scenarios = &scs;
	rep.bodies = bodies;
	rep.nbodies = 1;
	rep.rounds_run = ROUNDS + 1;
	report_compute(&rep);

	memset(arms, 0, sizeof arms);
	snprintf(arms[0].name, sizeof arms[0].name, "direct");
	snprintf(arms[1].name, sizeof arms[1].name, "network-postdata-cap");
	memset(&a, 0, sizeof a);
	a.cfg = &cfg;
	a.arms = arms;
	a.narms = 2;
	a.runs = runs;
	a.rounds_run = ROUNDS + 1;
	audit_stats_compute(&a);

	ok(same(&cells[0].mbps, &arms[0].wall), "baseline: the same median and CI from both (%.4g [%.4g, %.4g])",
	   arms[0].wall.point, arms[0].wall.lo, arms[0].wall.hi);
	ok(same(&cells[1].mbps, &arms[1].wall), "other: the same median and CI, its failed round left out of both");
	ok(arms[1].wall.n == ROUNDS - 1 && cells[1].mbps.n == ROUNDS - 1, "five usable rounds each (one failed)");
	ok(same(&cells[1].ratio, &arms[1].ratio), "the paired ratio to the baseline and its CI are the same (%.4g [%.4g, %.4g])",
	   arms[1].ratio.point, arms[1].ratio.lo, arms[1].ratio.hi);
	estimate_report_ratio(other, base, ROUNDS, cfg.resamples, cfg.seed, &direct);
	ok(same(&direct, &arms[1].ratio), "and equal to estimate_report_ratio called directly on the measured rounds");
	ok(arms[1].nok == ROUNDS - 1 && arms[1].nfail == 1 && cells[1].nfail == 1, "the failed run is counted as failed by both");
	ok(isnan(arms[0].vs_pass.point), "no passthrough arm: no ratio to it");

	json_decref(rep.findings);
	audit_stats_free(&a);
	return tap_done();
}
