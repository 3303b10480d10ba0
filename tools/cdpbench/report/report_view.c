/* report_view: a computed report as its readers see it, built once: every
 * number as its text, every mark and verdict decided (report_view.h). */
#include "report_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "util.h"

/* "31% / 22%": the spread (sd of log Mbps) between trials and within one. */
static void spread(const struct estimate_split *s, char *buf, size_t len)
{
	if (isnan(s->between) || isnan(s->within))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%% / %.0f%%", 100 * sqrt(s->between), 100 * sqrt(s->within));
}

static void row(struct report_view_row *w, const struct report_cell *c)
{
	w->scenario = c->sc->name;
	w->body = c->body;
	w->kind = c->sc->kind;
	w->is_none = c->sc->kind == SCENARIO_NONE && !c->sc->aa_with[0];
	w->mbps = c->mbps;
	w->ratio_point = c->ratio.point;
	report_mbps(c->mbps.point, w->mbps_text, sizeof w->mbps_text);
	report_mbps(c->mbps.lo, w->mbps_lo, sizeof w->mbps_lo);
	report_mbps(c->mbps.hi, w->mbps_hi, sizeof w->mbps_hi);
	w->mbps_has_ci = !isnan(c->mbps.lo);
	w->compared = c->baseline >= 0;
	if (w->compared)
		report_ratio(c->ratio.point, w->ratio_text, sizeof w->ratio_text);
	else
		snprintf(w->ratio_text, sizeof w->ratio_text, "%s",
			 c->sc->kind == SCENARIO_NONE ? "1" : "");
	report_ratio(c->ratio.lo, w->ratio_lo, sizeof w->ratio_lo);
	report_ratio(c->ratio.hi, w->ratio_hi, sizeof w->ratio_hi);
	w->ratio_has_ci = !isnan(c->ratio.lo);
	w->excludes_1 = estimate_ci_excludes(&c->ratio, 1.0);
	w->mark = !c->target ? REPORT_NO_TARGET : c->inconclusive_by >= 0 ? REPORT_GATED :
		  c->reached ? REPORT_REACHED : REPORT_MISSED;
	w->verdict = c->verdict;
	w->verdict_text = report_verdict_name(c->verdict);
	w->verdict_why = c->verdict_why ? c->verdict_why : "";
	if (isnan(c->band))
		w->verdict_band[0] = '\0';
	else
		snprintf(w->verdict_band, sizeof w->verdict_band, "x%.2f", c->band);
	spread(&c->split, w->spread, sizeof w->spread);
	report_mbps(c->sink_mbps.point, w->sink_text, sizeof w->sink_text);
	w->nok = c->nok;
	w->nfail = c->nfail;
	w->cmds_failed = c->cmds_failed_max;
	w->ncmds = c->sc->ncmds;
}

static void aa(struct report_view_aa *a, const struct report *r, const struct report_cell *c)
{
	a->scenario = c->sc->name;
	a->aa_with = c->sc->aa_with;
	a->body = c->body;
	report_ratio(c->aa.point, a->ratio, sizeof a->ratio);
	report_ratio(c->aa.lo, a->lo, sizeof a->lo);
	report_ratio(c->aa.hi, a->hi, sizeof a->hi);
	report_aa_gate(r, c, a->gate, sizeof a->gate);
}

static void scenario(struct report_view_scenario *s, const struct scenario *sc)
{
	char why[512];
	size_t o = 0;

	s->name = sc->name;
	s->about = sc->about;
	s->more[0] = '\0';
	if (sc->kind == SCENARIO_CDP && sc->source)
		o += (size_t)snprintf(s->more + o, sizeof s->more - o, " (%zu commands)", sc->ncmds);
	replay_lost_text(&sc->lost, why, sizeof why);
	if (*why && o < sizeof s->more)
		o += (size_t)snprintf(s->more + o, sizeof s->more - o, "; %s", why);
	if (sc->aa_with[0] && sc->kind != SCENARIO_CDP && o < sizeof s->more)
		snprintf(s->more + o, sizeof s->more - o, "; A/A repeat of %s", sc->aa_with);
}

static struct report_view_failure *failure(struct report_view *v, const struct report_cell *c,
					   int round)
{
	struct report_view_failure *f;

	v->failures = xrealloc(v->failures, (v->nfailures + 1) * sizeof *v->failures);
	f = &v->failures[v->nfailures++];
	f->scenario = c->sc->name;
	f->body = c->body;
	f->round = round;
	return f;
}

static const char **strings(const json_t *a, size_t *n)
{
	const char **s = xcalloc(json_array_size(a) + 1, sizeof *s);
	size_t i;
	json_t *x;

	json_array_foreach(a, i, x)
		s[i] = json_string_value(x);
	*n = json_array_size(a);
	return s;
}

