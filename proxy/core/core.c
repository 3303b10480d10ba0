/* core: connections, their queues and the byte budget that bounds them,
 * the policy they share, and the log's records of connections; what
 * happens to each message is route.c's. */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bidi.h"
#include "metrics.h"
#include "procstat.h"
#include "util.h"

/* Commands awaiting an answer per connection, by default: far more than any
 * client keeps in flight; past it the oldest is forgotten (and counted). */
#define PENDING_MAX_DEFAULT 16384

/* How often core_read_clock reads the wall clock itself. Between two
 * reads the wall time it gives is off by no more than NTP slews the wall
 * clock meanwhile (at most 0.5 ms a second: 100 us), and a step of the
 * wall clock shows within this time. */
#define CORE_WALL_SYNC_US 200000

/* The smallest message cut through, by default: over what the WebSocket
 * leg batches (256 KiB), where a message's own transfer time starts to
 * show. */
#define CUT_MIN_DEFAULT (256 * 1024)

static void sync_wall(struct core *core, uint64_t mono_us)
{
	core->wall_minus_mono_us = util_now_us() - mono_us;
	core->wall_synced_us = mono_us;
}

void core_init(struct core *core, struct policy *p, struct log *lg, uint64_t queue_bytes)
{
	memset(core, 0, sizeof *core);
	core->stats = stats_new();
	core->log = lg;
	core->queue_bytes = queue_bytes;
	core->pending_max = PENDING_MAX_DEFAULT;
	core->cut_min = CUT_MIN_DEFAULT;
	core->selfdomain = 1;
	sync_wall(core, util_mono_us());
	core_install_policy(core, p ? p : policy_passthrough(), "start");
}

void core_free(struct core *core)
{
	stats_free(core->stats);
	policy_free(core->policy);
	core->stats = NULL;
	core->policy = NULL;
}

void core_install_policy(struct core *core, struct policy *p, const char *source)
{
	policy_free(core->policy);
	core->policy = p;
	core->policy_gen++;
	core->policy_since_us = util_now_us();
	if (core->log) {
		log_set_gen(core->log, core->policy_gen);
		json_t *rec = json_pack("{s:o, s:o, s:s}", "name", util_json_str(p->name), "source",
					util_json_str(p->source), "via", source);

		if (json_array_size(p->warnings))
			json_object_set(rec, "warnings", p->warnings);
		log_event(core->log, 0, "policy", rec);
	}
	if (core->tail)
		tail_note(core->tail, "policy", 0, p->name, core->policy_since_us);
}

/* A policy name is a file name: longer ones would be cut in the path. */
#define POLICY_NAME_MAX 200

struct policy *core_policy_by_name(const struct core *core, const char *name,
				   char *err, size_t errlen)
{
	char path[1024];
	const char *dir = core->policy_dir ? core->policy_dir : "policies";

	if (!*name || strchr(name, '/') || name[0] == '.' || strlen(name) > POLICY_NAME_MAX) {
		snprintf(err, errlen, "'%.200s%s' is not a policy name (a file name in %s, without .json, "
			 "of at most %d bytes)", name, strlen(name) > POLICY_NAME_MAX ? "..." : "", dir,
			 POLICY_NAME_MAX);
		return NULL;
	}
	snprintf(path, sizeof path, "%s/%.200s.json", dir, name);
	return policy_load(path, err, errlen);
}

json_t *core_policy_json(const struct core *core)
{
	json_t *j = json_object();

	json_object_set_new(j, "name", util_json_str(core->policy->name));
	json_object_set_new(j, "gen", json_integer((json_int_t)core->policy_gen));
	json_object_set_new(j, "since_us", json_integer((json_int_t)core->policy_since_us));
	json_object_set_new(j, "policy", policy_json(core->policy));
	return j;
}

void core_read_clock(struct core *core, const void *token)
{
	uint64_t mono;

	if (token && token == core->read_token)   /* another message of the same read */
		return;
	core->read_token = token;
	core->read_mono_us = mono = util_mono_us();
	if (mono - core->wall_synced_us >= CORE_WALL_SYNC_US)
		sync_wall(core, mono);
	core->read_wall_us = mono + core->wall_minus_mono_us;
}

void core_conn_init(struct core *core, struct core_conn *cc, const struct leg_ops *ops,
		    const char *path)
{
	cc->core = core;
	cc->ops[DOWN] = cc->ops[UP] = ops;
	cc->reading[DOWN] = cc->reading[UP] = 1;
	cc->id = ++core->next_conn_id;
	cc->path = xstrdup(path);
	cc->next_proxy_id = PROXY_ID_BASE;
	cc->opened_us = util_now_us();
	sessions_init(&cc->sessions, path);
	cc->sessions.pending_max = core->pending_max;
	cc->next = core->conns;
	core->conns = cc;
	core->conns_open++;
	core->conns_total++;
}

void core_conn_free(struct core_conn *cc)
{
	struct core_conn **pp = &cc->core->conns;

	while (*pp != cc)
		pp = &(*pp)->next;
	*pp = cc->next;
	for (pp = &cc->core->dirty; cc->dirty && *pp; pp = &(*pp)->next_dirty)
		if (*pp == cc) {
			*pp = cc->next_dirty;
			break;
		}
	cc->core->conns_open--;
	for (int s = DOWN; s <= UP; s++)
		queue_clear(&cc->out[s]);
	sessions_free(&cc->sessions);
	if (cc->bidi) {
		bidi_track_free(cc->bidi);
		free(cc->bidi);
		cc->bidi = NULL;
	}
	free(cc->path);
	free(cc->client.user_agent);
	cc->path = NULL;
}

