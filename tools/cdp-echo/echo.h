/* echo: the shared state of cdp-echo, a fast fake Chrome for load tests. */
#ifndef CDP_ECHO_H
#define CDP_ECHO_H

#include <stddef.h>
#include <stdint.h>

#include "evserve.h"
#include "httpmsg.h"
#include "wire.h"

struct echo {
	struct evserve server;
	uint64_t result_size;       /* result size for commands that do not ask */
	uint64_t max_message;
	uint64_t commands, events, bad;  /* counted for the summary at exit */
};

struct echo_conn {
	struct evserve_conn conn;   /* first: the skeleton's part */
	struct echo *srv;
	unsigned char *in;          /* bytes read and not yet handled: in[in_off..in_len) */
	size_t in_off, in_len, in_cap;
	struct httpmsg http;        /* the request, until the upgrade */
	int upgraded;
	int closing;                /* close when out is written */
	/* message being reassembled from fragments */
	unsigned char *msg;
	size_t msg_len, msg_cap;
	int in_msg, msg_opcode;
	/* an Echo.flood being answered: events are made as out drains */
	int flooding;
	int64_t flood_id;
	uint64_t flood_seq, flood_count, flood_size;
	char flood_session[WIRE_SESSION_MAX];
	size_t flood_session_len;
};

/* input.c: makes room for n more bytes after in_len (compacting, then
 * growing). */
void echo_input_reserve(struct echo_conn *c, size_t n);

/* http.c: reads a request; answers discovery, or upgrades. Returns 0 to go on
 * (c->upgraded may now be set), 1 if more bytes are needed, -1 to close. */
int echo_http(struct echo_conn *c);

/* ws.c: handles the complete frames in c->in while c->out has room. Returns
 * 0, or -1 to close at once. */
int echo_ws_process(struct echo_conn *c);
/* Adds flood events to c->out until it is full or the flood is answered. */
void echo_ws_flood(struct echo_conn *c);
/* Output bytes above which no more input is processed. */
#define ECHO_OUT_HIGH (4u << 20)

#endif
