/* report_text: the report as the table cdpbench prints: per cell the Mbps
 * and the ratio to none with their CIs, marks and verdict, the A/A checks,
 * the findings. */
#include "report_view.h"

#include <stdio.h>
#include <string.h>

void report_text(const struct report_view *v, FILE *out)
{
	size_t width = 8;

	for (size_t i = 0; i < v->nrows; i++)
		if (strlen(v->rows[i].scenario) > width)
			width = strlen(v->rows[i].scenario);
	fprintf(out, "\n%.4g MiB bodies, %d measured round%s (+%d warm-up), per trial %s; "
		"Mbps timed in the page: median [95%% bootstrap CI]\n\n", v->mib, v->measured_rounds,
		v->measured_rounds == 1 ? "" : "s", v->warmup_rounds, v->transfers);
	fprintf(out, "%-8s %-*s %8s  %-17s %8s  %-15s    %s\n", "body", (int)width, "scenario",
		"Mbps", "95% CI", "vs none", "95% CI", "verdict");
	for (size_t i = 0; i < v->nrows; i++) {
		const struct report_view_row *w = &v->rows[i];
		char ci[80] = "", rci[80] = "", fail[128] = "";
		int o = 0;

		if (i && strcmp(w->body, v->rows[i - 1].body))
			fputc('\n', out);
		if (w->mbps_has_ci)
			snprintf(ci, sizeof ci, "[%s, %s]", w->mbps_lo, w->mbps_hi);
		if (w->ratio_has_ci)
			snprintf(rci, sizeof rci, "[%s, %s]", w->ratio_lo, w->ratio_hi);
		if (w->nfail)
			o = snprintf(fail, sizeof fail, "  (%d failed: see report)", w->nfail);
		if (w->cmds_failed && o >= 0 && (size_t)o < sizeof fail)
			snprintf(fail + o, sizeof fail - (size_t)o, "  (%d of %zu commands failed: see "
				 "findings)", w->cmds_failed, w->ncmds);
		fprintf(out, "%-8s %-*s %8s  %-17s %8s  %-15s %s%s  %-15s%s\n", w->body, (int)width,
			w->scenario, w->mbps_text, ci, w->ratio_text, rci, w->excludes_1 ? "*" : " ",
			w->mark == REPORT_GATED ? "?" : w->mark == REPORT_MISSED ? "~" : " ",
			w->verdict_text, fail);
	}
	if (v->any_excludes)
		fprintf(out, "\n* the ratio's 95%% CI excludes 1.0 (paired by round: median of the "
			"per-round ratios)\n");
	if (v->ntargets)
		fprintf(out, "%s~ the ratio's CI is wider than +-%.3g%% (or has fewer than %d rounds): "
			"%d of %d ratios are within it\n", v->any_excludes ? "" : "\n", v->target_pct,
			REPORT_MIN_PAIRS, v->nreached, v->ntargets);
	if (v->any_inconclusive)
		fprintf(out, "? within the error of a failed A/A check (below)\n");
	if (v->verdict_counts[0])
		fprintf(out, "%s (%s)\n", v->verdict_rule, v->verdict_counts);
	if (v->naa) {
		fprintf(out, "\nA/A checks (the same thing twice; one whose CI excludes 1.0 fails, and "
			"the cells within its error are inconclusive):\n");
		for (size_t i = 0; i < v->naa; i++)
			fprintf(out, "  %-8s %s / %s: %s [%s, %s] %s\n", v->aa[i].body, v->aa[i].scenario,
				v->aa[i].aa_with, v->aa[i].ratio, v->aa[i].lo, v->aa[i].hi, v->aa[i].gate);
	}
	if (v->nfindings) {
		fprintf(out, "\nFindings:\n");
		for (size_t i = 0; i < v->nfindings; i++)
			fprintf(out, "- %s\n", v->findings[i]);
	}
}
