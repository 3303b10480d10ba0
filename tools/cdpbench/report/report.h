/* report: a matrix's figures: from samples to numbers (medians, bootstrap
 * CIs, paired ratios, A/A checks, findings), report.json, and the helpers
 * every file cdpbench writes uses. The table, report.md and report.html are
 * rendered from a report_view (report_view.h). */
#ifndef CDPBENCH_REPORT_H
#define CDPBENCH_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "bench.h"
#include "estimate.h"
#include "scenario.h"

#define REPORT_LEVEL ESTIMATE_LEVEL
/* A ratio counts as within the target only from this many paired rounds: the
 * bootstrap interval of a median of fewer is too often narrow by luck. */
#define REPORT_MIN_PAIRS 8

/* A ratio's verdict: where its CI lies against the A/A band (report_verdict.c;
 * the rule and why it is built so, README "Verdicts"). */
enum report_verdict {
	REPORT_NO_VERDICT,           /* native, none and its A/A repeat: no ratio to judge */
	REPORT_SLOWER,               /* the whole CI below 1 / band */
	REPORT_FASTER,               /* the whole CI above band */
	REPORT_NO_CLEAR_EFFECT,      /* the whole CI within the core, and the A/A checks pass */
	REPORT_INCONCLUSIVE,         /* anything else */
};
/* Fewer paired rounds give no verdict: the chance that all n rounds fall on one
 * side of the true median is 2 x 0.5^n, so a CI of 3 has 25% of missing it. */
#define REPORT_VERDICT_ROUNDS 4
#define REPORT_VERDICT_ROUNDS_TEXT "4"
/* The core of the band: slower and faster need the whole CI beyond x1.15 of
 * 1.0 and the A/A spread both; "no clear effect" needs it within x1.10, so a
 * CI in the gap between (0.87 to 0.91, 1.10 to 1.15) is inconclusive and a
 * rerun that moves a cell across one edge does not flip its verdict. */
#define REPORT_VERDICT_CORE 0.15
#define REPORT_VERDICT_CORE_TEXT "x1.15"
#define REPORT_VERDICT_SAME 0.10
#define REPORT_VERDICT_SAME_TEXT "x1.10"

struct report_cell {
	const struct scenario *sc;
	const char *body;
	struct bench_sample *samples;    /* one per round, warm-up rounds first */
	/* report_compute fills the rest, from the measured rounds only */
	struct estimate_ci mbps, sink_mbps;
	struct estimate_ci ratio;        /* paired, to "none" with the same body (and its
					    A/A repeat: the round's geometric mean of both) */
	double noise_sd;                 /* cfg->by_workload: the SD of log per-round ratios pooled
					    over its workload's cells (NaN otherwise) */
	struct estimate_ci aa;           /* paired, to sc->aa_with with the same body */
	int baseline, baseline2, aa_cell; /* those cells' indexes (none, none#2), or -1 */
	int nok, nfail;
	const char *error;               /* the first failure's reason */
	/* The scenario's commands Chrome answered with an error, per trial (fewest
	 * and most over the rounds), and why: "Runtime.evaluate x2: Cannot find
	 * context with specified id; ...". */
	int cmds_failed_min, cmds_failed_max;
	char cmds_failed_why[320];
	/* report_precision.c: where the variance comes from, and whether it is small enough */
	struct estimate_split split;     /* log page Mbps per measured transfer, trials as groups */
	int target;                      /* held to cfg->target_ci: compared and A/A cells */
	double precision;                /* its ratio's CI half-width, relative (A/A: the check's) */
	int reached;                     /* a target within cfg->target_ci, from REPORT_MIN_PAIRS */
	int inconclusive_by;             /* the failed A/A check whose error it is within, or -1 */
	double aa_factor;                /* A/A cells: how far the check's CI strays from 1.0 */
	/* report_precision.c: the verdict on its ratio (REPORT_NO_VERDICT for the
	 * baseline, native and none#2), the band it was judged by, and why. */
	enum report_verdict verdict;
	double band;
	const char *verdict_why;
};

struct report {
	const struct bench_config *cfg;
	struct report_cell *cells;
	size_t ncells;
	const struct scenario_list *scenarios;
	const char *const *bodies;
	size_t nbodies;
	int rounds_run;                  /* rounds that ran, warm-up included */
	const char *stopped_because;     /* why no more rounds ran (matrix.c) */
	double wall_s;
	int interrupted;
	json_t *env;                     /* report_environment */
	json_t *notes;                   /* strings: what was left out and why */
	json_t *findings;                /* strings, from report_findings */
	char started[32];                /* ISO 8601, UTC */
};

/* report_compute.c: medians, CIs, ratios and A/A for every cell, then its
 * precision and the findings. */
void report_compute(struct report *r);

