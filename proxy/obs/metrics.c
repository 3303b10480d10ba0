/* metrics: the proxy's counters in the Prometheus text exposition format. */
#include "metrics.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bidi.h"
#include "protocol.h"
#include "side.h"
#include "table.h"
#include "util.h"

/* The histogram's bounds: 2^b microseconds for b in [LE_FIRST, LE_LAST]
 * (64 us to 33.6 s), the hist buckets (hist.h) below and above folded into
 * the first and +Inf. A round trip is kept in whole microseconds, cut
 * down: one kept under 2^b lasted at most 2^b, so "le" holds. */
#define LE_FIRST 6
#define LE_LAST 25

/* One label's worth of counts: a domain, or a method. */
struct agg {
	uint64_t messages[2], bytes[2];
	struct hist rtt;
};

struct named {
	const char *name;
	size_t len;
	struct agg *a;
};

/* Writes a label value: \, " and newline escaped, as the format wants, and
 * bytes that are not UTF-8 as U+FFFD (a policy's file name may hold any). */
void metrics_put_value(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = util_utf8_seq((const unsigned char *)s + i, n - i);
		if (!k) {
			fputs("\xef\xbf\xbd", out);
			i++;
		} else if (s[i] == '\\') {
			fputs("\\\\", out);
			i++;
		} else if (s[i] == '"') {
			fputs("\\\"", out);
			i++;
		} else if (s[i] == '\n') {
			fputs("\\n", out);
			i++;
		} else {
			fwrite(s + i, 1, k, out);
			i += k;
		}
	}
}

static void head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A sample with no labels. */
static void sample(FILE *out, const char *name, uint64_t v)
{
	fprintf(out, "%s %" PRIu64 "\n", name, v);
}

/* A sample with one label. */
static void sample1(FILE *out, const char *name, const char *label, const char *value,
		    size_t vlen, uint64_t v)
{
	fprintf(out, "%s{%s=\"", name, label);
	metrics_put_value(out, value, vlen);
	fprintf(out, "\"} %" PRIu64 "\n", v);
}

