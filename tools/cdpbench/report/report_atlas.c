/* report_atlas: `cdpbench --atlas`'s files: every scenario's ratio to no
 * debugger on every workload as one heatmap (atlas.html, an offline SVG) and
 * as data (atlas.json), from the same figures and view as the report. */
#include "report_view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define ATLAS_LABEL_W 180
#define ATLAS_CELL_W 86
#define ATLAS_CELL_H 40
#define ATLAS_HEAD_H 26
#define ATLAS_LEGEND_H 70
#define ATLAS_STOP_W 48
#define ATLAS_LEGEND_W (8 * ATLAS_STOP_W + 24 + 78 + 200)   /* the stops, the hatch, its text */
#define ATLAS_LOG2_SPAN 3.0   /* full colour at 1/8x and 8x */

/* The heatmap's rows: every scenario measured against none (its A/A repeat
 * included), not none itself or native. */
static int atlas_row(const struct scenario *sc)
{
	return sc->kind == SCENARIO_CDP || (sc->kind == SCENARIO_NONE && sc->aa_with[0]);
}

/* The cell of scenario sc with body, or NULL. */
static const struct report_cell *atlas_cell(const struct report *r, const struct scenario *sc,
					    const char *body, size_t *index)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].sc == sc && !strcmp(r->cells[i].body, body)) {
			*index = i;
			return &r->cells[i];
		}
	return NULL;
}

/* A ratio's CI is wide when its half-width is over the target (or unknown),
 * or when it rests on fewer than ATLAS_MIN_ROUNDS rounds: two atlas runs of 3
 * rounds each disagreed on 2 cells whose CIs were within +-10% in one of them
 * (tools/cdpbench/README.md, "How long, and two runs"). */
static int atlas_wide(const struct report *r, const struct report_cell *c)
{
	return c->ratio.n < ATLAS_MIN_ROUNDS ||
	       !(estimate_ci_rel_halfwidth(&c->ratio) <= r->cfg->target_ci);
}

/* White at 1x, red as it slows down, blue as it speeds up, on a log scale. */
static void atlas_colour(double ratio, char *buf, size_t len)
{
	static const int slow[3] = { 0xc0, 0x39, 0x2b }, fast[3] = { 0x2b, 0x5c, 0xc0 };
	double t = log2(ratio) / ATLAS_LOG2_SPAN;
	const int *to = t < 0 ? slow : fast;
	int rgb[3];

	t = fmin(fabs(t), 1);
	for (int k = 0; k < 3; k++)
		rgb[k] = (int)lround(255 + (to[k] - 255) * t);
	snprintf(buf, len, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static json_t *atlas_json(const struct report *r)
{
	const struct bench_config *cfg = r->cfg;
	json_t *rows = json_array(), *bodies = json_array(), *cells = json_array();

	for (size_t b = 0; b < r->nbodies; b++)
		json_array_append_new(bodies, json_string(r->bodies[b]));
	for (size_t s = 0; s < r->scenarios->n; s++) {
		const struct scenario *sc = &r->scenarios->v[s];
		if (!atlas_row(sc))
			continue;
		json_array_append_new(rows, json_string(sc->name));
		for (size_t b = 0; b < r->nbodies; b++) {
			size_t i;
			const struct report_cell *c = atlas_cell(r, sc, r->bodies[b], &i);
			if (!c)
				continue;
			json_array_append_new(cells, json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:b,s:b,s:i,s:i,s:o}",
				"scenario", sc->name, "workload", c->body, "ratio", report_ci_json(&c->ratio),
				"mbps", report_ci_json(&c->mbps),
				"ci_halfwidth", report_num_json(estimate_ci_rel_halfwidth(&c->ratio)),
				"noise_sd", report_num_json(c->noise_sd),
				"wide_ci", atlas_wide(r, c), "excludes_1", estimate_ci_excludes(&c->ratio, 1.0),
				"trials_ok", c->nok, "trials_failed", c->nfail,
				"error", c->error ? json_string(c->error) : json_null()));
		}
	}
	return json_pack("{s:s,s:i,s:s,s:f,s:b,s:{s:f,s:i,s:i,s:f,s:I,s:b},s:s,s:s,s:o,s:o,s:o,s:O,s:s}",
		"tool", "cdpbench atlas", "version", 1, "started", r->started, "wall_seconds", r->wall_s,
		"interrupted", r->interrupted,
		"config", "mib", (double)cfg->bytes / (1 << 20),
		"measured_rounds", bench_measured_rounds(cfg, r->rounds_run),
		"warmup_rounds", cfg->warmup_rounds, "target_ci", cfg->target_ci,
		"order_seed", (json_int_t)cfg->order_seed, "by_workload", cfg->by_workload,
		"baseline", "none",
		"ratio", "median of per-round ratios of page Mbps to 'none' with the same workload (the "
			 "geometric mean of 'none' and 'none#2' where both ran; 'none#2' itself to 'none'); "
			 "percentile bootstrap CI over rounds, widened to no narrower than the normal-theory "
			 "CI of a median whose log per-round ratios scatter by noise_sd, their SD pooled "
			 "over the workload's cells; below 1 is slower",
		"scenarios", rows, "workloads", bodies, "cells", cells, "environment", r->env,
		"samples", "report.json");
}

