/* report_compute: from samples to numbers: medians, bootstrap CIs, paired
 * ratios, A/A checks, failed commands; then precision and findings. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int find_cell(const struct report *r, const char *scenario, const char *body)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (!strcmp(r->cells[i].sc->name, scenario) && !strcmp(r->cells[i].body, body))
			return (int)i;
	return -1;
}

/* The measured rounds' page Mbps of a cell (NaN where a trial failed or did
 * not run: with a budget, a cell that reached its target sits rounds out). */
static double *measured(const struct report *r, const struct report_cell *c, size_t *n)
{
	int w = r->cfg->warmup_rounds;
	size_t m = (size_t)bench_measured_rounds(r->cfg, r->rounds_run);
	double *v = xcalloc(m + 1, sizeof *v);

	for (size_t i = 0; i < m; i++) {
		const struct bench_sample *s = &c->samples[(size_t)w + i];
		v[i] = s->ran && s->ok ? s->page_mbps : NAN;
	}
	*n = m;
	return v;
}

/* The baseline of c, round by round: the geometric mean of its "none" and of
 * none's A/A repeat, or the one of them that has a sample. Two baseline trials
 * a round halve the variance a ratio takes from its baseline (README). */
static double *baseline_values(const struct report *r, const struct report_cell *c, size_t *n)
{
	double *b = measured(r, &r->cells[c->baseline], n), *b2;
	size_t n2;

	if (c->baseline2 < 0)
		return b;
	b2 = measured(r, &r->cells[c->baseline2], &n2);
	for (size_t k = 0; k < *n; k++)
		b[k] = isnan(b[k]) ? b2[k] : isnan(b2[k]) ? b[k] : sqrt(b[k] * b2[k]);
	free(b2);
	return b;
}

/* Widens the ratio CI of every cell with body to its workload's noise: the
 * within-cell variance of log per-round ratios, pooled over the body's
 * cells (estimate_variance_split). The cells of one workload are measured
 * alike against one baseline, so their pooled scatter is known far better
 * than one cell's of a few rounds, whose bootstrap interval is narrow
 * whenever its rounds happen to agree (tools/cdpbench/README.md, "Why the
 * CIs are widened"). */
static void pool_noise(struct report *r, const char *body)
{
	size_t cap = 0, nx = 0, ng = 0, *len = xcalloc(r->ncells + 1, sizeof *len);
	double *x = NULL;
	struct estimate_split split;

	for (size_t i = 0; i < r->ncells; i++) {
		struct report_cell *c = &r->cells[i];
		size_t n, nb;
		double *a, *b;

		if (c->baseline < 0 || strcmp(c->body, body))
			continue;
		a = measured(r, c, &n);
		b = baseline_values(r, c, &nb);
		if (nx + n > cap)
			x = xrealloc(x, (cap = 2 * (nx + n)) * sizeof *x);
		for (size_t k = 0; k < n; k++)
			x[nx++] = a[k] > 0 && b[k] > 0 ? log(a[k] / b[k]) : NAN;
		len[ng++] = n;
		free(a);
		free(b);
	}
	estimate_variance_split(x, len, ng, &split);
	for (size_t i = 0; i < r->ncells; i++) {
		struct report_cell *c = &r->cells[i];
		if (c->baseline < 0 || strcmp(c->body, body))
			continue;
		c->noise_sd = sqrt(split.within);
		estimate_ci_widen(&c->ratio, c->noise_sd);
	}
	free(len);
	free(x);
}

/* The error's message from a failed command's {"code","message"} text (cut at
 * 300 bytes by cdp.c, so perhaps not JSON: then the text itself). */
static void error_message(const char *text, char *out, size_t len)
{
	json_t *e = json_loads(text, 0, NULL);
	const char *m = json_string_value(json_object_get(e, "message"));

	snprintf(out, len, "%s", m ? m : text);
	json_decref(e);
}

/* Fills c's failed-command counts from its trials' CDP details, and the
 * reasons, grouped by method and message, from the first trial that had any. */