/* Microseconds as seconds, exactly. */
static void put_seconds(FILE *out, uint64_t us)
{
	fprintf(out, "%" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
}

/* What differs between the CDP table and the BiDi one (stats_bidi): the
 * metric names' prefix, what a method's first part is called, and which
 * names are the protocol's. */
struct flavour {
	const char *prefix, *part, *what;
	int (*method_known)(const char *name, size_t len);
	int (*part_known)(const char *name, size_t len);
};

static const struct flavour cdp = { "cdpproxy_", "domain", "CDP", protocol_known, protocol_domain_known };
static const struct flavour bidi = { "cdpproxy_bidi_", "module", "WebDriver BiDi", bidi_method_known,
				     bidi_module_known };

/* The domain (module) label of a method: the protocol's, an internal name
 * as it is ("(unmatched)", ...), or METRICS_OTHER_DOMAINS. */
static void domain_label(const struct flavour *fl, const char *name, size_t len, const char **out,
			 size_t *olen)
{
	size_t dlen = stats_domain_len(name, len);

	if (stats_internal_name(name, len)) {
		*out = name;
		*olen = len;
	} else if (fl->part_known(name, dlen)) {
		*out = name;
		*olen = dlen;
	} else {
		*out = METRICS_OTHER_DOMAINS;
		*olen = strlen(METRICS_OTHER_DOMAINS);
	}
}

static void agg_add(struct agg *a, const struct stats_entry *e, int with_rtt)
{
	for (int s = DOWN; s <= UP; s++) {
		a->messages[s] += e->messages[s];
		a->bytes[s] += e->bytes[s];
	}
	if (!with_rtt)
		return;
	for (int b = 0; b < HIST_BUCKETS; b++)
		a->rtt.bucket[b] += e->rtt->bucket[b];
	a->rtt.n += e->rtt->n;
	a->rtt.sum += e->rtt->sum;
	if (e->rtt->max > a->rtt.max)
		a->rtt.max = e->rtt->max;
}

static struct agg *agg_get(struct table *t, const char *name, size_t len)
{
	void **v = table_put(t, name, len);

	return *v ? *v : (*v = xcalloc(1, sizeof(struct agg)));
}

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* t's entries sorted by name (stable output, scrape after scrape); *n gets
 * their count. */
static struct named *sorted(const struct table *t, size_t *n)
{
	struct named *v = xcalloc(t->n ? t->n : 1, sizeof *v);
	struct table_slot *s;

	*n = 0;
	for (size_t i = 0; (s = table_next(t, &i)); (*n)++)
		v[*n] = (struct named){ s->key, s->klen, s->val };
	qsort(v, *n, sizeof *v, named_cmp);
	return v;
}

/* prefix + name, in a buffer of its own per call site. */
static const char *metric(char *out, size_t outlen, const struct flavour *fl, const char *name)
{
	snprintf(out, outlen, "%s%s", fl->prefix, name);
	return out;
}

static void write_domains(FILE *out, const struct flavour *fl, const struct named *d, size_t n)
{
	char names[2][64], help[2][160];

	metric(names[0], sizeof names[0], fl, "messages_total");
	metric(names[1], sizeof names[1], fl, "message_bytes_total");
	snprintf(help[0], sizeof help[0], "%s messages by %s and direction (up: to the browser, down: "
		 "to the client).", fl->what, fl->part);
	snprintf(help[1], sizeof help[1], "Bytes of %s messages by %s and direction.", fl->what, fl->part);
	for (int which = 0; which < 2; which++)
		head(out, names[which], "counter", help[which]);
	for (int which = 0; which < 2; which++) {
		for (size_t i = 0; i < n; i++) {
			for (int s = UP; s >= DOWN; s--) {
				fprintf(out, "%s{%s=\"", names[which], fl->part);
				metrics_put_value(out, d[i].name, d[i].len);
				fprintf(out, "\",direction=\"%s\"} %" PRIu64 "\n", side_dir[s],
					which ? d[i].a->bytes[s] : d[i].a->messages[s]);
			}
		}
	}
}

static void write_round_trips(FILE *out, const struct flavour *fl, const struct named *d, size_t n)
{
	char name[64], help[160];

	metric(name, sizeof name, fl, "command_round_trip_seconds");
	snprintf(help, sizeof help, "Time from a %s command's forwarding to its response, by %s.",
		 fl->what, fl->part);
	head(out, name, "histogram", help);
	for (size_t i = 0; i < n; i++) {
		const struct hist *h = &d[i].a->rtt;
		uint64_t below = 0;
		int b = 0;
		if (!h->n)
			continue;
		for (int le = LE_FIRST; le <= LE_LAST; le++) {
			for (; b <= le; b++)
				below += h->bucket[b];
			fprintf(out, "%s_bucket{%s=\"", name, fl->part);
			metrics_put_value(out, d[i].name, d[i].len);
			fputs("\",le=\"", out);
			put_seconds(out, 1ull << le);
			fprintf(out, "\"} %" PRIu64 "\n", below);
		}
		fprintf(out, "%s_bucket{%s=\"", name, fl->part);
		metrics_put_value(out, d[i].name, d[i].len);
		fprintf(out, "\",le=\"+Inf\"} %" PRIu64 "\n%s_sum{%s=\"", h->n, name, fl->part);
		metrics_put_value(out, d[i].name, d[i].len);
		fputs("\"} ", out);
		put_seconds(out, h->sum);
		fprintf(out, "\n%s_count{%s=\"", name, fl->part);
		metrics_put_value(out, d[i].name, d[i].len);
		fprintf(out, "\"} %" PRIu64 "\n", h->n);
	}
}

static void write_commands(FILE *out, const struct flavour *fl, const struct named *c, size_t n)
{
	char name[64], help[200];

	metric(name, sizeof name, fl, "commands_total");
	snprintf(help, sizeof help, "%s commands sent to the browser, by method; methods the protocol "
		 "does not define under method=\"" METRICS_OTHER_METHODS "\".", fl->what);
	head(out, name, "counter", help);
	for (size_t i = 0; i < n; i++)
		if (c[i].a->messages[UP])
			sample1(out, name, "method", c[i].name, c[i].len, c[i].a->messages[UP]);
}

/* The BiDi table's error answers by code: BiDi's codes, and one label for
 * the others. */
static void write_errors(FILE *out, const struct stats *st)
{
	static const char name[] = "cdpproxy_bidi_errors_total";

	head(out, name, "counter", "WebDriver BiDi error answers, by error code; codes BiDi does "
	     "not define under error=\"(other errors)\".");
	for (size_t i = 0; i <= BIDI_ERROR_CODES; i++) {
		const char *code = i < BIDI_ERROR_CODES ? bidi_error_codes[i] : "(other errors)";
		if (stats_errors_by_code(st, i))
			sample1(out, name, "error", code, strlen(code), stats_errors_by_code(st, i));
	}
}

/* A stats table by domain, its commands by method, and its round trips. */
static void write_table(FILE *out, const struct flavour *fl, const struct stats *st)
{
	struct table domains, methods;
	struct stats_entry e;
	struct named *d, *c;
	size_t nd, nc;

	table_init(&domains);
	table_init(&methods);
	for (size_t i = 0; stats_next(st, &i, &e); ) {
		const char *label;
		size_t len;
		domain_label(fl, e.name, e.len, &label, &len);
		agg_add(agg_get(&domains, label, len), &e, 1);
		if (fl->method_known(e.name, e.len))
			agg_add(agg_get(&methods, e.name, e.len), &e, 0);
		else if (!stats_internal_name(e.name, e.len))
			agg_add(agg_get(&methods, METRICS_OTHER_METHODS, strlen(METRICS_OTHER_METHODS)), &e, 0);
	}
	d = sorted(&domains, &nd);
	c = sorted(&methods, &nc);
	write_domains(out, fl, d, nd);
	write_commands(out, fl, c, nc);
	write_round_trips(out, fl, d, nd);
	free(d);
	free(c);
	table_free(&domains, free);
	table_free(&methods, free);
}

/* The CDP table and the BiDi one (stats.h), and what is counted beside. */
static void write_stats(FILE *out, const struct stats *st)
{
	write_table(out, &cdp, st);
	head(out, "cdpproxy_commands_evicted_total", "counter",
	     "Commands forgotten unanswered: more awaited an answer than a connection keeps.");
	sample(out, "cdpproxy_commands_evicted_total", stats_evicted(st));
	head(out, "cdpproxy_unknown_method_names", "gauge",
	     "Distinct method names outside the protocol seen (an estimate past 256).");
	sample(out, "cdpproxy_unknown_method_names", stats_unlisted_names(st));
	if (!stats_bidi(st))
		return;
	write_table(out, &bidi, stats_bidi(st));
	write_errors(out, stats_bidi(st));
}

static void write_policy(FILE *out, const struct metrics *m)
{
	static const char hits[] = "cdpproxy_policy_rule_hits_total";
	static const char acts[] = "cdpproxy_policy_actions_total";
	const struct policy *p = m->policy;

	head(out, "cdpproxy_policy_generation", "gauge",
	     "The policy in force (label policy), counted 1 at start and up at each switch.");
	if (p)
		sample1(out, "cdpproxy_policy_generation", "policy", p->name, strlen(p->name),
			m->policy_gen);
	head(out, hits, "counter", "Messages each rule of the policy in force decided "
	     "(from its start; rules past 256 are left out).");
	for (size_t i = 0; p && i < p->n_rules && i < METRICS_RULES_MAX; i++) {
		const struct policy_rule *r = &p->rules[i];
		fprintf(out, "%s{policy=\"", hits);
		metrics_put_value(out, p->name, strlen(p->name));
		fprintf(out, "\",rule=\"%zu\",method=\"", i);
		metrics_put_value(out, r->method, strlen(r->method));
		fprintf(out, "\",action=\"%s\"} %" PRIu64 "\n", policy_action_name(r->action), r->hits);
	}
	head(out, acts, "counter",
	     "Messages a policy rule decided, by action (stub, reject, rewrite, drop, delay, pass).");
	for (int a = 0; a <= ACT_DELAY; a++) {
		const char *an = policy_action_name((enum policy_action)a);
		sample1(out, acts, "action", an, strlen(an), m->actions[a]);
	}
}

static void write_core(FILE *out, const struct metrics *m)
{
	head(out, "cdpproxy_queue_bytes", "gauge",
	     "Memory held by messages queued to be written, by direction (up: to the browser).");
	for (int s = UP; s >= DOWN; s--)
		sample1(out, "cdpproxy_queue_bytes", "direction", side_dir[s], strlen(side_dir[s]),
			m->queue_bytes[s]);
	head(out, "cdpproxy_read_pauses_total", "counter",
	     "Times reading a side (client, upstream) was paused because a queue was full.");
	for (int s = DOWN; s <= UP; s++)
		sample1(out, "cdpproxy_read_pauses_total", "side", side_name[s], strlen(side_name[s]),
			m->pauses[s]);
	head(out, "cdpproxy_read_paused_connections", "gauge",
	     "Connections whose side (client, upstream) is not read now: a full queue.");
	for (int s = DOWN; s <= UP; s++)
		sample1(out, "cdpproxy_read_paused_connections", "side", side_name[s],
			strlen(side_name[s]), m->paused[s]);
	head(out, "cdpproxy_log_records_lost_total", "counter",
	     "Log records that could not be written.");
	sample(out, "cdpproxy_log_records_lost_total", m->log_lost);
	head(out, "cdpproxy_connections_open", "gauge", "Client connections open.");
	sample(out, "cdpproxy_connections_open", m->conns_open);
	head(out, "cdpproxy_connections_total", "counter", "Client connections opened.");
	sample(out, "cdpproxy_connections_total", m->conns_total);
	head(out, "cdpproxy_sessions_open", "gauge",
	     "CDP sessions on the open connections (each connection's own included).");
	sample(out, "cdpproxy_sessions_open", m->sessions_open);
}

static void write_process(FILE *out, const struct metrics_process *p)
{
	if (!p->ok)
		return;
	head(out, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.");
	fprintf(out, "process_cpu_seconds_total %.2f\n", p->cpu_seconds);
	head(out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
	sample(out, "process_resident_memory_bytes", p->resident_bytes);
	head(out, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.");
	sample(out, "process_virtual_memory_bytes", p->virtual_bytes);
	head(out, "process_open_fds", "gauge", "Number of open file descriptors.");
	sample(out, "process_open_fds", p->open_fds);
	head(out, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
	sample(out, "process_max_fds", p->max_fds);
	head(out, "process_start_time_seconds", "gauge",
	     "Start time of the process since unix epoch in seconds.");
	fprintf(out, "process_start_time_seconds %.2f\n", p->start_time_seconds);
}

void metrics_write(const struct metrics *m, FILE *out)
{
	write_stats(out, m->stats);
	write_policy(out, m);
	write_core(out, m);
	write_process(out, &m->proc);
}
