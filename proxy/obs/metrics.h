/* metrics: the proxy's counters in the Prometheus text exposition format
 * (0.0.4), for GET /proxy/metrics and the wrapper's push to a Pushgateway.
 * Pure: values in, text out. Every label set is bounded, whatever clients
 * send: methods and domains are the protocol's (protocol.h) or one
 * "(other ...)" label, and a policy's rules are cut at METRICS_RULES_MAX. */
#ifndef CDPPROXY_METRICS_H
#define CDPPROXY_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "policy.h"
#include "stats.h"

#define METRICS_RULES_MAX 256
/* The label of methods and domains the protocol does not define. */
#define METRICS_OTHER_METHODS "(other methods)"
#define METRICS_OTHER_DOMAINS "(other domains)"

/* This process, from /proc (procstat.h); ok 0: none of it is written. */
struct metrics_process {
	int ok;
	double cpu_seconds, start_time_seconds;   /* start: since the epoch */
	uint64_t resident_bytes, virtual_bytes, open_fds, max_fds;
};

/* What is written: the stats table and what the core counts beside it. */
struct metrics {
	const struct stats *stats;
	const struct policy *policy;       /* the policy in force, or NULL */
	uint64_t policy_gen;
	uint64_t actions[ACT_DELAY + 1];   /* messages a rule decided, by action */
	uint64_t queue_bytes[2];           /* waiting to be written to side s */
	uint64_t pauses[2];                /* times reading side s was paused */
	unsigned paused[2];                /* connections whose side s is paused now */
	uint64_t log_lost;                 /* records the log could not write */
	unsigned conns_open, sessions_open;
	uint64_t conns_total;
	struct metrics_process proc;
};

/* Writes m as Prometheus text: HELP and TYPE lines, then samples. */
void metrics_write(const struct metrics *m, FILE *out);

/* Writes a label value to out: \\, " and newline escaped, bytes that are
 * not UTF-8 as U+FFFD. */
void metrics_put_value(FILE *out, const char *s, size_t n);

#endif
