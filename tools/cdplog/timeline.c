/* timeline: per session, in time order, what it was attached to, which
 * domains were enabled and disabled when, its marks, and the policy switches
 * and global marks that happened while it lived. */
#include "cdplog.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void line(FILE *out, uint64_t t, uint64_t base, const char *what)
{
	char rel[32];

	logrec_fmt_rel(t, base, rel, sizeof rel);
	fprintf(out, "  %10s  %s\n", rel, what);
}

/* The session's own lines merged with the global ones of its lifetime. */
static void print_session(FILE *out, const struct logagg_sess *s, const struct logagg_events *g,
			  uint64_t base)
{
	size_t i = 0, j = 0;

	fprintf(out, "\nsession %s  conn %" PRIu64 "  %s  target %s\n", s->id, s->conn,
		s->type ? s->type : "?", s->target ? s->target : "?");
	while (j < g->n && g->v[j].t < s->t_first)
		j++;
	while (i < s->events.n || (j < g->n && g->v[j].t <= s->t_last)) {
		if (i < s->events.n && (j >= g->n || g->v[j].t > s->t_last || s->events.v[i].t <= g->v[j].t)) {
			line(out, s->events.v[i].t, base, s->events.v[i].what);
			i++;
		} else {
			line(out, g->v[j].t, base, g->v[j].what);
			j++;
		}
	}
	if (s->events.dropped)
		fprintf(out, "  (%" PRIu64 " more lines not kept)\n", s->events.dropped);
}

int cdplog_timeline(FILE *f, const char *name, const struct logrec_opts *o, FILE *out,
		    char *err, size_t errlen)
{
	struct logagg a;
	struct logrec_input in = { 0 };
	struct logagg_sess **v = NULL;
	size_t n = 0;
	char utc[32];
	int rc;

	logagg_init(&a, o);
	if ((rc = logrec_read(f, logagg_add, &a, &in, err, errlen)) < 0)
		goto out;
	v = logagg_sessions(&a, &n);
	if (o->json) {
		json_t *j = json_pack("{s:o,s:[]}", "global", logagg_events_json(&a.global), "sessions");
		for (size_t i = 0; i < n; i++)
			if (logrec_session_match(o->session, v[i]->id))
				json_array_append_new(json_object_get(j, "sessions"),
					json_pack("{s:s,s:I,s:s?,s:s?,s:o}", "session", v[i]->id,
						  "conn", (json_int_t)v[i]->conn, "type", v[i]->type,
						  "targetId", v[i]->target, "events", logagg_events_json(&v[i]->events)));
		json_dumpf(j, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		json_decref(j);
		goto out;
	}
	logrec_fmt_utc(in.t_first, utc, sizeof utc);
	fprintf(out, "%s: times in seconds since %s UTC (the log's first record)\n", name, utc);
	if (in.bad)
		fprintf(out, "%" PRIu64 " lines are not records; the first is line %" PRIu64 ": %s\n",
			in.bad, in.first_bad, in.first_bad_why);
	fprintf(out, "\nglobal\n");
	for (size_t j = 0; j < a.global.n; j++)
		line(out, a.global.v[j].t, in.t_first, a.global.v[j].what);
	for (size_t i = 0; i < n; i++)
		if (logrec_session_match(o->session, v[i]->id))
			print_session(out, v[i], &a.global, in.t_first);
	if (a.sessions_forgotten)
		fprintf(out, "\n(%" PRIu64 " sessions forgotten: more than --sessions-max at once)\n",
			a.sessions_forgotten);
out:
	free(v);
	logagg_free(&a);
	return rc;
}
