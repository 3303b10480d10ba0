/* route: what happens to each whole message a leg hands the core: scanned,
 * its session tracked, decided by the policy, counted, logged and queued
 * for the other side; the commands the proxy sends on its own; and policy
 * switches, which bring every live session in line. The legs' one entry
 * point per message; it calls down only (core, selfdomain, the pure
 * modules), never back. */
#ifndef CDPPROXY_ROUTE_H
#define CDPPROXY_ROUTE_H

#include "core.h"

/* One whole message from side `from`: scanned, tracked, decided by the
 * policy, counted, logged, and queued for the other side. Takes m. */
void route_deliver(struct core_conn *cc, enum side from, struct msg *m);
/* cc's legs are set: sends what the policy injects for a page
 * connection's own session. */
void route_conn_opened(struct core_conn *cc);
/* Makes p (taken) the policy, logs it, and brings every live session in
 * line with it. source says how ("PUT", "SIGHUP", "CDPProxy.setPolicy"). */
void route_set_policy(struct core *core, struct policy *p, const char *source);

#endif
