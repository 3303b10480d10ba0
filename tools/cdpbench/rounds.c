/* rounds: runs the matrix's trials, cells interleaved round by round: a fixed
 * number of rounds, or with a budget as many as it takes for every ratio's CI
 * to reach the target. */
#include "rounds.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "estimate.h"
#include "trial.h"
#include "util.h"

#define MAX_ROUNDS 1000
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
static size_t wanted_cells(const struct report *r, int *keep, int *want)
{
	for (size_t i = 0; i < r->ncells; i++)
		keep[i] = r->cells[i].target && !r->cells[i].reached;
	return with_partners(r, keep, want);
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
static size_t fit_round(const struct report *r, int *keep, int *want, const double *last,
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

/* The wanted cells of a round in the order they run: shuffled with the run's
 * seed and the round's number, so no cell always runs next to the same
 * neighbours or at the same point of a round (a fixed order showed as an A/A
 * pair's second half below its first in 7 of 9 runs), and a report still
 * reproduces. Their count. */
static size_t round_order(const struct report *r, const int *want, int round, size_t *order)
{
	struct estimate_rng rng;
	size_t n = 0;

	for (size_t i = 0; i < r->ncells; i++)
		if (want[i])
			order[n++] = i;
	estimate_rng_seed(&rng, r->cfg->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(round + 1)));
	for (size_t k = n; k > 1; k--) {
		size_t j = (size_t)(estimate_rng_next(&rng) % k), t = order[k - 1];
		order[k - 1] = order[j];
		order[j] = t;
	}
	return n;
}

/* Runs one trial and prints the progress line. */
static void one_trial(struct report *r, struct lws_context *ctx, int sink_port, size_t i,
		      int round, const char *progress, const char *eta)
{
	const struct bench_config *cfg = r->cfg;
	struct report_cell *c = &r->cells[i];
	struct bench_sample *s = &c->samples[round];
	int tty = isatty(2);
	char id[64], m[32];

	snprintf(id, sizeof id, "r%d-c%zu", round, i);
	trial_run(cfg, ctx, sink_port, c->sc, c->body, id, s);
	fprintf(stderr, "%s%s round %d%s  %s/%s: %s  (%.1fs)  %s%s", tty ? "\r\033[K" : "", progress,
		round + 1, round < cfg->warmup_rounds ? " (warm-up)" : "", c->sc->name, c->body,
		s->ok ? report_mbps(s->page_mbps, m, sizeof m) : "FAILED", s->seconds, eta,
		tty ? "" : "\n");
	if (!s->ok)
		fprintf(stderr, "%scdpbench: %s/%s round %d: %s\n", tty ? "\n" : "", c->sc->name,
			c->body, round, s->error);
}

void rounds_run(struct report *r, struct lws_context *ctx, int sink_port, uint64_t t0_us,
		volatile sig_atomic_t *stop)
{
	const struct bench_config *cfg = r->cfg;
	int fixed = cfg->warmup_rounds + cfg->rounds, round;
	int *want = xcalloc(r->ncells, sizeof *want), *keep = xcalloc(r->ncells, sizeof *keep);
	size_t *order = xcalloc(r->ncells, sizeof *order);
	double *last = xcalloc(r->ncells, sizeof *last), done_s = 0;
	size_t done = 0;
	char el[32], eta[32], progress[64], tail[128];

	r->stopped_because = "the rounds asked for ran";
	for (round = 0; round < MAX_ROUNDS && !*stop; round++) {
		double elapsed = (double)(util_mono_us() - t0_us) / 1e6;
		size_t nwant;

		if (round >= fixed) {
			if (cfg->budget_s <= 0)
				break;
			r->rounds_run = round;
			report_compute(r);
			if (!(nwant = wanted_cells(r, keep, want))) {
				r->stopped_because = "every ratio reached the target";
				break;
			}
			grow(r, round);
		} else {
			for (size_t i = 0; i < r->ncells; i++)
				want[i] = 1;
			nwant = r->ncells;
		}
		/* The budget is a cap, also on the rounds asked for once two measured
		 * rounds give every cell an interval: a round that would end past it
		 * runs only the least precise cells that fit, or none. */
		if (cfg->budget_s > 0 && round >= cfg->warmup_rounds + MIN_ROUNDS &&
		    elapsed + predicted_s(r, want, last) > cfg->budget_s - reserve(r, last)) {
			if (round < fixed) {
				r->rounds_run = round;
				report_compute(r);
				wanted_cells(r, keep, want);
			}
			if (!(nwant = fit_round(r, keep, want, last,
						cfg->budget_s - reserve(r, last) - elapsed))) {
				r->stopped_because = "the budget was spent";
				break;
			}
		}
		nwant = round_order(r, want, round, order);
		for (size_t k = 0; k < nwant && !*stop; k++) {
			size_t i = order[k];
			double left = 0;
			/* The ETA: this round's cells still to run and the rounds still
			 * fixed, at the cells' last times. */
			for (int rr = round; rr < fixed; rr++)
				for (size_t p = rr == round ? k : 0; p < (rr == round ? nwant : r->ncells); p++) {
					size_t j = rr == round ? order[p] : p;
					left += last[j] > 0 ? last[j] : done ? done_s / (double)done : 1;
				}
			bench_fmt_duration((double)(util_mono_us() - t0_us) / 1e6, el, sizeof el);
			if (cfg->budget_s > 0 && round >= fixed)
				bench_fmt_duration(cfg->budget_s - (double)(util_mono_us() - t0_us) / 1e6,
					     eta, sizeof eta);
			else
				bench_fmt_duration(left, eta, sizeof eta);
			snprintf(progress, sizeof progress, "[%zu/%zu]", k + 1, nwant);
			snprintf(tail, sizeof tail, "elapsed %s, %s %s", el,
				 cfg->budget_s > 0 && round >= fixed ? "budget left" : "ETA", eta);
			one_trial(r, ctx, sink_port, i, round, progress, tail);
			r->cells[i].samples[round].position = (int)k;
			last[i] = r->cells[i].samples[round].seconds;
			done_s += last[i];
			done++;
		}
	}
	if (isatty(2))
		fputc('\n', stderr);
	if (*stop) {
		fprintf(stderr, "cdpbench: interrupted; reporting the rounds that finished\n");
		r->stopped_because = "interrupted";
		round--;   /* the round under way is left out */
		for (size_t i = 0; round >= 0 && i < r->ncells; i++) {
			json_decref(r->cells[i].samples[round].detail);
			memset(&r->cells[i].samples[round], 0, sizeof r->cells[i].samples[round]);
		}
	}
	r->rounds_run = round < 0 ? 0 : round;
	free(order);
	free(last);
	free(keep);
	free(want);
}