static void atlas_cell_svg(FILE *f, const struct report *r, const struct report_cell *c,
			   const struct report_view_row *w, double x, double y)
{
	char fill[8] = "#eeeeee";
	int has = !isnan(c->ratio.point), wide = atlas_wide(r, c);
	int dark = has && fabs(log2(c->ratio.point)) / ATLAS_LOG2_SPAN > 0.55;

	if (has)
		atlas_colour(c->ratio.point, fill, sizeof fill);
	fprintf(f, "<g><title>");
	report_html_esc(f, "", w->scenario, " / ");
	report_html_esc(f, "", w->body, ": ");
	if (has)
		fprintf(f, "%s× [%s, %s] of no debugger, %d rounds%s", w->ratio_text, w->ratio_lo,
			w->ratio_hi, (int)c->ratio.n, wide ? "; CI wider than the target" : "");
	else
		report_html_esc(f, "no ratio: ", c->error ? c->error : "too few trials", "");
	fprintf(f, "</title><rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"%s\" "
		"stroke=\"#fff\"/>", x, y, ATLAS_CELL_W, ATLAS_CELL_H, fill);
	if (wide && has)
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"url(#wide)\"/>",
			x, y, ATLAS_CELL_W, ATLAS_CELL_H);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-weight=\"bold\" "
		"fill=\"%s\">%s%s</text>", x + ATLAS_CELL_W / 2.0, y + 17, dark ? "#fff" : "#222",
		has ? w->ratio_text : c->nfail ? "failed" : "-", has && wide ? " ~" : "");
	if (has && w->ratio_has_ci)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"10\" "
			"fill=\"%s\">[%s, %s]</text>", x + ATLAS_CELL_W / 2.0, y + 32,
			dark ? "#fff" : "#444", w->ratio_lo, w->ratio_hi);
	fprintf(f, "</g>\n");
}

static void atlas_legend(FILE *f, const struct report *r, double y)
{
	static const double stops[] = { 0.125, 0.25, 0.5, 0.71, 1, 1.41, 2, 4 };
	char fill[8];
	double x = ATLAS_LABEL_W;

	fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">ratio to no debugger</text>\n",
		ATLAS_LABEL_W - 8, y + 20);
	for (size_t k = 0; k < sizeof stops / sizeof stops[0]; k++, x += ATLAS_STOP_W) {
		atlas_colour(stops[k], fill, sizeof fill);
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"22\" fill=\"%s\" "
			"stroke=\"#ccc\"/><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%g×</text>\n",
			x, y + 6, ATLAS_STOP_W, fill, x + ATLAS_STOP_W / 2.0, y + 44, stops[k]);
	}
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"48\" height=\"22\" fill=\"url(#wide)\" "
		"stroke=\"#ccc\"/><text x=\"%.0f\" y=\"%.0f\">~ CI half-width over %.0f%%</text>\n",
		x + 24, y + 6, x + 78, y + 22, 100 * r->cfg->target_ci);
}

