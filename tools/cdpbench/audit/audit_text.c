/* audit_text: the audit's one-screen summary: per arm the wall time and its
 * ratio to the first, the tests each arm changes most, and the rig. */
#include "audit_view.h"

#include <stdio.h>
#include <string.h>

#define SUMMARY_TESTS 5

void audit_text(const struct audit_view *v, FILE *out)
{
	size_t width = 8;
	int unread = 0;
	const char *first = NULL;

	for (size_t i = 0; i < v->narms; i++)
		if (strlen(v->arms[i].name) > width)
			width = strlen(v->arms[i].name);
	fprintf(out, "\n%s\n%d measured round%s (+%d warm-up)%s; wall time of the whole command: "
		"median [95%% bootstrap CI]\n\n", v->command, v->measured_rounds,
		v->measured_rounds == 1 ? "" : "s", v->warmup_rounds, v->interrupted ? ", interrupted" : "");
	fprintf(out, "%-*s %7s %10s  %-19s %8s  %-13s\n", (int)width, "arm", "runs ok", "median",
		"95% CI", v->narms ? "ratio" : "", "95% CI");
	for (size_t i = 0; i < v->narms; i++) {
		const struct audit_view_arm *arm = &v->arms[i];
		char ok[16];
		snprintf(ok, sizeof ok, "%d/%d", arm->nok, arm->nok + arm->nfail);
		fprintf(out, "%-*s %7s %10s  %-19s %8s  %-13s %s\n", (int)width, arm->name, ok,
			arm->wall_text, arm->wall_ci, i ? arm->ratio.text : "1", i ? arm->ratio.ci : "",
			i ? arm->ratio.verdict : "(baseline)");
	}
	fprintf(out, "(ratio: median of the per-round ratios of wall time to %s; below 1 is faster)\n",
		v->arms[0].name);
	for (size_t i = 0; i < v->narms; i++) {
		const struct audit_view_arm *arm = &v->arms[i];
		if (arm->policy && arm->vs_pass.known)
			fprintf(out, "%s against passthrough: %sx %s %s\n", arm->name, arm->vs_pass.text,
				arm->vs_pass.ci, arm->vs_pass.verdict);
		if (arm->nfail)
			fprintf(out, "%s: %d run%s failed and %s left out of the figures (see audit.md)\n",
				arm->name, arm->nfail, arm->nfail == 1 ? "" : "s",
				arm->nfail == 1 ? "is" : "are");
	}
	/* A run that passed but whose JUnit file was refused (or missing) still
	 * counts for wall time; say why its tests are not in. */
	for (size_t k = 0; k < v->nfailures; k++)
		if (v->failures[k].ok && !unread++)
			first = v->failures[k].error;
	if (unread)
		fprintf(out, "%d passing run%s without test figures (see audit.md); the first: %s\n",
			unread, unread == 1 ? "" : "s", first);
	for (size_t i = 1; i < v->narms && v->ntests; i++) {
		fprintf(out, "\ntests that %s changes most (vs %s):\n", v->arms[i].name, v->arms[0].name);
		for (size_t k = 0; k < v->ntests && k < SUMMARY_TESTS; k++) {
			const struct audit_view_test *t = &v->tests[v->by_change[i][k]];
			if (!t->ratio[i].known)
				break;
			fprintf(out, "  %6sx %-13s %s\n", t->ratio[i].text, t->ratio[i].ci, t->name);
		}
	}
	fprintf(out, "\n");
	if (v->rig_text)
		fputs(v->rig_text, out);
	else
		fprintf(out, "No rig analysis: no proxied run passed with logs.\n");
}
