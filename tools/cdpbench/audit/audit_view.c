/* audit_view: an audit's figures as its readers see them, built once: every
 * number as its text, every verdict decided (audit_view.h). */
#include "audit_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

/* "1.23 s", "-" */
static const char *secs(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f s", v >= 100 ? 0 : v >= 10 ? 1 : 2, v);
	return buf;
}

/* "faster", "slower", "no clear difference", or "" without an interval */
static const char *verdict(const struct estimate_ci *ci)
{
	if (isnan(ci->point))
		return "";
	if (!estimate_ci_excludes(ci, 1.0))
		return isnan(ci->lo) ? "one pair: no interval" : "no clear difference";
	return ci->point < 1 ? "faster" : "slower";
}

static void ratio(struct audit_view_ratio *r, const struct estimate_ci *ci)
{
	r->known = !isnan(ci->point);
	r->point = ci->point;
	report_ratio(ci->point, r->text, sizeof r->text);
	report_ratio(ci->lo, r->lo, sizeof r->lo);
	report_ratio(ci->hi, r->hi, sizeof r->hi);
	if (isnan(ci->lo))
		r->ci[0] = '\0';
	else
		snprintf(r->ci, sizeof r->ci, "[%s, %s]", r->lo, r->hi);
	r->verdict = verdict(ci);
	r->excludes_1 = estimate_ci_excludes(ci, 1.0);
}

static void arm(struct audit_view_arm *v, const struct audit *a, size_t i)
{
	const struct audit_arm *arm = &a->arms[i];
	char lo[AUDIT_VIEW_NUM], hi[AUDIT_VIEW_NUM];

	v->name = arm->name;
	v->policy = arm->policy != NULL;
	v->nok = arm->nok;
	v->nfail = arm->nfail;
	v->wall = arm->wall;
	secs(arm->wall.point, v->wall_text, sizeof v->wall_text);
	if (isnan(arm->wall.lo))
		v->wall_ci[0] = '\0';
	else
		snprintf(v->wall_ci, sizeof v->wall_ci, "[%s, %s]", secs(arm->wall.lo, lo, sizeof lo),
			 secs(arm->wall.hi, hi, sizeof hi));
	ratio(&v->ratio, &arm->ratio);
	ratio(&v->vs_pass, &arm->vs_pass);
	v->runs = xcalloc((size_t)a->rounds_run + 1, sizeof *v->runs);
	for (int round = a->cfg->warmup_rounds; round < a->rounds_run; round++)
		if (audit_run_at(a, round, i)->ok)
			v->runs[v->nruns++] = audit_run_at(a, round, i)->seconds;
}

/* Test indexes, most different from the first arm in arm first (|log ratio|). */
static size_t *by_change(const struct audit *a, size_t arm)
{
	size_t *idx = xmalloc((a->ntests + 1) * sizeof *idx);

	for (size_t i = 0; i < a->ntests; i++)
		idx[i] = i;
	for (size_t i = 0; i < a->ntests; i++)
		for (size_t j = i + 1; j < a->ntests; j++) {
			double x = fabs(log(a->tests[idx[i]].ratio[arm].point));
			double y = fabs(log(a->tests[idx[j]].ratio[arm].point));
			if ((isnan(x) && !isnan(y)) || y > x) {
				size_t t = idx[i];
				idx[i] = idx[j];
				idx[j] = t;
			}
		}
	return idx;
}

static char *command(const struct audit *a)
{
	char *cmd = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);

	for (int i = 0; i < a->argc; i++)
		fprintf(f, "%s%s", i ? " " : "", a->argv[i]);
	fclose(f);
	return cmd;
}

static char *rig_text(const json_t *rig)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	audit_rig_print(rig, f);
	fclose(f);
	return text;
}

void audit_view_build(struct audit_view *v, const struct audit *a)
{
	memset(v, 0, sizeof *v);
	v->started = a->started;
	v->wall_s = a->wall_s;
	v->interrupted = a->interrupted;
	v->command = command(a);
	v->rounds_run = a->rounds_run;
	v->warmup_rounds = a->cfg->warmup_rounds;
	v->measured_rounds = bench_measured_rounds(a->cfg, a->rounds_run);
	v->chromium = json_string_value(json_object_get(a->env, "chromium"));
	v->cpus = (long long)json_integer_value(json_object_get(a->env, "cpus"));
	v->arms = xcalloc(a->narms + 1, sizeof *v->arms);
	for (size_t i = 0; i < a->narms; i++)
		arm(&v->arms[v->narms++], a, i);
	v->tests = xcalloc(a->ntests + 1, sizeof *v->tests);
	for (size_t t = 0; t < a->ntests; t++) {
		struct audit_view_test *x = &v->tests[v->ntests++];
		x->name = a->tests[t].name;
		x->median = xcalloc(a->narms + 1, sizeof *x->median);
		x->ratio = xcalloc(a->narms + 1, sizeof *x->ratio);
		for (size_t i = 0; i < a->narms; i++) {
			secs(a->tests[t].median[i].point, x->median[i], sizeof x->median[i]);
			ratio(&x->ratio[i], &a->tests[t].ratio[i]);
		}
	}
	v->by_change = xcalloc(a->narms + 1, sizeof *v->by_change);
	for (size_t i = 1; i < a->narms && a->ntests; i++)
		v->by_change[i] = by_change(a, i);
	for (int round = 0; round < a->rounds_run; round++)
		for (size_t i = 0; i < a->narms; i++) {
			const struct audit_run *run = audit_run_at(a, round, i);
			if (!run->ran || (run->ok && !run->error[0]))
				continue;
			v->failures = xrealloc(v->failures, (v->nfailures + 1) * sizeof *v->failures);
			v->failures[v->nfailures++] = (struct audit_view_failure){
				round, a->arms[i].name, run->error, run->ok };
		}
	v->rig = a->rig;
	v->rig_text = a->rig ? rig_text(a->rig) : NULL;
	v->rig_from = a->rig_from;
}

void audit_view_free(struct audit_view *v)
{
	for (size_t i = 0; i < v->narms; i++)
		free(v->arms[i].runs);
	free(v->arms);
	for (size_t t = 0; t < v->ntests; t++) {
		free(v->tests[t].median);
		free(v->tests[t].ratio);
	}
	free(v->tests);
	for (size_t i = 0; v->by_change && i < v->narms; i++)
		free(v->by_change[i]);
	free(v->by_change);
	free(v->failures);
	free(v->command);
	free(v->rig_text);
	memset(v, 0, sizeof *v);
}
