/* pairs: each command with its answer, one line each, in the order the
 * commands were sent: a conversation view, filtered by session, method,
 * connection and time. */
#include "cdplog.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct pairs {
	const struct logrec_opts *o;
	FILE *out;
	struct logrec_pending pending;
	uint64_t base, since, until;
	int started, bad_time;
	char err[200];
	uint64_t shown, answered, errors, unanswered, orphans;
};

/* --method: a name, a glob (Network.*) or a domain (Network). */
static int method_match(const char *want, const char *m)
{
	size_t n;

	if (!want)
		return 1;
	if (!m)
		return 0;
	if (!fnmatch(want, m, 0))
		return 1;
	n = strlen(want);
	return !strchr(want, '.') && !strncmp(m, want, n) && m[n] == '.';
}

static int wanted(const struct pairs *p, uint64_t t, uint64_t conn, const char *session,
		  const char *method)
{
	return (!p->o->has_conn || p->o->conn == conn) && logrec_session_match(p->o->session, session) &&
	       method_match(p->o->method, method) && t >= p->since && t <= p->until;
}

/* A BiDi pair's own: its channel and its error code (BiDi's are words). */
struct bidi_of {
	int bidi;
	const char *channel, *code;
};

static void print_pair(struct pairs *p, uint64_t t, uint64_t conn, int64_t id, const char *session,
		       const char *method, int answered, uint64_t rtt_us, int has_error,
		       int64_t error, const char *message, const char *note, const struct bidi_of *b)
{
	char rel[32], rtt[32] = "-", errtext[300] = "", shown[160];

	p->shown++;
	if (answered)
		p->answered++;
	if (has_error)
		p->errors++;
	if (p->o->json) {
		json_t *j = json_pack("{s:I,s:I,s:I,s:s,s:b}", "t", (json_int_t)t, "conn", (json_int_t)conn,
				      "id", (json_int_t)id, "method", method, "answered", answered);
		if (session)
			json_object_set_new(j, "session", json_string(session));
		if (answered)
			json_object_set_new(j, "rtt_us", json_integer((json_int_t)rtt_us));
		if (b->bidi) {
			json_object_set_new(j, "bidi", json_true());
			if (b->channel)
				json_object_set_new(j, "channel", util_json_bytes(b->channel, strlen(b->channel)));
		}
		if (has_error)
			json_object_set_new(j, "error", b->bidi ? util_json_bytes(b->code, strlen(b->code)) :
					    json_integer((json_int_t)error));
		if (message)
			json_object_set_new(j, "error_message", util_json_bytes(message, strlen(message)));
		if (note)
			json_object_set_new(j, "note", json_string(note));
		json_dumpf(j, p->out, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', p->out);
		json_decref(j);
		return;
	}
	logrec_fmt_rel(t, p->base, rel, sizeof rel);
	if (answered)
		logrec_fmt_us(rtt_us, rtt, sizeof rtt);
	if (has_error && b->bidi)
		snprintf(errtext, sizeof errtext, "error %s%s%s", b->code, message ? ": " : "", message ? message : "");
	else if (has_error)
		snprintf(errtext, sizeof errtext, "error %" PRId64 "%s%s", error, message ? ": " : "",
			 message ? message : "");
	snprintf(shown, sizeof shown, "%s%s", b->bidi ? "BiDi " : "", method);
	fprintf(p->out, "%10s %4" PRIu64 " %-8.8s %-40s %8s%s%s%s%s\n", rel, conn, session ? session : "-",
		shown, rtt, *errtext || note ? "  " : "", errtext, *errtext && note ? "; " : "",
		note ? note : "");
}

static void print_cmd(struct pairs *p, const struct logrec_cmd *c, const char *note)
{
	struct bidi_of b = { c->bidi, c->channel, c->error_code };

	if (!c->answered)
		p->unanswered++;
	print_pair(p, c->t, c->conn, c->id, c->session, c->method, c->answered, c->rtt_us,
		   c->has_error, c->error, c->error_message, c->answered ? NULL : note, &b);
}

/* Prints the oldest commands while they are answered: the output keeps the
 * commands' order, and holds only those awaiting an answer. */
static void flush(struct pairs *p)
{
	while (p->pending.oldest && p->pending.oldest->answered) {
		struct logrec_cmd *c = p->pending.oldest;
		logrec_pending_unlink(&p->pending, c);
		print_cmd(p, c, NULL);
		logrec_cmd_free(c);
	}
}

static void start(struct pairs *p, uint64_t t)
{
	char utc[32];

	p->started = 1;
	p->base = t;
	p->until = UINT64_MAX;
	if ((p->o->since && logrec_parse_time(p->o->since, t, &p->since, p->err, sizeof p->err) < 0) ||
	    (p->o->until && logrec_parse_time(p->o->until, t, &p->until, p->err, sizeof p->err) < 0))
		p->bad_time = 1;
	if (p->o->json || p->bad_time)
		return;
	logrec_fmt_utc(t, utc, sizeof utc);
	fprintf(p->out, "time: seconds since %s UTC (the log's first record)\n", utc);
	fprintf(p->out, "%10s %4s %-8s %-40s %8s  %s\n", "time", "conn", "session", "method", "rtt", "error");
}

static void pairs_add(const struct logrec *r, void *arg)
{
	struct pairs *p = arg;
	struct logrec_cmd *c, *old;

	if (!p->started)
		start(p, r->t);
	if (p->bad_time || (!r->is_msg && !r->is_bidi) || !r->has_id)
		return;
	if (r->is_bidi ? !strcmp(r->bidi_type, "command") : !strcmp(r->kind, "command")) {
		if (!wanted(p, r->t, r->conn, r->session, r->method))
			return;
		logrec_pending_add(&p->pending, r, 0, &old);
		if (old) {
			print_cmd(p, old, "no answer among the next --pending commands");
			logrec_cmd_free(old);
		}
		flush(p);
	} else if (r->is_bidi ? !strcmp(r->bidi_type, "success") || !strcmp(r->bidi_type, "error") :
		   !strcmp(r->kind, "response")) {
		json_t *hold = NULL;
		int has_error = r->is_bidi ? r->bidi_error != NULL : r->has_error;
		const char *msg = !has_error ? NULL : r->is_bidi ?
			json_string_value(json_object_get(r->obj, "message")) : logrec_error_message(r, &hold);
		struct bidi_of b = { r->is_bidi, r->channel, r->bidi_error };
		if ((c = logrec_pending_find(&p->pending, r)) && !c->answered) {
			c->answered = 1;
			c->rtt_us = r->rtt_us;
			c->t_answer = r->t;
			c->has_error = has_error;
			c->error = r->error;
			c->error_message = msg ? xstrdup(msg) : NULL;
			c->error_code = r->bidi_error ? xstrdup(r->bidi_error) : NULL;
			flush(p);
		} else if (!c && wanted(p, r->t - r->rtt_us, r->conn, r->session, r->method)) {
			p->orphans++;
			print_pair(p, r->t - r->rtt_us, r->conn, r->id, r->session,
				   r->method ? r->method : "?", 1, r->rtt_us, has_error, r->error, msg,
				   "its command is not in the log, or was past --pending", &b);
		}
		json_decref(hold);
	}
}

int cdplog_pairs(FILE *f, const char *name, const struct logrec_opts *o, FILE *out,
		 char *err, size_t errlen)
{
	struct pairs p = { .o = o, .out = out };
	struct logrec_input in = { 0 };
	int rc;

	logrec_pending_init(&p.pending, o->pending_max);
	rc = logrec_read(f, pairs_add, &p, &in, err, errlen);
	while (p.pending.oldest) {
		struct logrec_cmd *c = p.pending.oldest;
		logrec_pending_unlink(&p.pending, c);
		print_cmd(&p, c, "no answer in the log");
		logrec_cmd_free(c);
	}
	logrec_pending_free(&p.pending);
	if (p.bad_time) {
		snprintf(err, errlen, "%s", p.err);
		return -1;
	}
	if (o->json && in.bad)
		fprintf(stderr, "cdplog: %" PRIu64 " lines are not records; the first is line %" PRIu64
			": %s\n", in.bad, in.first_bad, in.first_bad_why);
	if (!o->json && rc == 0) {
		fprintf(out, "%s: %" PRIu64 " commands shown, %" PRIu64 " answered (%" PRIu64
			" with an error), %" PRIu64 " without an answer\n", name, p.shown, p.answered,
			p.errors, p.unanswered);
		if (in.bad)
			fprintf(out, "%" PRIu64 " lines are not records; the first is line %" PRIu64 ": %s\n",
				in.bad, in.first_bad, in.first_bad_why);
	}
	return rc;
}
