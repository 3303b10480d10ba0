/* precision_test: cdpbench's precision on a synthetic report: the variance
 * split per cell, which ratios reach the target, and the A/A gate: a failed
 * check marks exactly the cells in its scope that are within its error. */
#include "util.h"
#include <math.h>
#include <string.h>

#include "replay.h"
#include "report.h"

#include "tap.h"

#define ROUNDS 10

enum { NONE, ATTACH, PAGE, CAP, PASS, NONE2, NCELLS };

/* name, kind, via proxy, A/A with; Mbps; spread between trials, within one */
static const struct {
	const char *name;
	enum scenario_kind kind;
	int via_proxy;
	const char *aa_with;
	double mbps, between, within;
} spec[NCELLS] = {
	[NONE] = { "none", SCENARIO_NONE, 0, "", 100, 0.01, 0.01 },
	[ATTACH] = { "attach", SCENARIO_CDP, 0, "", 99, 0.01, 0.01 },
	[PAGE] = { "Page", SCENARIO_CDP, 0, "", 50, 0.4, 0.01 },
	[CAP] = { "pw-postdata-cap", SCENARIO_CDP, 1, "", 80, 0.01, 0.01 },
	[PASS] = { "proxy-passthrough", SCENARIO_CDP, 1, "attach", 99, 0.01, 0.01 },
	[NONE2] = { "none#2", SCENARIO_NONE, 0, "none", 120, 0.01, 0.01 },
};

/* A deterministic wobble in [-1, 1] for round r of cell c, transfer t. */
static double wobble(int c, int r, int t)
{
	return (double)((c * 7 + r * 13 + t * 5) % 9 - 4) / 4;
}

/* One trial: two measured transfers of 1 MB whose log Mbps are the cell's
 * log Mbps + between * wobble + within * (+-1). */
static void trial(struct bench_sample *s, int c, int r)
{
	double trial_log = log(spec[c].mbps) + spec[c].between * wobble(c, r, 0);
	double mbps[2];
	json_t *rows = json_array();

	memset(s, 0, sizeof *s);
	s->ran = s->ok = 1;
	json_array_append_new(rows, json_pack("{s:b,s:I,s:f}", "warmup", 1, "page_bytes",
					      (json_int_t)1000000, "page_ms", 1.0));
	for (int t = 0; t < 2; t++) {
		mbps[t] = exp(trial_log + spec[c].within * (t ? 1 : -1));
		json_array_append_new(rows, json_pack("{s:b,s:I,s:f}", "warmup", 0, "page_bytes",
						      (json_int_t)1000000, "page_ms", 8000.0 / mbps[t]));
	}
	s->page_mbps = sqrt(mbps[0] * mbps[1]);
	s->sink_mbps = NAN;
	s->detail = json_pack("{s:o}", "transfers", rows);
}

