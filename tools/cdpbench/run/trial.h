/* trial: one measurement: a fresh Chromium (or the native client), the
 * scenario's CDP commands, the bench page's transfers, and its sample. */
#ifndef CDPBENCH_TRIAL_H
#define CDPBENCH_TRIAL_H

#include <libwebsockets.h>

#include "bench.h"
#include "scenario.h"

/* Runs scenario sc with body against the sink on 127.0.0.1:sink_port; trial_id
 * names it at the sink ([A-Za-z0-9._-]). Fills out (out->ok, or out->error);
 * everything it started is stopped when it returns. */
void trial_run(const struct bench_config *cfg, struct lws_context *ctx, int sink_port,
	       const struct scenario *sc, const char *body, const char *trial_id,
	       struct bench_sample *out);

#endif
