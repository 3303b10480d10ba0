/* report_md: report.md, the report as Markdown: findings, one table per body,
 * the A/A checks, what each scenario does, and what failed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "replay.h"
#include "report.h"

void report_md_esc(FILE *f, const char *pre, const char *s, const char *post)
{
	fputs(pre, f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			fputc(' ', f);           /* a newline would end the row or the item */
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if (strchr("\\|`*_[]", c))
			fprintf(f, "\\%c", c);   /* CommonMark: a backslash makes ASCII punctuation literal */
		else
			fputc(c, f);
	}
	fputs(post, f);
}

void report_md_code(FILE *f, const char *s)
{
	size_t run = 0, longest = 0;

	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		fputc('`', f);
	fputc(' ', f);   /* one space each side, stripped by the renderer: s may start with a backtick */
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
	fputc(' ', f);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', f);
}

static void md_header(const struct report *r, FILE *f)
{
	const struct bench_config *cfg = r->cfg;
	json_t *env = r->env;
	char x[160];

	fprintf(f, "# cdpbench: how enabled CDP domains change upload throughput\n\n");
	/* The environment is what commands printed (chromium --version, /proc). */
	fprintf(f, "Started %s, %.0f s wall time%s. ", r->started, r->wall_s,
		r->interrupted ? " (interrupted: partial results)" : "");
	report_md_esc(f, "", json_string_value(json_object_get(env, "chromium")), " on Linux ");
	report_md_esc(f, "", json_string_value(json_object_get(env, "kernel")), ", ");
	report_md_esc(f, "", json_string_value(json_object_get(env, "cpu")), "");
	fprintf(f, " (%lld CPUs), ", (long long)json_integer_value(json_object_get(env, "cpus")));
	report_md_esc(f, "", json_string_value(json_object_get(env, "memory")), " memory.\n\n");
	fprintf(f, "Load average (1 minute) %.1f at the start and %.1f at the end, on %lld CPUs: "
		"other work on the machine widens every interval. Placement %s: the sink on CPUs %s, "
		"the browsers on %s.\n\n",
		json_number_value(json_array_get(json_object_get(env, "load_average_start"), 0)),
		json_number_value(json_array_get(json_object_get(env, "load_average_end"), 0)),
		(long long)json_integer_value(json_object_get(env, "cpus")),
		json_string_value(json_object_get(json_object_get(env, "placement"), "placement")),
		json_string_value(json_object_get(json_object_get(env, "placement"), "sink_cpus")),
		json_string_value(json_object_get(json_object_get(env, "placement"), "browser_cpus")));
	fprintf(f, "%.4g MiB bodies. %d measured rounds after %d warm-up round%s, cells interleaved "
		"round by round. Each trial starts a fresh headless Chromium with a fresh profile; "
		"the page does %s. A cell's value is the median "
		"over rounds of each trial's median transfer, timed in the page; 95%% percentile "
		"bootstrap CIs (%u resamples, seed %llu). Ratios are paired by round, to the "
		"geometric mean of the round's none and none#2 (none#2 itself to none).\n\n",
		(double)cfg->bytes / (1 << 20), bench_measured_rounds(cfg, r->rounds_run), cfg->warmup_rounds,
		cfg->warmup_rounds == 1 ? "" : "s", report_transfers_text(cfg, x, sizeof x),
		cfg->resamples,
		(unsigned long long)cfg->seed);
	if (cfg->budget_s > 0)
		fprintf(f, "Rounds were added, to the cells whose ratio's CI was wider than +-%.3g%% "
			"and to what they are compared with, within a budget of %.0f s: %s.\n\n",
			100 * cfg->target_ci, cfg->budget_s, r->stopped_because);
}

/* "31% / 22%": the spread (sd of log Mbps) between trials and within one. */
static const char *spread(const struct estimate_split *v, char *buf, size_t len)
{
	if (isnan(v->between) || isnan(v->within))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%% / %.0f%%", 100 * sqrt(v->between), 100 * sqrt(v->within));
	return buf;
}

