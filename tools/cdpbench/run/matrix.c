/* matrix: cdpbench's matrix run by rounds_drive: a fixed number of rounds,
 * or with a budget as many as it takes for every ratio's CI to reach the
 * target, each cell a trial. */
#include "matrix.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "rounds.h"
#include "trial.h"
#include "util.h"

#define MIN_ROUNDS 2          /* measured rounds run whatever the budget */
#define PREDICT_MARGIN 1.25   /* a round may run this much slower than the last one */
#define REPORT_RESERVE_S 5    /* stopping the sink, the statistics, the files */

/* want[] from keep[]: the kept cells and what they are compared with. Their count. */
static size_t with_partners(const struct report *r, const int *keep, int *want)
{
	size_t n = 0;

	memset(want, 0, r->ncells * sizeof *want);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		if (!keep[i])
			continue;
		want[i] = 1;
		if (c->baseline >= 0)
			want[c->baseline] = 1;
		if (c->baseline2 >= 0)
			want[c->baseline2] = 1;
		if (c->aa_cell >= 0)
			want[c->aa_cell] = 1;
	}
	for (size_t i = 0; i < r->ncells; i++)
		n += (size_t)want[i];
	return n;
}

static double predicted_s(const struct report *r, const int *want, const double *last)
{
	double s = 0;

	for (size_t i = 0; i < r->ncells; i++)
		if (want[i])
			s += last[i];
	return s * PREDICT_MARGIN;
}

/* Which cells the next round needs: every target cell that has not reached
 * the target (kept), and what it is compared with. Their count. */
size_t wanted_cells(const struct report *r, int *keep, int *want)
{
	for (size_t i = 0; i < r->ncells; i++)
		keep[i] = r->cells[i].target && !r->cells[i].reached;
	return with_partners(r, keep, want);
}

/* Why another round: the kept cells and their CIs' half-widths, and how
 * many have fewer rounds than a CI is trusted from, e.g. "not yet within
 * +-10%: Network/u8 +-14%, none#2/u8 +-12%" or "...: 16 ratios of fewer
 * than 8 rounds (5)". */
static void say_unreached(const struct report *r, const int *keep, char *buf, size_t len)
{
	size_t head = (size_t)snprintf(buf, len, "not yet within +-%.3g%%:", 100 * r->cfg->target_ci);
	size_t off = head, young = 0, least = REPORT_MIN_PAIRS;

	for (size_t i = 0; i < r->ncells && off < len; i++) {
		const struct report_cell *c = &r->cells[i];

		if (!keep[i])
			continue;
		if (c->ratio.n < REPORT_MIN_PAIRS) {
			young++;
			least = c->ratio.n < least ? c->ratio.n : least;
		} else if (isnan(c->precision)) {
			off += (size_t)snprintf(buf + off, len - off, "%s%s/%s unknown",
						off > head ? ", " : " ", c->sc->name, c->body);
		} else {
			off += (size_t)snprintf(buf + off, len - off, "%s%s/%s +-%.0f%%",
						off > head ? ", " : " ", c->sc->name, c->body,
						100 * c->precision);
		}
	}
	if (young && off < len)
		snprintf(buf + off, len - off, "%s%zu ratio%s of fewer than %d rounds (%zu)",
			 off > head ? ", " : " ", young, young == 1 ? "" : "s", REPORT_MIN_PAIRS, least);
}

/* The kept cell whose ratio is the most precise (an unknown precision counts
 * as the least), or -1 when none is kept. */
static int most_precise(const struct report *r, const int *keep)
{
	int best = -1;

	for (size_t i = 0; i < r->ncells; i++) {
		double p = r->cells[i].precision;
		if (keep[i] && !isnan(p) && (best < 0 || p < r->cells[best].precision))
			best = (int)i;
	}
	for (size_t i = 0; i < r->ncells && best < 0; i++)
		if (keep[i])
			best = (int)i;
	return best;
}

/* Shrinks a round to fit in `left` seconds: drops kept cells, the most
 * precise first, until its predicted time fits. Its cell count; 0 when not
 * even one kept cell with its partners fits. */
size_t fit_round(const struct report *r, int *keep, int *want, const double *last,
			double left)
{
	size_t n = with_partners(r, keep, want);

	while (n && predicted_s(r, want, last) > left) {
		keep[most_precise(r, keep)] = 0;
		n = with_partners(r, keep, want);
	}
	return n;
}

/* What the budget keeps back: a trial as slow as the slowest last one (one
 * trial can overrun its prediction by that much), and the report. */
static double reserve(const struct report *r, const double *last)
{
	double most = 0;

	for (size_t i = 0; i < r->ncells; i++)
		most = fmax(most, last[i]);
	return most + REPORT_RESERVE_S;
}

