/* findings: the few sentences that lead a report, written from its numbers:
 * what costs the most, what fixes it, what is unaffected, and whether the
 * machine was quiet enough to tell. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "replay.h"
#include "report.h"

#define SLOW 0.8    /* a ratio below this, with its CI below 1.0, is a slowdown worth a sentence */

static void say(json_t *out, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	json_array_append_new(out, json_string(buf));
}

static const struct report_cell *cell(const struct report *r, const char *sc, const char *body)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (!strcmp(r->cells[i].sc->name, sc) && !strcmp(r->cells[i].body, body))
			return &r->cells[i];
	return NULL;
}

/* The findings go by the verdicts, so that a sentence never says more than
 * the table's word for the same cell. */
static int slow(const struct report_cell *c)
{
	return c && c->ratio.point < SLOW && c->verdict == REPORT_SLOWER;
}

/* "45.2 Mbps (0.10x [0.09, 0.11] of no debugger: slower)" */
static const char *describe(const struct report_cell *c, char *buf, size_t len)
{
	char m[32], a[32], b[32], x[32];

	snprintf(buf, len, "%s Mbps (%sx [%s, %s] of no debugger%s%s)",
		 report_mbps(c->mbps.point, m, sizeof m), report_ratio(c->ratio.point, x, sizeof x),
		 report_ratio(c->ratio.lo, a, sizeof a), report_ratio(c->ratio.hi, b, sizeof b),
		 c->verdict != REPORT_NO_VERDICT ? ": " : "", report_verdict_name(c->verdict));
	return buf;
}

/* Is c's verdict "slower"? */
static int below(const struct report_cell *c)
{
	return c && c->verdict == REPORT_SLOWER;
}

/* Per body: the costliest scenario, and what undoes it. */
static void per_body(const struct report *r, const char *body, json_t *out)
{
	const struct report_cell *worst = NULL, *base = cell(r, "none", body), *net, *cap, *pw;
	const struct report_cell *pwcap, *pwnone;
	char d1[200], d2[200], m[32];

	if (!base || isnan(base->mbps.point))
		return;
	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		if (!strcmp(c->body, body) && report_is_compared(c) && below(c) &&
		    (!worst || c->ratio.point < worst->ratio.point))
			worst = c;
	}
	if (worst && worst->ratio.point < SLOW)
		say(out, "With %s bodies, %s costs the most: %s against %s Mbps with no debugger.",
		    body, worst->sc->name, describe(worst, d1, sizeof d1),
		    report_mbps(base->mbps.point, m, sizeof m));
	else if (worst)
		say(out, "With %s bodies, no scenario costs much: the largest clear difference is %s, "
		    "at %s.", body, worst->sc->name, describe(worst, d1, sizeof d1));
	else
		say(out, "With %s bodies, no scenario's verdict is slower than no debugger.", body);
	net = cell(r, "Network", body);
	cap = cell(r, "Network-capped", body);
	if (slow(net) && cap && !isnan(cap->ratio.point) && cap->ratio.point > 2 * net->ratio.point)
		say(out, "For %s, Network.enable with maxPostDataSize 65536 (what Chrome's own DevTools "
		    "sends) runs at %s, where Network.enable with no parameters runs at %s.", body,
		    describe(cap, d1, sizeof d1), describe(net, d2, sizeof d2));
	else if (net && !isnan(net->ratio.point) && !slow(net))
		say(out, "%s bodies under Network.enable: %s, %s.", body,
		    describe(net, d1, sizeof d1), report_verdict_name(net->verdict));
	pw = cell(r, "playwright", body);
	pwcap = cell(r, "pw-postdata-cap", body);
	pwnone = cell(r, "pw-no-network", body);
	if (slow(pw) && pwcap && !isnan(pwcap->ratio.point))
		say(out, "Playwright's own command sequence runs %s at %s; behind cdpproxy with "
		    "network-postdata-cap.json the same sequence runs at %s.", body,
		    describe(pw, d1, sizeof d1), describe(pwcap, d2, sizeof d2));
	if (slow(pw) && pwnone && !isnan(pwnone->ratio.point))
		say(out, "With no-network.json (Network.enable stubbed) Playwright's sequence runs %s "
		    "at %s.", body, describe(pwnone, d1, sizeof d1));
}

