/* logagg: the one pass behind summary and timeline: counts and round trips per
 * method and domain, sessions with their targets and enabled domains, policy
 * switches and marks, each within a bound. */
#include "logagg.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sessions.h"
#include "util.h"

#define EVENTS_PER_SESSION 256
#define EVENTS_GLOBAL 4096

static void events_init(struct logagg_events *e, size_t max)
{
	memset(e, 0, sizeof *e);
	e->max = max;
}

static void events_free(struct logagg_events *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].what);
	free(e->v);
}

static void events_add(struct logagg_events *e, uint64_t t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void events_add(struct logagg_events *e, uint64_t t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (e->n >= e->max) {
		e->dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 8;
		e->v = xrealloc(e->v, e->cap * sizeof *e->v);
	}
	e->v[e->n].t = t;
	e->v[e->n++].what = xstrdup(buf);
}

void logagg_init(struct logagg *a, const struct logrec_opts *o)
{
	memset(a, 0, sizeof *a);
	table_init(&a->methods);
	table_init(&a->domains);
	table_init(&a->bidi_methods);
	table_init(&a->bidi_modules);
	table_init(&a->bidi_errors);
	table_init(&a->sessions);
	a->sessions_max = o->sessions_max ? o->sessions_max : 1;
	logrec_pending_init(&a->enables, o->pending_max);
	events_init(&a->policies, EVENTS_GLOBAL);
	events_init(&a->marks, EVENTS_GLOBAL);
	events_init(&a->global, EVENTS_GLOBAL);
	table_init(&a->conn_ids);
}

static void count_free(void *p)
{
	struct logagg_count *c = p;

	free(c->name);
	free(c);
}

static void sess_free(struct logagg_sess *s)
{
	free(s->id);
	free(s->target);
	free(s->type);
	free(s->url);
	json_decref(s->enabled);
	events_free(&s->events);
	free(s);
}

void logagg_free(struct logagg *a)
{
	table_free(&a->methods, count_free);
	table_free(&a->domains, count_free);
	table_free(&a->bidi_methods, count_free);
	table_free(&a->bidi_modules, count_free);
	table_free(&a->bidi_errors, count_free);
	while (a->lru) {
		struct logagg_sess *s = a->lru;
		a->lru = s->next;
		sess_free(s);
	}
	table_free(&a->sessions, NULL);
	logrec_pending_free(&a->enables);
	events_free(&a->policies);
	events_free(&a->marks);
	events_free(&a->global);
	while (a->conn_first) {
		struct logagg_conn *c = a->conn_first;
		a->conn_first = c->next;
		free(c->path);
		free(c->client);
		free(c->ended);
		free(c);
	}
	table_free(&a->conn_ids, NULL);
}

static struct logagg_count *count_get(struct table *t, const char *name, size_t len)
{
	void **v = table_get(t, name, len);

	if (!v) {
		struct logagg_count *c = xcalloc(1, sizeof *c);
		c->name = xstrndup(name, len);
		v = table_put(t, name, len);
		*v = c;
	}
	return *v;
}

/* The counts are cdplog's own, not the proxy's struct stats (whose histogram
 * and domain rule they use): they split messages by kind and count errors,
 * which the proxy does not do on its per-message path, and name every method
 * up to LOGAGG_METHODS_MAX where the proxy pools those outside the protocol
 * past STATS_OTHER_METHODS, so a log's summary would change. */
static void count_add(struct logagg_count *c, const struct logrec *r)
{
	c->messages++;
	c->bytes[r->up ? 0 : 1] += r->bytes;
	if (!strcmp(r->kind, "command"))
		c->commands++;
	else if (!strcmp(r->kind, "event"))
		c->events++;
	else if (!strcmp(r->kind, "response")) {
		c->responses++;
		if (r->has_rtt)
			hist_add(&c->rtt, r->rtt_us);
		if (r->has_error)
			c->errors++;
	}
}

/* The session id, created on first sight; the least recently seen session is
 * forgotten when there are sessions_max. Moves it to the most recent end. */
static struct logagg_sess *sess_get(struct logagg *a, const char *id, uint64_t t, uint64_t conn)
{
	size_t len = strlen(id);
	void **v = table_get(&a->sessions, id, len);
	struct logagg_sess *s;

	if (v) {
		s = *v;
		if (s == a->mru)
			goto seen;
		if (s->prev)
			s->prev->next = s->next;
		else
			a->lru = s->next;
		s->next->prev = s->prev;
	} else {
		if (a->sessions.n >= a->sessions_max) {
			struct logagg_sess *old = a->lru;
			a->lru = old->next;
			if (a->lru)
				a->lru->prev = NULL;
			else
				a->mru = NULL;
			table_del(&a->sessions, old->id, strlen(old->id));
			sess_free(old);
			a->sessions_forgotten++;
		}
		s = xcalloc(1, sizeof *s);
		s->id = xstrdup(id);
		s->conn = conn;
		s->seq = a->sessions_seq++;
		s->t_first = t;
		s->enabled = json_object();
		events_init(&s->events, EVENTS_PER_SESSION);
		*table_put(&a->sessions, id, len) = s;
	}
	s->prev = a->mru;
	s->next = NULL;
	if (a->mru)
		a->mru->next = s;
	else
		a->lru = s;
	a->mru = s;
seen:
	if (t > s->t_last)
		s->t_last = t;
	return s;
}

static void set_str(char **dst, const char *s)
{
	if (!s)
		return;
	free(*dst);
	*dst = xstrdup(s);
}

static const char *str_of(const struct logrec *r, const char *k)
{
	const char *s = json_string_value(json_object_get(r->obj, k));

	return s ? s : "";
}

/* An answered X.enable or X.disable: the session's enabled domains change,
 * by the proxy's own rule (sessions.h). The proxy's struct sessions cannot
 * hold them: a log merges every connection, its sessions are keyed by id
 * alone and bounded by --sessions-max, the answer already names its command's
 * method (the proxy matched it), and what is kept is the params as text
 * ("(stub)" for the proxy's answer) as far as the log has them. */
static void on_enable_answer(struct logagg *a, const struct logrec *r)
{
	enum pending_effect effect = sessions_method_effect(r->method, strlen(r->method));
	struct logrec_cmd *c = effect == EFFECT_ENABLE ? logrec_pending_find(&a->enables, r) : NULL;
	struct logagg_sess *s;
	const char *params = "";
	char domain[SESSIONS_NAME];
	size_t dlen;

	if (c) {
		params = c->params;
		if (c->session && r->session && strcmp(c->session, r->session))
			c = NULL, params = "";
	}
	if ((effect == EFFECT_ENABLE || effect == EFFECT_DISABLE) && r->session) {
		s = sess_get(a, r->session, r->t, r->conn);
		/* Cut as the proxy keeps names: longer ones are only in logs made
		 * by hand. */
		dlen = stats_domain_len(r->method, strlen(r->method));
		util_copy(domain, r->method, dlen < sizeof domain ? dlen + 1 : sizeof domain);
		if (r->has_error)
			events_add(&s->events, r->t, "%s failed (error %" PRId64 ")", r->method, r->error);
		else if (effect == EFFECT_ENABLE) {
			int stub = r->action && !strcmp(r->action, "stub");
			const char *p = stub ? "(stub)" : params;
			json_t *text = json_string(p);   /* NULL: params cut inside a character */
			if (text)
				sessions_set_enabled(s->enabled, domain, effect, text);
			json_decref(text);
			events_add(&s->events, r->t, "%s%s%s", r->method, *p ? " " : "", p);
		} else {
			sessions_set_enabled(s->enabled, domain, effect, NULL);
			events_add(&s->events, r->t, "%s", r->method);
		}
	}
	if (c) {
		logrec_pending_unlink(&a->enables, c);
		logrec_cmd_free(c);
	}
}

static void on_message(struct logagg *a, const struct logrec *r)
{
	const char *m = r->method ? r->method : "(no method)";
	size_t dlen = stats_domain_len(m, strlen(m));

	count_add(&a->total, r);
	a->by_proxy += (uint64_t)r->by_proxy;
	if (a->methods.n >= LOGAGG_METHODS_MAX && !table_get(&a->methods, m, strlen(m)))
		a->methods_over++;
	else
		count_add(count_get(&a->methods, m, strlen(m)), r);
	if (a->domains.n < LOGAGG_METHODS_MAX || table_get(&a->domains, m, dlen))
		count_add(count_get(&a->domains, m, dlen), r);
	if (r->session)
		sess_get(a, r->session, r->t, r->conn)->messages++;
	if (!strcmp(r->kind, "command") && r->method && r->has_id &&
	    sessions_method_effect(r->method, strlen(r->method)) == EFFECT_ENABLE &&
	    json_object_get(r->obj, "body")) {
		struct logrec_cmd *old;
		logrec_pending_add(&a->enables, r, 1, &old);
		logrec_cmd_free(old);
	} else if (!strcmp(r->kind, "response") && r->method && r->has_id)
		on_enable_answer(a, r);
}

/* Follows connection r->conn: opened (an open record), seen, ended (its
 * first close record says by whom). */
static void on_conn(struct logagg *a, const struct logrec *r)
{
	void **v = r->conn ? table_get(&a->conn_ids, &r->conn, sizeof r->conn) : NULL;
	struct logagg_conn *c = v ? *v : NULL;
	json_t *client;

	if (!c && r->conn && !strcmp(r->kind, "open")) {
		if (a->conn_ids.n >= LOGAGG_CONNS_MAX) {
			a->conns_unfollowed++;
			return;
		}
		c = xcalloc(1, sizeof *c);
		c->id = r->conn;
		c->t_open = r->t;
		c->path = xstrdup(str_of(r, "path"));
		client = json_object_get(r->obj, "client");
		if (json_string_value(json_object_get(client, "library")) &&
		    strcmp(json_string_value(json_object_get(client, "library")), "unknown"))
			c->client = xstrdup(json_string_value(json_object_get(client, "library")));
		else if (json_string_value(json_object_get(client, "user_agent")))
			c->client = xstrdup(json_string_value(json_object_get(client, "user_agent")));
		*table_put(&a->conn_ids, &r->conn, sizeof r->conn) = c;
		if (a->conn_last)
			a->conn_last->next = c;
		else
			a->conn_first = c;
		a->conn_last = c;
	}
	if (!c)
		return;
	c->t_last = r->t;
	c->last_record = a->records;
	if (!c->ended && !strcmp(r->kind, "close")) {
		char why[256];
		const char *reason = str_of(r, "reason");
		snprintf(why, sizeof why, "closed by the %s (%" PRId64 "%s%.160s)", str_of(r, "by"),
			 (int64_t)json_integer_value(json_object_get(r->obj, "code")), *reason ? ": " : "", reason);
		c->ended = xstrdup(why);
		c->t_end = r->t;
		a->conns_closed++;
	}
}

void logagg_conn_end(const struct logagg *a, const struct logagg_conn *c, char *out, size_t outlen)
{
	if (c->ended)
		snprintf(out, outlen, "%s", c->ended);
	else
		snprintf(out, outlen, "no close record: the process was killed after record %" PRIu64
			 " (its own last: record %" PRIu64 ")", a->records, c->last_record);
}

/* A BiDi record's counts: by its type, as count_add does by kind. */
static void bidi_count_add(struct logagg_count *c, const struct logrec *r)
{
	c->messages++;
	c->bytes[r->up ? 0 : 1] += r->bytes;
	if (!strcmp(r->bidi_type, "command"))
		c->commands++;
	else if (!strcmp(r->bidi_type, "event"))
		c->events++;
	else if (!strcmp(r->bidi_type, "success") || !strcmp(r->bidi_type, "error")) {
		c->responses++;
		if (r->has_rtt)
			hist_add(&c->rtt, r->rtt_us);
		if (!strcmp(r->bidi_type, "error"))
			c->errors++;
	}
}

/* Counted by method and module (within LOGAGG_METHODS_MAX, as CDP's);
 * its CDP session's timeline gets the BiDi session's own commands, the
 * errors and what could not be read. */
static void on_bidi(struct logagg *a, const struct logrec *r)
{
	int invalid = !strcmp(r->bidi_type, "invalid");
	const char *m = r->method ? r->method : invalid ? "(invalid)" : r->up ? "(other)" : "(unmatched)";
	size_t dlen = stats_domain_len(m, strlen(m));

	bidi_count_add(&a->bidi_total, r);
	a->bidi_invalid += (uint64_t)invalid;
	if (a->bidi_methods.n < LOGAGG_METHODS_MAX || table_get(&a->bidi_methods, m, strlen(m)))
		bidi_count_add(count_get(&a->bidi_methods, m, strlen(m)), r);
	if (a->bidi_modules.n < LOGAGG_METHODS_MAX || table_get(&a->bidi_modules, m, dlen))
		bidi_count_add(count_get(&a->bidi_modules, m, dlen), r);
	if (r->bidi_error && (a->bidi_errors.n < LOGAGG_METHODS_MAX ||
			      table_get(&a->bidi_errors, r->bidi_error, strlen(r->bidi_error))))
		count_get(&a->bidi_errors, r->bidi_error, strlen(r->bidi_error))->messages++;
	if (!r->session)
		return;
	if (invalid)
		events_add(&sess_get(a, r->session, r->t, r->conn)->events, r->t, "BiDi %s not read: %s",
			   r->up ? "command" : "answer or event", str_of(r, "why"));
	else if (r->bidi_error)
		events_add(&sess_get(a, r->session, r->t, r->conn)->events, r->t, "BiDi %s #%" PRId64 " failed: %s: %s",
			   m, r->id, r->bidi_error, str_of(r, "message"));
	else if (r->up && !strncmp(m, "session.", 8))
		events_add(&sess_get(a, r->session, r->t, r->conn)->events, r->t, "BiDi %s #%" PRId64 "%s%s",
			   m, r->id, r->channel ? " on " : "", r->channel ? r->channel : "");
}

void logagg_add(const struct logrec *r, void *agg)
{
	struct logagg *a = agg;
	struct logagg_sess *s;
	const char *session = json_string_value(json_object_get(r->obj, "session"));

	a->records++;
	if (r->conn)
		on_conn(a, r);
	if (r->is_msg) {
		on_message(a, r);
		return;
	}
	if (r->is_bidi) {
		on_bidi(a, r);
		return;
	}
	if (!strcmp(r->kind, "open"))
		a->conns++;
	if (!strcmp(r->kind, "session") && session) {
		s = sess_get(a, session, r->t, r->conn);
		set_str(&s->target, json_string_value(json_object_get(r->obj, "targetId")));
		set_str(&s->type, json_string_value(json_object_get(r->obj, "type")));
		set_str(&s->url, json_string_value(json_object_get(r->obj, "url")));
		if (!strcmp(str_of(r, "event"), "attached"))
			events_add(&s->events, r->t, "attached: %s %s", str_of(r, "type"), str_of(r, "url"));
		else
			events_add(&s->events, r->t, "url: %s", str_of(r, "url"));
	} else if (!strcmp(r->kind, "policy")) {
		events_add(&a->policies, r->t, "gen %" PRIu64 " %s (%s, via %s)", r->gen,
			   str_of(r, "name"), str_of(r, "source"), str_of(r, "via"));
		events_add(&a->global, r->t, "policy gen %" PRIu64 ": %s (via %s)", r->gen,
			   str_of(r, "name"), str_of(r, "via"));
	} else if (!strcmp(r->kind, "mark")) {
		events_add(&a->marks, r->t, "\"%s\"%s%.8s", str_of(r, "label"),
			   session ? " session " : "", session ? session : "");
		if (session)
			events_add(&sess_get(a, session, r->t, r->conn)->events, r->t, "mark \"%s\"",
				   str_of(r, "label"));
		else
			events_add(&a->global, r->t, "mark \"%s\"", str_of(r, "label"));
	} else if (!strcmp(r->kind, "browser_exit")) {
		events_add(&a->global, r->t, "browser exited: %s", str_of(r, "why"));
	}
}

static int count_cmp(const void *pa, const void *pb)
{
	const struct logagg_count *x = *(struct logagg_count *const *)pa, *y = *(struct logagg_count *const *)pb;

	if (x->messages != y->messages)
		return x->messages > y->messages ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct logagg_count **logagg_sorted(const struct table *t, size_t *n)
{
	struct logagg_count **v = xmalloc((t->n + 1) * sizeof *v);
	struct table_slot *s;
	size_t i = 0;

	*n = 0;
	while ((s = table_next(t, &i)))
		v[(*n)++] = s->val;
	qsort(v, *n, sizeof *v, count_cmp);
	return v;
}

static int sess_cmp(const void *pa, const void *pb)
{
	const struct logagg_sess *x = *(struct logagg_sess *const *)pa, *y = *(struct logagg_sess *const *)pb;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct logagg_sess **logagg_sessions(const struct logagg *a, size_t *n)
{
	struct logagg_sess **v = xmalloc((a->sessions.n + 1) * sizeof *v);

	*n = 0;
	for (struct logagg_sess *s = a->lru; s; s = s->next)
		v[(*n)++] = s;
	qsort(v, *n, sizeof *v, sess_cmp);
	return v;
}

json_t *logagg_events_json(const struct logagg_events *e)
{
	json_t *a = json_array();

	for (size_t i = 0; i < e->n; i++)
		json_array_append_new(a, json_pack("{s:I,s:s}", "t", (json_int_t)e->v[i].t, "what",
						   e->v[i].what));
	return a;
}
