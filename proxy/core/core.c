/* core: connections, their queues and the byte budget that bounds them, and
 * the policy they share; what happens to each message is route.c's. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *const side_name[2] = { "client", "upstream" };

/* Commands awaiting an answer per connection, by default: far more than any
 * client keeps in flight; past it the oldest is forgotten (and counted). */
#define PENDING_MAX_DEFAULT 16384

/* How often core_read_clock reads the wall clock itself. Between two
 * reads the wall time it gives is off by no more than NTP slews the wall
 * clock meanwhile (at most 0.5 ms a second: 100 us), and a step of the
 * wall clock shows within this time. */
#define CORE_WALL_SYNC_US 200000

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
	core->control_domain = 1;
	sync_wall(core, util_mono_us());
	core_set_policy(core, p ? p : policy_passthrough(), "start");
}

void core_free(struct core *core)
{
	stats_free(core->stats);
	policy_free(core->policy);
	core->stats = NULL;
	core->policy = NULL;
}

void core_set_policy(struct core *core, struct policy *p, const char *source)
{
	policy_free(core->policy);
	core->policy = p;
	core->policy_gen++;
	core->policy_since_us = util_now_us();
	if (core->log) {
		log_set_gen(core->log, core->policy_gen);
		log_event(core->log, 0, "policy", json_pack("{s:o, s:o, s:s}", "name",
			  util_json_str(p->name), "source", util_json_str(p->source), "via", source));
	}
	if (core->tail)
		tail_note(core->tail, "policy", 0, p->name, core->policy_since_us);
	for (struct core_conn *cc = core->conns; cc; cc = cc->next)
		route_sync(cc);
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

void core_conn_init(struct core *core, struct core_conn *cc, const struct core_leg_ops *ops,
		    const char *path)
{
	cc->core = core;
	cc->ops = ops;
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
	cc->core->conns_open--;
	for (int s = DOWN; s <= UP; s++)
		queue_clear(&cc->out[s]);
	sessions_free(&cc->sessions);
	free(cc->path);
	free(cc->client.user_agent);
	cc->path = NULL;
}

void core_enqueue(struct core_conn *cc, enum side to, struct msg *m, enum side producer)
{
	struct queue *q = &cc->out[to];

	if (cc->shut[to]) {   /* nobody left to deliver it to */
		msg_free(m);
		return;
	}
	queue_push(q, m);
	cc->ops->queued(cc, to);
	/* Whoever made this message waits while the queue it went to is full:
	 * the other side's messages, and the proxy's own answers, pongs and
	 * injected commands alike. */
	if (producer <= UP && q->bytes > cc->core->queue_bytes &&
	    !(cc->paused_by[producer] & 1u << to)) {
		int was = core_paused(cc, producer);
		cc->paused_by[producer] |= 1u << to;
		if (!was)
			cc->ops->reading(cc, producer, 0);
	}
}

/* out[s] has drained to half the budget: resume the sides it held. */
static void resume_drained(struct core_conn *cc, enum side s)
{
	if (cc->out[s].bytes > cc->core->queue_bytes / 2)
		return;
	for (int p = DOWN; p <= UP; p++) {
		if (!(cc->paused_by[p] & 1u << s))
			continue;
		cc->paused_by[p] &= ~(1u << s);
		if (!cc->paused_by[p])
			cc->ops->reading(cc, (enum side)p, 1);
	}
}

void core_written(struct core_conn *cc, enum side s)
{
	msg_free(queue_pop(&cc->out[s]));
	resume_drained(cc, s);
}

void core_shut(struct core_conn *cc, enum side s, int drop)
{
	cc->shut[s] = 1;
	if (!drop)
		return;
	queue_clear(&cc->out[s]);
	resume_drained(cc, s);
}
