/* summary: what a log holds, at a glance: per domain and method counts,
 * bytes, round trips and errors, the sessions with their targets and enabled
 * domains, policy generations and marks; as text or JSON. */
#include "cdplog.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void print_input(FILE *out, const char *name, const struct logrec_input *in,
			const struct logagg *a)
{
	char from[32], to[32];

	logrec_fmt_utc(in->t_first, from, sizeof from);
	logrec_fmt_utc(in->t_last, to, sizeof to);
	fprintf(out, "%s: %" PRIu64 " records, %.3f s from %s to %s UTC\n", name, in->records,
		(double)(in->t_last - in->t_first) / 1e6, from, strncmp(from, to, 10) ? to : to + 11);
	fprintf(out, "%" PRIu64 " connection%s; %" PRIu64 " messages (%" PRIu64 " commands, %" PRIu64
		" responses, %" PRIu64 " events), %" PRIu64 " bytes up, %" PRIu64 " down; %" PRIu64
		" error responses\n", a->conns, a->conns == 1 ? "" : "s", a->total.messages,
		a->total.commands, a->total.responses, a->total.events, a->total.bytes[0],
		a->total.bytes[1], a->total.errors);
	if (in->bad)
		fprintf(out, "%" PRIu64 " lines are not records; the first is line %" PRIu64 ": %s\n",
			in->bad, in->first_bad, in->first_bad_why);
}

/* One table of counts, busiest first, top rows at most (0: all). */
static void print_counts(FILE *out, const char *title, const struct table *t, size_t top)
{
	size_t n, width = strlen(title);
	struct logagg_count **v = logagg_sorted(t, &n);
	size_t shown = top && top < n ? top : n;

	for (size_t i = 0; i < shown; i++)
		if (strlen(v[i]->name) > width)
			width = strlen(v[i]->name);
	fprintf(out, "\n%-*s %9s %8s %8s %11s %11s %8s %8s %8s %6s\n", (int)width, title, "messages",
		"commands", "events", "bytes up", "bytes down", "rtt p50", "rtt p99", "rtt max", "errors");
	for (size_t i = 0; i < shown; i++) {
		const struct logagg_count *c = v[i];
		char p50[16] = "-", p99[16] = "-", max[16] = "-";
		if (c->rtt.n) {
			logrec_fmt_us(hist_quantile(&c->rtt, 0.50), p50, sizeof p50);
			logrec_fmt_us(hist_quantile(&c->rtt, 0.99), p99, sizeof p99);
			logrec_fmt_us(c->rtt.max, max, sizeof max);
		}
		fprintf(out, "%-*s %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %11" PRIu64 " %11" PRIu64
			" %8s %8s %8s %6" PRIu64 "\n", (int)width, c->name, c->messages, c->commands,
			c->events, c->bytes[0], c->bytes[1], p50, p99, max, c->errors);
	}
	if (shown < n)
		fprintf(out, "(%zu more; --top 0 shows all)\n", n - shown);
	free(v);
}

/* "Log, Network {maxPostDataSize:65536}, Page" */
static void enabled_text(const json_t *enabled, char *out, size_t outlen)
{
	const char *k;
	json_t *v;
	size_t o = 0;

	out[0] = '\0';
	json_object_foreach((json_t *)enabled, k, v) {
		const char *p = json_string_value(v);
		int n = snprintf(out + o, outlen - o, "%s%s%s%s", o ? ", " : "", k, p && *p ? " " : "",
				 p ? p : "");
		if (n < 0 || (size_t)n >= outlen - o)
			break;
		o += (size_t)n;
	}
	if (!o)
		util_copy(out, "-", outlen);
}

static void print_sessions(FILE *out, const struct logagg *a, size_t top)
{
	size_t n;
	struct logagg_sess **v = logagg_sessions(a, &n);
	size_t shown = top && top < n ? top : n;

	fprintf(out, "\nSessions: %zu", n);
	if (a->sessions_forgotten)
		fprintf(out, " (and %" PRIu64 " forgotten: more than --sessions-max at once)",
			a->sessions_forgotten);
	fprintf(out, "\n%-8s %4s %-10s %-8s %8s  %-40s %s\n", "session", "conn", "type", "target",
		"messages", "url", "enabled");
	for (size_t i = 0; i < shown; i++) {
		const struct logagg_sess *s = v[i];
		char en[1024], url[48];
		const char *u = s->url ? s->url : "";
		enabled_text(s->enabled, en, sizeof en);
		/* A URL too long for its column says so: cut, then "...". */
		snprintf(url, sizeof url, strlen(u) > 40 ? "%.37s..." : "%s", u);
		fprintf(out, "%-8.8s %4" PRIu64 " %-10.10s %-8.8s %8" PRIu64 "  %-40s %s\n", s->id,
			s->conn, s->type ? s->type : "?", s->target ? s->target : "?", s->messages,
			url, en);
	}
	if (shown < n)
		fprintf(out, "(%zu more; --top 0 shows all)\n", n - shown);
	free(v);
}

