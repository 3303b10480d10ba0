/* mapper: the channel's side of the BiDi mapper's connection: opened
 * through the loop (proxy_dial: a connection to Chrome at the host's
 * path, its client side this leg's), and the core's asks of that side:
 * each message queued for the mapper goes on at once, inside the proxy's
 * own command on the host connection (leg_channel_up); nothing is read,
 * so there is nothing to pause; whole messages only. */
#include "mapper.h"

#include "leg.h"

/* Everything queued for the mapper goes to its host connection now: the
 * host's queue toward Chrome holds it (and its budget applies there). */
static int mapper_write(struct core_conn *cc, enum side s, int writable)
{
	(void)writable;
	while (cc->out[s].head) {
		leg_channel_up(cc, cc->out[s].head);
		queue_free_head(&cc->out[s]);
	}
	return 0;
}

/* What the mapper sends comes inside the host's events: the host's own
 * reading is what a pause would stop, and that is the host's. */
static void mapper_flow(struct core_conn *cc, enum side s, int on)
{
	(void)cc;
	(void)s;
	(void)on;
}

/* The other side (Chrome's) went: the host forgets the channel. */
static void mapper_close(struct core_conn *cc, enum side s, int code, const char *reason)
{
	(void)s;
	(void)code;
	(void)reason;
	leg_channel_gone(cc);
}

static const struct leg_ops mapper_ops = { mapper_write, mapper_flow, NULL, NULL, mapper_close };

/* The mapper's connection for host: named as the mapper, riding on host. */
static struct core_conn *mapper_open(struct proxy *px, struct core_conn *host)
{
	struct client_id client = { .library = "chromium-bidi mapper", .by = "channel",
				    .host_conn = host->id, .bidi_mapper = 1 };

	return proxy_dial(px, host->path, &client, &mapper_ops);
}

const struct proxy_leg mapper_leg = {
	.channel = mapper_open,
};
