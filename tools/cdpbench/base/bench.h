/* bench: what cdpbench's modules share: the run's settings, the bodies, and
 * one trial's sample. */
#ifndef CDPBENCH_BENCH_H
#define CDPBENCH_BENCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define BENCH_PATH_MAX 2048

struct bench_config {
	char replays[BENCH_PATH_MAX];    /* the built-in scenarios' replays */
	char policies[BENCH_PATH_MAX];   /* and their policies */
	char page[BENCH_PATH_MAX];       /* the bench page uploadsink serves */
	char bindir[BENCH_PATH_MAX];     /* where uploadsink and cdpproxy are */
	char out_dir[BENCH_PATH_MAX];
	const char *chromium;
	uint64_t bytes;                  /* one body */
	int transfers;                   /* measured transfers per trial (the fewest) */
	int measure_ms, max_transfers;   /* then more, until this much measured time or count */
	int warmup_transfers;            /* the page's, before those (the fewest) */
	int warmup_ms;                   /* then more, until this much warm-up time */
	int rounds, warmup_rounds;       /* measured rounds (the fewest, with a budget), and
	                                    discarded ones first */
	int by_workload;                 /* the atlas: a round runs each body's cells together,
					    and no ratio CI is narrower than its body's cells'
					    pooled noise allows (report_compute.c) */
	double budget_s;                 /* > 0: add rounds until target_ci or this is spent */
	double target_ci;                /* a ratio's CI within +-this of its point (0.1) */
	int trial_timeout_s;             /* 0: from the size */
	unsigned resamples;
	uint64_t seed;                   /* the bootstrap's */
	uint64_t order_seed;             /* the rounds' order: each run its own, unless given */
	int verbose;
};

/* The bodies the page knows, in table order. */
extern const char *const bench_bodies[];
extern const size_t bench_nbodies;

/* bindir: where this binary is (absolute); the replays, the policies and
 * the page: the source tree's it was built in, else the installed ones
 * (datadir_path). */
void bench_find_dirs(struct bench_config *cfg);
/* From now on SIGINT and SIGTERM set the flag returned; SIGPIPE is
 * ignored. */
volatile sig_atomic_t *bench_catch_signals(void);
/* The measured rounds of rounds_run (the warm-up ones left out). */
static inline int bench_measured_rounds(const struct bench_config *cfg, int rounds_run)
{
	return rounds_run > cfg->warmup_rounds ? rounds_run - cfg->warmup_rounds : 0;
}

/* One trial of one cell. */
struct bench_sample {
	int ran, ok;
	double page_mbps;                /* median of the measured transfers, timed in the page */
	double sink_mbps;                /* the same, first to last byte at the sink; NaN if unknown */
	uint64_t page_bytes, sink_bytes; /* every transfer, warm-up included */
	double seconds;                  /* the whole trial, launch to stop */
	int position;                    /* where in its round it ran, from 0 */
	char error[400];
	json_t *detail;                  /* per transfer, CDP counters, phases */
};

#endif
