/* report_html: report.html, one self-contained page (no network): findings, an
 * SVG bar chart per body with CI error bars, and the tables; and the frame
 * (escaping, head, chart axes) of every page cdpbench writes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_view.h"

void report_html_esc(FILE *f, const char *pre, const char *s, const char *post)
{
	fputs(pre, f);
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
	fputs(post, f);
}

/* A round step for about five ticks up to max. */
static double tick_step(double max)
{
	double raw = max / 5, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

FILE *report_html_open(const char *path, const char *title, const char *h1, char *err,
		       size_t errlen)
{
	FILE *f = report_open(path, err, errlen);

	if (!f)
		return NULL;
	report_html_esc(f, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>",
			title, "</title>");
	fprintf(f, "<style>body{font-family:sans-serif;max-width:900px;margin:2em auto;"
		"color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}"
		"td,th{border:1px solid #ccc;padding:2px 8px}td.n{text-align:right}"
		"th{background:#f2f2f2}li{margin:.4em 0}.small{color:#555;font-size:90%%}</style>"
		"</head><body>\n<h1>");
	report_html_esc(f, "", h1, "</h1>\n");
	return f;
}

double report_svg_begin(FILE *f, double max, int rows, const char *label)
{
	double step = tick_step(max * 1.05);

	max = ceil(max * 1.05 / step) * step;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n",
		CHART_LABEL_W + CHART_PLOT_W + CHART_VALUE_W, rows * CHART_ROW_H + CHART_AXIS_H + 10);
	for (double t = 0; t <= max + step / 2; t += step) {
		double x = CHART_LABEL_W + CHART_PLOT_W * t / max;
		fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e4e4e4\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n",
			x, x, rows * CHART_ROW_H, x, rows * CHART_ROW_H + 16, t);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">",
		CHART_LABEL_W + CHART_PLOT_W / 2, rows * CHART_ROW_H + CHART_AXIS_H + 4);
	report_html_esc(f, "", label, "</text>\n");
	return max;
}

static const char *bar_color(const struct report_view_row *w)
{
	if (w->kind == SCENARIO_NATIVE)
		return "#555";
	if (w->kind == SCENARIO_NONE)
		return "#999";
	if (w->verdict == REPORT_SLOWER || w->verdict == REPORT_FASTER)
		return w->verdict == REPORT_SLOWER ? "#c9453b" : "#3b8f4e";
	return "#4a78c2";
}

static void chart(const struct report_view *v, const char *body, FILE *f)
{
	double max = 0, base = NAN;
	int rows = 0, row = 0;

	for (size_t i = 0; i < v->nrows; i++) {
		const struct report_view_row *w = &v->rows[i];
		if (strcmp(w->body, body))
			continue;
		rows++;
		if (w->is_none)
			base = w->mbps.point;
		/* native is drawn clipped, so that it does not flatten every other bar */
		if (w->kind != SCENARIO_NATIVE) {
			if (w->mbps.hi > max)
				max = w->mbps.hi;
			if (w->mbps.point > max)
				max = w->mbps.point;
		}
	}
	if (!rows)
		return;
	if (!(max > 0))
		max = 1;
	max = report_svg_begin(f, max, rows, "Mbps (median, 95% CI)");
	for (size_t i = 0; i < v->nrows; i++) {
		const struct report_view_row *w = &v->rows[i];
		double y = row * CHART_ROW_H, width, lo, hi, end;
		int clipped;

		if (strcmp(w->body, body))
			continue;
		row++;
		clipped = w->mbps.point > max;
		width = isnan(w->mbps.point) ? 0 : CHART_PLOT_W * fmin(w->mbps.point, max) / max;
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", CHART_LABEL_W - 8, y + 16);
		report_html_esc(f, "", w->scenario, "");
		fprintf(f, "</text><rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
			CHART_LABEL_W, y + 4, width, CHART_ROW_H - 8, bar_color(w));
		end = CHART_LABEL_W + width;
		if (!isnan(w->mbps.lo) && !clipped) {
			lo = CHART_LABEL_W + CHART_PLOT_W * fmin(w->mbps.lo, max) / max;
			hi = CHART_LABEL_W + CHART_PLOT_W * fmin(w->mbps.hi, max) / max;
			fprintf(f, "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\" stroke=\"#222\" "
				"fill=\"none\"/>\n", lo, y + CHART_ROW_H / 2.0, hi, lo, y + 7.0, y + CHART_ROW_H - 7.0,
				hi, y + 7.0, y + CHART_ROW_H - 7.0);
			end = fmax(end, hi);
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#222\">%s%s", end + 6, y + 16,
			w->mbps_text, clipped ? " (off scale)" : "");
		if (w->compared && !isnan(w->ratio_point))
			fprintf(f, " · %s×", w->ratio_text);
		if (*w->verdict_text)
			fprintf(f, " · %s", w->verdict_text);
		fprintf(f, "</text>\n");
	}
	if (!isnan(base) && base <= max) {
		double x = CHART_LABEL_W + CHART_PLOT_W * base / max;
		fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\" "
			"stroke-dasharray=\"4 3\"/>\n", x, x, rows * CHART_ROW_H);
	}
	fprintf(f, "</svg>\n");
}

