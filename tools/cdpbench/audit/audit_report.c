/* audit_report: an audit's figures as the one-screen summary, audit.json
 * (every run, every figure, the environment, the command) and audit.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "report.h"
#include "util.h"

#define SUMMARY_TESTS 5

const char *audit_secs(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f s", v >= 100 ? 0 : v >= 10 ? 1 : 2, v);
	return buf;
}

/* "[0.48, 0.55]" or "" */
static const char *ci_text(const struct estimate_ci *ci, int secs, char *buf, size_t len)
{
	char a[32], b[32];

	if (isnan(ci->lo))
		buf[0] = '\0';
	else if (secs)
		snprintf(buf, len, "[%s, %s]", audit_secs(ci->lo, a, sizeof a), audit_secs(ci->hi, b, sizeof b));
	else
		snprintf(buf, len, "[%s, %s]", report_ratio(ci->lo, a, sizeof a),
			 report_ratio(ci->hi, b, sizeof b));
	return buf;
}

/* "faster", "slower", "no clear difference", or "" without an interval */
static const char *verdict(const struct estimate_ci *ci)
{
	if (isnan(ci->point))
		return "";
	if (!estimate_ci_excludes(ci, 1.0))
		return isnan(ci->lo) ? "one pair: no interval" : "no clear difference";
	return ci->point < 1 ? "faster" : "slower";
}

/* Test indexes, most different from the first arm in arm first (|log ratio|). */
static size_t *tests_by_change(const struct audit *a, size_t arm)
{
	size_t *idx = xmalloc((a->ntests + 1) * sizeof *idx);

	for (size_t i = 0; i < a->ntests; i++)
		idx[i] = i;
	for (size_t i = 0; i < a->ntests; i++)
		for (size_t j = i + 1; j < a->ntests; j++) {
			double x = fabs(log(a->tests[idx[i]].ratio[arm].point));
			double y = fabs(log(a->tests[idx[j]].ratio[arm].point));
			if ((isnan(x) && !isnan(y)) || y > x) {
				size_t t = idx[i];
				idx[i] = idx[j];
				idx[j] = t;
			}
		}
	return idx;
}