static void atlas_svg(FILE *f, const struct report *r, const struct report_view *v)
{
	int rows = 0, width = ATLAS_LABEL_W + (int)r->nbodies * ATLAS_CELL_W + 10;
	double y;

	for (size_t s = 0; s < r->scenarios->n; s++)
		rows += atlas_row(&r->scenarios->v[s]);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n"
		"<defs><pattern id=\"wide\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
		"patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
		"stroke=\"#000\" stroke-opacity=\"0.25\" stroke-width=\"2\"/></pattern></defs>\n",
		width > ATLAS_LABEL_W + ATLAS_LEGEND_W ? width : ATLAS_LABEL_W + ATLAS_LEGEND_W,
		ATLAS_HEAD_H + rows * ATLAS_CELL_H + ATLAS_LEGEND_H);
	for (size_t b = 0; b < r->nbodies; b++) {
		fprintf(f, "<text x=\"%.0f\" y=\"18\" text-anchor=\"middle\" font-weight=\"bold\">",
			ATLAS_LABEL_W + (b + 0.5) * ATLAS_CELL_W);
		report_html_esc(f, "", r->bodies[b], "</text>\n");
	}
	y = ATLAS_HEAD_H;
	for (size_t s = 0; s < r->scenarios->n; s++) {
		const struct scenario *sc = &r->scenarios->v[s];
		if (!atlas_row(sc))
			continue;
		fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", ATLAS_LABEL_W - 8,
			y + ATLAS_CELL_H / 2.0 + 4);
		report_html_esc(f, "", sc->name, sc->kind == SCENARIO_NONE ? " (A/A)</text>\n" :
				"</text>\n");
		for (size_t b = 0; b < r->nbodies; b++) {
			size_t i;
			const struct report_cell *c = atlas_cell(r, sc, r->bodies[b], &i);
			if (c)
				atlas_cell_svg(f, r, c, &v->rows[i], ATLAS_LABEL_W + (double)b * ATLAS_CELL_W, y);
		}
		y += ATLAS_CELL_H;
	}
	atlas_legend(f, r, y + 6);
	fprintf(f, "</svg>\n");
}

static int atlas_html(const struct report *r, const struct report_view *v, const char *path,
		      char *err, size_t errlen)
{
	FILE *f = report_html_open(path, "cdpbench atlas",
				   "cdpbench atlas: what each CDP domain and rig costs each workload",
				   err, errlen);

	if (!f)
		return -1;
	fprintf(f, "<p class=small>Started %s, %.0f s wall time, %d measured rounds (interleaved, "
		"each in its own shuffled order), %.4g MiB bodies. ", v->started, v->wall_s,
		v->measured_rounds, v->mib);
	report_html_esc(f, "", v->chromium, "; Linux ");
	report_html_esc(f, "", v->kernel, "; ");
	report_html_esc(f, "", v->cpu, "");
	fprintf(f, " (%lld CPUs); load average %.1f at the start, %.1f at the end.</p>\n"
		"<p>Each cell: the workload's throughput with the scenario's commands sent before the "
		"page loads, as a ratio to Chromium with no debugger (the median of per-round ratios; "
		"in brackets its 95%% bootstrap CI, no narrower than the scatter of the workload's "
		"cells allows). Red is slower, blue faster; hatched, marked ~: the "
		"CI's half-width is over %.0f%%. <code>pageload</code> is a page of 200 small resources "
		"timed from navigation to its load event; the others are transfers of one body. Hover a "
		"cell for its details; every sample is in report.json, the figures in atlas.json.</p>\n",
		v->cpus, v->load_start, v->load_end, v->target_pct);
	atlas_svg(f, r, v);
	fprintf(f, "<h2>Scenarios</h2><table>\n");
	for (size_t i = 0; i < v->nscenarios; i++) {
		report_html_esc(f, "<tr><td>", v->scenarios[i].name, "</td><td>");
		report_html_esc(f, "", v->scenarios[i].about, "");
		report_html_esc(f, "", v->scenarios[i].more, "</td></tr>\n");
	}
	fprintf(f, "</table>\n");
	if (v->nfailures) {
		fprintf(f, "<h2>Failures</h2><ul>\n");
		for (size_t i = 0; i < v->nfailures; i++) {
			report_html_esc(f, "<li>", v->failures[i].scenario, " / ");
			report_html_esc(f, "", v->failures[i].body, ": ");
			report_html_esc(f, "", v->failures[i].what, "</li>\n");
		}
		fprintf(f, "</ul>\n");
	}
	return report_close(f, REPORT_HTML_END, path, err, errlen);
}

int report_write_atlas(const struct report *r, const struct report_view *v, char *err,
		       size_t errlen)
{
	char path[BENCH_PATH_MAX + 32];

	snprintf(path, sizeof path, "%s/atlas.json", r->cfg->out_dir);
	if (report_write_json(atlas_json(r), path, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/atlas.html", r->cfg->out_dir);
	return atlas_html(r, v, path, err, errlen);
}