/* Per scenario, once: commands Chrome refused, and replayed commands whose
 * params the log did not have; either way the trial is not the client's. */
static void replay_problems(const struct report *r, json_t *out)
{
	char why[512];

	for (size_t s = 0; s < r->scenarios->n; s++) {
		const struct scenario *sc = &r->scenarios->v[s];
		const struct report_cell *worst = NULL;
		for (size_t i = 0; i < r->ncells; i++)
			if (r->cells[i].sc == sc && (!worst || r->cells[i].cmds_failed_max > worst->cmds_failed_max))
				worst = &r->cells[i];
		if (worst && worst->cmds_failed_max)
			say(out, "%s: %s; its numbers measure what ran, not the whole sequence.", sc->name,
			    report_cmds_failed(worst, why, sizeof why));
		replay_lost_text(&sc->lost, why, sizeof why);
		if (*why)
			say(out, "%s: %s.", sc->name, why);
	}
}

json_t *report_findings(const struct report *r)
{
	json_t *out = json_array();
	int noisy = 0, checks = 0, failed = 0;
	char m1[32], m2[32];
	int targets = 0, reached = 0;

	for (size_t i = 0; i < r->nbodies; i++)
		per_body(r, r->bodies[i], out);
	/* The ceiling once, for the first body that has it: it is the same bytes. */
	for (size_t i = 0; i < r->nbodies; i++) {
		const struct report_cell *nat = cell(r, "native", r->bodies[i]);
		const struct report_cell *none = cell(r, "none", r->bodies[i]);
		if (nat && none && !isnan(nat->mbps.point) && !isnan(none->mbps.point) &&
		    nat->mbps.point > 0) {
			say(out, "A native C client moves the same bytes to the same sink at %s Mbps; "
			    "the browser with no debugger reaches %s Mbps (%s), %.0f%% of that.",
			    report_mbps(nat->mbps.point, m1, sizeof m1),
			    report_mbps(none->mbps.point, m2, sizeof m2), r->bodies[i],
			    100 * none->mbps.point / nat->mbps.point);
			break;
		}
	}
	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		failed += c->nfail;
		if (c->aa_cell < 0 || isnan(c->aa.point))
			continue;
		checks++;
		if (estimate_ci_excludes(&c->aa, 1.0)) {
			char gate[1024];
			noisy++;
			char a[32], b[32], x[32];
			say(out, "A/A check %s / %s with %s bodies, %s [%s, %s], %s.", c->sc->name,
			    c->sc->aa_with, c->body, report_ratio(c->aa.point, x, sizeof x),
			    report_ratio(c->aa.lo, a, sizeof a), report_ratio(c->aa.hi, b, sizeof b),
			    report_aa_gate(r, c, gate, sizeof gate));
		}
	}
	for (size_t i = 0; i < r->ncells; i++) {
		targets += r->cells[i].target;
		reached += r->cells[i].reached;
	}
	if (targets && reached < targets) {
		int rounds = bench_measured_rounds(r->cfg, r->rounds_run);
		char few[64] = "";

		if (rounds < REPORT_MIN_PAIRS)
			snprintf(few, sizeof few, ", fewer than the %d a CI is trusted from", REPORT_MIN_PAIRS);
		say(out, "%d of %d ratios have a CI within +-%.3g%% after %d rounds%s (%s); the others "
		    "are marked ~ in the table, and report.json says how many rounds each would need.",
		    reached, targets, 100 * r->cfg->target_ci, rounds, few,
		    r->stopped_because ? r->stopped_because : "");
	} else if (targets) {
		say(out, "Every ratio's CI is within +-%.3g%%.", 100 * r->cfg->target_ci);
	}
	if (checks && !noisy)
		say(out, "All %d A/A checks (the same setup measured twice) have CIs that include 1.0, "
		    "as they should on a machine quiet enough to compare.", checks);
	if (failed)
		say(out, "%d trial%s failed; see the failures in report.md and the errors in report.json.",
		    failed, failed == 1 ? "" : "s");
	replay_problems(r, out);
	if (r->interrupted)
		say(out, "The run was interrupted after %d round%s: these numbers are partial.",
		    r->rounds_run, r->rounds_run == 1 ? "" : "s");
	return out;
}
