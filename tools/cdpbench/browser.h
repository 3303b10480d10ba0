/* browser: the round's Chromium, for --browsers warm: one headless browser
 * kept for a round, in which each trial opens its page in a browser context
 * of its own (its own cookies, cache, storage and renderer process) and
 * disposes of it afterwards, instead of starting a browser for each trial. */
#ifndef CDPBENCH_BROWSER_H
#define CDPBENCH_BROWSER_H

#include <stddef.h>

#include <libwebsockets.h>

#include "bench.h"
#include "cdp.h"
#include "launch.h"

struct browser {
	struct launch chrome;
	struct cdp cdp;         /* the browser-level connection: Target.* only */
	int up;
};

/* Starts it unless it is up and alive (a browser that died is replaced).
 * 0, or -1 with a reason in err. */
int browser_ensure(struct browser *b, const struct bench_config *cfg, struct lws_context *ctx,
		   char *err, size_t errlen);

/* A new browser context with one page in it, opening url (about:blank for a
 * page a client attaches to before it navigates): their ids. No client is
 * attached to the page. 0, or -1 with a reason in err. */
int browser_open(struct browser *b, struct lws_context *ctx, const char *url, char *context,
		 size_t clen, char *target, size_t tlen, char *err, size_t errlen);

/* Disposes of the context and its page; the answer is awaited, so the next
 * trial starts with it gone. */
void browser_dispose(struct browser *b, struct lws_context *ctx, const char *context);

/* Is it still running? Else why not, in err. */
int browser_alive(struct browser *b, char *err, size_t errlen);

void browser_stop(struct browser *b);

#endif
