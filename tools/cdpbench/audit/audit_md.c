/* audit_md: audit.md: the command, per arm the wall time and its ratio, the
 * tests, the runs that failed, and what the rig asks of the browser. */
#include "audit_view.h"

#include <stdio.h>
#include <string.h>

#include "report.h"

/* The rig's text (log strings in it) as a fenced code block: its fence
 * longer than any run of backticks in the text, so nothing ends it early. */
static void md_rig(const char *text, FILE *f)
{
	size_t run = 0, longest = 2;

	for (const char *p = text; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		fputc('`', f);
	fprintf(f, "\n%s", text);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', f);
	fputc('\n', f);
}

int audit_write_md(const struct audit_view *v, const char *path, char *err, size_t errlen)
{
	FILE *f = report_open(path, err, errlen);

	if (!f)
		return -1;
	/* Every string below that is not cdpbench's own (the command, arm and
	 * test names, errors with the command's output, the logs' strings) is
	 * escaped: Markdown renders HTML, and a | ends a cell. */
	fprintf(f, "# cdpbench audit\n\nStarted %s, %.0f s. Command: ", v->started, v->wall_s);
	report_md_code(f, v->command);
	fprintf(f, ". %d rounds run (%d warm-up)%s.\n\n| arm | runs ok | median wall | 95%% CI | ",
		v->rounds_run, v->warmup_rounds, v->interrupted ? ", interrupted" : "");
	report_md_esc(f, "ratio to ", v->arms[0].name, " | 95% CI | |\n|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < v->narms; i++) {
		const struct audit_view_arm *arm = &v->arms[i];
		report_md_esc(f, "| ", arm->name, "");
		fprintf(f, " | %d/%d | %s | %s | %s | %s | %s |\n", arm->nok, arm->nok + arm->nfail,
			arm->wall_text, arm->wall_ci, arm->ratio.text, arm->ratio.ci,
			i ? arm->ratio.verdict : "baseline");
	}
	for (size_t i = 0; i < v->narms; i++)
		if (v->arms[i].policy && v->arms[i].vs_pass.known) {
			report_md_esc(f, "\n", v->arms[i].name, "");
			fprintf(f, " against passthrough: %sx %s %s.\n", v->arms[i].vs_pass.text,
				v->arms[i].vs_pass.ci, v->arms[i].vs_pass.verdict);
		}
	if (v->ntests) {
		fprintf(f, "\n## Tests\n\n| test |");
		for (size_t i = 0; i < v->narms; i++)
			report_md_esc(f, " ", v->arms[i].name, " |");
		fprintf(f, "\n|---|");
		for (size_t i = 0; i < v->narms; i++)
			fprintf(f, "---|");
		fprintf(f, "\n");
		for (size_t t = 0; t < v->ntests; t++) {
			report_md_esc(f, "| ", v->tests[t].name, " |");
			for (size_t i = 0; i < v->narms; i++)
				fprintf(f, " %s%s%s%s |", v->tests[t].median[i], i ? " (" : "",
					i ? v->tests[t].ratio[i].text : "", i ? "x)" : "");
			fprintf(f, "\n");
		}
	}
	fprintf(f, "\n## Runs that failed, or whose JUnit file was not read\n\n");
	for (size_t k = 0; k < v->nfailures; k++) {
		fprintf(f, "- round %d, ", v->failures[k].round);
		report_md_esc(f, "", v->failures[k].arm, ": ");
		report_md_esc(f, "", v->failures[k].error, "\n");
	}
	fprintf(f, "\n## What the rig asks of the browser\n\n");
	if (v->rig_text)
		md_rig(v->rig_text, f);
	else
		fprintf(f, "```\nno proxied run passed with logs\n```\n");
	report_md_esc(f, "\nFrom the logs in ", v->rig_from[0] ? v->rig_from : "-",
		      ". Every run and figure is in audit.json.\n");
	return report_close(f, "", path, err, errlen);
}