void audit_print_summary(const struct audit *a, FILE *out)
{
	const struct bench_config *cfg = a->cfg;
	int measured = bench_measured_rounds(cfg, a->rounds_run);
	size_t width = 8;
	char m[32], c1[80], r[32], c2[80];

	for (size_t i = 0; i < a->narms; i++)
		if (strlen(a->arms[i].name) > width)
			width = strlen(a->arms[i].name);
	fprintf(out, "\n");
	for (int i = 0; i < a->argc; i++)
		fprintf(out, "%s%s", i ? " " : "", a->argv[i]);
	fprintf(out, "\n%d measured round%s (+%d warm-up)%s; wall time of the whole command: median "
		"[95%% bootstrap CI]\n\n", measured, measured == 1 ? "" : "s", cfg->warmup_rounds,
		a->interrupted ? ", interrupted" : "");
	fprintf(out, "%-*s %7s %10s  %-19s %8s  %-13s\n", (int)width, "arm", "runs ok", "median",
		"95% CI", a->narms ? "ratio" : "", "95% CI");
	for (size_t i = 0; i < a->narms; i++) {
		const struct audit_arm *arm = &a->arms[i];
		char ok[16];
		snprintf(ok, sizeof ok, "%d/%d", arm->nok, arm->nok + arm->nfail);
		fprintf(out, "%-*s %7s %10s  %-19s %8s  %-13s %s\n", (int)width, arm->name, ok,
			audit_secs(arm->wall.point, m, sizeof m), ci_text(&arm->wall, 1, c1, sizeof c1),
			i ? report_ratio(arm->ratio.point, r, sizeof r) : "1",
			i ? ci_text(&arm->ratio, 0, c2, sizeof c2) : "",
			i ? verdict(&arm->ratio) : "(baseline)");
	}
	fprintf(out, "(ratio: median of the per-round ratios of wall time to %s; below 1 is faster)\n",
		a->arms[0].name);
	for (size_t i = 0; i < a->narms; i++) {
		const struct audit_arm *arm = &a->arms[i];
		if (arm->policy && !isnan(arm->vs_pass.point))
			fprintf(out, "%s against passthrough: %sx %s %s\n", arm->name,
				report_ratio(arm->vs_pass.point, r, sizeof r),
				ci_text(&arm->vs_pass, 0, c2, sizeof c2), verdict(&arm->vs_pass));
		if (arm->nfail)
			fprintf(out, "%s: %d run%s failed and %s left out of the figures (see audit.md)\n",
				arm->name, arm->nfail, arm->nfail == 1 ? "" : "s",
				arm->nfail == 1 ? "is" : "are");
	}
	{
		/* A run that passed but whose JUnit file was refused (or missing)
		 * still counts for wall time; say why its tests are not in. */
		int unread = 0;
		const char *first = NULL;
		for (int round = 0; round < a->rounds_run; round++)
			for (size_t i = 0; i < a->narms; i++) {
				const struct audit_run *run = audit_run_at(a, round, i);
				if (run->ran && run->ok && run->error[0] && !unread++)
					first = run->error;
			}
		if (unread)
			fprintf(out, "%d passing run%s without test figures (see audit.md); the first: %s\n",
				unread, unread == 1 ? "" : "s", first);
	}
	for (size_t i = 1; i < a->narms && a->ntests; i++) {
		size_t *idx = tests_by_change(a, i);
		fprintf(out, "\ntests that %s changes most (vs %s):\n", a->arms[i].name, a->arms[0].name);
		for (size_t k = 0; k < a->ntests && k < SUMMARY_TESTS; k++) {
			const struct audit_testfig *t = &a->tests[idx[k]];
			if (isnan(t->ratio[i].point))
				break;
			fprintf(out, "  %6sx %-13s %s\n", report_ratio(t->ratio[i].point, r, sizeof r),
				ci_text(&t->ratio[i], 0, c2, sizeof c2), t->name);
		}
		free(idx);
	}
	fprintf(out, "\n");
	if (a->rig)
		audit_rig_print(a->rig, out);
	else
		fprintf(out, "No rig analysis: no proxied run passed with logs.\n");
}