int main(void)
{
	static struct scenario sc[NCELLS];
	static struct report_cell cells[NCELLS];
	struct scenario_list list = { sc, NCELLS };
	struct bench_config cfg;
	struct report r;
	const char *bodies[] = { "u8" };
	char gate[1024];

	memset(&cfg, 0, sizeof cfg);
	cfg.rounds = ROUNDS;
	cfg.transfers = 2;
	cfg.resamples = 2000;
	cfg.seed = ESTIMATE_SEED;
	cfg.target_ci = 0.1;
	memset(&r, 0, sizeof r);
	r.cfg = &cfg;
	r.cells = cells;
	r.ncells = NCELLS;
	r.scenarios = &list;
	r.bodies = bodies;
	r.nbodies = 1;
	r.rounds_run = ROUNDS;
	for (int c = 0; c < NCELLS; c++) {
		snprintf(sc[c].name, sizeof sc[c].name, "%s", spec[c].name);
		sc[c].kind = spec[c].kind;
		sc[c].via_proxy = spec[c].via_proxy;
		snprintf(sc[c].aa_with, sizeof sc[c].aa_with, "%s", spec[c].aa_with);
		cells[c].sc = &sc[c];
		cells[c].body = "u8";
		cells[c].samples = xcalloc(ROUNDS, sizeof *cells[c].samples);
		for (int k = 0; k < ROUNDS; k++)
			trial(&cells[c].samples[k], c, k);
	}
	report_compute(&r);

	/* The split: within is the two transfers' spread, (2 * 0.01^2) / 1 per trial. */
	ok(cells[PAGE].split.groups == ROUNDS && cells[PAGE].split.values == 2 * ROUNDS,
	   "Page: %zu trials, %zu transfers", cells[PAGE].split.groups, cells[PAGE].split.values);
	ok(fabs(cells[PAGE].split.within - 2e-4) < 1e-9, "Page: within 2e-4 (got %g)",
	   cells[PAGE].split.within);
	ok(cells[PAGE].split.between > 0.05, "Page: trials differ a lot (between %g)",
	   cells[PAGE].split.between);
	ok(cells[ATTACH].split.between < 1e-3, "attach: trials hardly differ (between %g)",
	   cells[ATTACH].split.between);

	/* Targets: every compared or A/A cell; none and native are not. */
	ok(!cells[NONE].target && cells[ATTACH].target && cells[NONE2].target && cells[PASS].target,
	   "targets: the ratios and the A/A checks, not the baseline");
	ok(cells[ATTACH].reached && cells[CAP].reached, "narrow ratios reach +-10%%");
	ok(!cells[PAGE].reached && cells[PAGE].precision > 0.1,
	   "Page's wide ratio does not (+-%.0f%%)", 100 * cells[PAGE].precision);
	ok(report_rounds_for_target(&r, &cells[PAGE]) > ROUNDS,
	   "Page would need more rounds (%g)", report_rounds_for_target(&r, &cells[PAGE]));

	/* The baseline: each round's geometric mean of none (100) and none#2 (120),
	 * so attach is 99 / 109.5; none#2 itself is compared with none alone. */
	ok(fabs(cells[ATTACH].ratio.point - 99 / sqrt(100.0 * 120)) < 0.01,
	   "attach against none and none#2: %.3f", cells[ATTACH].ratio.point);
	ok(fabs(cells[NONE2].ratio.point - 1.2) < 0.03, "none#2 against none: %.3f",
	   cells[NONE2].ratio.point);

	/* The gate: none#2 / none is 1.2 and fails; proxy-passthrough / attach is 1.0. */
	ok(estimate_ci_excludes(&cells[NONE2].aa, 1.0) && fabs(cells[NONE2].aa.point - 1.2) < 0.03,
	   "none#2 / none: %.3f, fails", cells[NONE2].aa.point);
	ok(!estimate_ci_excludes(&cells[PASS].aa, 1.0), "proxy-passthrough / attach passes");
	ok(cells[ATTACH].inconclusive_by == NONE2, "attach (0.9) is within x1.2 of 1: inconclusive");
	ok(cells[PASS].inconclusive_by == NONE2, "proxy-passthrough (0.9) too");
	ok(cells[PAGE].inconclusive_by < 0 && cells[CAP].inconclusive_by < 0,
	   "Page (0.46) and pw-postdata-cap (0.73) are beyond x1.2: conclusive");
	ok(cells[ATTACH].verdict == REPORT_INCONCLUSIVE && cells[PASS].verdict == REPORT_INCONCLUSIVE,
	   "their verdict: inconclusive (%s)", cells[ATTACH].verdict_why);
	ok(cells[PAGE].verdict == REPORT_SLOWER && cells[CAP].verdict == REPORT_SLOWER,
	   "Page and pw-postdata-cap clear the failed check's x%.2f: slower", cells[PAGE].band);
	ok(cells[NONE].verdict == REPORT_NO_VERDICT && cells[NONE2].verdict == REPORT_NO_VERDICT,
	   "none and none#2 get no verdict");
	report_aa_gate(&r, &cells[NONE2], gate, sizeof gate);
	ok(strstr(gate, "fails") && strstr(gate, "misses 1.0 by 20%") &&
	   strstr(gate, "inconclusive: attach, proxy-passthrough") && !strstr(gate, "Page"),
	   "the gate names the cells: %s", gate);
	report_aa_gate(&r, &cells[PASS], gate, sizeof gate);
	ok(!strncmp(gate, "ok (spread", 10), "a passing check gives its spread: %s", gate);

	/* The same wide A/A, but passing: nothing is inconclusive. */
	for (int k = 0; k < ROUNDS; k++) {
		json_decref(cells[NONE2].samples[k].detail);
		cells[NONE2].samples[k].page_mbps = 100 * (k % 2 ? 1.25 : 0.8);
		cells[NONE2].samples[k].detail = NULL;
	}
	report_compute(&r);
	ok(!estimate_ci_excludes(&cells[NONE2].aa, 1.0) && cells[ATTACH].inconclusive_by < 0,
	   "a wide A/A check that includes 1.0 marks nothing");

	/* A round whose none#2 failed is paired with none alone (and one whose
	 * none failed with none#2): no round is lost. */
	for (int k = 0; k < ROUNDS; k++)
		cells[NONE2].samples[k].ok = k % 2;
	for (int k = 0; k < ROUNDS; k++)
		cells[NONE].samples[k].ok = !(k % 2);
	report_compute(&r);
	ok(cells[ATTACH].ratio.n == ROUNDS && fabs(cells[ATTACH].ratio.point - 0.99) < 0.13,
	   "each round paired with the baseline trial that worked: %zu rounds, %.3f",
	   (size_t)cells[ATTACH].ratio.n, cells[ATTACH].ratio.point);

	for (int c = 0; c < NCELLS; c++) {
		for (int k = 0; k < ROUNDS; k++)
			json_decref(cells[c].samples[k].detail);
		free(cells[c].samples);
	}
	json_decref(r.findings);
	return tap_done();
}
