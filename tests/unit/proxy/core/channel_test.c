/* channel_test: the BiDi mapper's channel (channel.h): its framing (a
 * message through a carrier and back through a bindingCalled payload, byte
 * for byte, whatever it holds; what is not the channel's, or cannot be
 * read), and through the core: Target.exposeDevToolsProtocol answered by
 * the proxy with the install on the mapper tab's session, what the mapper's
 * connection queues for it waiting for the install's answer and then
 * carried, the mapper's messages out of their events into its connection,
 * and the channel off: forwarded, the log says why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "channel.h"
#include "leg.h"
#include "route.h"
#include "tap.h"

/* The carrier's value argument, parsed by jansson as Chrome would. */
static void check_carrier(const char *m, size_t n, const char *what)
{
	struct msg *c = channel_carrier(1000000007, "S\"1", "O\\1", m, n);
	json_t *j = json_loadb((const char *)MSG_DATA(c), c->len, 0, NULL);
	json_t *p = json_object_get(j, "params");
	json_t *v = json_object_get(json_array_get(json_object_get(p, "arguments"), 0), "value");

	ok(j && json_integer_value(json_object_get(j, "id")) == 1000000007 &&
	   !strcmp(json_string_value(json_object_get(j, "method")), "Runtime.callFunctionOn") &&
	   !strcmp(json_string_value(json_object_get(j, "sessionId")), "S\"1") &&
	   !strcmp(json_string_value(json_object_get(p, "objectId")), "O\\1"), "carrier of %s: a command on S to O", what);
	ok(v && json_string_length(v) == n && !memcmp(json_string_value(v), m, n), "carrier of %s: the value is the message", what);
	json_decref(j);
	msg_free(c);
}

/* The event carrying payload p (a JSON string's inside) of binding name;
 * scanned into r. */
static char *event(const char *name, const char *p, struct scan_result *r)
{
	static char buf[4096];

	snprintf(buf, sizeof buf, "{\"method\":\"Runtime.bindingCalled\",\"params\":{\"name\":\"%s\","
		 "\"payload\":%s,\"executionContextId\":1},\"sessionId\":\"S1\"}", name, p);
	if (scan_message(buf, strlen(buf), r) < 0)
		return NULL;
	return buf;
}

static void framing(void)
{
	static const char nul[] = "{\"a\":\"\\u0000\\\"\\\\ é\"}\n\x01\x1f";
	struct scan_result r;
	const char *why, *buf;
	struct msg *m;
	char target[CHANNEL_NAME], binding[CHANNEL_NAME];
	int n;

	check_carrier("{\"id\":1,\"result\":{}}", 20, "a plain answer");
	check_carrier(nul, sizeof nul - 1, "quotes, backslashes, escapes, control bytes, UTF-8");
	check_carrier("", 0, "nothing");

	buf = event("cdpproxy_cdp", "\"{\\\"id\\\":0,\\\"method\\\":\\\"Target.attachToBrowserTarget\\\"}\"", &r);
	m = channel_unwrap(buf, &r, "cdpproxy_cdp", 1 << 20, &why);
	ok(m && m->len == 48 && !memcmp(MSG_DATA(m), "{\"id\":0,\"method\":\"Target.attachToBrowserTarget\"}", 48),
	   "unwrap: the payload, decoded");
	msg_free(m);
	buf = event("cdpproxy_\\u0063dp", "\"\\u0000x\"", &r);
	m = channel_unwrap(buf, &r, "cdpproxy_cdp", 1 << 20, &why);
	ok(m && m->len == 2 && !memcmp(MSG_DATA(m), "\0x", 2), "unwrap: an escaped name, a NUL in the payload");
	msg_free(m);
	buf = event("sendBidiResponse", "\"{}\"", &r);
	ok(!channel_unwrap(buf, &r, "cdpproxy_cdp", 1 << 20, &why) && !why, "unwrap: another binding is not the channel's");
	buf = event("cdpproxy_cdp", "7", &r);
	m = channel_unwrap(buf, &r, "cdpproxy_cdp", 1 << 20, &why);
	ok(!m && why, "unwrap: a payload not a string: %s", why);
	buf = event("cdpproxy_cdp", "\"0123456789\"", &r);
	m = channel_unwrap(buf, &r, "cdpproxy_cdp", 8, &why);
	ok(!m && why, "unwrap: over the maximum: %s", why);

	buf = "{\"id\":26,\"method\":\"Target.exposeDevToolsProtocol\",\"params\":{\"targetId\":\"T\\u0031\",\"inheritPermissions\":false}}";
	scan_message(buf, strlen(buf), &r);
	ok(channel_expose_params(buf, &r, target, binding) == 0 && !strcmp(target, "T1") && !strcmp(binding, "cdp"),
	   "expose: the target decoded, the binding \"cdp\" by default");
	buf = "{\"id\":26,\"method\":\"Target.exposeDevToolsProtocol\",\"params\":{\"bindingName\":\"x\"}}";
	scan_message(buf, strlen(buf), &r);
	ok(channel_expose_params(buf, &r, target, binding) < 0, "expose: no target");

	buf = "{\"id\":1000000001,\"result\":{\"result\":{\"type\":\"object\",\"objectId\":\"7.1.2\"}},\"sessionId\":\"S1\"}";
	scan_message(buf, strlen(buf), &r);
	ok(channel_answer_object(buf, &r, target, &why) == 0 && !strcmp(target, "7.1.2"), "install answer: the object id");
	buf = "{\"id\":1000000001,\"result\":{\"result\":{\"type\":\"object\"},\"exceptionDetails\":{}},\"sessionId\":\"S1\"}";
	scan_message(buf, strlen(buf), &r);
	n = channel_answer_object(buf, &r, target, &why);
	ok(n < 0 && why, "install answer: it threw: %s", why);
}

