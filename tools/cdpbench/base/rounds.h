/* rounds: runs cells round by round, interleaved, with a progress line:
 * cdpbench's matrix (a fixed number of rounds, or with a budget as many as it
 * takes for every ratio's CI to reach the target) and audit's arms. */
#ifndef CDPBENCH_ROUNDS_H
#define CDPBENCH_ROUNDS_H

#include <signal.h>
#include <stdint.h>

#include <libwebsockets.h>

#include "report.h"

/* One run of one cell, for the progress line. */
struct rounds_result {
	int ok;
	double seconds;
	char what[32];              /* "123 Mbps", "ok" */
	const char *error;          /* when !ok */
};

/* What rounds_drive runs: ncells cells, each once a round. */
struct rounds_job {
	const char *who;            /* "cdpbench": the messages' prefix */
	size_t ncells;
	int warmup, fixed;          /* warm-up rounds; the rounds asked for, warm-up included */
	int shuffle;                /* each round in its own order, from seed and the round; */
	uint64_t seed;              /* else every other round backwards */
	double budget_s;            /* > 0: past the fixed rounds the line shows the budget left */
	/* Marks in want[] the cells round `round` runs; 0 to stop (with
	 * stopped_because). NULL: every cell in the fixed rounds, then stop. */
	size_t (*plan)(struct rounds_job *j, int round, int *want, const double *last_s,
		       double elapsed_s);
	void (*name)(struct rounds_job *j, size_t cell, char *buf, size_t len);
	void (*run)(struct rounds_job *j, size_t cell, int round, int position,
		    struct rounds_result *out);
	void *arg;                  /* the caller's */
	volatile sig_atomic_t *stop;
	const char *stopped_because;
};

/* Runs job's rounds (elapsed from t0_us) until done or *job->stop; the
 * whole rounds that ran (the one under way when stopped is left out). */
int rounds_drive(struct rounds_job *job, uint64_t t0_us);

/* cdpbench's matrix: r->cfg->warmup_rounds + r->cfg->rounds rounds of every
 * cell of r; then, with a budget (cfg->budget_s > 0, counted from t0_us),
 * more rounds of the cells whose ratio (or A/A check) has not reached
 * cfg->target_ci, and of the cells they are compared with, while the next
 * round is predicted to end within the budget (which also cuts the rounds
 * asked for, after two measured ones). Grows each cell's samples as it goes.
 * Sets r->rounds_run and r->stopped_because; the samples of an interrupted
 * round are cleared. */
void rounds_run(struct report *r, struct lws_context *ctx, int sink_port, uint64_t t0_us,
		volatile sig_atomic_t *stop);

#endif