static void table(const struct report_view *v, const char *body, FILE *f)
{
	fprintf(f, "<table><tr><th>scenario</th><th>Mbps</th><th>95%% CI</th><th>vs none</th>"
		"<th>95%% CI</th><th>verdict</th><th>sink Mbps</th><th>rounds ok</th></tr>\n");
	for (size_t i = 0; i < v->nrows; i++) {
		const struct report_view_row *w = &v->rows[i];
		if (strcmp(w->body, body))
			continue;
		report_html_esc(f, "<tr><td>", w->scenario, "");
		fprintf(f, "</td><td class=n>%s</td><td>[%s, %s]</td><td class=n>%s%s</td><td>",
			w->mbps_text, w->mbps_lo, w->mbps_hi, w->ratio_text, w->excludes_1 ? " *" : "");
		if (w->compared)
			fprintf(f, "[%s, %s]", w->ratio_lo, w->ratio_hi);
		fprintf(f, "</td><td>%s", w->verdict_text);
		fprintf(f, "</td><td class=n>%s</td><td class=n>%d%s</td></tr>\n", w->sink_text, w->nok,
			w->nfail ? " (failures)" : "");
	}
	fprintf(f, "</table>\n");
}

int report_write_html(const struct report_view *v, const char *path, char *err, size_t errlen)
{
	FILE *f = report_html_open(path, "cdpbench report",
				   "cdpbench: how enabled CDP domains change upload throughput", err, errlen);

	if (!f)
		return -1;
	fprintf(f, "<p class=small>Started %s, %.0f s wall time. ", v->started, v->wall_s);
	report_html_esc(f, "", v->chromium, "; Linux ");
	report_html_esc(f, "", v->kernel, "; ");
	report_html_esc(f, "", v->cpu, "");
	fprintf(f, " (%lld CPUs). %.4g MiB bodies, %d measured rounds after %d warm-up. Bars: median "
		"Mbps timed in the page; whiskers: 95%% bootstrap CI; dashed line: no debugger; red: "
		"slower, green: faster.</p>\n", v->cpus, v->mib, v->measured_rounds,
		v->warmup_rounds);
	report_html_esc(f, "<p class=small>", v->verdict_rule, ".");
	report_html_esc(f, v->verdict_counts[0] ? " This run: " : "", v->verdict_counts,
			v->verdict_counts[0] ? ".</p>\n" : "</p>\n");
	fprintf(f, "<h2>Findings</h2><ul>\n");
	for (size_t i = 0; i < v->nfindings; i++)
		report_html_esc(f, "<li>", v->findings[i], "</li>\n");
	fprintf(f, "</ul>\n");
	for (size_t i = 0; i < v->nbodies; i++) {
		report_html_esc(f, "<h2>", v->bodies[i], "</h2>\n");
		chart(v, v->bodies[i], f);
		table(v, v->bodies[i], f);
	}
	fprintf(f, "<h2>A/A checks</h2><ul>\n");
	for (size_t i = 0; i < v->naa; i++) {
		const struct report_view_aa *a = &v->aa[i];
		report_html_esc(f, "<li>", a->scenario, " / ");
		report_html_esc(f, "", a->aa_with, "");
		report_html_esc(f, ", ", a->body, ": ");
		fprintf(f, "%s [%s, %s] ", a->ratio, a->lo, a->hi);
		report_html_esc(f, "", a->gate, "</li>\n");
	}
	fprintf(f, "</ul>\n<h2>Scenarios</h2><table>\n");
	for (size_t i = 0; i < v->nscenarios; i++) {
		report_html_esc(f, "<tr><td>", v->scenarios[i].name, "</td><td>");
		report_html_esc(f, "", v->scenarios[i].about, "</td></tr>\n");
	}
	fprintf(f, "</table>\n<p class=small>Every sample, the environment and the flags are in "
		"report.json.</p>\n");
	return report_close(f, REPORT_HTML_END, path, err, errlen);
}
