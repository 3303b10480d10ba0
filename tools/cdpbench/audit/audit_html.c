/* audit_html: audit.html, one self-contained page (no network): per arm the
 * wall times of its runs with the median and its CI, per domain the traffic
 * (SVG), the findings, what the rig enables, and the tables. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "audit_view.h"
#include "report.h"

#define DOMAINS_SHOWN 12

/* Per arm: each measured run that passed as a dot, the CI as a band, the
 * median as a bar across it. */
static void wall_chart(const struct audit_view *v, FILE *f)
{
	int rows = (int)v->narms;
	double max = 0;

	for (size_t i = 0; i < v->narms; i++)
		for (size_t k = 0; k < v->arms[i].nruns; k++)
			max = fmax(max, v->arms[i].runs[k]);
	if (!(max > 0))
		return;
	max = report_svg_begin(f, max, rows,
			       "wall time of the command, s (dots: runs; band: 95% CI; bar: median)");
	for (size_t i = 0; i < v->narms; i++) {
		const struct audit_view_arm *arm = &v->arms[i];
		double y = (double)i * CHART_ROW_H, mid = y + CHART_ROW_H / 2.0;
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", CHART_LABEL_W - 8, mid + 4);
		report_html_esc(f, "", arm->name, "</text>\n");
		if (!isnan(arm->wall.lo))
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#4a78c2\" "
				"fill-opacity=\"0.25\"/>\n", CHART_LABEL_W + CHART_PLOT_W * arm->wall.lo / max, y + 5,
				fmax(1, CHART_PLOT_W * (arm->wall.hi - arm->wall.lo) / max), CHART_ROW_H - 10);
		for (size_t k = 0; k < arm->nruns; k++)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#222\"/>\n",
				CHART_LABEL_W + CHART_PLOT_W * arm->runs[k] / max, mid);
		if (!isnan(arm->wall.point))
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c9453b\" "
				"stroke-width=\"2\"/>\n", CHART_LABEL_W + CHART_PLOT_W * arm->wall.point / max, y + 3,
				CHART_LABEL_W + CHART_PLOT_W * arm->wall.point / max, y + CHART_ROW_H - 3);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#222\">%s", CHART_LABEL_W + CHART_PLOT_W + 8, mid + 4,
			arm->wall_text);
		if (i && arm->ratio.known)
			fprintf(f, " · %s×", arm->ratio.text);
		if (arm->nfail)
			fprintf(f, " · %d failed", arm->nfail);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</svg>\n");
}

/* Per domain (busiest first): bytes up and down, stacked, in KiB. */
static void traffic_chart(const json_t *rig, FILE *f)
{
	const json_t *doms = json_object_get(rig, "domains"), *d;
	size_t rows = json_array_size(doms) < DOMAINS_SHOWN ? json_array_size(doms) : DOMAINS_SHOWN, i;
	double max = 0;

	for (i = 0; i < rows; i++) {
		d = json_array_get(doms, i);
		max = fmax(max, (double)(json_integer_value(json_object_get(d, "bytes_up")) +
					 json_integer_value(json_object_get(d, "bytes_down"))) / 1024);
	}
	if (!(max > 0))
		return;
	max = report_svg_begin(f, max, (int)rows, "KiB (dark: to Chrome; light: to the client)");
	for (i = 0; i < rows; i++) {
		double up, down, y = (double)i * CHART_ROW_H;
		d = json_array_get(doms, i);
		up = (double)json_integer_value(json_object_get(d, "bytes_up")) / 1024;
		down = (double)json_integer_value(json_object_get(d, "bytes_down")) / 1024;
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", CHART_LABEL_W - 8, y + 17);
		report_html_esc(f, "", json_string_value(json_object_get(d, "name")), "");
		fprintf(f, "</text><rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#2f5597\"/>"
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#9db7e0\"/>\n",
			CHART_LABEL_W, y + 5, CHART_PLOT_W * up / max, CHART_ROW_H - 10, CHART_LABEL_W + CHART_PLOT_W * up / max, y + 5,
			CHART_PLOT_W * down / max, CHART_ROW_H - 10);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#222\">%lld messages</text>\n",
			CHART_LABEL_W + CHART_PLOT_W * (up + down) / max + 6, y + 17,
			(long long)json_integer_value(json_object_get(d, "messages")));
	}
	fprintf(f, "</svg>\n");
}

