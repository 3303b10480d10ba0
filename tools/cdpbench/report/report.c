/* report: from samples to numbers (medians, bootstrap CIs, paired ratios, A/A
 * checks) and from numbers to the table and report.json. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "launch.h"
#include "util.h"

/* v with prec decimals, one fewer from big on; "-" when it is not a number. */
static const char *number(double v, double big, int prec, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", v >= big ? prec - 1 : prec, v);
	return buf;
}

const char *report_mbps(double v, char *buf, size_t len)
{
	return number(v, 100, 1, buf, len);
}

const char *report_ratio(double v, char *buf, size_t len)
{
	return number(v, 10, 2, buf, len);
}

int report_is_compared(const struct report_cell *c)
{
	return c->sc->kind == SCENARIO_CDP && !c->sc->aa_with[0];
}

static int find_cell(const struct report *r, const char *scenario, const char *body)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (!strcmp(r->cells[i].sc->name, scenario) && !strcmp(r->cells[i].body, body))
			return (int)i;
	return -1;
}

const char *report_transfers_text(const struct bench_config *cfg, char *buf, size_t len)
{
	char warm[64];

	if (cfg->warmup_ms > 0)
		snprintf(warm, sizeof warm, "%d or more warm-up transfers (%d ms)",
			 cfg->warmup_transfers, cfg->warmup_ms);
	else
		snprintf(warm, sizeof warm, "%d warm-up transfer%s", cfg->warmup_transfers,
			 cfg->warmup_transfers == 1 ? "" : "s");
	if (cfg->measure_ms > 0 && cfg->max_transfers > cfg->transfers)
		snprintf(buf, len, "%s, then %d to %d transfers (%d ms of measured time)", warm,
			 cfg->transfers, cfg->max_transfers, cfg->measure_ms);
	else
		snprintf(buf, len, "%s, then %d transfer%s", warm, cfg->transfers,
			 cfg->transfers == 1 ? "" : "s");
	return buf;
}

/* The measured rounds' page Mbps of a cell (NaN where a trial failed or did
 * not run: with a budget, a cell that reached its target sits rounds out). */
static double *measured(const struct report *r, const struct report_cell *c, size_t *n)
{
	int w = r->cfg->warmup_rounds;
	size_t m = (size_t)bench_measured_rounds(r->cfg, r->rounds_run);
	double *v = xcalloc(m + 1, sizeof *v);

	for (size_t i = 0; i < m; i++) {
		const struct bench_sample *s = &c->samples[(size_t)w + i];
		v[i] = s->ran && s->ok ? s->page_mbps : NAN;
	}
	*n = m;
	return v;
}

/* The baseline of c, round by round: the geometric mean of its "none" and of
 * none's A/A repeat, or the one of them that has a sample. Two baseline trials
 * a round halve the variance a ratio takes from its baseline (README). */
static double *baseline_values(const struct report *r, const struct report_cell *c, size_t *n)
{
	double *b = measured(r, &r->cells[c->baseline], n), *b2;
	size_t n2;

	if (c->baseline2 < 0)
		return b;
	b2 = measured(r, &r->cells[c->baseline2], &n2);
	for (size_t k = 0; k < *n; k++)
		b[k] = isnan(b[k]) ? b2[k] : isnan(b2[k]) ? b[k] : sqrt(b[k] * b2[k]);
	free(b2);
	return b;
}

/* The error's message from a failed command's {"code","message"} text (cut at
 * 300 bytes by cdp.c, so perhaps not JSON: then the text itself). */
static void error_message(const char *text, char *out, size_t len)
{
	json_t *e = json_loads(text, 0, NULL);
	const char *m = json_string_value(json_object_get(e, "message"));

	snprintf(out, len, "%s", m ? m : text);
	json_decref(e);
}

/* Fills c's failed-command counts from its trials' CDP details, and the
 * reasons, grouped by method and message, from the first trial that had any. */