static void md_tables(const struct report *r, FILE *f)
{
	char a[32], b[32], c3[32], d[32], e[32], s[32], sp[48];

	fprintf(f, "## Results\n");
	for (size_t bi = 0; bi < r->nbodies; bi++) {
		report_md_esc(f, "\n### ", r->bodies[bi], "");
		fprintf(f, "\n\n| scenario | Mbps | 95%% CI | vs none | 95%% CI | CI excludes 1 "
			"| within +-%.3g%% | spread trial / transfer | sink Mbps | rounds ok |\n"
			"|---|---:|---|---:|---|:-:|:-:|---:|---:|---:|\n", 100 * r->cfg->target_ci);
		for (size_t i = 0; i < r->ncells; i++) {
			const struct report_cell *c = &r->cells[i];
			if (strcmp(c->body, r->bodies[bi]))
				continue;
			report_md_esc(f, "| ", c->sc->name, "");
			fprintf(f, " | %s | [%s, %s] | %s | ",
				report_mbps(c->mbps.point, a, sizeof a), report_mbps(c->mbps.lo, b, sizeof b),
				report_mbps(c->mbps.hi, c3, sizeof c3),
				c->baseline >= 0 ? report_ratio(c->ratio.point, d, sizeof d) :
				c->sc->kind == SCENARIO_NONE ? "1" : "");
			if (c->baseline >= 0)
				fprintf(f, "[%s, %s] | %s | ", report_ratio(c->ratio.lo, d, sizeof d),
					report_ratio(c->ratio.hi, e, sizeof e),
					estimate_ci_excludes(&c->ratio, 1.0) ? "**yes**" : "no");
			else
				fprintf(f, " | | ");
			fprintf(f, "%s | %s | %s | %d%s |\n", !c->target ? "" : c->inconclusive_by >= 0 ?
				"inconclusive" : c->reached ? "yes" : "no", spread(&c->split, sp, sizeof sp),
				report_mbps(c->sink_mbps.point, s, sizeof s), c->nok,
				c->nfail ? " (some failed)" : "");
		}
	}
	fprintf(f, "\n\"spread trial / transfer\" splits the variance of log Mbps (one-way random "
		"effects, trials as groups): how much trials differ from each other, and transfers "
		"within a trial (as standard deviations, roughly percent). More rounds shrink both "
		"parts; more transfers per trial only the second.\n");
	fprintf(f, "\n\"sink Mbps\" is the same transfers timed at the sink, first to last body "
		"byte: it leaves out the time the browser spends before the first byte leaves.\n");
}

static void md_aa(const struct report *r, FILE *f)
{
	char a[32], b[32], c3[32], gate[1024];
	int any = 0;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		if (c->aa_cell < 0)
			continue;
		if (!any++)
			fprintf(f, "\n## A/A checks\n\nThe same setup measured twice in the same rounds. "
				"A check whose CI excludes 1.0 fails: differences of its size arise from "
				"nothing here, so the cells in its scope (none#2: every ratio to none with its "
				"body; proxy-passthrough: the cells via the proxy) whose ratio is within its "
				"error are inconclusive.\n\n| check | body | ratio | 95%% CI | verdict |\n"
				"|---|---|---:|---|---|\n");
		report_md_esc(f, "| ", c->sc->name, " / ");
		report_md_esc(f, "", c->sc->aa_with, " | ");
		report_md_esc(f, "", c->body, "");
		fprintf(f, " | %s | [%s, %s] | ", report_ratio(c->aa.point, a, sizeof a),
			report_ratio(c->aa.lo, b, sizeof b), report_ratio(c->aa.hi, c3, sizeof c3));
		report_md_esc(f, "", report_aa_gate(r, c, gate, sizeof gate), " |\n");
	}
}

static void md_scenarios(const struct report *r, FILE *f)
{
	char why[512];

	fprintf(f, "\n## Scenarios\n\n| scenario | what it does |\n|---|---|\n");
	for (size_t i = 0; i < r->scenarios->n; i++) {
		const struct scenario *sc = &r->scenarios->v[i];
		report_md_esc(f, "| ", sc->name, " | ");
		report_md_esc(f, "", sc->about, "");
		if (sc->kind == SCENARIO_CDP && sc->source)
			fprintf(f, " (%zu commands)", sc->ncmds);
		replay_lost_text(&sc->lost, why, sizeof why);
		if (*why)
			report_md_esc(f, "; ", why, "");
		if (sc->aa_with[0] && sc->kind != SCENARIO_CDP)
			report_md_esc(f, "; A/A repeat of ", sc->aa_with, "");
		fprintf(f, " |\n");
	}
}

static void md_failures(const struct report *r, FILE *f)
{
	int any = 0;
	size_t k;
	json_t *n;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		for (int round = 0; round < r->rounds_run; round++) {
			const struct bench_sample *s = &c->samples[round];
			if (!s->ran || s->ok)
				continue;
			if (!any++)
				fprintf(f, "\n## Failures\n\n");
			report_md_esc(f, "- ", c->sc->name, " / ");
			report_md_esc(f, "", c->body, "");
			fprintf(f, ", round %d: ", round);
			report_md_esc(f, "", s->error, "\n");
		}
	}
	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		char why[512];
		if (!c->cmds_failed_max)
			continue;
		if (!any++)
			fprintf(f, "\n## Failures\n\n");
		report_md_esc(f, "- ", c->sc->name, " / ");
		report_md_esc(f, "", c->body, ": ");
		report_md_esc(f, "", report_cmds_failed(c, why, sizeof why), "\n");
	}
	if (json_array_size(r->notes)) {
		fprintf(f, "\n## Notes\n\n");
		json_array_foreach(r->notes, k, n)
			report_md_esc(f, "- ", json_string_value(n), "\n");
	}
}

int report_write_md(const struct report *r, const char *path, char *err, size_t errlen)
{
	FILE *f = report_open(path, err, errlen);
	size_t k;
	json_t *s;

	if (!f)
		return -1;
	md_header(r, f);
	fprintf(f, "## Findings\n\n");
	json_array_foreach(r->findings, k, s)
		report_md_esc(f, "- ", json_string_value(s), "\n");
	fprintf(f, "\n");
	md_tables(r, f);
	md_aa(r, f);
	md_scenarios(r, f);
	md_failures(r, f);
	return report_close(f, "", path, err, errlen);
}