static void rig_html(const json_t *rig, FILE *f)
{
	const char *k;
	json_t *v;
	size_t i;

	fprintf(f, "<h2>Findings</h2><ul>\n");
	if (!json_array_size(json_object_get(rig, "findings")))
		fprintf(f, "<li>None of the known-costly patterns.</li>\n");
	json_array_foreach(json_object_get(rig, "findings"), i, v) {
		static const char *const keys[] = { "evidence", "cost", "measured", "remedy" };
		report_html_esc(f, "<li><b>", json_string_value(json_object_get(v, "title")), "</b>");
		for (size_t n = 0; n < sizeof keys / sizeof keys[0]; n++) {
			if (!json_object_get(v, keys[n]))
				continue;
			fprintf(f, "<br><span class=small>%s:</span> ", keys[n]);
			report_html_esc(f, "", json_string_value(json_object_get(v, keys[n])), "");
		}
		fprintf(f, "</li>\n");
	}
	fprintf(f, "</ul>\n<h2>What the rig enables</h2><p class=small>%lld browsers, %lld sessions "
		"(", (long long)json_integer_value(json_object_get(rig, "browsers")),
		(long long)json_integer_value(json_object_get(rig, "sessions")));
	i = 0;
	/* target types are what the browser (or whatever wrote the log) said */
	json_object_foreach(json_object_get(rig, "sessions_by_type"), k, v) {
		fprintf(f, "%s%lld ", i++ ? ", " : "", (long long)json_integer_value(v));
		report_html_esc(f, "", k, "");
	}
	fprintf(f, ")</p><table><tr><th>command</th><th>sessions</th></tr>\n");
	json_object_foreach(json_object_get(rig, "enables"), k, v) {
		report_html_esc(f, "<tr><td>", k, "");
		fprintf(f, "</td><td class=n>%lld</td></tr>\n",
			(long long)json_integer_value(json_object_get(v, "sessions")));
	}
	fprintf(f, "</table>\n<h2>Traffic per domain</h2>\n");
	traffic_chart(rig, f);
	fprintf(f, "<h2>Methods by total round-trip time</h2><table><tr><th>method</th><th>answers"
		"</th><th>total ms</th><th>max ms</th></tr>\n");
	json_array_foreach(json_object_get(rig, "top_rtt"), i, v) {
		report_html_esc(f, "<tr><td>", json_string_value(json_object_get(v, "name")), "");
		fprintf(f, "</td><td class=n>%lld</td><td class=n>%.1f</td><td class=n>%.1f</td></tr>\n",
			(long long)json_integer_value(json_object_get(v, "rtt_n")),
			(double)json_integer_value(json_object_get(v, "rtt_total_us")) / 1000,
			(double)json_integer_value(json_object_get(v, "rtt_max_us")) / 1000);
	}
	fprintf(f, "</table>\n<h2>Largest messages</h2><table><tr><th>method</th><th>direction</th>"
		"<th>session</th><th>bytes</th></tr>\n");
	json_array_foreach(json_object_get(rig, "largest"), i, v) {
		report_html_esc(f, "<tr><td>", json_string_value(json_object_get(v, "method")), "");
		report_html_esc(f, "</td><td>", json_string_value(json_object_get(v, "dir")), "</td><td>");
		report_html_esc(f, "", json_string_value(json_object_get(v, "session")), "");
		fprintf(f, "</td><td class=n>%lld</td></tr>\n",
			(long long)json_integer_value(json_object_get(v, "bytes")));
	}
	fprintf(f, "</table>\n");
}

static void tests_html(const struct audit_view *v, FILE *f)
{
	if (!v->ntests)
		return;
	report_html_esc(f, "<h2>Tests (median seconds; ratio to ", v->arms[0].name,
			")</h2><table><tr><th>test</th>");
	for (size_t i = 0; i < v->narms; i++)
		report_html_esc(f, "<th>", v->arms[i].name, "</th>");
	fprintf(f, "</tr>\n");
	for (size_t t = 0; t < v->ntests; t++) {
		report_html_esc(f, "<tr><td>", v->tests[t].name, "</td>");
		for (size_t i = 0; i < v->narms; i++) {
			const struct audit_view_ratio *rt = &v->tests[t].ratio[i];
			fprintf(f, "<td class=n>%s", v->tests[t].median[i]);
			if (i)
				fprintf(f, " (%s×%s)", rt->text, rt->excludes_1 ? " *" : "");
			fprintf(f, "</td>");
		}
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table><p class=small>* the ratio's 95%% CI excludes 1.0.</p>\n");
}

int audit_write_html(const struct audit_view *v, const char *path, char *err, size_t errlen)
{
	FILE *f = report_html_open(path, "cdpbench audit", "cdpbench audit", err, errlen);

	if (!f)
		return -1;
	fprintf(f, "<p class=small>Started %s, %.0f s wall time. Command: <code>", v->started,
		v->wall_s);
	report_html_esc(f, "", v->command, "");
	fprintf(f, "</code>. %d rounds run (%d warm-up)%s; arms in alternating order. "
		"Chromium: ", v->rounds_run, v->warmup_rounds, v->interrupted ? " (interrupted)" : "");
	report_html_esc(f, "", v->chromium, "");
	fprintf(f, "; %lld CPUs.</p>\n<h2>Wall time per arm</h2>\n", v->cpus);
	wall_chart(v, f);
	fprintf(f, "<ul>\n");
	for (size_t i = 1; i < v->narms; i++) {
		const struct audit_view_arm *arm = &v->arms[i];
		report_html_esc(f, "<li>", arm->name, "");
		fprintf(f, ": %s× [%s, %s] of ", arm->ratio.text, arm->ratio.lo, arm->ratio.hi);
		report_html_esc(f, "", v->arms[0].name, "");
		if (arm->vs_pass.known)
			fprintf(f, "; %s× [%s, %s] of passthrough", arm->vs_pass.text, arm->vs_pass.lo,
				arm->vs_pass.hi);
		fprintf(f, " (%d of %d runs passed)</li>\n", arm->nok, arm->nok + arm->nfail);
	}
	fprintf(f, "</ul>\n");
	tests_html(v, f);
	if (v->rig)
		rig_html(v->rig, f);
	fprintf(f, "<p class=small>Every run, figure and the environment are in audit.json; each "
		"run's output in runs/.</p>\n");
	return report_close(f, REPORT_HTML_END, path, err, errlen);
}
