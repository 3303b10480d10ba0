/* audit_json: audit.json: every run, every figure, the environment and the
 * command, for programs to read. */
#include "audit.h"
#include "report.h"

static json_t *run_json(const struct audit *a, int round, size_t arm)
{
	const struct audit_run *r = audit_run_at(a, round, arm);
	json_t *tests = json_array();

	for (size_t i = 0; i < r->ntests; i++)
		json_array_append_new(tests, json_pack("{s:s,s:f,s:b}", "name", r->tests[i].name,
						       "seconds", r->tests[i].seconds, "ok", r->tests[i].ok));
	return json_pack("{s:i,s:b,s:b,s:i,s:b,s:f,s:o,s:s,s:o,s:o}", "round", round,
		"warmup", round < a->cfg->warmup_rounds, "ok", r->ok, "status", r->status,
		"timed_out", r->timed_out, "seconds", r->seconds,
		"error", r->error[0] ? json_string(r->error) : json_null(), "output", r->output,
		"logs", r->logdir[0] ? json_string(r->logdir) : json_null(), "tests", tests);
}

json_t *audit_json(const struct audit *a)
{
	const struct bench_config *cfg = a->cfg;
	json_t *arms = json_array(), *tests = json_array(), *cmd = json_array();

	for (int i = 0; i < a->argc; i++)
		json_array_append_new(cmd, json_string(a->argv[i]));
	for (size_t i = 0; i < a->narms; i++) {
		const struct audit_arm *arm = &a->arms[i];
		json_t *runs = json_array();
		for (int round = 0; round < a->rounds_run; round++)
			json_array_append_new(runs, run_json(a, round, i));
		json_array_append_new(arms, json_pack("{s:s,s:o,s:i,s:i,s:o,s:o,s:b,s:o,s:o}",
			"name", arm->name, "policy", arm->policy ? json_string(arm->policy) : json_null(),
			"runs_ok", arm->nok, "runs_failed", arm->nfail,
			"wall_seconds", report_ci_json(&arm->wall),
			"ratio", report_ci_json(&arm->ratio), "ratio_excludes_1",
			estimate_ci_excludes(&arm->ratio, 1.0), "ratio_to_passthrough",
			report_ci_json(&arm->vs_pass), "runs", runs));
	}
	for (size_t t = 0; t < a->ntests; t++) {
		json_t *per = json_array();
		for (size_t i = 0; i < a->narms; i++)
			json_array_append_new(per, json_pack("{s:s,s:o,s:o}", "arm", a->arms[i].name,
				"seconds", report_ci_json(&a->tests[t].median[i]), "ratio",
				report_ci_json(&a->tests[t].ratio[i])));
		json_array_append_new(tests, json_pack("{s:s,s:o}", "name", a->tests[t].name, "arms", per));
	}
	return json_pack("{s:s,s:i,s:s,s:f,s:b,s:O,s:o,s:{s:i,s:i,s:i,s:o,s:i,s:s,s:s,s:{s:i,s:I,s:f},"
			 "s:s,s:s},s:o,s:o,s:O,s:o}",
		"tool", "cdpbench audit", "version", 1, "started", a->started, "wall_seconds", a->wall_s,
		"interrupted", a->interrupted, "environment", a->env, "command", cmd,
		"config", "rounds", cfg->rounds, "warmup_rounds", cfg->warmup_rounds,
		"rounds_run", a->rounds_run, "junit", a->junit ? json_string(a->junit) : json_null(),
		"timeout_seconds", a->timeout_s, "log_bodies", a->log_bodies,
		"wrapper", a->wrapper,
		"bootstrap", "resamples", (int)cfg->resamples, "seed", (json_int_t)cfg->seed,
		"level", ESTIMATE_LEVEL,
		"statistic", "median wall time of the whole command over the measured rounds whose run "
			     "passed; percentile bootstrap CI",
		"ratio", "median of per-round ratios (paired rounds) to the first arm; percentile "
			 "bootstrap CI over rounds",
		"arms", arms, "tests", tests, "rig", a->rig ? a->rig : json_null(),
		"rig_from", a->rig_from[0] ? json_string(a->rig_from) : json_null());
}