void core_report_open(struct core_conn *cc, const char *leg, const char *upstream)
{
	if (cc->core->log)
		log_event(cc->core->log, cc->id, "open", json_pack("{s:o, s:s, s:o, s:o}",
			  "path", util_json_str(cc->path), "leg", leg, "upstream", util_json_str(upstream),
			  "client", client_json(&cc->client)));
}

void core_report_close(struct core_conn *cc, enum side s, const char *by, int code,
		       const char *reason)
{
	if (cc->core->log)
		log_event(cc->core->log, cc->id, "close", json_pack("{s:s, s:i, s:o, s:s}",
			  "side", side_name[s], "code", code, "reason", util_json_str(reason), "by", by));
	/* The live view says how each connection ended, as cdplog does. */
	if (cc->core->tail) {
		char label[96];
		snprintf(label, sizeof label, "closed by the %s (%d%s%s)", by, code, *reason ? ": " : "", reason);
		tail_note(cc->core->tail, "close", cc->id, label, util_now_us());
	}
}

void core_report_too_large(struct core_conn *cc, enum side from, uint64_t bytes, uint64_t max)
{
	if (cc->core->log)
		log_event(cc->core->log, cc->id, "too_large", json_pack("{s:s, s:I, s:I}",
			  "from", side_name[from], "bytes_at_least", (json_int_t)bytes,
			  "max", (json_int_t)max));
}

/* Whoever made a message for side `to` waits while the queue it went to
 * is full: the other side's messages, and the proxy's own answers, pongs
 * and injected commands alike. */
static void pause_if_full(struct core_conn *cc, enum side to, enum side producer)
{
	if (producer <= UP && cc->out[to].bytes > cc->core->queue_bytes &&
	    !(cc->paused_by[producer] & 1u << to)) {
		if (!core_paused(cc, producer))
			cc->core->pauses[producer]++;
		cc->paused_by[producer] |= 1u << to;
	}
}

void core_dirty(struct core_conn *cc, enum side s)
{
	/* Written when this round of the event loop is over (leg_round), with
	 * whatever else the round queued: no extra round, and one write for many. */
	if (!cc->dirty) {
		cc->next_dirty = cc->core->dirty;
		cc->core->dirty = cc;
	}
	cc->dirty |= 1u << s;
}

void core_enqueue(struct core_conn *cc, enum side to, struct msg *m, enum side producer)
{
	if (cc->shut[to]) {   /* nobody left to deliver it to */
		msg_free(m);
		return;
	}
	queue_push(&cc->out[to], m);
	core_dirty(cc, to);
	pause_if_full(cc, to, producer);
}

/* A string this long or longer, seen as a cut-through message streams,
 * is not read again by route_deliver's scan: the strings that make a
 * message large (postData, a screenshot's data, a response body). */
#define CUT_SCAN_MIN ((size_t)64 << 10)

void core_stream_begin(struct core_conn *cc, enum side to, struct msg *m)
{
	scan_stream_init(&cc->cut_scan[to], CUT_SCAN_MIN);
	scan_stream_feed(&cc->cut_scan[to], (const char *)MSG_DATA(m), m->len);
	queue_push(&cc->out[to], m);
	core_dirty(cc, to);
}

void core_stream_grew(struct core_conn *cc, enum side to, struct msg *m, size_t old_cost)
{
	cc->out[to].bytes += msg_cost(m) - old_cost;
	scan_stream_feed(&cc->cut_scan[to], (const char *)MSG_DATA(m), m->len);
	core_dirty(cc, to);
}

void core_stream_end(struct core_conn *cc, enum side to, enum side producer)
{
	pause_if_full(cc, to, producer);
}

void core_drained(struct core_conn *cc, enum side s)
{
	/* out[s] has drained to half the budget: the sides it held go on. */
	if (cc->out[s].bytes > cc->core->queue_bytes / 2)
		return;
	for (int p = DOWN; p <= UP; p++)
		cc->paused_by[p] &= ~(1u << s);
}

void core_shut(struct core_conn *cc, enum side s, int drop)
{
	cc->shut[s] = 1;
	if (!drop)
		return;
	queue_clear(&cc->out[s]);
	core_drained(cc, s);
}

char *core_metrics_text(const struct core *core, size_t *len)
{
	struct metrics m = { .stats = core->stats, .policy = core->policy,
			     .policy_gen = core->policy_gen, .conns_open = core->conns_open,
			     .conns_total = core->conns_total,
			     .log_lost = core->log ? log_lost(core->log) : 0 };
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		abort();   /* out of memory, as xmalloc */
	memcpy(m.actions, core->actions, sizeof m.actions);
	memcpy(m.pauses, core->pauses, sizeof m.pauses);
	for (const struct core_conn *cc = core->conns; cc; cc = cc->next) {
		m.sessions_open += (unsigned)cc->sessions.by_id.n;
		for (int s = DOWN; s <= UP; s++) {
			m.queue_bytes[s] += cc->out[s].bytes;
			m.paused[s] += core_paused(cc, (enum side)s);
		}
	}
	procstat_read(&m.proc);
	metrics_write(&m, f);
	if (fclose(f) != 0)
		abort();
	return text;
}
