/* audit_stats: from runs to figures: per arm the median wall time and the
 * paired ratio to the first arm, per test the same from its JUnit durations,
 * all with estimate.c's report functions, the ones cdpbench's report uses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "util.h"

/* The measured rounds' seconds of an arm: of the whole command (name NULL)
 * or of one test; NaN where the run failed, or the test did not pass or is
 * not in its file. */
static double *seconds_of(const struct audit *a, size_t arm, const char *name, size_t *n)
{
	int w = a->cfg->warmup_rounds;
	size_t m = (size_t)bench_measured_rounds(a->cfg, a->rounds_run);
	double *v = xcalloc(m + 1, sizeof *v);

	for (size_t i = 0; i < m; i++) {
		const struct audit_run *r = audit_run_at(a, w + (int)i, arm);
		v[i] = r->ok && !name ? r->seconds : NAN;
		for (size_t k = 0; r->ok && name && k < r->ntests; k++)
			if (!strcmp(r->tests[k].name, name) && r->tests[k].ok)
				v[i] = r->tests[k].seconds;
	}
	*n = m;
	return v;
}

/* Every test name of the measured runs, once, in order of first sight. */
static void collect_tests(struct audit *a)
{
	for (int round = a->cfg->warmup_rounds; round < a->rounds_run; round++) {
		for (size_t arm = 0; arm < a->narms; arm++) {
			const struct audit_run *r = audit_run_at(a, round, arm);
			for (size_t k = 0; k < r->ntests; k++) {
				size_t j;
				for (j = 0; j < a->ntests && strcmp(a->tests[j].name, r->tests[k].name); j++)
					;
				if (j < a->ntests)
					continue;
				a->tests = xrealloc(a->tests, (a->ntests + 1) * sizeof *a->tests);
				memset(&a->tests[a->ntests], 0, sizeof *a->tests);
				a->tests[a->ntests++].name = xstrdup(r->tests[k].name);
			}
		}
	}
}

void audit_stats_compute(struct audit *a)
{
	const struct bench_config *cfg = a->cfg;
	size_t n, nb, pass = a->narms;
	double *base = seconds_of(a, 0, NULL, &nb), *pv = NULL;

	for (size_t i = 0; i < a->narms && pass == a->narms; i++)
		if (a->arms[i].policy && !strcmp(a->arms[i].name, "passthrough"))
			pass = i;
	if (pass < a->narms)
		pv = seconds_of(a, pass, NULL, &nb);

	for (size_t i = 0; i < a->narms; i++) {
		struct audit_arm *arm = &a->arms[i];
		double *v = seconds_of(a, i, NULL, &n);

		arm->nok = arm->nfail = 0;
		for (int round = cfg->warmup_rounds; round < a->rounds_run; round++) {
			const struct audit_run *r = audit_run_at(a, round, i);
			arm->nok += r->ok;
			arm->nfail += r->ran && !r->ok;
		}
		estimate_report_median(v, n, cfg->resamples, cfg->seed, &arm->wall);
		estimate_report_ratio(v, base, n, cfg->resamples, cfg->seed, &arm->ratio);
		arm->vs_pass = (struct estimate_ci){ NAN, NAN, NAN, 0 };
		if (pv && i != pass)
			estimate_report_ratio(v, pv, n, cfg->resamples, cfg->seed, &arm->vs_pass);
		free(v);
	}
	free(base);
	free(pv);
	audit_stats_free(a);
	collect_tests(a);
	for (size_t t = 0; t < a->ntests; t++) {
		struct audit_testfig *f = &a->tests[t];
		double *b = seconds_of(a, 0, f->name, &nb);

		f->median = xcalloc(a->narms, sizeof *f->median);
		f->ratio = xcalloc(a->narms, sizeof *f->ratio);
		for (size_t i = 0; i < a->narms; i++) {
			double *v = seconds_of(a, i, f->name, &n);
			estimate_report_median(v, n, cfg->resamples, cfg->seed, &f->median[i]);
			estimate_report_ratio(v, b, n, cfg->resamples, cfg->seed, &f->ratio[i]);
			free(v);
		}
		free(b);
	}
}

void audit_stats_free(struct audit *a)
{
	for (size_t t = 0; t < a->ntests; t++) {
		free(a->tests[t].name);
		free(a->tests[t].median);
		free(a->tests[t].ratio);
	}
	free(a->tests);
	a->tests = NULL;
	a->ntests = 0;
}
