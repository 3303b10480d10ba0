/* core: what the message core every transport shares keeps: connections,
 * their queues, with one byte budget per direction that pauses whichever
 * side fills it, the policy in force, and the connection records of the
 * log. What happens to each message is route's (route.h); the legs reach
 * both through the leg contract (leg.h, leg.c), never directly; core calls
 * nothing above it. It knows no sockets, no lws and no framing. */
#ifndef CDPPROXY_CORE_H
#define CDPPROXY_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "log.h"
#include "policy.h"
#include "queue.h"
#include "scan.h"
#include "sessions.h"
#include "side.h"
#include "stats.h"
#include "tail.h"

/* The proxy's own commands count up from here, far above clients' ids. */
#define PROXY_ID_BASE 1000000000LL

struct core;
struct channel;
struct core_conn;

/* Opens the BiDi mapper's connection for host (channel.h): its client side
 * the channel riding on host, its Chrome side a new connection to Chrome
 * at host's path; NULL when it cannot. */
typedef struct core_conn *core_channel_open_fn(struct core *core, struct core_conn *host);

/* What every connection of one proxy (or wrapper) shares. */
struct core {
	struct policy *policy;        /* never NULL once core_init has run */
	uint64_t policy_gen;          /* 1 for the first, +1 at every switch */
	uint64_t policy_since_us;
	struct stats *stats;
	struct log *log;              /* NULL: no log */
	uint64_t queue_bytes;         /* per direction: past it, the producer is paused */
	uint64_t cut_min;             /* a message over this may be cut through (route_begin) */
	size_t pending_max;           /* commands awaiting an answer per connection */
	int selfdomain;               /* CDPProxy.* commands are answered (selfdomain.h) */
	const char *policy_dir;       /* where a policy name finds NAME.json */
	uint64_t marks;               /* CDPProxy.mark records written */
	uint64_t record_budget;       /* --record-bodies: body bytes fetched per connection; 0: off */
	core_channel_open_fn *channel_open;  /* the BiDi mapper's channel (channel.h); NULL: off */
	const char *channel_off;      /* ... and why it is off, for the log ("--no-bidi-channel") */
	struct tail *tail;            /* the live view's ring, while one watches; else NULL */
	struct core_conn *conns;      /* live connections, newest first */
	struct core_conn *dirty;      /* those with messages queued this round (leg_round) */
	uint64_t max_message;         /* the largest message either way (too_large records) */
	uint64_t next_conn_id, conns_total;
	unsigned conns_open;
	uint64_t pauses[2];           /* times reading side s was paused (budget) */
	uint64_t actions[ACT_DELAY + 1];  /* messages a policy rule decided, by action */
	/* When the bytes being handled were read (core_read_clock). */
	uint64_t read_mono_us, read_wall_us;
	const void *read_token;
	/* The wall clock less the monotonic one, as last read, and when. */
	uint64_t wall_minus_mono_us, wall_synced_us;
};

struct leg_ops;
struct bidi_track;

/* One client connection: two legs and what flows between them. */
struct core_conn {
	struct core_conn *next;
	struct core *core;
	/* ops[s]: the answers to the core's asks for side s (leg.h): its
	 * leg's; a connection whose sides are two legs' endpoints (a channel's,
	 * leg_conn_side) has two tables, the owner's and the other's. */
	const struct leg_ops *ops[2];
	struct core_conn *next_dirty; /* on core->dirty: has writes this round */
	unsigned dirty;               /* 1 << side: that side has them */
	uint64_t id;
	char *path;                   /* the target path (/devtools/browser/ID, ...) */
	struct queue out[2];          /* out[s]: waiting to be written to side s */
	unsigned paused_by[2];        /* side s is not read while out[q] is full: bit q */
	struct msg *streaming[2];     /* the message side s cuts through (queued for !s), or NULL */
	int held[2];                  /* side s is too far ahead of its writer (CORE_READ_AHEAD) */
	int reading[2];               /* what the leg was last asked: side s is read (leg_ops.flow) */
	int shut[2];                  /* nothing more is delivered to side s */
	struct sessions sessions;
	int64_t next_proxy_id;
	uint64_t record_fetched;      /* bytes of the bodies --record-bodies fetched (record.h) */
	uint64_t opened_us;
	struct client_id client;      /* who is on the client's side */
	/* cut_scan[s]: the stream scan of the message cut through to side s
	 * (core_stream_begin), so that route_deliver's scan of it once whole
	 * steps over its long strings instead of reading it all again. */
	struct scan_stream cut_scan[2];
	struct bidi_track *bidi;      /* BiDi commands awaiting an answer (bidilog.h); NULL until one */
	struct channel *chan;         /* the BiDi mapper's channel riding on this connection (channel.h) */
	struct core_conn *host;       /* a channel's connection: the one its client rides on, else NULL */
};

/* Starts a core with policy p (taken; NULL: pass everything), stats of its
 * own and log lg (borrowed, may be NULL). */
void core_init(struct core *core, struct policy *p, struct log *lg, uint64_t queue_bytes);
/* Frees the policy and stats; the connections must be gone. */
void core_free(struct core *core);
/* Makes p (taken) the policy and logs it; source says how ("start", "PUT",
 * "SIGHUP"). The live sessions are not brought in line with it: switch
 * policies with route_set_policy, which does. */
