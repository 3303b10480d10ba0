/* rounds: runs cells round by round, interleaved, with a progress line;
 * what is run, and whether another round is, is the caller's (cdpbench's
 * matrix in run/matrix.c, audit's arms). */
#include "rounds.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "estimate.h"
#include "util.h"

#define MAX_ROUNDS 1000

/* "42s", "3m05s", "?" */
static void duration_text(double s, char *buf, size_t len)
{
	if (s < 0 || isnan(s))
		snprintf(buf, len, "?");
	else if (s >= 60)
		snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%ds", (int)s);
}

static double since_s(uint64_t t0_us)
{
	return (double)(util_mono_us() - t0_us) / 1e6;
}

/* Reorders order[0..n) so that each block's cells run one after another:
 * the blocks in the order their first cells come, the cells of each in
 * theirs. */
static void group_blocks(const size_t *block, size_t *order, size_t n)
{
	size_t *out = xmalloc((n ? n : 1) * sizeof *out), o = 0;

	for (size_t k = 0; k < n; k++) {
		size_t m = 0;
		while (m < o && block[out[m]] != block[order[k]])
			m++;
		if (m < o)
			continue;   /* its block is out already */
		for (size_t p = k; p < n; p++)
			if (block[order[p]] == block[order[k]])
				out[o++] = order[p];
	}
	memcpy(order, out, n * sizeof *out);
	free(out);
}

/* The wanted cells of a round in the order they run; their count. Shuffled
 * with the seed and the round's number (j->shuffle), so no cell always runs
 * next to the same neighbours or at the same point of a round (a fixed
 * order showed as an A/A pair's second half below its first in 7 of 9 runs);
 * the same seed gives the same orders; with blocks, each block's cells
 * together (group_blocks). Else every other round backwards. */
size_t round_order(const struct rounds_job *j, const int *want, int round, size_t *order)
{
	struct estimate_rng rng;
	size_t n = 0;

	for (size_t i = 0; i < j->ncells; i++)
		if (want[i])
			order[n++] = i;
	if (!j->shuffle) {
		for (size_t k = 0; round % 2 && k < n / 2; k++) {
			size_t t = order[k];
			order[k] = order[n - 1 - k];
			order[n - 1 - k] = t;
		}
		return n;
	}
	estimate_rng_seed(&rng, j->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(round + 1)));
	for (size_t k = n; k > 1; k--) {
		size_t x = (size_t)(estimate_rng_next(&rng) % k), t = order[k - 1];
		order[k - 1] = order[x];
		order[x] = t;
	}
	if (j->block)
		group_blocks(j->block, order, n);
	return n;
}

/* The seconds the fixed rounds still need after this round's first `ran`
 * cells, at each cell's last time (else the mean so far, else 1 s). */
static double eta_s(const struct rounds_job *j, int round, const size_t *order, size_t n,
		    size_t ran, const double *last, double mean)
{
	double left = 0;

	for (int rr = round; rr < j->fixed; rr++)
		for (size_t p = rr == round ? ran : 0; p < (rr == round ? n : j->ncells); p++) {
			size_t i = rr == round ? order[p] : p;
			left += last[i] > 0 ? last[i] : mean > 0 ? mean : 1;
		}
	return left;
}

int rounds_drive(struct rounds_job *j, uint64_t t0_us)
{
	int *want = xcalloc(j->ncells, sizeof *want), tty = isatty(2), round;
	size_t *order = xcalloc(j->ncells, sizeof *order);
	double *last = xcalloc(j->ncells, sizeof *last), done_s = 0;
	size_t done = 0;

	j->stopped_because = "the rounds asked for ran";
	for (round = 0; round < MAX_ROUNDS && !*j->stop; round++) {
		int budgeted = j->budget_s > 0 && round >= j->fixed;
		size_t nwant;

		for (size_t i = 0; i < j->ncells; i++)
			want[i] = 1;
		j->why[0] = '\0';
		if (j->plan ? !j->plan(j, round, want, last, since_s(t0_us)) : round >= j->fixed)
			break;
		if (j->why[0])
			fprintf(stderr, "%s%s: round %d: %s\n", tty ? "\r\033[K" : "", j->who, round + 1,
				j->why);
		nwant = round_order(j, want, round, order);
		for (size_t k = 0; k < nwant; k++) {
			size_t i = order[k];
			struct rounds_result res = { 0 };
			char name[96], head[192], el[32], eta[32];

			j->name(j, i, name, sizeof name);
			if (round < j->fixed)
				snprintf(head, sizeof head, "[%zu/%zu] round %d/%d%s  %s", done + 1,
					 (size_t)j->fixed * j->ncells, round + 1, j->fixed,
					 round < j->warmup ? " (warm-up)" : "", name);
			else
				snprintf(head, sizeof head, "[%zu/%zu] round %d  %s", k + 1, nwant,
					 round + 1, name);
			fprintf(stderr, "%s%s: running%s", tty ? "\r\033[K" : "", head, tty ? "" : "\n");
			j->run(j, i, round, (int)k, &res);
			if (*j->stop)
				break;
			last[i] = res.seconds;
			done_s += res.seconds;
			done++;
			duration_text(since_s(t0_us), el, sizeof el);
			duration_text(budgeted ? j->budget_s - since_s(t0_us)
					   : eta_s(j, round, order, nwant, k + 1, last,
						   done_s / (double)done),
					   eta, sizeof eta);
			fprintf(stderr, "%s%s: %s  (%.1fs)  elapsed %s, %s %s%s", tty ? "\r\033[K" : "",
				head, res.ok ? res.what : "FAILED", res.seconds, el,
				budgeted ? "budget left" : "ETA", eta, tty ? "" : "\n");
			if (!res.ok)
				fprintf(stderr, "%s%s: %s round %d: %s\n", tty ? "\n" : "", j->who, name,
					round, res.error);
		}
		if (*j->stop)
			break;
	}
	if (tty)
		fputc('\n', stderr);
	if (*j->stop) {
		fprintf(stderr, "%s: interrupted; reporting the %d rounds that finished\n", j->who,
			round);
		j->stopped_because = "interrupted";
	}
	free(last);
	free(order);
	free(want);
	return round;
}