static json_t *num(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *ci_json(const struct estimate_ci *ci)
{
	return json_pack("{s:o,s:o,s:o,s:I}", "point", num(ci->point), "lo", num(ci->lo), "hi",
			 num(ci->hi), "n", (json_int_t)ci->n);
}

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

static json_t *audit_json(const struct audit *a)
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
			"runs_ok", arm->nok, "runs_failed", arm->nfail, "wall_seconds", ci_json(&arm->wall),
			"ratio", ci_json(&arm->ratio), "ratio_excludes_1",
			estimate_ci_excludes(&arm->ratio, 1.0), "ratio_to_passthrough",
			ci_json(&arm->vs_pass), "runs", runs));
	}
	for (size_t t = 0; t < a->ntests; t++) {
		json_t *per = json_array();
		for (size_t i = 0; i < a->narms; i++)
			json_array_append_new(per, json_pack("{s:s,s:o,s:o}", "arm", a->arms[i].name,
				"seconds", ci_json(&a->tests[t].median[i]), "ratio",
				ci_json(&a->tests[t].ratio[i])));
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

/* The rig's text (log strings in it) as a fenced code block: its fence
 * longer than any run of backticks in the text, so nothing ends it early. */
static void md_rig(const json_t *rig, FILE *f)
{
	char *text = NULL;
	size_t len = 0, run = 0, longest = 2;
	FILE *m = open_memstream(&text, &len);

	audit_rig_print(rig, m);
	fclose(m);
	for (size_t i = 0; i < len; i++) {
		run = text[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		fputc('`', f);
	fprintf(f, "\n%s", text);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', f);
	fputc('\n', f);
	free(text);
}

static int write_md(const struct audit *a, const char *path, char *err, size_t errlen)
{
	FILE *f = report_open(path, err, errlen);
	char m[32], c1[80], r[32], c2[80], *cmd = NULL;
	size_t cmd_len = 0;
	FILE *cf;

	if (!f)
		return -1;
	cf = open_memstream(&cmd, &cmd_len);
	for (int i = 0; i < a->argc; i++)
		fprintf(cf, "%s%s", i ? " " : "", a->argv[i]);
	fclose(cf);
	/* Every string below that is not cdpbench's own (the command, arm and
	 * test names, errors with the command's output, the logs' strings) is
	 * escaped: Markdown renders HTML, and a | ends a cell. */
	fprintf(f, "# cdpbench audit\n\nStarted %s, %.0f s. Command: ", a->started, a->wall_s);
	report_md_code(f, cmd);
	free(cmd);
	fprintf(f, ". %d rounds run (%d warm-up)%s.\n\n| arm | runs ok | median wall | 95%% CI | ",
		a->rounds_run, a->cfg->warmup_rounds, a->interrupted ? ", interrupted" : "");
	report_md_esc(f, "ratio to ", a->arms[0].name, " | 95% CI | |\n|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < a->narms; i++) {
		const struct audit_arm *arm = &a->arms[i];
		report_md_esc(f, "| ", arm->name, "");
		fprintf(f, " | %d/%d | %s | %s | %s | %s | %s |\n", arm->nok,
			arm->nok + arm->nfail, audit_secs(arm->wall.point, m, sizeof m),
			ci_text(&arm->wall, 1, c1, sizeof c1), report_ratio(arm->ratio.point, r, sizeof r),
			ci_text(&arm->ratio, 0, c2, sizeof c2), i ? verdict(&arm->ratio) : "baseline");
	}
	for (size_t i = 0; i < a->narms; i++)
		if (a->arms[i].policy && !isnan(a->arms[i].vs_pass.point)) {
			report_md_esc(f, "\n", a->arms[i].name, "");
			fprintf(f, " against passthrough: %sx %s %s.\n",
				report_ratio(a->arms[i].vs_pass.point, r, sizeof r),
				ci_text(&a->arms[i].vs_pass, 0, c2, sizeof c2), verdict(&a->arms[i].vs_pass));
		}
	if (a->ntests) {
		fprintf(f, "\n## Tests\n\n| test |");
		for (size_t i = 0; i < a->narms; i++)
			report_md_esc(f, " ", a->arms[i].name, " |");
		fprintf(f, "\n|---|");
		for (size_t i = 0; i < a->narms; i++)
			fprintf(f, "---|");
		fprintf(f, "\n");
		for (size_t t = 0; t < a->ntests; t++) {
			report_md_esc(f, "| ", a->tests[t].name, " |");
			for (size_t i = 0; i < a->narms; i++)
				fprintf(f, " %s%s%s%s |", audit_secs(a->tests[t].median[i].point, m, sizeof m),
					i ? " (" : "", i ? report_ratio(a->tests[t].ratio[i].point, r, sizeof r) : "",
					i ? "x)" : "");
			fprintf(f, "\n");
		}
	}
	fprintf(f, "\n## Runs that failed, or whose JUnit file was not read\n\n");
	for (int round = 0; round < a->rounds_run; round++)
		for (size_t i = 0; i < a->narms; i++) {
			const struct audit_run *run = audit_run_at(a, round, i);
			if (run->ran && (!run->ok || run->error[0]))
			{
				fprintf(f, "- round %d, ", round);
				report_md_esc(f, "", a->arms[i].name, ": ");
				report_md_esc(f, "", run->error, "\n");
			}
		}
	fprintf(f, "\n## What the rig asks of the browser\n\n");
	if (a->rig)
		md_rig(a->rig, f);
	else
		fprintf(f, "```\nno proxied run passed with logs\n```\n");
	report_md_esc(f, "\nFrom the logs in ", a->rig_from[0] ? a->rig_from : "-",
		      ". Every run and figure is in audit.json.\n");
	return report_close(f, "", path, err, errlen);
}

int audit_write_files(const struct audit *a, char *err, size_t errlen)
{
	char path[BENCH_PATH_MAX + 32];

	snprintf(path, sizeof path, "%s/audit.json", a->cfg->out_dir);
	if (report_write_json(audit_json(a), path, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/audit.md", a->cfg->out_dir);
	if (write_md(a, path, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/audit.html", a->cfg->out_dir);
	return audit_write_html(a, path, err, errlen);
}
