/* precision: how precise each cell is and why: the split of its variance
 * between trials and within them (what more rounds or more transfers would
 * buy), its ratio's CI against the target, the A/A checks as the gate, and
 * the verdict each ratio gets from them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "util.h"

/* The log page Mbps of every measured transfer of c's usable measured trials,
 * grouped by trial, into the split. */
static void split_cell(const struct report *r, struct report_cell *c)
{
	int w = r->cfg->warmup_rounds;
	size_t cap = 16, n = 0, ng = 0, *len = xcalloc((size_t)r->rounds_run + 1, sizeof *len);
	double *x = xmalloc(cap * sizeof *x);

	for (int k = w; k < r->rounds_run; k++) {
		const struct bench_sample *s = &c->samples[k];
		json_t *t;
		size_t i;

		if (!s->ok)
			continue;
		json_array_foreach(json_object_get(s->detail, "transfers"), i, t) {
			double ms = json_number_value(json_object_get(t, "page_ms"));
			double bytes = (double)json_integer_value(json_object_get(t, "page_bytes"));
			if (json_is_true(json_object_get(t, "warmup")) || !(ms > 0) || !(bytes > 0))
				continue;
			if (n == cap)
				x = xrealloc(x, (cap *= 2) * sizeof *x);
			x[n++] = log(bytes * 8 / (ms * 1000));
			len[ng]++;
		}
		ng += len[ng] > 0;
	}
	estimate_variance_split(x, len, ng, &c->split);
	free(len);
	free(x);
}

/* Is c in the scope of A/A check a (same body; the baseline check covers every
 * ratio to none, the others the cells of their kind: via the proxy)? */
static int aa_covers(const struct report_cell *a, const struct report_cell *c)
{
	if (a == c || strcmp(a->body, c->body) || c->sc->kind != SCENARIO_CDP)
		return 0;
	if (!strcmp(a->sc->aa_with, "none"))
		return c->baseline >= 0;
	return c->sc->via_proxy == a->sc->via_proxy && !c->sc->aa_with[0];
}

/* The factor by which an A/A check's CI strays from 1.0 at its far end. */
static double aa_factor(const struct estimate_ci *aa)
{
	return isnan(aa->lo) || isnan(aa->hi) || !(aa->lo > 0) ? NAN : fmax(aa->hi, 1 / aa->lo);
}

/* c's verdict, against the widest A/A check in its scope (the baseline's with
 * its body; the proxy's too for a cell via the proxy). Only the CDP scenarios
 * compared with none get one: none#2 is itself the check. */
static void judge(const struct report *r, struct report_cell *c)
{
	double spread = NAN;
	int failed = 0;

	c->verdict = REPORT_NO_VERDICT;
	c->band = NAN;
	c->verdict_why = "";
	if (c->sc->kind != SCENARIO_CDP || c->baseline < 0)
		return;
	for (size_t a = 0; a < r->ncells; a++) {
		const struct report_cell *aa = &r->cells[a];
		if (aa->aa_cell < 0 || isnan(aa->aa_factor) || !aa_covers(aa, c))
			continue;
		if (isnan(spread) || aa->aa_factor > spread)
			spread = aa->aa_factor;
		failed |= estimate_ci_excludes(&aa->aa, 1.0);
	}
	c->verdict = report_verdict_of(&c->ratio, spread, failed, &c->band, &c->verdict_why);
}

void report_precision(struct report *r)
{
	for (size_t i = 0; i < r->ncells; i++) {
		struct report_cell *c = &r->cells[i];
		const struct estimate_ci *ci;
		split_cell(r, c);
		c->inconclusive_by = -1;
		c->aa_factor = c->aa_cell >= 0 ? aa_factor(&c->aa) : NAN;
		/* native is the ceiling, not a cost: nothing to hold it to */
		c->target = report_is_compared(c) || c->aa_cell >= 0;
		ci = c->aa_cell >= 0 ? &c->aa : &c->ratio;
		c->precision = estimate_ci_rel_halfwidth(ci);
		c->reached = c->target && c->precision <= r->cfg->target_ci && ci->n >= REPORT_MIN_PAIRS;
	}
	/* A failed check says differences up to its factor arise from nothing:
	 * a ratio in its scope that is not beyond that either way proves nothing. */
	for (size_t a = 0; a < r->ncells; a++) {
		const struct report_cell *aa = &r->cells[a];
		double e = aa->aa_factor;
		if (aa->aa_cell < 0 || !estimate_ci_excludes(&aa->aa, 1.0) || isnan(e))
			continue;
		for (size_t i = 0; i < r->ncells; i++) {
			struct report_cell *c = &r->cells[i];
			if (c->inconclusive_by < 0 && aa_covers(aa, c) &&
			    !(c->ratio.hi * e < 1 || c->ratio.lo / e > 1))
				c->inconclusive_by = (int)a;
		}
	}
	for (size_t i = 0; i < r->ncells; i++)
		judge(r, &r->cells[i]);
}

double report_rounds_for_target(const struct report *r, const struct report_cell *c)
{
	const struct estimate_ci *ci = c->aa_cell >= 0 ? &c->aa : &c->ratio;

	if (!c->target || isnan(c->precision) || !(r->cfg->target_ci > 0))
		return NAN;
	return fmax(REPORT_MIN_PAIRS, ceil((double)ci->n * pow(c->precision / r->cfg->target_ci, 2)));
}
