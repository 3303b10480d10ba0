/* report_json: report.json: every sample, every figure, the environment
 * and the configuration, for programs to read. */
#include "report.h"

#include <math.h>

static json_t *scenario_json(const struct scenario *sc)
{
	static const char *const kinds[] = { "native", "none", "cdp" };
	json_t *cmds = json_array();

	for (size_t i = 0; i < sc->ncmds; i++) {
		json_t *p = json_loads(sc->cmds[i].params, 0, NULL);
		json_array_append_new(cmds, json_pack("{s:s,s:o}", "method", sc->cmds[i].method,
						      "params", p ? p : json_object()));
	}
	return json_pack("{s:s,s:s,s:s,s:o,s:b,s:o,s:o,s:o,s:{s:I,s:I,s:I}}", "name", sc->name, "kind",
			 kinds[sc->kind], "about", sc->about ? sc->about : "", "commands", cmds,
			 "via_proxy", sc->via_proxy,
			 "policy", sc->policy ? json_string(sc->policy) : json_null(),
			 "aa_with", sc->aa_with[0] ? json_string(sc->aa_with) : json_null(),
			 "source", sc->source ? json_string(sc->source) : json_null(),
			 "params_lost", "no_body", (json_int_t)sc->lost.no_body, "cut",
			 (json_int_t)sc->lost.cut, "cut_at", (json_int_t)sc->lost.cut_at);
}

/* The variance split (log Mbps: a variance of 0.01 is a spread of about 10%),
 * the share of a trial's variance that more transfers cannot remove, the
 * precision against the target, and the A/A gate. */
static json_t *precision_json(const struct report *r, const struct report_cell *c)
{
	const struct estimate_split *v = &c->split;
	double t = v->groups ? (double)v->values / (double)v->groups : NAN;
	double share = v->between * t / (v->between * t + v->within);
	int by = c->inconclusive_by;

	return json_pack("{s:{s:o,s:o,s:o,s:I,s:I},s:o,s:b,s:o,s:b,s:o,s:o}",
		"variance", "between_trials", report_num_json(v->between),
		"within_trial", report_num_json(v->within),
		"between_share", report_num_json(share), "trials", (json_int_t)v->groups,
		"transfers", (json_int_t)v->values,
		"rounds_for_target", report_num_json(report_rounds_for_target(r, c)),
		"target", c->target, "ci_halfwidth", report_num_json(c->precision),
		"reached", c->reached,
		"inconclusive_by", by >= 0 ? json_sprintf("%s/%s", r->cells[by].sc->name,
							 r->cells[by].sc->aa_with) : json_null(),
		"aa_factor", report_num_json(c->aa_factor));
}

/* {"verdict": "slower", "band": 1.15, "why": "..."}, or null: no ratio to judge. */
static json_t *verdict_json(const struct report_cell *c)
{
	if (c->verdict == REPORT_NO_VERDICT)
		return json_null();
	return json_pack("{s:s,s:o,s:s}", "verdict", report_verdict_name(c->verdict), "band",
			 report_num_json(c->band), "why", c->verdict_why ? c->verdict_why : "");
}

static json_t *cell_json(const struct report *r, const struct report_cell *c)
{
	json_t *samples = json_array();

	for (int k = 0; k < r->rounds_run; k++) {
		const struct bench_sample *s = &c->samples[k];
		if (!s->ran)
			continue;
		json_array_append_new(samples, json_pack("{s:i,s:i,s:b,s:b,s:o,s:o,s:o,s:I,s:I,s:f,s:O}",
			"round", k, "position", s->position, "warmup", k < r->cfg->warmup_rounds, "ok", s->ok,
			"error", s->error[0] ? json_string(s->error) : json_null(),
			"page_mbps", report_num_json(s->page_mbps),
			"sink_mbps", report_num_json(s->sink_mbps),
			"page_bytes", (json_int_t)s->page_bytes, "sink_bytes", (json_int_t)s->sink_bytes,
			"seconds", s->seconds, "detail", s->detail ? s->detail : json_null()));
	}
	return json_pack("{s:s,s:s,s:i,s:i,s:{s:i,s:i,s:s},s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:b,"
			 "s:o,s:o,s:o}",
		"scenario", c->sc->name, "body", c->body, "n", c->nok, "failed", c->nfail,
		"commands_failed", "min", c->cmds_failed_min, "max", c->cmds_failed_max,
		"why", c->cmds_failed_why,
		"median_mbps", report_num_json(c->mbps.point), "ci", report_ci_json(&c->mbps),
		"sink_median_mbps", report_num_json(c->sink_mbps.point),
		"sink_ci", report_ci_json(&c->sink_mbps),
		"ratio_to_none", report_num_json(c->ratio.point), "ratio_ci", report_ci_json(&c->ratio),
		"ratio_excludes_1", estimate_ci_excludes(&c->ratio, 1.0),
		"aa_with", c->aa_cell >= 0 ? json_string(c->sc->aa_with) : json_null(),
		"aa_ratio", report_num_json(c->aa.point), "aa_ci", report_ci_json(&c->aa),
		"aa_excludes_1", estimate_ci_excludes(&c->aa, 1.0), "precision", precision_json(r, c),
		"verdict", verdict_json(c),
		"samples", samples);
}

json_t *report_json(const struct report *r)
{
	const struct bench_config *cfg = r->cfg;
	json_t *scs = json_array(), *cells = json_array(), *bodies = json_array();

	for (size_t i = 0; i < r->scenarios->n; i++)
		json_array_append_new(scs, scenario_json(&r->scenarios->v[i]));
	for (size_t i = 0; i < r->nbodies; i++)
		json_array_append_new(bodies, json_string(r->bodies[i]));
	for (size_t i = 0; i < r->ncells; i++)
		json_array_append_new(cells, cell_json(r, &r->cells[i]));
	return json_pack("{s:s,s:i,s:s,s:f,s:b,s:O,s:{s:I,s:f,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:f,s:f,"
			 "s:s,s:I,"
			 "s:{s:i,s:I,s:f},s:s,s:s},s:o,s:o,s:o,s:O,s:O}",
		"tool", "cdpbench", "version", 1, "started", r->started, "wall_seconds", r->wall_s,
		"interrupted", r->interrupted, "environment", r->env,
		"config", "bytes", (json_int_t)cfg->bytes, "mib", (double)cfg->bytes / (1 << 20),
		"transfers", cfg->transfers, "measure_ms", cfg->measure_ms,
		"max_transfers", cfg->max_transfers, "warmup_transfers", cfg->warmup_transfers,
		"warmup_ms", cfg->warmup_ms,
		"rounds", cfg->rounds, "warmup_rounds", cfg->warmup_rounds,
		"rounds_run", r->rounds_run, "measured_rounds_run", bench_measured_rounds(cfg, r->rounds_run),
		"budget_seconds", cfg->budget_s, "target_ci", cfg->target_ci,
		"stopped_because", r->stopped_because ? r->stopped_because : "",
		"order_seed", (json_int_t)cfg->order_seed,
		"bootstrap", "resamples", (int)cfg->resamples, "seed", (json_int_t)cfg->seed,
		"level", REPORT_LEVEL,
		"statistic", "median over measured rounds of each trial's median transfer Mbps "
			     "(timed in the page); percentile bootstrap CI",
		"ratio", "median of per-round ratios (paired rounds) to 'none' with the same body "
			 "(to the geometric mean of 'none' and 'none#2' where both ran; 'none#2' "
			 "itself to 'none'); percentile bootstrap CI over rounds",
		"scenarios", scs, "bodies", bodies, "cells", cells, "findings", r->findings,
		"notes", r->notes);
}
