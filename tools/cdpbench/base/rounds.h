/* rounds: runs cells round by round, interleaved, with a progress line;
 * what is run, and whether another round is, is the caller's (cdpbench's
 * matrix in run/matrix.c, audit's arms). */
#ifndef CDPBENCH_ROUNDS_H
#define CDPBENCH_ROUNDS_H

#include <signal.h>
#include <stdint.h>

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
	const size_t *block;        /* with shuffle, each cell's block, or NULL: a round runs
				       a block's cells one after another (the blocks, and the
				       cells in each, in shuffled order) */
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
	char why[512];              /* plan's reason for a round past the fixed ones, */
};                                  /* printed as the round starts ("" for none) */

/* Runs job's rounds (elapsed from t0_us) until done or *job->stop; the
 * whole rounds that ran (the one under way when stopped is left out). */
int rounds_drive(struct rounds_job *job, uint64_t t0_us);

/* The order round `round` of j runs its wanted cells in, into order:
 * how many (rounds.c). */
size_t round_order(const struct rounds_job *j, const int *want, int round, size_t *order);

#endif