static void failed_commands(const struct report *r, struct report_cell *c)
{
	const json_t *first = NULL;
	struct { char method[64], message[160]; int n; } g[3];
	size_t ng = 0, k, o = 0, others = 0;
	json_t *f;

	c->cmds_failed_min = c->cmds_failed_max = 0;
	c->cmds_failed_why[0] = '\0';
	for (int i = 0, seen = 0; i < r->rounds_run; i++) {
		const json_t *failed = json_object_get(json_object_get(c->samples[i].detail, "cdp"), "failed");
		int n = (int)json_array_size(failed);
		if (!c->samples[i].ran || !json_is_array(failed))
			continue;
		if (!seen++ || n < c->cmds_failed_min)
			c->cmds_failed_min = n;
		if (n > c->cmds_failed_max)
			c->cmds_failed_max = n;
		if (n && !first)
			first = failed;
	}
	json_array_foreach(first, k, f) {
		char method[64], message[160];
		size_t j;
		snprintf(method, sizeof method, "%s", json_string_value(json_object_get(f, "method")) ?
			 json_string_value(json_object_get(f, "method")) : "?");
		error_message(json_string_value(json_object_get(f, "error")) ?
			      json_string_value(json_object_get(f, "error")) : "", message, sizeof message);
		for (j = 0; j < ng && (strcmp(g[j].method, method) || strcmp(g[j].message, message)); j++)
			;
		if (j < ng)
			g[j].n++;
		else if (ng < sizeof g / sizeof g[0]) {
			memcpy(g[ng].method, method, sizeof method);
			memcpy(g[ng].message, message, sizeof message);
			g[ng++].n = 1;
		} else
			others++;
	}
	for (size_t j = 0; j < ng && o < sizeof c->cmds_failed_why; j++) {
		char times[16] = "";
		if (g[j].n > 1)
			snprintf(times, sizeof times, " x%d", g[j].n);
		o += (size_t)snprintf(c->cmds_failed_why + o, sizeof c->cmds_failed_why - o, "%s%s%s: %s",
				      j ? "; " : "", g[j].method, times, g[j].message);
	}
	if (others && o < sizeof c->cmds_failed_why)
		snprintf(c->cmds_failed_why + o, sizeof c->cmds_failed_why - o, "; %zu more", others);
}

void report_compute(struct report *r)
{
	const struct bench_config *cfg = r->cfg;

	for (size_t i = 0; i < r->ncells; i++) {
		struct report_cell *c = &r->cells[i];
		size_t n;
		double *v = measured(r, c, &n), *sink = xcalloc(n + 1, sizeof *sink);

		c->nok = c->nfail = 0;
		c->error = NULL;
		for (int k = 0; k < r->rounds_run; k++) {
			const struct bench_sample *s = &c->samples[k];
			if (!s->ran)
				continue;
			if (s->ok && k >= cfg->warmup_rounds)
				c->nok++;
			else if (!s->ok)
				c->nfail++;
			if (!s->ok && !c->error)
				c->error = s->error;
		}
		for (size_t k = 0; k < n; k++) {
			const struct bench_sample *s = &c->samples[(size_t)cfg->warmup_rounds + k];
			sink[k] = s->ran && s->ok ? s->sink_mbps : NAN;
		}
		failed_commands(r, c);
		estimate_report_median(v, n, cfg->resamples, cfg->seed, &c->mbps);
		estimate_report_median(sink, n, cfg->resamples, cfg->seed, &c->sink_mbps);
		free(sink);
		free(v);
	}
	for (size_t i = 0; i < r->ncells; i++) {
		struct report_cell *c = &r->cells[i];
		size_t n, nb;
		double *a = measured(r, c, &n), *b;

		c->baseline = c->sc->kind == SCENARIO_NONE && !c->sc->aa_with[0] ? -1 :
			find_cell(r, "none", c->body);
		/* the repeat itself is measured against none alone: that is its A/A check */
		c->baseline2 = c->baseline >= 0 && c->sc->kind != SCENARIO_NONE ?
			find_cell(r, "none#2", c->body) : -1;
		c->aa_cell = c->sc->aa_with[0] ? find_cell(r, c->sc->aa_with, c->body) : -1;
		c->ratio = (struct estimate_ci){ NAN, NAN, NAN, 0 };
		c->noise_sd = NAN;
		c->aa = c->ratio;
		if (c->baseline >= 0) {
			b = baseline_values(r, c, &nb);
			estimate_report_ratio(a, b, n, cfg->resamples, cfg->seed, &c->ratio);
			free(b);
		}
		if (c->aa_cell >= 0) {
			b = measured(r, &r->cells[c->aa_cell], &nb);
			estimate_report_ratio(a, b, n, cfg->resamples, cfg->seed, &c->aa);
			free(b);
		}
		free(a);
	}
	for (size_t b = 0; r->cfg->by_workload && b < r->nbodies; b++)
		pool_noise(r, r->bodies[b]);
	report_precision(r);
	json_decref(r->findings);
	r->findings = report_findings(r);
}