/* Makes room for round `round` in every cell's samples (zeroed: not run). */
static void grow(struct report *r, int round)
{
	for (size_t i = 0; i < r->ncells; i++) {
		r->cells[i].samples = xrealloc(r->cells[i].samples,
					       (size_t)(round + 1) * sizeof *r->cells[i].samples);
		memset(&r->cells[i].samples[round], 0, sizeof r->cells[i].samples[round]);
	}
}

/* cdpbench's matrix as a rounds_job. */
struct matrix {
	struct report *r;
	struct lws_context *ctx;
	int sink_port;
	int *keep;
	int nalloc;       /* rounds each cell has samples for */
};

static size_t matrix_plan(struct rounds_job *j, int round, int *want, const double *last,
			  double elapsed)
{
	struct matrix *m = j->arg;
	struct report *r = m->r;
	const struct bench_config *cfg = r->cfg;
	size_t nwant = r->ncells;

	if (round >= j->fixed) {
		if (cfg->budget_s <= 0)
			return 0;
		r->rounds_run = round;
		report_compute(r);
		if (!(nwant = wanted_cells(r, m->keep, want))) {
			j->stopped_because = "every ratio reached the target";
			return 0;
		}
		say_unreached(r, m->keep, j->why, sizeof j->why);
		grow(r, round);
		m->nalloc = round + 1;
	}
	/* The budget is a cap, also on the rounds asked for once two measured
	 * rounds give every cell an interval: a round that would end past it
	 * runs only the least precise cells that fit, or none. */
	if (cfg->budget_s > 0 && round >= cfg->warmup_rounds + MIN_ROUNDS &&
	    elapsed + predicted_s(r, want, last) > cfg->budget_s - reserve(r, last)) {
		if (round < j->fixed) {
			r->rounds_run = round;
			report_compute(r);
			wanted_cells(r, m->keep, want);
		}
		if (!(nwant = fit_round(r, m->keep, want, last,
					cfg->budget_s - reserve(r, last) - elapsed))) {
			j->stopped_because = "the budget was spent";
			return 0;
		}
	}
	return nwant;
}

static void matrix_name(struct rounds_job *j, size_t i, char *buf, size_t len)
{
	const struct report_cell *c = &((struct matrix *)j->arg)->r->cells[i];

	snprintf(buf, len, "%s/%s", c->sc->name, c->body);
}

static void matrix_run_cell(struct rounds_job *j, size_t i, int round, int position,
		       struct rounds_result *out)
{
	struct matrix *m = j->arg;
	struct report_cell *c = &m->r->cells[i];
	struct bench_sample *s = &c->samples[round];
	char id[64];

	snprintf(id, sizeof id, "r%d-c%zu", round, i);
	trial_run(m->r->cfg, m->ctx, m->sink_port, c->sc, c->body, id, s);
	s->position = position;
	out->ok = s->ok;
	out->seconds = s->seconds;
	out->error = s->error;
	if (s->ok)
		report_mbps(s->page_mbps, out->what, sizeof out->what);
}

void matrix_run(struct report *r, struct lws_context *ctx, int sink_port, uint64_t t0_us,
		volatile sig_atomic_t *stop)
{
	const struct bench_config *cfg = r->cfg;
	struct matrix m = { r, ctx, sink_port, xcalloc(r->ncells, sizeof *m.keep),
			    cfg->warmup_rounds + cfg->rounds };
	size_t *body = xcalloc(r->ncells + 1, sizeof *body);
	struct rounds_job j = {
		.who = "cdpbench", .ncells = r->ncells, .warmup = cfg->warmup_rounds,
		.fixed = cfg->warmup_rounds + cfg->rounds, .shuffle = 1, .seed = cfg->order_seed,
		.block = cfg->by_workload ? body : NULL, .budget_s = cfg->budget_s,
		.plan = matrix_plan, .name = matrix_name, .run = matrix_run_cell, .arg = &m, .stop = stop,
	};

	for (size_t i = 0; i < r->ncells; i++)
		for (size_t b = 0; b < r->nbodies; b++)
			if (!strcmp(r->cells[i].body, r->bodies[b]))
				body[i] = b;
	r->rounds_run = rounds_drive(&j, t0_us);
	r->stopped_because = j.stopped_because;
	/* the round under way when interrupted is left out */
	for (size_t i = 0; *stop && r->rounds_run < m.nalloc && i < r->ncells; i++) {
		json_decref(r->cells[i].samples[r->rounds_run].detail);
		memset(&r->cells[i].samples[r->rounds_run], 0, sizeof r->cells[i].samples[0]);
	}
	free(m.keep);
	free(body);
}
