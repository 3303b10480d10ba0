/* route: what happens to each whole message a leg hands the core: scanned,
 * its session tracked, decided by the policy, counted, logged and queued
 * for the other side; the commands the proxy sends on its own; and policy
 * switches, which bring every live session in line. The leg contract's
 * one entry point per message (leg.c: a leg reports there, never here); it
 * calls down only (core, selfdomain, the pure modules), never back. */
#ifndef CDPPROXY_ROUTE_H
#define CDPPROXY_ROUTE_H

#include "core.h"

/* One whole message from side `from`: scanned, tracked, decided by the
 * policy, counted, logged, and queued for the other side. Takes m. A
 * message cut through (route_begin: m->want) is already queued and
 * written in part: it is scanned, tracked, counted and logged the same,
 * but no rule is applied (the one decided at its start stands). */
void route_deliver(struct core_conn *cc, enum side from, struct msg *m);
/* Cut through: the first m->len bytes of a message from side `from` of
 * total bytes are in (a single WebSocket frame's), or of a length not
 * known yet (total 0: a pipe's, which ends at a NUL). 1: nothing needs it
 * whole first (no rule could match it, per its first member, and it is
 * over core->cut_min): it is queued for the other side now (m->want =
 * total, or SIZE_MAX until the leg knows it; the queue owns it; the leg
 * goes on filling it, reports leg_grew, sets want to its length
 * once whole and hands it to route_deliver). 0: store and forward it
 * (route_deliver once whole). -1: its first bytes do not tell yet: ask
 * again with more. */
int route_begin(struct core_conn *cc, enum side from, struct msg *m, uint64_t total);
/* cc's legs are set: sends what the policy injects for a page
 * connection's own session. */
void route_conn_opened(struct core_conn *cc);
/* Makes p (taken) the policy, logs it, and brings every live session in
 * line with it. source says how ("PUT", "SIGHUP", "CDPProxy.setPolicy"). */
void route_set_policy(struct core *core, struct policy *p, const char *source);

#endif
