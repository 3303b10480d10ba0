/* audit_rig: what a rig asks of the browser, from the wrapper's (or any
 * cdpproxy --log) logs, read with the log reader cdplog uses (logrec.h):
 * browsers, sessions by type, enables by session, traffic per domain, the
 * slowest methods, the largest messages, and what the findings look for. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "audit_findings.h"
#include "util.h"

#define RIG_SESSIONS_MAX 1000000
#define RIG_PENDING_MAX 100000

void audit_rig_init(struct audit_rig *r)
{
	struct logrec_opts o;

	memset(r, 0, sizeof *r);
	memset(&o, 0, sizeof o);
	o.sessions_max = RIG_SESSIONS_MAX;
	o.pending_max = RIG_PENDING_MAX;
	logagg_init(&r->agg, &o);
	r->seen = json_object();
}

void audit_rig_free(struct audit_rig *r)
{
	logagg_free(&r->agg);
	json_decref(r->seen);
}

/* Keeps the AUDIT_TOP largest messages, largest first. */
static void largest(struct audit_rig *r, const struct logrec *rec)
{
	size_t i = r->nbig;

	if (i == AUDIT_TOP && rec->bytes <= r->big[i - 1].bytes)
		return;
	if (i == AUDIT_TOP)
		i--;
	else
		r->nbig++;
	for (; i > 0 && r->big[i - 1].bytes < rec->bytes; i--)
		r->big[i] = r->big[i - 1];
	r->big[i].bytes = rec->bytes;
	r->big[i].up = rec->up;
	util_copy(r->big[i].method, rec->method ? rec->method : "(no method)", sizeof r->big[i].method);
	util_copy(r->big[i].session, rec->session ? rec->session : "", 9);
}

/* A connection's own session (a page's WebSocket, or the browser's, whose
 * messages carry no sessionId) is counted as a session of its own, typed
 * from the path it opened, named for its log (browser) and connection. */
static void conn_id(const struct audit_rig *r, uint64_t conn, char *out, size_t len)
{
	snprintf(out, len, "browser %" PRIu64 " conn %" PRIu64, r->browsers + 1, conn);
}

static void conn_session(struct audit_rig *r, const struct logrec *rec)
{
	const char *p = json_string_value(json_object_get(rec->obj, "path"));
	char id[48];
	json_t *obj;
	struct logrec s;

	conn_id(r, rec->conn, id, sizeof id);
	obj = json_pack("{s:I,s:I,s:s,s:s,s:s,s:s,s:s}", "t", (json_int_t)rec->t,
			"conn", (json_int_t)rec->conn, "kind", "session", "event", "attached",
			"session", id, "type", p && strstr(p, "/devtools/page/") ? "page" : "browser",
			"url", p ? p : "");
	if (logrec_from(obj, rec->line, &s) == 0)
		logagg_add(&s, &r->agg);
	json_decref(obj);
}

static void on_record(const struct logrec *rec, void *arg)
{
	struct audit_rig *r = arg;
	struct logrec own;
	char id[48];

	if (rec->is_msg && !rec->session) {
		own = *rec;
		conn_id(r, rec->conn, id, sizeof id);
		own.session = id;
		logagg_add(&own, &r->agg);
	} else {
		logagg_add(rec, &r->agg);
	}
	if (!strcmp(rec->kind, "open"))
		conn_session(r, rec);
	if (!rec->is_msg)
		return;
	largest(r, rec);
	audit_findings_watch(r->seen, rec);
}

int audit_rig_add_file(struct audit_rig *r, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	rc = logrec_read(f, on_record, r, &r->in, err, errlen);
	fclose(f);
	r->browsers++;
	return rc;
}

/* Most round-trip time in total first. */
static int by_rtt_total(const void *pa, const void *pb)
{
	const struct logagg_count *x = *(struct logagg_count *const *)pa;
	const struct logagg_count *y = *(struct logagg_count *const *)pb;

	return x->rtt.sum < y->rtt.sum ? 1 : x->rtt.sum > y->rtt.sum ? -1 : strcmp(x->name, y->name);
}

