/* report_view: a computed report as its readers see it, built once: every
 * number as its text, every mark and verdict decided. The table
 * (report_text.c), report.md (report_md.c) and report.html (report_html.c)
 * only lay it out. */
#ifndef CDPBENCH_REPORT_VIEW_H
#define CDPBENCH_REPORT_VIEW_H

#include <stddef.h>

#include "estimate.h"
#include "report.h"
#include "scenario.h"

#define REPORT_VIEW_NUM 32

/* Where a ratio stands against the target (cfg->target_ci). */
enum report_mark {
	REPORT_NO_TARGET,            /* none, native: nothing to hold them to */
	REPORT_REACHED,
	REPORT_MISSED,               /* "~" */
	REPORT_GATED,                /* "?": within the error of a failed A/A check */
};

/* One cell: a scenario with a body. Texts are "-" for a number that is not. */
struct report_view_row {
	const char *scenario, *body;
	enum scenario_kind kind;
	int is_none;                 /* the baseline itself ("none", not its A/A repeat) */
	struct estimate_ci mbps;     /* the numbers, for the charts */
	double ratio_point;
	char mbps_text[REPORT_VIEW_NUM], mbps_lo[REPORT_VIEW_NUM], mbps_hi[REPORT_VIEW_NUM];
	int mbps_has_ci;             /* an interval exists (the table leaves it blank else) */
	int compared;                /* has a ratio to none, and its CI */
	char ratio_text[REPORT_VIEW_NUM];  /* "0.48"; "1" for none itself; "" for native */
	char ratio_lo[REPORT_VIEW_NUM], ratio_hi[REPORT_VIEW_NUM];
	int ratio_has_ci;
	int excludes_1;              /* the ratio's CI excludes 1.0: "*" */
	enum report_mark mark;
	enum report_verdict verdict; /* report.h: one word, from the CI and the A/A band */
	const char *verdict_text;    /* "slower", ...; "" for no verdict */
	const char *verdict_why;
	char verdict_band[REPORT_VIEW_NUM]; /* "x1.15": what the CI had to clear */
	char spread[48];             /* "31% / 22%": sd of log Mbps between trials / within one */
	char sink_text[REPORT_VIEW_NUM];
	int nok, nfail;              /* measured trials that worked; trials that failed */
	int cmds_failed;             /* the most of its commands Chrome refused in one trial */
	size_t ncmds;
};

/* One A/A check: the same setup twice. */
struct report_view_aa {
	const char *scenario, *aa_with, *body;
	char ratio[REPORT_VIEW_NUM], lo[REPORT_VIEW_NUM], hi[REPORT_VIEW_NUM];
	char gate[1024];             /* report_aa_gate */
};

struct report_view_scenario {
	const char *name, *about;
	char more[640];              /* "(5 commands); why; A/A repeat of none", or "" */
};

/* A failed trial (round >= 0), or a cell's failed commands (round -1). */
struct report_view_failure {
	const char *scenario, *body;
	int round;
	char what[600];
};

struct report_view {
	const char *started;
	double wall_s;
	int interrupted;
	double mib;                  /* one body */
	int measured_rounds, warmup_rounds;
	char transfers[160];         /* report_transfers_text */
	unsigned resamples;
	unsigned long long seed;
	double budget_s, target_pct; /* target_pct: cfg->target_ci in percent */
	const char *stopped_because;
	/* the environment: what commands printed (chromium --version, /proc) */
	const char *chromium, *kernel, *cpu, *memory;
	long long cpus;
	double load_start, load_end; /* 1 minute load average */
	const char *placement, *sink_cpus, *browser_cpus;
	const char *const *bodies;
	size_t nbodies;
	struct report_view_row *rows;      /* by body, then scenario */
	size_t nrows;
	struct report_view_aa *aa;
	size_t naa;
	struct report_view_scenario *scenarios;
	size_t nscenarios;
	struct report_view_failure *failures;
	size_t nfailures;
	const char **findings, **notes;
	size_t nfindings, nnotes;
	/* the table's legend: what marks it uses */
	int any_excludes, any_inconclusive, ntargets, nreached;
	int nverdicts[REPORT_INCONCLUSIVE + 1]; /* cells per verdict */
	const char *verdict_rule;    /* the rule in one sentence, for every legend */
	char verdict_counts[160];    /* "3 slower, 1 faster, 5 no clear effect, 2 inconclusive" */
};

/* v from r (computed: report_compute); v points into r, which must outlive it. */
void report_view_build(struct report_view *v, const struct report *r);
void report_view_free(struct report_view *v);

/* The renderers. The table on out (stdout). */
void report_text(const struct report_view *v, FILE *out);
/* report.md and report.html at path: 0, or -1 with a reason in err. */
int report_write_md(const struct report_view *v, const char *path, char *err, size_t errlen);
int report_write_html(const struct report_view *v, const char *path, char *err, size_t errlen);
/* report_files.c: report.json (from r), report.md and report.html (from v, r's
 * view) in cfg->out_dir, created. 0, or -1 with a reason in err. */
int report_write_files(const struct report *r, const struct report_view *v, char *err,
		       size_t errlen);
/* report_atlas.c: atlas.json and atlas.html (every scenario measured against
 * none on every body, as one heatmap) in cfg->out_dir, which exists. 0, or -1
 * with a reason in err. */
/* The fewest paired rounds whose smallest and largest ratio bound the true
 * median ratio 95% of the time or more (1 - 2 x 0.5^n: 97% at 6, 75% at 3);
 * a cell with fewer is wide whatever its bootstrap CI says, and the atlas
 * runs this many. */
#define ATLAS_MIN_ROUNDS 6
int report_write_atlas(const struct report *r, const struct report_view *v, char *err,
		       size_t errlen);

#endif