void core_install_policy(struct core *core, struct policy *p, const char *source);
/* The policy named name: the file NAME.json in the core's policy directory
 * (no path: nothing outside it). NULL with the reason in err. */
struct policy *core_policy_by_name(const struct core *core, const char *name,
				   char *err, size_t errlen);
/* {"name","gen","since_us","policy"}: the policy in force. */
json_t *core_policy_json(const struct core *core);
/* Everything /proxy/metrics says, as Prometheus text (metrics.h): the
 * stats, the policy, the queues, the connections, and this process from
 * /proc. A new buffer of *len bytes, NUL-terminated. */
char *core_metrics_text(const struct core *core, size_t *len);
/* The bytes about to be handled were read now, by one read of the socket or
 * pipe named by token: the clock is read once a read, not once a message.
 * The wall time is the monotonic one plus an offset read again every
 * 200 ms: one clock read a read, not two. */
void core_read_clock(struct core *core, const void *token);
/* A new read round: the next read reads the clock again. */
static inline void core_new_round(struct core *core)
{
	core->read_token = NULL;
}

/* Adds cc (zeroed by the caller, embedded in the leg's own struct) for a
 * connection to path. Call route_conn_opened once the legs are set. */
void core_conn_init(struct core *core, struct core_conn *cc, const struct leg_ops *ops,
		    const char *path);
/* Removes cc and frees what it holds (not cc itself). */
void core_conn_free(struct core_conn *cc);

/* A leg's reports of its connection's life, which the core logs as the
 * records "open", "close" and "too_large", in one schema for every leg
 * (README, "Log format"). The connection opened: its client is cc->client
 * (set it first), leg says the transport ("websocket", "pipe") and
 * upstream what is on the other side (an address, a browser). */
void core_report_open(struct core_conn *cc, const char *leg, const char *upstream);
/* Side s is closed, by whom (side_name[], or "proxy"), with the WebSocket
 * close code (a pipe's end: 1000) and reason ("" when none). */
void core_report_close(struct core_conn *cc, enum side s, const char *by, int code,
		       const char *reason);
/* A message from side `from` of at least `bytes` is over the limit `max`. */
void core_report_too_large(struct core_conn *cc, enum side from, uint64_t bytes, uint64_t max);
/* Queues m for side `to` (written at the round's end: core->dirty), and
 * pauses reading side `producer` (the side whose message made it) while
 * out[to] is over the core's byte budget (paused_by: the leg is asked by
 * leg.c once the report that queued it returns). Dropped when side `to` is
 * shut. Takes m. */
void core_enqueue(struct core_conn *cc, enum side to, struct msg *m, enum side producer);
/* Cut through (route_begin): m, whose first bytes are in, is queued for
 * side `to` now; the leg reading it goes on filling it, and it is written
 * as its bytes come. Nobody is paused yet: see core_stream_end. Its bytes
 * are stream-scanned as they come (cut_scan[to]). */
void core_stream_begin(struct core_conn *cc, enum side to, struct msg *m);
/* More of m, queued for side `to`, is in; its memory was old_cost (its
 * buffer may have grown): counted, stream-scanned, and its leg asked to
 * write. */
void core_stream_grew(struct core_conn *cc, enum side to, struct msg *m, size_t old_cost);
/* A cut-through message for side `to` is whole: its producer is paused if
 * out[to] is over the budget, as core_enqueue does for a whole message.
 * A side is paused between messages, never inside one: a message's bytes
 * go from the queue only once it is all written. */
void core_stream_end(struct core_conn *cc, enum side to, enum side producer);
/* How far a cut-through message may be read ahead of its writer: a leg
 * reading one holds (reads nothing more) while more than CORE_READ_AHEAD of
 * it is read and not yet written to the other side, and reads on once that
 * is within half of it. So a client that reads slowly or not at all holds
 * the sender's write at once, as it would with no proxy, and the proxy's
 * memory stays far below the message's (issue 30). The core applies the
 * rule for every leg (leg.c): core_read_ahead_hold. */
#define CORE_READ_AHEAD ((size_t)1 << 20)
/* Whether a leg reading a cut-through message holds, from its bytes read
 * and not yet written (unsent) and whether it holds now (held). */
static inline int core_read_ahead_hold(size_t unsent, int held)
{
	return unsent > (held ? CORE_READ_AHEAD / 2 : CORE_READ_AHEAD);
}
/* Side s has writes: cc goes on core->dirty (leg_round writes them). */
void core_dirty(struct core_conn *cc, enum side s);
/* Messages went from out[s] (its leg took them off as written): resumes
 * the sides that waited for out[s] to drain to half the budget. */
void core_drained(struct core_conn *cc, enum side s);
/* Nothing more goes to side s: later messages are dropped, and with drop
 * what is queued for it too (it is gone) rather than left to be written. */
void core_shut(struct core_conn *cc, enum side s, int drop);
/* Is reading side s paused by the budget? */
static inline int core_paused(const struct core_conn *cc, enum side s)
{
	return cc->paused_by[s] != 0;
}

#endif