static void failed_commands(const struct report *r, struct report_cell *c)
{
	const json_t *first = NULL;
	struct { char method[64], message[160]; int n; } g[3];
	size_t ng = 0, k, o = 0, others = 0;
	json_t *f;

	c->cmds_failed_min = c->cmds_failed_max = 0;
	c->cmds_failed_why[0] = '\0';
	for (int i = 0, seen = 0; i < r->rounds_run; i++) {
		const json_t *failed = json_object_get(json_object_get(c->samples[i].detail, "cdp"), "failed");
		int n = (int)json_array_size(failed);
		if (!c->samples[i].ran || !json_is_array(failed))
			continue;
		if (!seen++ || n < c->cmds_failed_min)
			c->cmds_failed_min = n;
		if (n > c->cmds_failed_max)
			c->cmds_failed_max = n;
		if (n && !first)
			first = failed;
	}
	json_array_foreach(first, k, f) {
		char method[64], message[160];
		size_t j;
		snprintf(method, sizeof method, "%s", json_string_value(json_object_get(f, "method")) ?
			 json_string_value(json_object_get(f, "method")) : "?");
		error_message(json_string_value(json_object_get(f, "error")) ?
			      json_string_value(json_object_get(f, "error")) : "", message, sizeof message);
		for (j = 0; j < ng && (strcmp(g[j].method, method) || strcmp(g[j].message, message)); j++)
			;
		if (j < ng)
			g[j].n++;
		else if (ng < sizeof g / sizeof g[0]) {
			memcpy(g[ng].method, method, sizeof method);
			memcpy(g[ng].message, message, sizeof message);
			g[ng++].n = 1;
		} else
			others++;
	}
	for (size_t j = 0; j < ng && o < sizeof c->cmds_failed_why; j++) {
		char times[16] = "";
		if (g[j].n > 1)
			snprintf(times, sizeof times, " x%d", g[j].n);
		o += (size_t)snprintf(c->cmds_failed_why + o, sizeof c->cmds_failed_why - o, "%s%s%s: %s",
				      j ? "; " : "", g[j].method, times, g[j].message);
	}
	if (others && o < sizeof c->cmds_failed_why)
		snprintf(c->cmds_failed_why + o, sizeof c->cmds_failed_why - o, "; %zu more", others);
}

const char *report_cmds_failed(const struct report_cell *c, char *buf, size_t len)
{
	char n[32];

	buf[0] = '\0';
	if (!c->cmds_failed_max)
		return buf;
	if (c->cmds_failed_min == c->cmds_failed_max)
		snprintf(n, sizeof n, "%d", c->cmds_failed_max);
	else
		snprintf(n, sizeof n, "%d to %d", c->cmds_failed_min, c->cmds_failed_max);
	snprintf(buf, len, "%s of its %zu commands failed in each trial (%s)", n, c->sc->ncmds,
		 c->cmds_failed_why);
	return buf;
}

void report_compute(struct report *r)
{
	const struct bench_config *cfg = r->cfg;

	for (size_t i = 0; i < r->ncells; i++) {
		struct report_cell *c = &r->cells[i];
		size_t n;
		double *v = measured(r, c, &n), *sink = xcalloc(n + 1, sizeof *sink);

		c->nok = c->nfail = 0;
		c->error = NULL;
		for (int k = 0; k < r->rounds_run; k++) {
			const struct bench_sample *s = &c->samples[k];
			if (!s->ran)
				continue;
			if (s->ok && k >= cfg->warmup_rounds)
				c->nok++;
			else if (!s->ok)
				c->nfail++;
			if (!s->ok && !c->error)
				c->error = s->error;
		}
		for (size_t k = 0; k < n; k++) {
			const struct bench_sample *s = &c->samples[(size_t)cfg->warmup_rounds + k];
			sink[k] = s->ran && s->ok ? s->sink_mbps : NAN;
		}
		failed_commands(r, c);
		estimate_report_median(v, n, cfg->resamples, cfg->seed, &c->mbps);
		estimate_report_median(sink, n, cfg->resamples, cfg->seed, &c->sink_mbps);
		free(sink);
		free(v);
	}
	for (size_t i = 0; i < r->ncells; i++) {
		struct report_cell *c = &r->cells[i];
		size_t n, nb;
		double *a = measured(r, c, &n), *b;

		c->baseline = c->sc->kind == SCENARIO_NONE && !c->sc->aa_with[0] ? -1 :
			find_cell(r, "none", c->body);
		/* the repeat itself is measured against none alone: that is its A/A check */
		c->baseline2 = c->baseline >= 0 && c->sc->kind != SCENARIO_NONE ?
			find_cell(r, "none#2", c->body) : -1;
		c->aa_cell = c->sc->aa_with[0] ? find_cell(r, c->sc->aa_with, c->body) : -1;
		c->ratio = (struct estimate_ci){ NAN, NAN, NAN, 0 };
		c->aa = c->ratio;
		if (c->baseline >= 0) {
			b = baseline_values(r, c, &nb);
			estimate_report_ratio(a, b, n, cfg->resamples, cfg->seed, &c->ratio);
			free(b);
		}
		if (c->aa_cell >= 0) {
			b = measured(r, &r->cells[c->aa_cell], &nb);
			estimate_report_ratio(a, b, n, cfg->resamples, cfg->seed, &c->aa);
			free(b);
		}
		free(a);
	}
	report_precision(r);
	json_decref(r->findings);
	r->findings = report_findings(r);
}

