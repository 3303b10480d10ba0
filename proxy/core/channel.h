/* channel: the BiDi mapper's CDP through the proxy. ChromeDriver asks
 * Chrome (Target.exposeDevToolsProtocol) to give the mapper's tab a
 * binding that carries CDP inside Chrome; the proxy answers that command
 * itself and gives the tab a channel of its own instead, so that the
 * mapper's CDP is a connection of the proxy's (logged, counted, shown,
 * subject to policies): on the host connection (ChromeDriver's), session
 * S of the mapper's tab, a private binding carries each message the
 * mapper sends (a Runtime.bindingCalled event the proxy consumes), and a
 * Runtime.callFunctionOn of the proxy's own carries each message to it as
 * a string argument. The mapper's connection (proxy/mapper: its client
 * side this channel, its Chrome side a WebSocket to Chrome) takes the
 * messages between. Why and the measurements: proxy/mapper/README.md. */
#ifndef CDPPROXY_CHANNEL_H
#define CDPPROXY_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "log.h"
#include "msg.h"
#include "queue.h"

#define CHANNEL_NAME 128   /* room for a session, target, binding or object id */

/* A host connection's channel (cc->chan). */
struct channel {
	char sid[CHANNEL_NAME];       /* S: the mapper tab's session on the host */
	char target[CHANNEL_NAME];    /* T: its target */
	char binding[CHANNEL_NAME];   /* B: window[B] is what the mapper reads */
	char priv[CHANNEL_NAME + 16]; /* the proxy's binding: "cdpproxy_" B */
	char object_id[CHANNEL_NAME]; /* O: window[B] as a remote object; "" until known */
	int64_t install_id;           /* the install's Runtime.evaluate; 0 once answered */
	struct core_conn *mapper;     /* the mapper's connection; NULL once gone */
	struct queue pending;         /* for the mapper, waiting for O */
	uint64_t up, down;            /* messages carried each way */
};

/* The pure part: the channel's framing (tests/fuzz/fuzz_channel.c). */
/* Reads a Target.exposeDevToolsProtocol command's params (scanned r of
 * buf): its targetId and bindingName ("cdp" when absent), decoded into
 * rooms of CHANNEL_NAME. 0, or -1 when it has no targetId or a name does
 * not fit (such a command is forwarded as it is). */
int channel_expose_params(const char *buf, const struct scan_result *r, char *target,
			  char *binding);
/* A Runtime.bindingCalled event (scanned r of buf) of binding priv: its
 * payload decoded, as a new message. NULL with *why NULL when the event is
 * another binding's; NULL with *why when it is priv's but has no string
 * payload or a decoded one over max bytes. */
struct msg *channel_unwrap(const char *buf, const struct scan_result *r, const char *priv,
			   size_t max, const char **why);
/* The command that carries message m (n bytes) to the mapper: id, on
 * session sid, window[B] as object_id: Runtime.callFunctionOn of
 * function(m){this.onmessage(m)} with m as a string argument (escaped:
 * '"' and '\\', and control bytes as \u00XX). A new message. */
struct msg *channel_carrier(int64_t id, const char *sid, const char *object_id, const char *m,
			    size_t n);
/* The install: the expression that makes window[binding] the mapper's
 * transport over the binding priv and evaluates to it (a new string). */
char *channel_install_expression(const char *binding, const char *priv);
/* The install's answer (the result member of buf): its
 * result.result.objectId into out (CHANNEL_NAME). 0, or -1 (an
 * exception, an error, no object) with why. */
int channel_answer_object(const char *buf, const struct scan_result *r, char *out,
			  const char **why);

/* The core's part, hooked into route (route.c) at these points. */
/* A command from the client of cc (logged as rec): a
 * Target.exposeDevToolsProtocol (checked here) is answered by the proxy
 * and the channel set up (1: logged, route frees the message), or
 * forwarded as it is (0, the reason logged). */
int channel_command(struct core_conn *cc, const char *buf, const struct scan_result *r,
		    struct log_rec *rec);
/* An event from Chrome on cc: a Runtime.bindingCalled of the channel's
 * binding on S is the mapper's message: 1 (logged as rec) and *out is it,
 * to be routed as from the mapper's connection's client, or NULL when it
 * cannot be (route frees the event); the
 * channel's tab detached: the mapper's connection is closed (0). */
int channel_event(struct core_conn *cc, const char *buf, const struct scan_result *r,
		  struct log_rec *rec, struct msg **out);
/* The answer (buf, scanned r) to the proxy's own command id on cc: the
 * install's sets O and sends what waited for it. */
void channel_answer(struct core_conn *cc, const char *buf, const struct scan_result *r, int64_t id);
/* May Chrome's message on cc, its method mlen bytes at method, be cut
 * through? Not a Runtime.bindingCalled while cc carries a channel. */
int channel_may_cut(const struct core_conn *cc, const char *method, size_t mlen);
/* Message m, for the mapper of host's channel, goes to it (leg_channel_up). */
void channel_up(struct core_conn *host, const struct msg *m);
/* The mapper's connection's client side is closed (leg_channel_gone). */
void channel_gone(struct core_conn *mapper);
/* cc is about to be freed: its channel goes, and the mapper's connection
 * with it; a mapper's connection leaves its host. */
void channel_conn_free(struct core_conn *cc);

#endif