static json_t *counts_json(const struct table *t, int by_rtt)
{
	size_t n;
	struct logagg_count **v = logagg_sorted(t, &n);
	json_t *out = json_array();

	if (by_rtt)
		qsort(v, n, sizeof *v, by_rtt_total);
	for (size_t i = 0; i < n && (!by_rtt || (i < AUDIT_TOP && v[i]->rtt.n)); i++) {
		const struct logagg_count *c = v[i];
		json_array_append_new(out, json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
			"name", c->name, "messages", (json_int_t)c->messages,
			"commands", (json_int_t)c->commands, "events", (json_int_t)c->events,
			"bytes_up", (json_int_t)c->bytes[0], "bytes_down", (json_int_t)c->bytes[1],
			"rtt_n", (json_int_t)c->rtt.n, "rtt_total_us", (json_int_t)c->rtt.sum,
			"rtt_p50_us", (json_int_t)hist_quantile(&c->rtt, 0.5),
			"rtt_max_us", (json_int_t)c->rtt.max));
	}
	free(v);
	return out;
}

/* {"Network.enable {}": {"sessions": N, "by_type": {"page": N}}, ...} from
 * each session's enabled domains at the end of its log. */
static json_t *enables_json(const struct logagg *a, int bodies, json_t **types)
{
	size_t n;
	struct logagg_sess **v = logagg_sessions(a, &n);
	json_t *out = json_object();

	*types = json_object();
	for (size_t i = 0; i < n; i++) {
		const char *type = v[i]->type ? v[i]->type : "unknown", *dom;
		json_t *p;
		json_object_set_new(*types, type, json_integer(
			json_integer_value(json_object_get(*types, type)) + 1));
		json_object_foreach(v[i]->enabled, dom, p) {
			const char *params = json_string_value(p);
			char key[512];
			json_t *e, *bt;
			snprintf(key, sizeof key, "%s.enable %s", dom, *params ? params :
				 bodies ? "{}" : "(params not logged)");
			if (!(e = json_object_get(out, key))) {
				e = json_pack("{s:s,s:s,s:s,s:i,s:{}}", "domain", dom, "method", "enable",
					      "params", *params ? params : bodies ? "{}" : "",
					      "sessions", 0, "by_type");
				json_object_set_new(out, key, e);
			}
			json_object_set_new(e, "sessions", json_integer(
				json_integer_value(json_object_get(e, "sessions")) + 1));
			bt = json_object_get(e, "by_type");
			json_object_set_new(bt, type, json_integer(
				json_integer_value(json_object_get(bt, type)) + 1));
		}
	}
	free(v);
	return out;
}

json_t *audit_rig_json(const struct audit_rig *r)
{
	const struct logagg *a = &r->agg;
	int bodies = json_integer_value(json_object_get(r->seen, "bodies")) > 0;
	json_t *types, *enables = enables_json(a, bodies, &types), *big = json_array(), *rig;

	for (size_t i = 0; i < r->nbig; i++)
		json_array_append_new(big, json_pack("{s:s,s:s,s:s,s:I}", "method", r->big[i].method,
			"dir", r->big[i].up ? "up" : "down", "session", r->big[i].session,
			"bytes", (json_int_t)r->big[i].bytes));
	rig = json_pack("{s:I,s:I,s:I,s:b,s:o,s:I,s:o,s:{s:I,s:I,s:I,s:I,s:I},s:o,s:o,s:o}",
		"browsers", (json_int_t)r->browsers, "records", (json_int_t)r->in.records,
		"bad_lines", (json_int_t)r->in.bad, "bodies_logged", bodies,
		"sessions_by_type", types, "sessions", (json_int_t)a->sessions.n,
		"enables", enables,
		"messages", "total", (json_int_t)a->total.messages,
		"commands", (json_int_t)a->total.commands, "events", (json_int_t)a->total.events,
		"bytes_up", (json_int_t)a->total.bytes[0], "bytes_down", (json_int_t)a->total.bytes[1],
		"domains", counts_json(&a->domains, 0), "top_rtt", counts_json(&a->methods, 1),
		"largest", big);
	json_object_set_new(rig, "findings", audit_findings(r, rig));
	return rig;
}

