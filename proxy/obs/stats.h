/* stats: per-method message counters and round-trip histograms (hist.h). */
#ifndef CDPPROXY_STATS_H
#define CDPPROXY_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "hist.h"
#include "side.h"

struct stats;

/* Method names the protocol does not define (protocol.h) that get a record
 * of their own; later ones all go to one "(other methods)" record, so the
 * table, and what serialises it, stays bounded whatever clients send. */
#define STATS_OTHER_METHODS 256

struct stats *stats_new(void);
void stats_free(struct stats *st);
/* Counts one message of `bytes` going to side `to`, filed under method
 * (bytes, not NUL-terminated). Responses are filed under their command's
 * method; a response with no known command under "(unmatched)". */
void stats_count(struct stats *st, const char *method, size_t mlen,
		 enum side to, size_t bytes);
/* Is name one of those route.c files messages without a method under:
 * "(unmatched)", "(binary)", "(invalid)", "(other)"? */
int stats_internal_name(const char *name, size_t len);
/* The length of method's domain: its part before the first '.' (all of it
 * when it has none). */
size_t stats_domain_len(const char *method, size_t mlen);
/* Adds one command round trip of usec microseconds to method's histogram. */
void stats_rtt(struct stats *st, const char *method, size_t mlen, uint64_t usec);
/* The table of the WebDriver BiDi read out of CDP (bidi.h), part of st (the
 * same calls count in it, by BiDi method; stats_reset resets it; stats_json
 * is its "bidi"; its names beyond BiDi's own are bounded as above); NULL
 * for the BiDi table itself. */
struct stats *stats_bidi(const struct stats *st);
/* An error answer to method with error code `code` (BiDi's: "unknown
 * command"), in the BiDi table: counted on the method and by code (codes
 * BiDi does not define under "(other errors)"). */
void stats_error(struct stats *st, const char *method, size_t mlen, const char *code);
/* The error answers of code i of bidi_error_codes (BIDI_ERROR_CODES: the
 * others). */
uint64_t stats_errors_by_code(const struct stats *st, size_t i);
/* n commands were forgotten unanswered: more awaited an answer than a
 * connection keeps (sessions.h). */
void stats_add_evicted(struct stats *st, uint64_t n);
/* Forgets every count and histogram, as if st were new: the start of a
 * phase (POST /proxy/stats/reset). */
void stats_reset(struct stats *st);
/* {"methods":{M:{"messages":[up,down],"bytes":[up,down],"rtt_us":hist}},
 *  "domains":{D:{"messages":[up,down],"bytes":[up,down]}}}; a domain is the
 * part of the method before the first '.'; "pending_evicted": see above;
 * "other_methods":{"limit","named","pooled_names"}: STATS_OTHER_METHODS, the
 * names outside the protocol with a record of their own, and an estimate
 * (within a few %) of the distinct names counted under "(other methods)";
 * "bidi": the BiDi table in the same shape, its domains named "modules",
 * each method and module with its "errors", and "errors":{CODE:n}. */
json_t *stats_json(const struct stats *st);
/* One record of the table as a reader that formats it sees it (metrics.h):
 * a method (or an internal name: "(unmatched)", "(other methods)", ...),
 * its counts by the side the messages went to, its round trips. */
struct stats_entry {
	const char *name;
	size_t len;
	const uint64_t *messages, *bytes;   /* [2], indexed by enum side */
	const struct hist *rtt;
	uint64_t errors;                    /* error answers (the BiDi table) */
};
/* The records in no order: *i starts at 0; fills e and returns 1, or
 * returns 0 once there is none left. */
int stats_next(const struct stats *st, size_t *i, struct stats_entry *e);
/* pending_evicted, and the distinct method names outside the protocol
 * counted (named, plus the pool's estimate): see stats_json. */
uint64_t stats_evicted(const struct stats *st);
uint64_t stats_unlisted_names(const struct stats *st);
/* The same as a human-readable table, busiest methods first. */
void stats_print(const struct stats *st, FILE *out);

#endif
