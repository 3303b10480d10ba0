/* cdp: cdpbench's own CDP client on libwebsockets: sends commands, reads every
 * message whole, and continues requests that Fetch paused. */
#ifndef CDPBENCH_CDP_H
#define CDPBENCH_CDP_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <libwebsockets.h>

/* What went over the connection. */
struct cdp_stats {
	uint64_t commands, responses, errors;
	uint64_t events, event_bytes, max_message;
	uint64_t paused, continued;          /* Fetch.requestPaused, and answers sent */
};

struct cdp_out;

struct cdp {
	struct lws *wsi;
	int open, closed;                    /* closed: by either side, or failed to connect */
	char why[256];                       /* why it closed or failed */
	char *rx;                            /* the message being reassembled */
	size_t rx_len, rx_cap;
	struct cdp_out *out_head, **out_tail;
	int64_t next_id;
	uint64_t inflight;                   /* commands without a response yet */
	json_t *failed;                      /* [{"method","error"}] of commands answered with an error */
	char **methods;                      /* by id - 1: what each command was */
	size_t nmethods;
	struct cdp_stats st;
};

/* The lws context for CDP client connections (no listener). NULL on failure. */
struct lws_context *cdp_context(int verbose);

/* Runs the loop until something happens or ms pass. */
void cdp_service(struct lws_context *ctx, int ms);

/* Connects to ws_url (ws://HOST:PORT/PATH) and waits until it is open.
 * 0, or -1 with a reason in err (c is then cleaned up). */
int cdp_open(struct cdp *c, struct lws_context *ctx, const char *ws_url, int timeout_ms,
	     char *err, size_t errlen);

/* Queues a command; params is a JSON object's text. Returns its id. */
int64_t cdp_send(struct cdp *c, const char *method, const char *params);

/* Closes the connection (if open), waits for lws to let go of it, frees. */
void cdp_close(struct cdp *c);

/* {"commands","responses","errors","events","event_bytes","max_message",
 *  "paused","continued","failed":[...]} */
json_t *cdp_stats_json(const struct cdp *c);

#endif
