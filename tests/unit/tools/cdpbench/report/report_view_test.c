/* report_view_test: one report_view rendered by the three renderers (the
 * table, report.md, report.html): each carries the same cells, A/A checks
 * and findings, as its own escaping writes them; and report.json's CIs in
 * the one schema ({point, lo, hi, n}) read back by audit --bench. */
#include "util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_findings.h"
#include "report.h"

#include "report_view.h"
#include "replay.h"
#include "tap.h"

#define ROUNDS 8

enum { NONE, NETWORK, PAGE, RUNTIME, NONE2, NCELLS };

static const struct {
	const char *name;
	enum scenario_kind kind;
	const char *aa_with;
	double mbps;
} spec[NCELLS] = {
	[NONE] = { "none", SCENARIO_NONE, "", 400 },
	[NETWORK] = { "Network", SCENARIO_CDP, "", 40 },
	[PAGE] = { "Page_[x]", SCENARIO_CDP, "", 390 },
	[RUNTIME] = { "Runtime", SCENARIO_CDP, "", 350 },
	[NONE2] = { "none#2", SCENARIO_NONE, "none", 400 },
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *s;

	if (!f)
		return xstrdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = xmalloc((size_t)n + 1);
	s[fread(s, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return s;
}

/* s as the renderer writes it: as is, Markdown-escaped or HTML-escaped. */
static char *as(int how, const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (how == 0)
		fputs(s, f);
	else if (how == 1)
		report_md_esc(f, "", s, "");
	else
		report_html_esc(f, "", s, "");
	fclose(f);
	return out;
}

/* Does every one of the three renderings carry s, escaped as each escapes
 * strings (escape), or as is (cdpbench's own numbers)? */
static int in_all_as(char *const doc[3], const char *s, int escape)
{
	int all = 1;

	for (int how = 0; how < 3; how++) {
		char *e = as(escape ? how : 0, s);
		if (!strstr(doc[how], e)) {
			printf("# %s: no \"%s\"\n", how == 0 ? "table" : how == 1 ? "report.md" : "report.html", e);
			all = 0;
		}
		free(e);
	}
	return all;
}

static int in_all(char *const doc[3], const char *s)
{
	return in_all_as(doc, s, 1);
}

int main(void)
{
	static struct scenario sc[NCELLS];
	static struct report_cell cells[NCELLS];
	struct scenario_list list = { sc, NCELLS };
	struct bench_config cfg;
	struct report r;
	struct report_view v;
	const char *bodies[] = { "u8" };
	char dir[64], path[128], err[256], *doc[3], buf[256];
	size_t len = 0;
	FILE *f;
	int cells_ok = 1, aa_ok = 1, findings_ok = 1;

	memset(&cfg, 0, sizeof cfg);
	cfg.rounds = ROUNDS;
	cfg.transfers = 2;
	cfg.resamples = 500;
	cfg.seed = ESTIMATE_SEED;
	cfg.target_ci = 0.1;
	cfg.bytes = 1 << 20;
	memset(&r, 0, sizeof r);
	r.cfg = &cfg;
	r.cells = cells;
	r.ncells = NCELLS;
	r.scenarios = &list;
	r.bodies = bodies;
	r.nbodies = 1;
	r.rounds_run = ROUNDS;
	r.stopped_because = "the rounds asked for ran";
	r.env = json_pack("{s:s,s:i}", "chromium", "Chromium 1", "cpus", 2);
	r.notes = json_array();
	for (int c = 0; c < NCELLS; c++) {
		snprintf(sc[c].name, sizeof sc[c].name, "%s", spec[c].name);
		sc[c].kind = spec[c].kind;
		sc[c].about = "what it does";
		snprintf(sc[c].aa_with, sizeof sc[c].aa_with, "%s", spec[c].aa_with);
		cells[c].sc = &sc[c];
		cells[c].body = "u8";
		cells[c].samples = xcalloc(ROUNDS, sizeof *cells[c].samples);
		for (int k = 0; k < ROUNDS; k++)
			cells[c].samples[k] = (struct bench_sample){ .ran = 1, .ok = 1,
				.page_mbps = spec[c].mbps * (1 + 0.02 * ((c + k) % 3 - 1)), .sink_mbps = NAN };
	}
	report_compute(&r);
	report_view_build(&v, &r);
	ok(v.nrows == NCELLS && v.naa == 1 && v.nfindings > 0, "the view: %zu rows, %zu A/A, %zu findings",
	   v.nrows, v.naa, v.nfindings);

	snprintf(dir, sizeof dir, "/tmp/report-view-test-%d", (int)getpid());
	mkdir(dir, 0700);
	f = open_memstream(&doc[0], &len);
	report_text(&v, f);
	fclose(f);
	snprintf(path, sizeof path, "%s/report.md", dir);
	ok(report_write_md(&v, path, err, sizeof err) == 0, "report.md written");
	doc[1] = slurp(path);
	snprintf(path, sizeof path, "%s/report.html", dir);
	ok(report_write_html(&v, path, err, sizeof err) == 0, "report.html written");
	doc[2] = slurp(path);

	/* Every cell: its scenario, its Mbps and its ratio to none, in all three. */
	for (size_t i = 0; i < v.nrows; i++) {
		const struct report_view_row *w = &v.rows[i];
		cells_ok &= in_all(doc, w->scenario) && in_all(doc, w->mbps_text);
		if (w->ratio_text[0])
			cells_ok &= in_all(doc, w->ratio_text);
		if (w->compared && w->ratio_has_ci) {
			snprintf(buf, sizeof buf, "[%s, %s]", w->ratio_lo, w->ratio_hi);
			cells_ok &= in_all_as(doc, buf, 0);
		}
	}
	ok(cells_ok, "every cell's scenario, Mbps, ratio and ratio CI in the table, report.md and report.html");
	for (size_t i = 0; i < v.naa; i++) {
		snprintf(buf, sizeof buf, "[%s, %s]", v.aa[i].lo, v.aa[i].hi);
		aa_ok &= in_all_as(doc, v.aa[i].ratio, 0) && in_all_as(doc, buf, 0) &&
			 in_all(doc, v.aa[i].gate);
	}
	ok(aa_ok, "the A/A check and its gate in all three: %s", v.aa[0].gate);
	for (size_t i = 0; i < v.nfindings; i++)
		findings_ok &= in_all(doc, v.findings[i]);
	ok(findings_ok, "every finding in all three");
	ok(v.rows[NETWORK].excludes_1 && strstr(doc[0], "*") && strstr(doc[1], "**yes**") &&
	   strstr(doc[2], " *</td>"), "Network's ratio excludes 1.0: marked in all three");

	/* The verdicts: one per compared cell, the same word in all four outputs. */
	{
		json_t *j = report_json(&r);
		int same = 1;
		for (size_t i = 0; i < v.nrows; i++) {
			const struct report_view_row *w = &v.rows[i];
			const char *jv = json_string_value(json_object_get(json_object_get(
				json_array_get(json_object_get(j, "cells"), i), "verdict"), "verdict"));
			char row[3][256];
			if (!*w->verdict_text) {
				same &= !jv;
				continue;
			}
			snprintf(row[0], sizeof row[0], "[%s, %s]", w->ratio_lo, w->ratio_hi);
			snprintf(row[1], sizeof row[1], "[%s, %s] | %s |", w->ratio_lo, w->ratio_hi,
				 w->verdict_text);
			snprintf(row[2], sizeof row[2], "[%s, %s]</td><td>%s</td>", w->ratio_lo, w->ratio_hi,
				 w->verdict_text);
			{
				/* the table: the verdict on the line of the ratio's CI */
				const char *at = strstr(doc[0], row[0]);
				size_t eol = at ? strcspn(at, "\n") : 0;
				char line[256];
				snprintf(line, sizeof line, "%.*s", (int)eol, at ? at : "");
				same &= at && strstr(line, w->verdict_text) != NULL;
			}
			for (int how = 1; how < 3; how++)
				if (!strstr(doc[how], row[how])) {
					printf("# no \"%s\"\n", row[how]);
					same = 0;
				}
			same &= jv && !strcmp(jv, w->verdict_text);
		}
		ok(same, "every verdict in the table, report.md, report.html and report.json alike");
		ok(v.rows[NETWORK].verdict == REPORT_SLOWER && v.rows[PAGE].verdict == REPORT_NO_CLEAR_EFFECT &&
		   v.rows[RUNTIME].verdict == REPORT_INCONCLUSIVE && v.rows[NONE].verdict == REPORT_NO_VERDICT &&
		   v.rows[NONE2].verdict == REPORT_NO_VERDICT,
		   "Network (0.1x) is slower, Page (0.97x) no clear effect, Runtime (0.87x) inconclusive; "
		   "none and none#2 get none");
		ok(strstr(doc[0], v.verdict_rule) && in_all(doc, v.verdict_rule), "the rule in all three");
		json_decref(j);
	}

	/* report.json's CIs: {point, lo, hi, n}, and what audit --bench reads. */
	{
		json_t *j = report_json(&r), *cell = json_array_get(json_object_get(j, "cells"), NETWORK);
		json_t *ci = json_object_get(cell, "ratio_ci");
		json_t *findings = json_pack("[{s:s}]", "scenario", "Network");
		const char *measured;
		char want[64];

		ok(json_object_size(ci) == 4 && json_number_value(json_object_get(ci, "point")) ==
		   json_number_value(json_object_get(cell, "ratio_to_none")) &&
		   json_integer_value(json_object_get(ci, "n")) == ROUNDS,
		   "ratio_ci is {point, lo, hi, n}");
		audit_findings_cite(findings, j, "bench.json");
		measured = json_string_value(json_object_get(json_array_get(findings, 0), "measured"));
		snprintf(want, sizeof want, "[%.2f, %.2f]", cells[NETWORK].ratio.lo, cells[NETWORK].ratio.hi);
		ok(measured && strstr(measured, want), "audit --bench cites the CI %s: %s", want,
		   measured ? measured : "(none)");
		json_decref(findings);
		json_decref(j);
	}

	/* audit --bench on a report with the Fetch and download cells: fetch-all
	 * quotes u8 and Blob uploads and its remedy; network-postdata downloads. */
	{
		json_t *bench = json_pack("{s:[{s:s,s:s,s:f,s:{s:f,s:f},s:{s:s}},{s:s,s:s,s:f,s:{s:f,s:f},s:{s:s}},"
					  "{s:s,s:s,s:f,s:{s:f,s:f},s:{s:s}},{s:s,s:s,s:f,s:{s:f,s:f},s:{s:s}}]}",
			"cells",
			"scenario", "playwright-route", "body", "u8", "ratio_to_none", 0.13,
			"ratio_ci", "lo", 0.12, "hi", 0.14, "verdict", "verdict", "slower",
			"scenario", "playwright-route", "body", "blob", "ratio_to_none", 0.08,
			"ratio_ci", "lo", 0.07, "hi", 0.11, "verdict", "verdict", "slower",
			"scenario", "pw-route-routes-only", "body", "u8", "ratio_to_none", 0.97,
			"ratio_ci", "lo", 0.9, "hi", 1.05, "verdict", "verdict", "no clear effect",
			"scenario", "playwright", "body", "download", "ratio_to_none", 0.71,
			"ratio_ci", "lo", 0.57, "hi", 0.78, "verdict", "verdict", "slower");
		json_t *findings = json_pack("[{s:s,s:s},{s:s,s:s},{s:s,s:s}]", "id", "fetch-all",
					     "scenario", "Fetch", "id", "network-postdata", "scenario",
					     "Network", "id", "tracing", "scenario", "tracing");
		const char *fetch, *net;

		audit_findings_cite(findings, bench, "bench.json");
		fetch = json_string_value(json_object_get(json_array_get(findings, 0), "measured"));
		net = json_string_value(json_object_get(json_array_get(findings, 1), "measured"));
		ok(fetch && strstr(fetch, "u8 uploads at 0.13x [0.12, 0.14] of no debugger (cdpbench scenario "
				  "playwright-route: slower)") && strstr(fetch, "; Blob uploads at 0.08x") &&
		   strstr(fetch, "u8 uploads under policy fetch-routes-only at 0.97x [0.90, 1.05]"),
		   "fetch-all quotes uploads of both bodies and the remedy: %s", fetch ? fetch : "(none)");
		ok(net && strstr(net, "downloads at 0.71x [0.57, 0.78] of no debugger (cdpbench scenario "
				"playwright: slower)") && !strstr(net, "u8 uploads"),
		   "network-postdata quotes downloads (and no u8 cell it lacks): %s", net ? net : "(none)");
		ok(!json_object_get(json_array_get(findings, 2), "measured"),
		   "a finding the report has no cell for quotes nothing");
		json_decref(findings);
		json_decref(bench);
	}

	for (int i = 0; i < 3; i++)
		free(doc[i]);
	report_view_free(&v);
	for (int c = 0; c < NCELLS; c++)
		free(cells[c].samples);
	json_decref(r.findings);
	json_decref(r.notes);
	json_decref(r.env);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	(void)!system(path);
	return tap_done();
}
