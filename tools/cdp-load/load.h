/* load: the shared state of cdp-load, a CDP load client that checks every
 * answer arrives exactly once and in order. */
#ifndef CDP_LOAD_H
#define CDP_LOAD_H

#include <event2/buffer.h>
#include <event2/event.h>
#include <stddef.h>
#include <stdint.h>

#include "estimate.h"
#include "lat_hist.h"
#include "wire.h"

#define MIX_MAX 16

/* Message sizes drawn at random with weights: "150", "100:8,64k:1". */
struct size_mix {
	int n;
	uint64_t size[MIX_MAX];
	uint64_t weight[MIX_MAX];
	uint64_t total;
};

/* Where connections go: ws://HOST:PORT/PATH. */
struct target {
	char host[64], path[1024], hostport[128];
	int port;
};

struct load_cfg {
	struct target url;
	struct target base;         /* --baseline: the other end of each pair */
	int paired;
	int connections, in_flight;
	uint64_t count;             /* commands per connection; 0: use duration */
	double duration, timeout;   /* seconds */
	struct size_mix cmd, result;
	const char *session;        /* sessionId put in every command, or NULL */
	size_t session_len;
	uint64_t flood, event_size; /* each command asks for `flood` events */
	const char *method, *params;  /* a raw command: any peer, checks id order only */
	uint64_t seed;
	double rate;                /* --rate: messages/s overall; 0: as fast as it goes */
};

/* A command waiting for its answer. */
struct pending {
	uint64_t id, sent_ns, want;  /* want: result size asked for */
};

enum conn_state { C_CONNECTING, C_HANDSHAKE, C_RUNNING, C_CLOSING, C_DONE };

struct load_conn {
	struct load *ld;
	int idx, fd;
	const struct target *to;
	struct lat_hist *rtt;       /* where its round trips are counted */
	enum conn_state state;
	struct event *rd, *wr;
	struct evbuffer *out;
	unsigned char *in;          /* in[in_off..in_len): read, not yet handled */
	size_t in_off, in_len, in_cap;
	char key[32];               /* Sec-WebSocket-Key sent */
	/* the frame and message being received */
	int in_frame, frame_fin, in_msg;
	uint64_t frame_left, msg_off;
	unsigned char head[64];     /* the first bytes of a message, to tell its kind */
	size_t head_len;
	int decided, kind;          /* kind: 'r' response, 'e' event, '-' ignored */
	char expect[WIRE_PREFIX_MAX];
	size_t expect_len;
	uint64_t expect_total;      /* 0: not checked (raw mode) */
	unsigned phase;
	/* commands in flight, oldest first */
	struct pending *ring;
	unsigned ring_head, ring_n;
	uint64_t next_id, sent, answered, events, flood_seq;
	uint64_t bytes_up, bytes_down;
	struct estimate_rng rng;
};

/* What a connection reports up to the run (main.c's, in struct load). */
struct load_conn_ops {
	void (*connected)(struct load_conn *c);   /* its handshake is done */
	void (*finished)(struct load_conn *c);    /* it is closed: done */
	/* The run fails (the first failure is the one reported) and ends. */
	void (*fail)(struct load *ld, const char *why);
};

struct load {
	struct load_cfg cfg;
	const struct load_conn_ops *ops;
	struct event_base *base;
	struct load_conn *conns;
	struct event *deadline, *watch, *pace;
	struct lat_hist rtt, base_rtt;   /* base_rtt: the baseline's (--baseline) */
	/* --baseline: whose turn it is to send, the last answer's connection and
	 * round trip, and the differences of adjacent pairs (main - baseline). */
	int turn, last_idx;
	uint64_t last_rtt;
	int64_t *diffs;
	size_t n_diffs, cap_diffs;
	const char *pattern;        /* pattern_get() for the largest message */
	uint64_t start_ns, last_ns, progress_ns;  /* progress: last byte in */
	uint64_t last_send_ns;      /* when the last command went out */
	int connected, running, finished, stopping, failed;
	char first_error[512];
};


/* conn.c: connects (c->idx, c->ld set; the rest zero but fd -1). */
void load_conn_start(struct load_conn *c);
/* Starts sending: called for each connection once all are connected. */
void load_conn_go(struct load_conn *c);
void load_conn_free(struct load_conn *c);
/* Stops sending new commands on every connection (the duration is over). */
void load_conn_stop_sending(struct load *ld);
/* --rate: sends what each connection is due by now (a timer calls it). */
void load_conn_pace(struct load *ld);

#endif
