/* rounds_test: how cdpbench's budget picks the cells of a round: the cells
 * short of the target and what they are compared with, and a round shrunk to
 * fit the time left by dropping the most precise cells first; the order of
 * each round (shuffled for the matrix, alternating for audit). */
#include <math.h>
#include <string.h>

#include "replay.h"
#include "rounds.h"
#include "matrix.h"
#include "report.h"
#include "trial.h"

#include "tap.h"

/* matrix.c runs trials; these tests only ask it which cells to run. */
void trial_run(const struct bench_config *cfg, struct lws_context *ctx, int sink_port,
	       const struct scenario *sc, const char *body, const char *trial_id,
	       struct bench_sample *out)
{
	(void)cfg, (void)ctx, (void)sink_port, (void)sc, (void)body, (void)trial_id, (void)out;
}

enum { NONE, ATTACH, PAGE, NONE2, NCELLS };

int main(void)
{
	static struct report_cell cells[NCELLS];
	struct report r;
	int keep[NCELLS], want[NCELLS];
	double last[NCELLS] = { 1, 1, 1, 1 };
	size_t n;

	memset(&r, 0, sizeof r);
	r.cells = cells;
	r.ncells = NCELLS;
	for (int i = 0; i < NCELLS; i++) {
		cells[i].baseline = i == NONE ? -1 : NONE;
		cells[i].aa_cell = i == NONE2 ? NONE : -1;
		cells[i].target = i != NONE;
	}
	cells[ATTACH].precision = 0.5;
	cells[PAGE].precision = 0.2;
	cells[NONE2].precision = 0.3;

	n = wanted_cells(&r, keep, want);
	ok(n == 4 && want[NONE] && !keep[NONE], "every target short of it, and none with them");
	cells[ATTACH].reached = cells[PAGE].reached = 1;
	n = wanted_cells(&r, keep, want);
	ok(n == 2 && want[NONE] && want[NONE2] && !want[ATTACH] && !want[PAGE],
	   "cells within the target sit out; the A/A pair still runs");
	cells[NONE2].reached = 1;
	ok(wanted_cells(&r, keep, want) == 0, "all within the target: no round");
	cells[ATTACH].reached = cells[PAGE].reached = cells[NONE2].reached = 0;

	/* 1 s a trial, +25%: four cells need 5 s. */
	wanted_cells(&r, keep, want);
	n = fit_round(&r, keep, want, last, 5);
	ok(n == 4, "5 s left: the whole round");
	n = fit_round(&r, keep, want, last, 3.75);
	ok(n == 3 && !want[PAGE] && want[ATTACH] && want[NONE2] && want[NONE],
	   "3.75 s: Page, the most precise, sits out");
	n = fit_round(&r, keep, want, last, 2.5);
	ok(n == 2 && want[ATTACH] && want[NONE] && !want[NONE2],
	   "2.5 s: then none#2; attach, the least precise, runs with its baseline");
	n = fit_round(&r, keep, want, last, 2.4);
	ok(n == 0, "2.4 s: not even one cell and its baseline fit");
	cells[PAGE].precision = NAN;
	wanted_cells(&r, keep, want);
	fit_round(&r, keep, want, last, 2.5);
	ok(want[PAGE] && !want[ATTACH], "an unknown precision counts as the least precise");

	/* The order of a round: the wanted cells, each once, shuffled by seed and
	 * round, the same again for the same seed; over many rounds every cell
	 * runs at every position about equally often. */
	{
		struct rounds_job job = { .ncells = NCELLS, .shuffle = 1, .seed = ESTIMATE_SEED };
		size_t order[NCELLS], again[NCELLS], first[NCELLS], at[NCELLS][NCELLS] = { { 0 } };
		int perm = 1, same = 1, differs = 0;
		size_t least = SIZE_MAX, most = 0;

		for (int i = 0; i < NCELLS; i++)
			want[i] = 1;
		for (int round = 0; round < 4000; round++) {
			int seen[NCELLS] = { 0 };
			n = round_order(&job, want, round, order);
			perm &= n == NCELLS;
			for (size_t k = 0; k < n; k++)
				perm &= !seen[order[k]]++, at[order[k]][k]++;
			round_order(&job, want, round, again);
			same &= !memcmp(order, again, sizeof order);
			if (round == 0)
				memcpy(first, order, sizeof first);
			differs |= memcmp(first, order, sizeof first) != 0;
		}
		ok(perm && same, "each round runs every wanted cell once, the same for the same seed");
		ok(differs, "the order changes from round to round");
		for (int i = 0; i < NCELLS; i++)
			for (int k = 0; k < NCELLS; k++)
				least = at[i][k] < least ? at[i][k] : least,
				most = at[i][k] > most ? at[i][k] : most;
		/* 1000 expected each; binomial sd about 27. */
		ok(least > 880 && most < 1120, "every cell at every position about as often (%zu..%zu of 1000)",
		   least, most);
		want[PAGE] = 0;
		n = round_order(&job, want, 7, order);
		ok(n == 3 && order[0] != PAGE && order[1] != PAGE && order[2] != PAGE,
		   "a cell sitting out is not in the order");
		/* audit's order: as listed, every other round backwards */
		job.shuffle = 0;
		n = round_order(&job, want, 1, order);
		ok(n == 3 && order[0] == NONE2 && order[1] == ATTACH && order[2] == NONE,
		   "unshuffled: odd rounds backwards");
		n = round_order(&job, want, 2, order);
		ok(n == 3 && order[0] == NONE && order[1] == ATTACH && order[2] == NONE2,
		   "unshuffled: even rounds as listed");
	}

	/* Blocks (the atlas's workloads): each block's cells run one after
	 * another, and both the blocks' order and the order within a block
	 * change from round to round. */
	{
		enum { NB = 9 };
		static const size_t block[NB] = { 0, 1, 2, 0, 1, 2, 0, 1, 2 };
		struct rounds_job job = { .ncells = NB, .shuffle = 1, .seed = ESTIMATE_SEED, .block = block };
		int all[NB], together = 1, perm = 1, firsts = 0, leads = 0;
		size_t order[NB];

		for (int i = 0; i < NB; i++)
			all[i] = 1;
		for (int round = 0; round < 300; round++) {
			int seen[NB] = { 0 }, done[3] = { 0 };
			size_t got = round_order(&job, all, round, order);
			perm &= got == NB;
			for (size_t k = 0; k < got; k++) {
				perm &= !seen[order[k]]++;
				if (k && block[order[k]] != block[order[k - 1]])
					done[block[order[k - 1]]] = 1;
				together &= !done[block[order[k]]];
			}
			firsts |= 1 << block[order[0]];
			leads |= 1 << (order[0] / 3);
		}
		ok(perm && together, "with blocks, each round runs every cell once, a block's cells together");
		ok(firsts == 7 && leads == 7, "every block leads some round, and every cell leads its block's run");
	}
	return tap_done();
}
