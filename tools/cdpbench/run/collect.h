/* collect: one trial's sample from the sink's record of it: the page's and the
 * sink's view of every transfer, medians, byte totals, and whether they agree. */
#ifndef CDPBENCH_COLLECT_H
#define CDPBENCH_COLLECT_H

#include <jansson.h>

#include "bench.h"

/* Fills out from record, the sink's GET /trial answer: {"result": what the page
 * posted ({"transfers":[{i,warmup,bytes,ms}],"error"}), "transfers": what the
 * sink saw ([{i,kind,bytes,first_us,last_us}])}. page_mbps and sink_mbps are
 * the medians over the non-warm-up transfers, at least `measured` of them (the
 * page may do more: bench.html's ms and max); out->error says why a
 * sample is not usable (the page's error, missing transfers, or the page and
 * the sink disagreeing on bytes: exactly, or for a form within the multipart
 * overhead). Adds "transfers" (and "user_agent") to out->detail. */
void collect_sample(const char *body, int measured, json_t *record, struct bench_sample *out);

#endif