void report_print_table(const struct report *r, FILE *out)
{
	const struct bench_config *cfg = r->cfg;
	char a[32], b[32], c3[32], d[32], e[32];
	int marks = 0, any_aa = 0;
	size_t width = 8;

	for (size_t i = 0; i < r->ncells; i++)
		if (strlen(r->cells[i].sc->name) > width)
			width = strlen(r->cells[i].sc->name);
	int rounds = bench_measured_rounds(cfg, r->rounds_run), targets = 0, reached = 0, inconclusive = 0;

	char xfers[160];

	report_transfers_text(cfg, xfers, sizeof xfers);
	fprintf(out, "\n%.4g MiB bodies, %d measured round%s (+%d warm-up), per trial %s; "
		"Mbps timed in the page: median [95%% bootstrap CI]\n\n",
		(double)cfg->bytes / (1 << 20), rounds, rounds == 1 ? "" : "s",
		cfg->warmup_rounds, xfers);
	fprintf(out, "%-8s %-*s %8s  %-17s %8s  %-15s\n", "body", (int)width, "scenario", "Mbps",
		"95% CI", "vs none", "95% CI");
	for (size_t i = 0; i < r->ncells; i++) {
		const struct report_cell *c = &r->cells[i];
		int mark = estimate_ci_excludes(&c->ratio, 1.0);
		char ci[80] = "", rci[80] = "", fail[128] = "";
		int o = 0;

		if (i && strcmp(c->body, r->cells[i - 1].body))
			fputc('\n', out);
		if (!isnan(c->mbps.lo))
			snprintf(ci, sizeof ci, "[%s, %s]", report_mbps(c->mbps.lo, a, sizeof a),
				 report_mbps(c->mbps.hi, b, sizeof b));
		if (!isnan(c->ratio.lo))
			snprintf(rci, sizeof rci, "[%s, %s]", report_ratio(c->ratio.lo, d, sizeof d),
				 report_ratio(c->ratio.hi, e, sizeof e));
		if (c->nfail)
			o = snprintf(fail, sizeof fail, "  (%d failed: see report)", c->nfail);
		if (c->cmds_failed_max && o >= 0 && (size_t)o < sizeof fail)
			snprintf(fail + o, sizeof fail - (size_t)o, "  (%d of %zu commands failed: see "
				 "findings)", c->cmds_failed_max, c->sc->ncmds);
		marks |= mark;
		any_aa |= c->aa_cell >= 0;
		targets += c->target;
		reached += c->reached;
		inconclusive |= c->inconclusive_by >= 0;
		fprintf(out, "%-8s %-*s %8s  %-17s %8s  %-15s %s%s%s\n", c->body, (int)width, c->sc->name,
			report_mbps(c->mbps.point, a, sizeof a), ci,
			c->baseline >= 0 ? report_ratio(c->ratio.point, c3, sizeof c3) :
			c->sc->kind == SCENARIO_NONE ? "1" : "", rci, mark ? "*" : " ",
			c->inconclusive_by >= 0 ? "?" : c->target && !c->reached ? "~" : " ", fail);
	}
	if (marks)
		fprintf(out, "\n* the ratio's 95%% CI excludes 1.0 (paired by round: median of the "
			"per-round ratios)\n");
	if (targets)
		fprintf(out, "%s~ the ratio's CI is wider than +-%.3g%% (or has fewer than %d rounds): "
			"%d of %d ratios are within it\n", marks ? "" : "\n", 100 * cfg->target_ci,
			REPORT_MIN_PAIRS, reached, targets);
	if (inconclusive)
		fprintf(out, "? inconclusive: within the error of a failed A/A check (below)\n");
	if (any_aa) {
		char gate[1024];
		fprintf(out, "\nA/A checks (the same thing twice; one whose CI excludes 1.0 fails, and "
			"the cells within its error are inconclusive):\n");
		for (size_t i = 0; i < r->ncells; i++) {
			const struct report_cell *c = &r->cells[i];
			if (c->aa_cell < 0)
				continue;
			fprintf(out, "  %-8s %s / %s: %s [%s, %s] %s\n", c->body, c->sc->name,
				c->sc->aa_with, report_ratio(c->aa.point, a, sizeof a),
				report_ratio(c->aa.lo, b, sizeof b), report_ratio(c->aa.hi, d, sizeof d),
				report_aa_gate(r, c, gate, sizeof gate));
		}
	}
	if (json_array_size(r->findings)) {
		size_t k;
		json_t *f;
		fprintf(out, "\nFindings:\n");
		json_array_foreach(r->findings, k, f)
			fprintf(out, "- %s\n", json_string_value(f));
	}
}

