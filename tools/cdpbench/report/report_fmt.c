/* report_fmt: a report's numbers and verdicts as text: Mbps and ratios with
 * the precision they deserve, the per-trial transfers, failed commands, and
 * an A/A check's gate. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

const char *report_aa_gate(const struct report *r, const struct report_cell *c, char *buf,
			   size_t len)
{
	size_t o;
	int n = 0;

	if (isnan(c->aa.point))
		return snprintf(buf, len, "no pairs"), buf;
	if (!estimate_ci_excludes(&c->aa, 1.0)) {
		snprintf(buf, len, "ok (spread %+.0f%% / %+.0f%%)", 100 * (c->aa.lo - 1),
			 100 * (c->aa.hi - 1));
		return buf;
	}
	o = (size_t)snprintf(buf, len, "fails: misses 1.0 by %.0f%%; ",
			     100 * (c->aa.lo > 1 ? c->aa.lo - 1 : 1 - c->aa.hi));
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s%s cells within x%.2f of 1.0 are "
				      "inconclusive", c->body, strcmp(c->sc->aa_with, "none") ?
				      " via-proxy" : "", c->aa_factor);
	for (size_t i = 0; i < r->ncells && o < len; i++)
		if (r->cells[i].inconclusive_by == (int)(c - r->cells))
			o += (size_t)snprintf(buf + o, len - o, "%s%s", n++ ? ", " : ": ",
					      r->cells[i].sc->name);
	if (!n && o < len)
		snprintf(buf + o, len - o, ": none is");
	return buf;
}