static void human_bytes(uint64_t b, char *out, size_t len)
{
	if (b >= 10u << 20)
		snprintf(out, len, "%.0f MiB", (double)b / (1 << 20));
	else if (b >= 1u << 20)
		snprintf(out, len, "%.1f MiB", (double)b / (1 << 20));
	else if (b >= 10u << 10)
		snprintf(out, len, "%.0f KiB", (double)b / 1024);
	else
		snprintf(out, len, "%" PRIu64 " B", b);
}

void audit_rig_print(const json_t *rig, FILE *out)
{
	const char *k;
	json_t *v;
	size_t i;
	char a[32], b[32], c[32];

	fprintf(out, "What the rig asks of the browser (%lld browser%s, %lld sessions:",
		(long long)json_integer_value(json_object_get(rig, "browsers")),
		json_integer_value(json_object_get(rig, "browsers")) == 1 ? "" : "s",
		(long long)json_integer_value(json_object_get(rig, "sessions")));
	json_object_foreach(json_object_get(rig, "sessions_by_type"), k, v)
		fprintf(out, " %lld %s", (long long)json_integer_value(v), k);
	fprintf(out, ")\n");
	json_object_foreach(json_object_get(rig, "enables"), k, v) {
		const char *t;
		json_t *n;
		fprintf(out, "  %-50s in %lld session%s (", k,
			(long long)json_integer_value(json_object_get(v, "sessions")),
			json_integer_value(json_object_get(v, "sessions")) == 1 ? "" : "s");
		i = 0;
		json_object_foreach(json_object_get(v, "by_type"), t, n)
			fprintf(out, "%s%lld %s", i++ ? ", " : "", (long long)json_integer_value(n), t);
		fprintf(out, ")\n");
	}
	fprintf(out, "  %-14s %9s %11s %11s\n", "domain", "messages", "bytes up", "bytes down");
	json_array_foreach(json_object_get(rig, "domains"), i, v) {
		if (i >= 8)
			break;
		human_bytes((uint64_t)json_integer_value(json_object_get(v, "bytes_up")), a, sizeof a);
		human_bytes((uint64_t)json_integer_value(json_object_get(v, "bytes_down")), b, sizeof b);
		fprintf(out, "  %-14s %9lld %11s %11s\n", json_string_value(json_object_get(v, "name")),
			(long long)json_integer_value(json_object_get(v, "messages")), a, b);
	}
	if (json_array_size(json_object_get(rig, "top_rtt")))
		fprintf(out, "  slowest in total:");
	json_array_foreach(json_object_get(rig, "top_rtt"), i, v) {
		if (i >= 3)
			break;
		logrec_fmt_us((uint64_t)json_integer_value(json_object_get(v, "rtt_total_us")), c, sizeof c);
		fprintf(out, "%s %s %s", i ? "," : "", json_string_value(json_object_get(v, "name")), c);
	}
	v = json_array_get(json_object_get(rig, "largest"), 0);
	if (v) {
		human_bytes((uint64_t)json_integer_value(json_object_get(v, "bytes")), a, sizeof a);
		fprintf(out, "%s largest message: %s (%s, %s)",
			json_array_size(json_object_get(rig, "top_rtt")) ? ";" : " ",
			json_string_value(json_object_get(v, "method")),
			json_string_value(json_object_get(v, "dir")), a);
	}
	fprintf(out, "\nFindings:\n");
	if (!json_array_size(json_object_get(rig, "findings")))
		fprintf(out, "- none of the known-costly patterns\n");
	json_array_foreach(json_object_get(rig, "findings"), i, v) {
		fprintf(out, "- %s: %s\n  cost: %s\n", json_string_value(json_object_get(v, "title")),
			json_string_value(json_object_get(v, "evidence")),
			json_string_value(json_object_get(v, "cost")));
		if (json_object_get(v, "measured"))
			fprintf(out, "  measured: %s\n", json_string_value(json_object_get(v, "measured")));
		fprintf(out, "  remedy: %s\n", json_string_value(json_object_get(v, "remedy")));
	}
}