/* Through the core, with legs that keep what is queued for them (but the
 * mapper's client side, which hands it to its host as the mapper leg does). */
static int gone_asked;

static int keep_write(struct core_conn *cc, enum side s, int writable)
{
	(void)writable;
	if (cc->host && s == DOWN)
		while (cc->out[s].head) {
			leg_channel_up(cc, cc->out[s].head);
			queue_free_head(&cc->out[s]);
		}
	return 0;
}
static void keep_flow(struct core_conn *cc, enum side s, int on) { (void)cc; (void)s; (void)on; }
static void keep_gone(struct core_conn *cc, enum side s, int code, const char *reason)
{
	(void)cc; (void)code; (void)reason;
	gone_asked += s == DOWN;
}
static const struct leg_ops keep = { keep_write, keep_flow, NULL, keep_gone, NULL };

static struct core_conn mapper;
static struct core_conn *open_mapper(struct core *core, struct core_conn *host)
{
	leg_conn_init(core, &mapper, &keep, host->path);
	return &mapper;
}

static void deliver(struct core *core, struct core_conn *cc, enum side from, const char *text)
{
	size_t n = strlen(text);
	struct msg *m = msg_new(n);

	memcpy(MSG_DATA(m), text, n);
	m->len = n;
	core_read_clock(core, m);
	leg_deliver(cc, from, m);
}

/* Is the text of q's i-th message (from its head) s, or does it hold s? */
static const char *nth(const struct queue *q, size_t i)
{
	static char buf[4096];
	const struct msg *m = q->head;

	while (m && i--)
		m = m->next;
	if (!m)
		return "";
	snprintf(buf, sizeof buf, "%.*s", (int)m->len, (const char *)MSG_DATA(m));
	return buf;
}