/* "3 slower, 5 no clear effect": the verdicts given, in the enum's order. */
static void verdict_counts(struct report_view *v)
{
	size_t o = 0;

	v->verdict_counts[0] = '\0';
	for (int k = REPORT_SLOWER; k <= REPORT_INCONCLUSIVE && o < sizeof v->verdict_counts; k++)
		if (v->nverdicts[k])
			o += (size_t)snprintf(v->verdict_counts + o, sizeof v->verdict_counts - o, "%s%d %s",
					      o ? ", " : "", v->nverdicts[k],
					      report_verdict_name((enum report_verdict)k));
}

void report_view_build(struct report_view *v, const struct report *r)
{
	const struct bench_config *cfg = r->cfg;
	const json_t *env = r->env, *placed = json_object_get(env, "placement");

	memset(v, 0, sizeof *v);
	v->started = r->started;
	v->wall_s = r->wall_s;
	v->interrupted = r->interrupted;
	v->mib = (double)cfg->bytes / (1 << 20);
	v->measured_rounds = bench_measured_rounds(cfg, r->rounds_run);
	v->warmup_rounds = cfg->warmup_rounds;
	report_transfers_text(cfg, v->transfers, sizeof v->transfers);
	v->resamples = cfg->resamples;
	v->seed = (unsigned long long)cfg->seed;
	v->budget_s = cfg->budget_s;
	v->target_pct = 100 * cfg->target_ci;
	v->stopped_because = r->stopped_because;
	v->chromium = json_string_value(json_object_get(env, "chromium"));
	v->kernel = json_string_value(json_object_get(env, "kernel"));
	v->cpu = json_string_value(json_object_get(env, "cpu"));
	v->memory = json_string_value(json_object_get(env, "memory"));
	v->cpus = (long long)json_integer_value(json_object_get(env, "cpus"));
	v->load_start = json_number_value(json_array_get(json_object_get(env, "load_average_start"), 0));
	v->load_end = json_number_value(json_array_get(json_object_get(env, "load_average_end"), 0));
	v->placement = json_string_value(json_object_get(placed, "placement"));
	v->sink_cpus = json_string_value(json_object_get(placed, "sink_cpus"));
	v->browser_cpus = json_string_value(json_object_get(placed, "browser_cpus"));
	v->bodies = r->bodies;
	v->nbodies = r->nbodies;

	v->rows = xcalloc(r->ncells + 1, sizeof *v->rows);
	v->aa = xcalloc(r->ncells + 1, sizeof *v->aa);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		row(&v->rows[v->nrows++], c);
		if (c->aa_cell >= 0)
			aa(&v->aa[v->naa++], r, c);
		v->any_excludes |= v->rows[i].excludes_1;
		v->any_inconclusive |= c->inconclusive_by >= 0;
		v->ntargets += c->target;
		v->nreached += c->reached;
		v->nverdicts[c->verdict]++;
	}
	v->verdict_rule = "verdict: slower (faster) when the ratio's whole 95% CI lies below "
		"(above) the A/A band, which is the widest A/A check's spread for that cell and at "
		"least " REPORT_VERDICT_CORE_TEXT "; no clear effect when the whole CI lies within "
		REPORT_VERDICT_SAME_TEXT " of 1.0 and the A/A checks pass; inconclusive otherwise, and "
		"with fewer than " REPORT_VERDICT_ROUNDS_TEXT " paired rounds";
	verdict_counts(v);
	v->scenarios = xcalloc(r->scenarios->n + 1, sizeof *v->scenarios);
	for (size_t i = 0; i < r->scenarios->n; i++)
		scenario(&v->scenarios[v->nscenarios++], &r->scenarios->v[i]);
	for (size_t i = 0; i < r->ncells; i++)
		for (int round = 0; round < r->rounds_run; round++) {
			const struct bench_sample *s = &r->cells[i].samples[round];
			if (s->ran && !s->ok)
				snprintf(failure(v, &r->cells[i], round)->what, sizeof v->failures[0].what,
					 "%s", s->error);
		}
	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].cmds_failed_max) {
			struct report_view_failure *f = failure(v, &r->cells[i], -1);
			report_cmds_failed(&r->cells[i], f->what, sizeof f->what);
		}
	v->findings = strings(r->findings, &v->nfindings);
	v->notes = strings(r->notes, &v->nnotes);
}

void report_view_free(struct report_view *v)
{
	free(v->rows);
	free(v->aa);
	free(v->scenarios);
	free(v->failures);
	free(v->findings);
	free(v->notes);
	memset(v, 0, sizeof *v);
}