/* Each connection with how it ended: a close record's side and code, or
 * none (a client that kills the process: ChromeDriver ends its browser
 * with SIGKILL, and the wrapper with it). */
static void print_conns(FILE *out, const struct logagg *a, uint64_t base, size_t top)
{
	uint64_t n = 0, shown = 0;

	for (const struct logagg_conn *c = a->conn_first; c; c = c->next)
		n++;
	fprintf(out, "\nConnections: %" PRIu64 ", %" PRIu64 " with a close record", n, a->conns_closed);
	if (n > a->conns_closed)
		fprintf(out, ", %" PRIu64 " without (the process was killed after record %" PRIu64 ")",
			n - a->conns_closed, a->records);
	if (a->conns_unfollowed)
		fprintf(out, " (and %" PRIu64 " more not followed: past %d)", a->conns_unfollowed, LOGAGG_CONNS_MAX);
	fprintf(out, "\n%4s %10s %-14s %-32s %s\n", "conn", "opened", "client", "path", "ended");
	for (const struct logagg_conn *c = a->conn_first; c && (!top || shown < top); c = c->next, shown++) {
		char rel[32], end[320], path[40];
		logrec_fmt_rel(c->t_open, base, rel, sizeof rel);
		logagg_conn_end(a, c, end, sizeof end);
		snprintf(path, sizeof path, strlen(c->path) > 32 ? "%.29s..." : "%s", c->path);
		fprintf(out, "%4" PRIu64 " %10s %-14.14s %-32s %s\n", c->id, rel, c->client ? c->client : "?",
			path, end);
	}
	if (shown < n)
		fprintf(out, "(%" PRIu64 " more; --top 0 shows all)\n", n - shown);
}

static void print_events(FILE *out, const char *title, const struct logagg_events *e, uint64_t base,
			 size_t top)
{
	size_t shown = top && top < e->n ? top : e->n;

	fprintf(out, "\n%s: %zu\n", title, e->n + (size_t)e->dropped);
	for (size_t i = 0; i < shown; i++) {
		char rel[32];
		logrec_fmt_rel(e->v[i].t, base, rel, sizeof rel);
		fprintf(out, "%10s  %s\n", rel, e->v[i].what);
	}
	if (shown < e->n)
		fprintf(out, "(%zu more; --top 0 shows all)\n", e->n - shown);
	if (e->dropped)
		fprintf(out, "(%" PRIu64 " more not kept)\n", e->dropped);
}

static json_t *counts_json(const struct table *t)
{
	size_t n;
	struct logagg_count **v = logagg_sorted(t, &n);
	json_t *o = json_object();

	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, v[i]->name, json_pack("{s:I,s:I,s:I,s:I,s:[I,I],s:I,s:o}",
			"messages", (json_int_t)v[i]->messages, "commands", (json_int_t)v[i]->commands,
			"responses", (json_int_t)v[i]->responses, "events", (json_int_t)v[i]->events,
			"bytes", (json_int_t)v[i]->bytes[0], (json_int_t)v[i]->bytes[1],
			"errors", (json_int_t)v[i]->errors, "rtt_us", hist_json(&v[i]->rtt)));
	free(v);
	return o;
}

static json_t *conns_json(const struct logagg *a)
{
	json_t *out = json_array();

	for (const struct logagg_conn *c = a->conn_first; c; c = c->next) {
		char end[320];
		json_t *j = json_pack("{s:I,s:I,s:o,s:I,s:I}", "conn", (json_int_t)c->id, "t_open", (json_int_t)c->t_open,
				      "path", util_json_str(c->path), "t_last", (json_int_t)c->t_last,
				      "last_record", (json_int_t)c->last_record);
		logagg_conn_end(a, c, end, sizeof end);
		json_object_set_new(j, "client", c->client ? util_json_str(c->client) : json_null());
		json_object_set_new(j, "closed", json_boolean(c->ended != NULL));
		if (c->ended)
			json_object_set_new(j, "t_end", json_integer((json_int_t)c->t_end));
		json_object_set_new(j, "ended", util_json_str(end));
		json_array_append_new(out, j);
	}
	return out;
}

/* The BiDi inside CDP, when the log has any: totals, then by module and
 * method as CDP's, then the error answers by code. */
