/* record: --record-bodies: the response bodies the proxy fetches itself, so
 * that a log makes a HAR that replays although the client read no body.
 * After Chrome's Network.loadingFinished the proxy asks, on the request's
 * own session, for Network.getResponseBody (sent, and its answer kept from
 * the client, by route's machinery for the proxy's own commands), within a
 * byte budget per connection; the answers are logged whole. record decides
 * and counts; route sends. */
#ifndef CDPPROXY_RECORD_H
#define CDPPROXY_RECORD_H

#include <stddef.h>

#include <jansson.h>

#include "core.h"
#include "scan.h"

/* The default budget: bytes of bodies fetched per connection. */
#define RECORD_BUDGET_DEFAULT (64ull << 20)

/* Chrome's event r (in buf) on session sid ("" for the connection's own)
 * under --record-bodies (core->record_budget): for a Network.loadingFinished
 * whose body the budget has room for, the params of the
 * Network.getResponseBody to send (a new object); NULL for any other event,
 * and for one over the budget, which gets a "body_not_fetched" log record
 * instead. */
json_t *record_event(struct core_conn *cc, const char *buf, const struct scan_result *r,
		     const char *sid);
/* The answer (bytes long) to the proxy's own command of method (len bytes):
 * is it a body --record-bodies fetched? Its bytes count against the budget
 * then, and it is logged whole (past --log-bodies' cut). */
int record_answer(struct core_conn *cc, const char *method, size_t len, size_t bytes);

#endif