static json_t *num(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *ci_json(const struct estimate_ci *ci)
{
	return json_pack("[o,o]", num(ci->lo), num(ci->hi));
}

static json_t *scenario_json(const struct scenario *sc)
{
	static const char *const kinds[] = { "native", "none", "cdp" };
	json_t *cmds = json_array();

	for (size_t i = 0; i < sc->ncmds; i++) {
		json_t *p = json_loads(sc->cmds[i].params, 0, NULL);
		json_array_append_new(cmds, json_pack("{s:s,s:o}", "method", sc->cmds[i].method,
						      "params", p ? p : json_object()));
	}
	return json_pack("{s:s,s:s,s:s,s:o,s:b,s:o,s:o,s:o,s:{s:I,s:I,s:I}}", "name", sc->name, "kind",
			 kinds[sc->kind], "about", sc->about ? sc->about : "", "commands", cmds,
			 "via_proxy", sc->via_proxy,
			 "policy", sc->policy ? json_string(sc->policy) : json_null(),
			 "aa_with", sc->aa_with[0] ? json_string(sc->aa_with) : json_null(),
			 "source", sc->source ? json_string(sc->source) : json_null(),
			 "params_lost", "no_body", (json_int_t)sc->lost.no_body, "cut",
			 (json_int_t)sc->lost.cut, "cut_at", (json_int_t)sc->lost.cut_at);
}

/* The variance split (log Mbps: a variance of 0.01 is a spread of about 10%),
 * the share of a trial's variance that more transfers cannot remove, the
 * precision against the target, and the A/A gate. */
static json_t *precision_json(const struct report *r, const struct report_cell *c)
{
	const struct estimate_split *v = &c->split;
	double t = v->groups ? (double)v->values / (double)v->groups : NAN;
	double share = v->between * t / (v->between * t + v->within);
	int by = c->inconclusive_by;

	return json_pack("{s:{s:o,s:o,s:o,s:I,s:I},s:o,s:b,s:o,s:b,s:o,s:o}",
		"variance", "between_trials", num(v->between), "within_trial", num(v->within),
		"between_share", num(share), "trials", (json_int_t)v->groups,
		"transfers", (json_int_t)v->values,
		"rounds_for_target", num(report_rounds_for_target(r, c)),
		"target", c->target, "ci_halfwidth", num(c->precision), "reached", c->reached,
		"inconclusive_by", by >= 0 ? json_sprintf("%s/%s", r->cells[by].sc->name,
							 r->cells[by].sc->aa_with) : json_null(),
		"aa_factor", num(c->aa_factor));
}

static json_t *cell_json(const struct report *r, const struct report_cell *c)
{
	json_t *samples = json_array();

	for (int k = 0; k < r->rounds_run; k++) {
		const struct bench_sample *s = &c->samples[k];
		if (!s->ran)
			continue;
		json_array_append_new(samples, json_pack("{s:i,s:i,s:b,s:b,s:o,s:o,s:o,s:I,s:I,s:f,s:O}",
			"round", k, "position", s->position, "warmup", k < r->cfg->warmup_rounds, "ok", s->ok,
			"error", s->error[0] ? json_string(s->error) : json_null(),
			"page_mbps", num(s->page_mbps), "sink_mbps", num(s->sink_mbps),
			"page_bytes", (json_int_t)s->page_bytes, "sink_bytes", (json_int_t)s->sink_bytes,
			"seconds", s->seconds, "detail", s->detail ? s->detail : json_null()));
	}
	return json_pack("{s:s,s:s,s:i,s:i,s:{s:i,s:i,s:s},s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:b,"
			 "s:o,s:o}",
		"scenario", c->sc->name, "body", c->body, "n", c->nok, "failed", c->nfail,
		"commands_failed", "min", c->cmds_failed_min, "max", c->cmds_failed_max,
		"why", c->cmds_failed_why,
		"median_mbps", num(c->mbps.point), "ci", ci_json(&c->mbps),
		"sink_median_mbps", num(c->sink_mbps.point), "sink_ci", ci_json(&c->sink_mbps),
		"ratio_to_none", num(c->ratio.point), "ratio_ci", ci_json(&c->ratio),
		"ratio_excludes_1", estimate_ci_excludes(&c->ratio, 1.0),
		"aa_with", c->aa_cell >= 0 ? json_string(c->sc->aa_with) : json_null(),
		"aa_ratio", num(c->aa.point), "aa_ci", ci_json(&c->aa),
		"aa_excludes_1", estimate_ci_excludes(&c->aa, 1.0), "precision", precision_json(r, c),
		"samples", samples);
}

static json_t *report_json(const struct report *r)
{
	const struct bench_config *cfg = r->cfg;
	json_t *scs = json_array(), *cells = json_array(), *bodies = json_array();

	for (size_t i = 0; i < r->scenarios->n; i++)
		json_array_append_new(scs, scenario_json(&r->scenarios->v[i]));
	for (size_t i = 0; i < r->nbodies; i++)
		json_array_append_new(bodies, json_string(r->bodies[i]));
	for (size_t i = 0; i < r->ncells; i++)
		json_array_append_new(cells, cell_json(r, &r->cells[i]));
	return json_pack("{s:s,s:i,s:s,s:f,s:b,s:O,s:{s:I,s:f,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:f,s:f,"
			 "s:s,s:I,"
			 "s:{s:i,s:I,s:f},s:s,s:s},s:o,s:o,s:o,s:O,s:O}",
		"tool", "cdpbench", "version", 1, "started", r->started, "wall_seconds", r->wall_s,
		"interrupted", r->interrupted, "environment", r->env,
		"config", "bytes", (json_int_t)cfg->bytes, "mib", (double)cfg->bytes / (1 << 20),
		"transfers", cfg->transfers, "measure_ms", cfg->measure_ms,
		"max_transfers", cfg->max_transfers, "warmup_transfers", cfg->warmup_transfers,
		"warmup_ms", cfg->warmup_ms,
		"rounds", cfg->rounds, "warmup_rounds", cfg->warmup_rounds,
		"rounds_run", r->rounds_run, "measured_rounds_run", bench_measured_rounds(cfg, r->rounds_run),
		"budget_seconds", cfg->budget_s, "target_ci", cfg->target_ci,
		"stopped_because", r->stopped_because ? r->stopped_because : "",
		"order_seed", (json_int_t)cfg->order_seed,
		"bootstrap", "resamples", (int)cfg->resamples, "seed", (json_int_t)cfg->seed,
		"level", REPORT_LEVEL,
		"statistic", "median over measured rounds of each trial's median transfer Mbps "
			     "(timed in the page); percentile bootstrap CI",
		"ratio", "median of per-round ratios (paired rounds) to 'none' with the same body "
			 "(to the geometric mean of 'none' and 'none#2' where both ran; 'none#2' "
			 "itself to 'none'); percentile bootstrap CI over rounds",
		"scenarios", scs, "bodies", bodies, "cells", cells, "findings", r->findings,
		"notes", r->notes);
}

/* The first line of a command's output, or "". */
static void first_line_of(const char *cmd, char *out, size_t outlen)
{
	FILE *p = popen(cmd, "r");

	out[0] = '\0';
	if (!p)
		return;
	if (!fgets(out, (int)outlen, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

/* The value of the first "key<TAB>: value" line of a /proc file. */
static void proc_field(const char *path, const char *key, char *out, size_t outlen)
{
	char line[512];
	FILE *f = fopen(path, "r");

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (!strncmp(line, key, strlen(key)) && colon) {
			colon += 1 + strspn(colon + 1, " \t");
			snprintf(out, outlen, "%.*s", (int)strcspn(colon, "\n"), colon);
			break;
		}
	}
	fclose(f);
}

json_t *report_environment(const struct bench_config *cfg, int argc, char **argv)
{
	char version[256], cmd[BENCH_PATH_MAX + 64], cpu[256], mem[64];
	const char *const *flags;
	size_t nflags = launch_base_flags(&flags);
	struct utsname u;
	json_t *fl = json_array(), *args = json_array();

	snprintf(cmd, sizeof cmd, "'%s' --version 2>/dev/null", cfg->chromium);
	first_line_of(cmd, version, sizeof version);
	proc_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
	proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
	uname(&u);
	for (size_t i = 0; i < nflags; i++)
		json_array_append_new(fl, json_string(flags[i]));
	json_array_append_new(fl, json_string("--user-data-dir=<fresh per trial>"));
	json_array_append_new(fl, json_string("--remote-debugging-port=0 (not for none)"));
	for (int i = 0; i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	return json_pack("{s:s,s:s,s:s,s:s,s:I,s:s,s:s,s:o,s:o,s:o}", "chromium", version,
			 "chromium_path", cfg->chromium, "kernel", u.release, "machine", u.machine,
			 "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN), "cpu", cpu,
			 "memory", mem, "chromium_flags", fl, "command", args,
			 "load_average_start", report_load_average());
}

json_t *report_load_average(void)
{
	double la[3];

	if (getloadavg(la, 3) != 3)
		return json_null();
	return json_pack("[f,f,f]", la[0], la[1], la[2]);
}

int report_write_json(json_t *j, const char *path, char *err, size_t errlen)
{
	int rc = json_dump_file(j, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));

	json_decref(j);
	if (rc < 0)
		snprintf(err, errlen, "cannot write %s", path);
	return rc < 0 ? -1 : 0;
}

FILE *report_open(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");

	if (!f)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	return f;
}

int report_close(FILE *f, const char *tail, const char *path, char *err, size_t errlen)
{
	fputs(tail, f);
	if (fclose(f) == 0)
		return 0;
	snprintf(err, errlen, "cannot write %s", path);
	return -1;
}

int report_write_files(const struct report *r, char *err, size_t errlen)
{
	char path[BENCH_PATH_MAX + 32];

	if (mkdir(r->cfg->out_dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", r->cfg->out_dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof path, "%s/report.json", r->cfg->out_dir);
	if (report_write_json(report_json(r), path, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/report.md", r->cfg->out_dir);
	if (report_write_md(r, path, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/report.html", r->cfg->out_dir);
	return report_write_html(r, path, err, errlen);
}