static void print_bidi(FILE *out, const struct logagg *a, size_t top)
{
	const struct logagg_count *t = &a->bidi_total;
	struct logagg_count **v;
	size_t n;

	if (!t->messages)
		return;
	fprintf(out, "\nWebDriver BiDi inside CDP: %" PRIu64 " messages (%" PRIu64 " commands, %" PRIu64
		" answers, %" PRIu64 " events), %" PRIu64 " bytes up, %" PRIu64 " down; %" PRIu64
		" error answers; %" PRIu64 " not read\n", t->messages, t->commands, t->responses, t->events,
		t->bytes[0], t->bytes[1], t->errors, a->bidi_invalid);
	print_counts(out, "BiDi module", &a->bidi_modules, top);
	print_counts(out, "BiDi method", &a->bidi_methods, top);
	v = logagg_sorted(&a->bidi_errors, &n);
	fputs("\nBiDi errors:", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %s %" PRIu64, i ? "," : "", v[i]->name, v[i]->messages);
	fputs(n ? "\n" : " none\n", out);
	free(v);
}

static json_t *bidi_json(const struct logagg *a)
{
	const struct logagg_count *t = &a->bidi_total;
	json_t *errors = json_object();
	size_t n;
	struct logagg_count **v = logagg_sorted(&a->bidi_errors, &n);

	for (size_t i = 0; i < n; i++)
		json_object_set_new(errors, v[i]->name, json_integer((json_int_t)v[i]->messages));
	free(v);
	return json_pack("{s:{s:I,s:I,s:I,s:I,s:[I,I],s:I,s:I},s:o,s:o,s:o}",
		"totals", "messages", (json_int_t)t->messages, "commands", (json_int_t)t->commands,
		"responses", (json_int_t)t->responses, "events", (json_int_t)t->events,
		"bytes", (json_int_t)t->bytes[0], (json_int_t)t->bytes[1], "errors", (json_int_t)t->errors,
		"invalid", (json_int_t)a->bidi_invalid,
		"modules", counts_json(&a->bidi_modules), "methods", counts_json(&a->bidi_methods),
		"errors", errors);
}

static json_t *summary_json(const struct logagg *a, const struct logrec_input *in)
{
	size_t n;
	struct logagg_sess **v = logagg_sessions(a, &n);
	json_t *sessions = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *s = json_pack("{s:s,s:I,s:I,s:I,s:I,s:O}", "session", v[i]->id,
				      "conn", (json_int_t)v[i]->conn, "messages", (json_int_t)v[i]->messages,
				      "t_first", (json_int_t)v[i]->t_first, "t_last", (json_int_t)v[i]->t_last,
				      "enabled", v[i]->enabled);
		if (v[i]->target)
			json_object_set_new(s, "targetId", json_string(v[i]->target));
		if (v[i]->type)
			json_object_set_new(s, "type", json_string(v[i]->type));
		if (v[i]->url)
			json_object_set_new(s, "url", util_json_bytes(v[i]->url, strlen(v[i]->url)));
		json_array_append_new(sessions, s);
	}
	free(v);
	return json_pack("{s:{s:I,s:I,s:I,s:I,s:I},s:{s:I,s:I,s:I,s:I,s:I,s:[I,I],s:I},"
			 "s:o,s:o,s:I,s:o,s:I,s:o,s:o,s:o,s:I,s:o}",
		"input", "lines", (json_int_t)in->lines, "records", (json_int_t)in->records,
		"bad_lines", (json_int_t)in->bad, "first_bad_line", (json_int_t)in->first_bad,
		"t_first", (json_int_t)in->t_first,
		"totals", "connections", (json_int_t)a->conns, "messages", (json_int_t)a->total.messages,
		"commands", (json_int_t)a->total.commands, "responses", (json_int_t)a->total.responses,
		"events", (json_int_t)a->total.events, "bytes", (json_int_t)a->total.bytes[0], (json_int_t)a->total.bytes[1],
		"errors", (json_int_t)a->total.errors,
		"domains", counts_json(&a->domains), "methods", counts_json(&a->methods),
		"methods_over_limit", (json_int_t)a->methods_over,
		"sessions", sessions, "sessions_forgotten", (json_int_t)a->sessions_forgotten,
		"policies", logagg_events_json(&a->policies), "marks", logagg_events_json(&a->marks),
		"connections", conns_json(a), "connections_unfollowed", (json_int_t)a->conns_unfollowed,
		"bidi", bidi_json(a));
}

int cdplog_summary(FILE *f, const char *name, const struct logrec_opts *o, FILE *out,
		   char *err, size_t errlen)
{
	struct logagg a;
	struct logrec_input in = { 0 };
	int rc;

	logagg_init(&a, o);
	if ((rc = logrec_read(f, logagg_add, &a, &in, err, errlen)) < 0)
		goto out;
	if (o->json) {
		json_t *j = summary_json(&a, &in);
		json_dumpf(j, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		json_decref(j);
		goto out;
	}
	print_input(out, name, &in, &a);
	print_counts(out, "Domain", &a.domains, o->top);
	print_counts(out, "Method", &a.methods, o->top);
	if (a.methods_over)
		fprintf(out, "(%" PRIu64 " messages of methods past the first %d names not counted by method)\n",
			a.methods_over, LOGAGG_METHODS_MAX);
	print_conns(out, &a, in.t_first, o->top);
	print_bidi(out, &a, o->top);
	print_sessions(out, &a, o->top);
	print_events(out, "Policy generations", &a.policies, in.t_first, o->top);
	print_events(out, "Marks", &a.marks, in.t_first, o->top);
out:
	logagg_free(&a);
	return rc;
}