static void core_part(int on)
{
	struct core core;
	struct core_conn host = { 0 };
	size_t up;

	core_init(&core, NULL, NULL, 1 << 20);
	core.max_message = 1 << 20;
	if (on)
		core.channel_open = open_mapper;
	else
		core.channel_off = "turned off (--no-bidi-channel)";
	leg_conn_init(&core, &host, &keep, "/devtools/browser/B");
	deliver(&core, &host, UP, "{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"S1\","
		"\"targetInfo\":{\"targetId\":\"T1\",\"type\":\"other\",\"url\":\"about:blank\"},\"waitingForDebugger\":false},"
		"\"sessionId\":\"TAB\"}");
	deliver(&core, &host, DOWN, "{\"id\":26,\"method\":\"Target.exposeDevToolsProtocol\",\"params\":"
		"{\"targetId\":\"T1\",\"bindingName\":\"cdp\",\"inheritPermissions\":false}}");
	if (!on) {
		ok(strstr(nth(&host.out[UP], 0), "exposeDevToolsProtocol") && host.out[UP].n == 1,
		   "off: exposeDevToolsProtocol goes to Chrome as it came");
		ok(!host.chan && !mapper.core, "off: no channel, no mapper's connection");
		leg_conn_free(&host);
		core_free(&core);
		return;
	}
	ok(host.out[DOWN].n == 2 && !strcmp(nth(&host.out[DOWN], 1), "{\"id\":26,\"result\":{}}"),
	   "the client's command answered by the proxy: %s", nth(&host.out[DOWN], 1));
	ok(host.out[UP].n == 2 && strstr(nth(&host.out[UP], 0), "\"method\":\"Runtime.addBinding\"") &&
	   strstr(nth(&host.out[UP], 0), "cdpproxy_cdp") && strstr(nth(&host.out[UP], 0), "\"sessionId\":\"S1\""),
	   "the private binding on the tab's session: %s", nth(&host.out[UP], 0));
	ok(strstr(nth(&host.out[UP], 1), "\"method\":\"Runtime.evaluate\"") && strstr(nth(&host.out[UP], 1), "\"sessionId\":\"S1\""),
	   "then the install, on it too");
	ok(host.chan && host.chan->mapper == &mapper && mapper.host == &host, "the mapper's connection rides on the host");

	/* Chrome answers the mapper before the install's answer: it waits. */
	deliver(&core, &mapper, UP, "{\"id\":0,\"result\":{\"sessionId\":\"BR\"}}");
	leg_writable(&mapper, DOWN);
	ok(host.out[UP].n == 2 && !mapper.out[DOWN].n, "a message for the mapper waits for the install's answer");
	deliver(&core, &host, UP, "{\"id\":1000000001,\"result\":{\"result\":{\"type\":\"object\",\"objectId\":\"OBJ\"}},\"sessionId\":\"S1\"}");
	ok(host.out[UP].n == 3 && strstr(nth(&host.out[UP], 2), "\"method\":\"Runtime.callFunctionOn\"") &&
	   strstr(nth(&host.out[UP], 2), "\"objectId\":\"OBJ\"") &&
	   strstr(nth(&host.out[UP], 2), "\"value\":\"{\\\"id\\\":0,\\\"result\\\":{\\\"sessionId\\\":\\\"BR\\\"}}\""),
	   "then it is carried: %s", nth(&host.out[UP], 2));
	ok(host.out[DOWN].n == 2, "the install's answer is the proxy's: not forwarded");
	deliver(&core, &mapper, UP, "{\"method\":\"Target.attachedToTarget\",\"params\":{}}");
	leg_writable(&mapper, DOWN);
	ok(host.out[UP].n == 4, "later ones at once");

	/* The mapper's messages, out of their events. */
	up = mapper.out[UP].n;
	deliver(&core, &host, UP, "{\"method\":\"Runtime.bindingCalled\",\"params\":{\"name\":\"cdpproxy_cdp\","
		"\"payload\":\"{\\\"id\\\":1,\\\"method\\\":\\\"Network.enable\\\",\\\"sessionId\\\":\\\"BR\\\"}\","
		"\"executionContextId\":3},\"sessionId\":\"S1\"}");
	ok(mapper.out[UP].n == up + 1 && !strcmp(nth(&mapper.out[UP], up), "{\"id\":1,\"method\":\"Network.enable\",\"sessionId\":\"BR\"}"),
	   "the mapper's command goes to Chrome on its own connection: %s", nth(&mapper.out[UP], up));
	ok(host.out[DOWN].n == 2, "its event is not forwarded to the client");
	deliver(&core, &host, UP, "{\"method\":\"Runtime.bindingCalled\",\"params\":{\"name\":\"sendBidiResponse\","
		"\"payload\":\"{}\",\"executionContextId\":3},\"sessionId\":\"S1\"}");
	ok(host.out[DOWN].n == 3, "another binding's event is");
	deliver(&core, &host, UP, "{\"method\":\"Runtime.bindingCalled\",\"params\":{\"name\":\"cdpproxy_cdp\","
		"\"payload\":\"{}\",\"executionContextId\":3},\"sessionId\":\"OTHER\"}");
	ok(host.out[DOWN].n == 4 && mapper.out[UP].n == up + 1, "so is the binding's on another session");

	leg_conn_free(&host);
	ok(gone_asked == 1 && !mapper.host, "the host gone: the mapper's connection is told");
	leg_conn_free(&mapper);
	core_free(&core);
}

int main(void)
{
	framing();
	core_part(1);
	memset(&mapper, 0, sizeof mapper);
	core_part(0);
	return tap_done();
}
