/* audit: `cdpbench audit` runs the user's own test command under each policy,
 * interleaved round by round, and says what the rig asks of the browser. */
#ifndef CDPBENCH_AUDIT_H
#define CDPBENCH_AUDIT_H

#include <signal.h>
#include <stdio.h>

#include <jansson.h>

#include "bench.h"
#include "estimate.h"
#include "logagg.h"

#define AUDIT_NAME_MAX 64
#define AUDIT_TOP 10            /* rows of each "top" table */

/* One test's result in a JUnit file. */
struct audit_test {
	char *name;                  /* "classname: name", or name alone */
	double seconds;
	int ok;                      /* passed (not failed, errored or skipped) */
};

/* One run of the command: one round of one arm. */
struct audit_run {
	int ran, ok;
	int status;                  /* exit status, or 128 + signal */
	int timed_out;
	double seconds;
	struct audit_test *tests;    /* with --junit */
	size_t ntests;
	char logdir[BENCH_PATH_MAX + 128];   /* the wrapper's logs (proxied arms) */
	char output[BENCH_PATH_MAX + 128];   /* the command's stdout and stderr */
	char error[BENCH_PATH_MAX + 400];
};

struct audit_arm {
	char name[AUDIT_NAME_MAX];
	char *policy;                /* the policy file; NULL for direct */
	int nolog;                   /* NAME:nolog: the proxy writes no log (its cost alone) */
	/* audit_stats_compute fills the rest, from the measured rounds */
	struct estimate_ci wall;     /* median wall seconds */
	struct estimate_ci ratio;    /* paired, to the first arm */
	struct estimate_ci vs_pass;  /* paired, to the passthrough arm (NaN: none, or itself) */
	int nok, nfail;
};

/* Does arm's proxy write a log (a policy arm without :nolog)? */
static inline int audit_arm_logs(const struct audit_arm *arm)
{
	return arm->policy && !arm->nolog;
}

/* One test's figures across the arms (with --junit). */
struct audit_testfig {
	char *name;
	struct estimate_ci *median;  /* per arm, seconds */
	struct estimate_ci *ratio;   /* per arm, to the first arm */
};

/* What the rig asked of the browser, from the wrapper's logs (audit_rig.c). */
struct audit_big {
	uint64_t bytes;
	char method[96], session[16];
	int up;
};

struct audit_rig {
	struct logagg agg;
	struct logrec_input in;
	uint64_t browsers;           /* log files: one per browser */
	struct audit_big big[AUDIT_TOP];   /* the largest messages, largest first */
	size_t nbig;
	json_t *seen;                /* what the findings look for: counts and params */
};

struct audit {
	const struct bench_config *cfg;
	char **argv;                 /* the command */
	int argc;
	char wrapper[BENCH_PATH_MAX + 32];
	const char *junit;           /* --junit FILE, or NULL */
	int timeout_s;
	const char *log_bodies;      /* CDPPROXY_LOG_BODIES for the proxied arms */
	struct audit_arm *arms;
	size_t narms;
	struct audit_run *runs;      /* [round * narms + arm], warm-up rounds first */
	int rounds_run;              /* whole rounds (every arm ran) */
	int interrupted;
	double wall_s;
	char started[32];
	json_t *env;
	/* audit_stats_compute: */
	struct audit_testfig *tests;
	size_t ntests;
	json_t *rig;                 /* audit_rig_json of the analysed run, or NULL */
	char rig_from[BENCH_PATH_MAX + 128];   /* which run's logs */
};

static inline struct audit_run *audit_run_at(const struct audit *a, int round, size_t arm)
{
	return &a->runs[(size_t)round * a->narms + arm];
}

/* audit_main.c: `cdpbench audit ARGS`; argv[0] is "audit". The exit status. */
int audit_main(int argc, char **argv);

/* audit_run.c: runs a's command once for arm in its own process group, with
 * the arm's environment, its output in run->output; stops the whole group
 * at a->timeout_s or when *stop becomes nonzero. */
void audit_run_once(const struct audit *a, size_t arm, int round, volatile sig_atomic_t *stop,
		    struct audit_run *run);
void audit_run_free(struct audit_run *run);

/* audit_junit.c: the testcases of a JUnit XML file (libxml2). 0, or -1 with a
 * reason in err. */
int audit_junit_read(const char *path, struct audit_test **tests, size_t *n, char *err,
		     size_t errlen);

/* audit_stats.c: medians, CIs and paired ratios of every arm and test (the
 * same functions as cdpbench's report), over the whole measured rounds. */
void audit_stats_compute(struct audit *a);
void audit_stats_free(struct audit *a);

/* audit_rig.c */
void audit_rig_init(struct audit_rig *r);
void audit_rig_free(struct audit_rig *r);
/* Reads one log file (one browser) into r. 0, or -1 with a reason in err. */
int audit_rig_add_file(struct audit_rig *r, const char *path, char *err, size_t errlen);
/* Browsers, sessions by type, enables by session, traffic per domain, top
 * methods by round-trip time, the largest messages and the findings. */
json_t *audit_rig_json(const struct audit_rig *r);
/* The rig's part as text (what `audit --log` prints). */
void audit_rig_print(const json_t *rig, FILE *out);

/* audit_json.c: audit.json's document: every run and figure. The summary,
 * audit.md and audit.html are rendered from an audit_view (audit_view.h). */
json_t *audit_json(const struct audit *a);

/* The JUnit XML read from f (named name in errors), at most cap bytes:
 * its tests in *tests, *n of them; 0, or -1 with err (audit_junit.c). */
int junit_read_stream(FILE *f, const char *name, size_t cap, struct audit_test **tests,
		      size_t *n, char *err, size_t errlen);

#endif
