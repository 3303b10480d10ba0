/* report_md: report.md, the report as Markdown: findings, one table per body,
 * the A/A checks, what each scenario does, and what failed; and the escaping
 * every Markdown file cdpbench writes uses. */
#include <stdio.h>
#include <string.h>

#include "report_view.h"

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

static void md_header(const struct report_view *v, FILE *f)
{
	fprintf(f, "# cdpbench: how enabled CDP domains change upload throughput\n\n");
	fprintf(f, "Started %s, %.0f s wall time%s. ", v->started, v->wall_s,
		v->interrupted ? " (interrupted: partial results)" : "");
	report_md_esc(f, "", v->chromium, " on Linux ");
	report_md_esc(f, "", v->kernel, ", ");
	report_md_esc(f, "", v->cpu, "");
	fprintf(f, " (%lld CPUs), ", v->cpus);
	report_md_esc(f, "", v->memory, " memory.\n\n");
	fprintf(f, "Load average (1 minute) %.1f at the start and %.1f at the end, on %lld CPUs: "
		"other work on the machine widens every interval. Placement %s: the sink on CPUs %s, "
		"the browsers on %s.\n\n", v->load_start, v->load_end, v->cpus, v->placement,
		v->sink_cpus, v->browser_cpus);
	fprintf(f, "%.4g MiB bodies. %d measured rounds after %d warm-up round%s, cells interleaved "
		"round by round. Each trial starts a fresh headless Chromium with a fresh profile; "
		"the page does %s. A cell's value is the median "
		"over rounds of each trial's median transfer, timed in the page; 95%% percentile "
		"bootstrap CIs (%u resamples, seed %llu). Ratios are paired by round, to the "
		"geometric mean of the round's none and none#2 (none#2 itself to none).\n\n",
		v->mib, v->measured_rounds, v->warmup_rounds, v->warmup_rounds == 1 ? "" : "s",
		v->transfers, v->resamples, v->seed);
	if (v->budget_s > 0)
		fprintf(f, "Rounds were added, to the cells whose ratio's CI was wider than +-%.3g%% "
			"and to what they are compared with, within a budget of %.0f s: %s.\n\n",
			v->target_pct, v->budget_s, v->stopped_because);
}

static void md_tables(const struct report_view *v, FILE *f)
{
	static const char *const marks[] = {
		[REPORT_NO_TARGET] = "", [REPORT_REACHED] = "yes", [REPORT_MISSED] = "no",
		[REPORT_GATED] = "no (A/A failed)",
	};

	fprintf(f, "## Results\n");
	for (size_t bi = 0; bi < v->nbodies; bi++) {
		report_md_esc(f, "\n### ", v->bodies[bi], "");
		fprintf(f, "\n\n| scenario | Mbps | 95%% CI | vs none | 95%% CI | verdict | CI excludes 1 "
			"| within +-%.3g%% | spread trial / transfer | sink Mbps | rounds ok |\n"
			"|---|---:|---|---:|---|---|:-:|:-:|---:|---:|---:|\n", v->target_pct);
		for (size_t i = 0; i < v->nrows; i++) {
			const struct report_view_row *w = &v->rows[i];
			if (strcmp(w->body, v->bodies[bi]))
				continue;
			report_md_esc(f, "| ", w->scenario, "");
			fprintf(f, " | %s | [%s, %s] | %s | ", w->mbps_text, w->mbps_lo, w->mbps_hi,
				w->ratio_text);
			if (w->compared)
				fprintf(f, "[%s, %s] | %s | %s | ", w->ratio_lo, w->ratio_hi, w->verdict_text,
					w->excludes_1 ? "**yes**" : "no");
			else
				fprintf(f, " | | | ");
			fprintf(f, "%s | %s | %s | %d%s |\n", marks[w->mark], w->spread, w->sink_text,
				w->nok, w->nfail ? " (some failed)" : "");
		}
	}
	report_md_esc(f, "\n", v->verdict_rule, ".");
	if (v->verdict_counts[0])
		report_md_esc(f, " This run: ", v->verdict_counts, ".");
	fprintf(f, "\n");
	fprintf(f, "\n\"spread trial / transfer\" splits the variance of log Mbps (one-way random "
		"effects, trials as groups): how much trials differ from each other, and transfers "
		"within a trial (as standard deviations, roughly percent). More rounds shrink both "
		"parts; more transfers per trial only the second.\n");
	fprintf(f, "\n\"sink Mbps\" is the same transfers timed at the sink, first to last body "
		"byte: it leaves out the time the browser spends before the first byte leaves.\n");
}

static void md_aa(const struct report_view *v, FILE *f)
{
	for (size_t i = 0; i < v->naa; i++) {
		const struct report_view_aa *a = &v->aa[i];
		if (!i)
			fprintf(f, "\n## A/A checks\n\nThe same setup measured twice in the same rounds. "
				"A check whose CI excludes 1.0 fails: differences of its size arise from "
				"nothing here, so the cells in its scope (none#2: every ratio to none with its "
				"body; proxy-passthrough: the cells via the proxy) whose ratio is within its "
				"error are inconclusive.\n\n| check | body | ratio | 95%% CI | verdict |\n"
				"|---|---|---:|---|---|\n");
		report_md_esc(f, "| ", a->scenario, " / ");
		report_md_esc(f, "", a->aa_with, " | ");
		report_md_esc(f, "", a->body, "");
		fprintf(f, " | %s | [%s, %s] | ", a->ratio, a->lo, a->hi);
		report_md_esc(f, "", a->gate, " |\n");
	}
}

static void md_scenarios(const struct report_view *v, FILE *f)
{
	fprintf(f, "\n## Scenarios\n\n| scenario | what it does |\n|---|---|\n");
	for (size_t i = 0; i < v->nscenarios; i++) {
		report_md_esc(f, "| ", v->scenarios[i].name, " | ");
		report_md_esc(f, "", v->scenarios[i].about, "");
		report_md_esc(f, "", v->scenarios[i].more, " |\n");
	}
}

static void md_failures(const struct report_view *v, FILE *f)
{
	if (v->nfailures)
		fprintf(f, "\n## Failures\n\n");
	for (size_t i = 0; i < v->nfailures; i++) {
		const struct report_view_failure *x = &v->failures[i];
		report_md_esc(f, "- ", x->scenario, " / ");
		report_md_esc(f, "", x->body, "");
		if (x->round >= 0)
			fprintf(f, ", round %d", x->round);
		report_md_esc(f, ": ", x->what, "\n");
	}
	if (v->nnotes)
		fprintf(f, "\n## Notes\n\n");
	for (size_t i = 0; i < v->nnotes; i++)
		report_md_esc(f, "- ", v->notes[i], "\n");
}

int report_write_md(const struct report_view *v, const char *path, char *err, size_t errlen)
{
	FILE *f = report_open(path, err, errlen);

	if (!f)
		return -1;
	md_header(v, f);
	fprintf(f, "## Findings\n\n");
	for (size_t i = 0; i < v->nfindings; i++)
		report_md_esc(f, "- ", v->findings[i], "\n");
	fprintf(f, "\n");
	md_tables(v, f);
	md_aa(v, f);
	md_scenarios(v, f);
	md_failures(v, f);
	return report_close(f, "", path, err, errlen);
}