/* Is this cell measured against the baseline (not the baseline itself or native)? */
static inline int report_is_compared(const struct report_cell *c)
{
	return c->sc->kind == SCENARIO_CDP && !c->sc->aa_with[0];
}

/* report_precision.c: for every cell (after the ratios): its variance split,
 * its precision against cfg->target_ci, and the A/A gate: each A/A check that
 * fails marks the cells in its scope whose ratio is within its error. */
void report_precision(struct report *r);
/* The measured rounds c's ratio would need to reach cfg->target_ci, if its CI
 * narrows as 1/sqrt(rounds) from where it is; NaN for a cell with no target
 * or no interval. */
double report_rounds_for_target(const struct report *r, const struct report_cell *c);

/* report_verdict.c: the verdict on a ratio whose A/A checks stray from 1.0 by
 * the factor aa_spread at most (NaN: no check), aa_failed if one of them
 * fails; *band: the factor its CI must clear for slower or faster; *why: a
 * phrase. */
enum report_verdict report_verdict_of(const struct estimate_ci *ratio, double aa_spread,
				      int aa_failed, double *band, const char **why);
/* "slower", "faster", "no clear effect", "inconclusive"; "" for none. */
const char *report_verdict_name(enum report_verdict v);

/* report_findings.c: a few sentences that lead the report. */
json_t *report_findings(const struct report *r);

/* report_fmt.c: "470", "45.2": Mbps with the precision they deserve; "-" for NaN. */
const char *report_mbps(double v, char *buf, size_t len);
/* "0.10": a ratio; "-" for NaN. */
const char *report_ratio(double v, char *buf, size_t len);
/* "3 of its 40 commands failed in each trial (Runtime.evaluate x2: Cannot find
 * context with specified id)", or "" when none failed. */
const char *report_cmds_failed(const struct report_cell *c, char *buf, size_t len);
/* "2 to 12 transfers (500 ms of measured time)", or "2 transfers". */
const char *report_transfers_text(const struct bench_config *cfg, char *buf, size_t len);
/* "fails: misses 1.0 by 4%; u8 cells within x1.20 of 1.0 are inconclusive:
 * attach, Page", or "ok (spread -8% / +6%)": c is an A/A cell (its ratio and
 * CI are the caller's to print). */
const char *report_aa_gate(const struct report *r, const struct report_cell *c, char *buf,
			   size_t len);

/* report_env.c: Chromium version, kernel, CPU, memory, the flags, the command
 * line, the load average (load_average_start; run_main adds load_average_end). */
json_t *report_environment(const struct bench_config *cfg, int argc, char **argv);
/* The 1, 5 and 15 minute load averages: other work on the machine. */
json_t *report_load_average(void);

/* report_json.c: report.json's document: every sample and figure. */
json_t *report_json(const struct report *r);

/* report_out.c: v as a JSON number; null for NaN and infinities. */
json_t *report_num_json(double v);
/* A CI as JSON, the one schema of report.json and audit.json:
 * {"point": p, "lo": l, "hi": h, "n": pairs or values} (null where NaN). */
json_t *report_ci_json(const struct estimate_ci *ci);
/* j (taken) into path, indented, keys in order. 0, or -1 with err. */
int report_write_json(json_t *j, const char *path, char *err, size_t errlen);
/* path opened for writing; NULL with a reason in err. */
FILE *report_open(const char *path, char *err, size_t errlen);
/* tail written and f closed: 0, or -1 with a reason in err. */
int report_close(FILE *f, const char *tail, const char *path, char *err, size_t errlen);

/* report_md.c's helpers, for every Markdown file cdpbench writes: pre, s
 * escaped so that it stays text in a table cell or a list item (no HTML, no
 * cell break, no code span or emphasis; control characters as spaces), post;
 * and s as one code span, its backtick fence longer than any run in s. */
void report_md_esc(FILE *f, const char *pre, const char *s, const char *post);
void report_md_code(FILE *f, const char *s);
/* report_html.c's helpers, for every page cdpbench writes: pre, s escaped
 * for HTML text and quoted attribute values, post. */
void report_html_esc(FILE *f, const char *pre, const char *s, const char *post);
/* The page at path opened, with its head (title, the style) and h1 written;
 * NULL with a reason in err. Closed by report_close(f, REPORT_HTML_END, ...). */
FILE *report_html_open(const char *path, const char *title, const char *h1, char *err,
		       size_t errlen);
#define REPORT_HTML_END "</body></html>\n"
/* The charts: a column of labels, the plot, a column of values; rows of
 * CHART_ROW_H above an axis. */
#define CHART_LABEL_W 200
#define CHART_PLOT_W 500
#define CHART_VALUE_W 200
#define CHART_ROW_H 26
#define CHART_AXIS_H 30
/* Opens a chart's <svg> of rows rows, with an axis up to a round number 5%
 * past max (about five ticks) and its label; returns that number. */
double report_svg_begin(FILE *f, double max, int rows, const char *label);

#endif
