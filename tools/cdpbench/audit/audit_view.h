/* audit_view: an audit's figures as its readers see them, built once: every
 * number as its text, every verdict decided. The summary (audit_text.c),
 * audit.md (audit_md.c) and audit.html (audit_html.c) only lay it out. */
#ifndef CDPBENCH_AUDIT_VIEW_H
#define CDPBENCH_AUDIT_VIEW_H

#include <stdio.h>

#include <jansson.h>

#include "audit.h"

#define AUDIT_VIEW_NUM 32
#define AUDIT_VIEW_CI 80

/* A ratio with its CI: "1.06", "1.06", "1.11", "[1.06, 1.11]" ("" without an
 * interval), and "slower", "faster", "no clear difference" (or why not). */
struct audit_view_ratio {
	int known;                   /* a point exists */
	double point;
	char text[AUDIT_VIEW_NUM], lo[AUDIT_VIEW_NUM], hi[AUDIT_VIEW_NUM], ci[AUDIT_VIEW_CI];
	const char *verdict;
	int excludes_1;
};

struct audit_view_arm {
	const char *name;
	int policy;                  /* proxied (not direct) */
	int nok, nfail;
	struct estimate_ci wall;     /* seconds, for the chart */
	char wall_text[AUDIT_VIEW_NUM], wall_ci[AUDIT_VIEW_CI];   /* "10.1 s", "[9.85 s, 10.2 s]" */
	struct audit_view_ratio ratio;     /* to the first arm */
	struct audit_view_ratio vs_pass;   /* to passthrough (known: 0 for none or itself) */
	double *runs;                /* the seconds of each measured run that passed */
	size_t nruns;
};

/* One test (with --junit): per arm its median and its ratio to the first arm. */
struct audit_view_test {
	const char *name;
	char (*median)[AUDIT_VIEW_NUM];    /* per arm, "1.23 s" */
	struct audit_view_ratio *ratio;    /* per arm */
};

/* A run that failed, or passed without its JUnit file read. */
struct audit_view_failure {
	int round;
	const char *arm, *error;
	int ok;                      /* the run passed (only its tests are missing) */
};

struct audit_view {
	const char *started;
	double wall_s;
	int interrupted;
	char *command;               /* the command, its words joined by spaces */
	int rounds_run, warmup_rounds, measured_rounds;
	const char *chromium;
	long long cpus;
	struct audit_view_arm *arms;
	size_t narms;
	struct audit_view_test *tests;
	size_t ntests;
	size_t **by_change;          /* per arm (from 1): test indexes, most changed first */
	struct audit_view_failure *failures;
	size_t nfailures;
	const json_t *rig;           /* audit_rig_json of the analysed run, or NULL */
	char *rig_text;              /* audit_rig_print's text of it, or NULL */
	const char *rig_from;        /* which run's logs, or "" */
};

/* v from a (computed: audit_stats_compute); v points into a, which must outlive it. */
void audit_view_build(struct audit_view *v, const struct audit *a);
void audit_view_free(struct audit_view *v);

/* The renderers. The one-screen summary on out (stdout). */
void audit_text(const struct audit_view *v, FILE *out);
/* audit.md and audit.html at path: 0, or -1 with a reason in err. */
int audit_write_md(const struct audit_view *v, const char *path, char *err, size_t errlen);
int audit_write_html(const struct audit_view *v, const char *path, char *err, size_t errlen);
/* audit_files.c: audit.json (from a), audit.md and audit.html (from v, a's
 * view) in cfg->out_dir. 0, or -1 with a reason in err. */
int audit_write_files(const struct audit *a, const struct audit_view *v, char *err,
		      size_t errlen);

#endif
