/* leg: the core's side of the leg contract (leg.h): each report a leg
 * makes, handed to route and core, and then the asks it leads to: the
 * read-ahead hold, the budget's pauses and resumes as one "read side S or
 * not", and the writes at the end of each round of the loop. Written once
 * for every leg. */
#include "leg.h"

#include "channel.h"
#include "route.h"

/* Asks each side's leg to read or not, where that changed: a side is read
 * unless held (too far ahead of its writer), or paused by the budget while
 * it is not cutting a message through (one is read to its end: the queue
 * that paused it is freed only once it is whole and written). */
static void flow(struct core_conn *cc)
{
	for (int s = DOWN; s <= UP; s++) {
		int on = !cc->held[s] && (!core_paused(cc, (enum side)s) || cc->streaming[s]);
		if (on == cc->reading[s])
			continue;
		cc->reading[s] = on;
		cc->ops[s]->flow(cc, (enum side)s, on);
	}
}

/* Side p holds while the message it cuts through is more than
 * CORE_READ_AHEAD ahead of the other side's writer, and reads on once that
 * is within half of it (core_read_ahead_hold); asked when more of it came
 * and when the other side wrote. */
static void hold(struct core_conn *cc, enum side p)
{
	const struct msg *m = cc->streaming[p];
	size_t sent = m && cc->ops[!p]->sent ? cc->ops[!p]->sent(cc, !p, m) : 0;

	cc->held[p] = m && core_read_ahead_hold(sent < m->len ? m->len - sent : 0, cc->held[p]);
}

/* Side p's message, cut through, is whole, cut, or gone: no hold now. */
static void stream_over(struct core_conn *cc, enum side p)
{
	cc->streaming[p] = NULL;
	cc->held[p] = 0;
}

void leg_conn_init(struct core *core, struct core_conn *cc, const struct leg_ops *ops,
		   const char *path)
{
	core_conn_init(core, cc, ops, path);
}

void leg_conn_side(struct core_conn *cc, enum side s, const struct leg_ops *ops)
{
	cc->ops[s] = ops;
}

void leg_report_open(struct core_conn *cc, const char *leg, const char *upstream)
{
	core_report_open(cc, leg, upstream);
}

void leg_conn_ready(struct core_conn *cc)
{
	route_conn_opened(cc);
	flow(cc);
}

void leg_report_close(struct core_conn *cc, enum side s, const char *by, int code,
		      const char *reason)
{
	stream_over(cc, s);
	core_report_close(cc, s, by, code, reason);
}

void leg_shut(struct core_conn *cc, enum side s, int drop)
{
	core_shut(cc, s, drop);
	if (drop) {   /* the message cut through to s went with its queue */
		stream_over(cc, (enum side)!s);
		flow(cc);
	}
}

void leg_conn_free(struct core_conn *cc)
{
	channel_conn_free(cc);
	core_conn_free(cc);
}

void leg_read(struct core *core, const void *token)
{
	core_read_clock(core, token);
}

void leg_deliver(void *ccp, int side, struct msg *m)
{
	struct core_conn *cc = ccp;
	enum side from = (enum side)side;

	if (cc->streaming[from] == m)   /* whole: a pause asked for while it came applies now */
		stream_over(cc, from);
	route_deliver(cc, from, m);
	flow(cc);
}

int leg_begin(void *ccp, int side, struct msg *m, uint64_t total)
{
	struct core_conn *cc = ccp;
	int rc = route_begin(cc, (enum side)side, m, total);

	if (rc == 1)
		cc->streaming[side] = m;
	return rc;
}

void leg_grew(void *ccp, int side, struct msg *m, size_t old_cost)
{
	struct core_conn *cc = ccp;
	enum side p = (enum side)side;

	core_stream_grew(cc, !p, m, old_cost);
	if (m->cut)
		stream_over(cc, p);
	else
		hold(cc, p);
	flow(cc);
}

void leg_too_large(struct core_conn *cc, enum side from, uint64_t bytes)
{
	core_report_too_large(cc, from, bytes, cc->core->max_message);
}

void leg_answer(struct core_conn *cc, enum side s, struct msg *m)
{
	/* The side it answers waits while its answers fill its queue. */
	core_enqueue(cc, s, m, s);
	flow(cc);
}

void leg_channel_up(struct core_conn *cc, const struct msg *m)
{
	struct core_conn *host = cc->host;

	if (!host)
		return;
	channel_up(host, m);
	flow(host);
}

void leg_channel_gone(struct core_conn *cc)
{
	channel_gone(cc);
}

/* Writes side s (ops->write), then what that changed: side s's queue
 * drained (its producers may read again), the other side's read-ahead. */
static int write_side(struct core_conn *cc, enum side s, int writable)
{
	int rc = cc->ops[s]->write(cc, s, writable);

	core_drained(cc, s);
	hold(cc, (enum side)!s);
	flow(cc);
	return rc;
}

int leg_writable(struct core_conn *cc, enum side s)
{
	/* What is queued is logged before a byte of it goes: written here
	 * too, when a peer's callback comes in the middle of the round that
	 * queued it (the loop writes the rest at the round's end). */
	if (cc->core->log)
		log_flush(cc->core->log);
	return write_side(cc, s, 1);
}

void leg_write_later(struct core_conn *cc, enum side s)
{
	core_dirty(cc, s);
}

void leg_round(struct core *core)
{
	struct core_conn *cc;

	while ((cc = core->dirty)) {
		unsigned sides = cc->dirty;
		core->dirty = cc->next_dirty;
		cc->dirty = 0;
		for (int s = DOWN; s <= UP; s++)
			if (sides & 1u << s)
				write_side(cc, (enum side)s, 0);
	}
}
