/* matrix: cdpbench's matrix run by rounds_drive: a fixed number of rounds,
 * or with a budget as many as it takes for every ratio's CI to reach the
 * target, each cell a trial. */
#ifndef CDPBENCH_MATRIX_H
#define CDPBENCH_MATRIX_H

#include <signal.h>
#include <stdint.h>

#include <libwebsockets.h>

#include "report.h"

/* r->cfg->warmup_rounds + r->cfg->rounds rounds of every
 * cell of r; then, with a budget (cfg->budget_s > 0, counted from t0_us),
 * more rounds of the cells whose ratio (or A/A check) has not reached
 * cfg->target_ci, and of the cells they are compared with, while the next
 * round is predicted to end within the budget (which also cuts the rounds
 * asked for, after two measured ones). Grows each cell's samples as it goes.
 * Sets r->rounds_run and r->stopped_because; the samples of an interrupted
 * round are cleared. */
void matrix_run(struct report *r, struct lws_context *ctx, int sink_port, uint64_t t0_us,
		volatile sig_atomic_t *stop);

/* The cells of r still wanted (keep), marked in want: how many (matrix.c). */
size_t wanted_cells(const struct report *r, int *keep, int *want);
/* How many of the wanted cells fit a round in `left` seconds, given the
 * last round's times (matrix.c). */
size_t fit_round(const struct report *r, int *keep, int *want, const double *last,
		 double left);

#endif
