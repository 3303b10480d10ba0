/* fuzz_channel: libFuzzer driver of the BiDi mapper channel's framing
 * (channel.c): an input read as a CDP event is unwrapped from an exact-size
 * copy, which must come back unchanged, and what it gives must be what
 * jansson reads as the payload of the channel's binding; the input as a
 * message for the mapper goes into a carrier that jansson must read back
 * to the same bytes, and out of the event that carries it as the mapper's
 * again; the expose command's params and the install's answer are read
 * from it too (no oracle but the sanitizers). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h"
#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PRIV "cdpproxy_cdp"

static void differ(const char *what)
{
	fprintf(stderr, "fuzz_channel: %s\n", what);
	abort();
}

/* The input as an event: unwrap against jansson. */
static void as_event(const char *buf, size_t size)
{
	struct scan_result r;
	const char *why, *name, *p;
	char target[CHANNEL_NAME], binding[CHANNEL_NAME], obj[CHANNEL_NAME];
	struct msg *m;
	json_t *j, *params;

	if (scan_message(buf, size, &r) < 0)
		return;
	m = channel_unwrap(buf, &r, PRIV, 4096, &why);
	channel_expose_params(buf, &r, target, binding);
	channel_answer_object(buf, &r, obj, &why);
	j = json_loadb(buf, size, JSON_ALLOW_NUL, NULL);
	params = json_object_get(j, "params");
	name = json_string_value(json_object_get(params, "name"));
	p = json_string_value(json_object_get(params, "payload"));
	/* jansson refuses what the scanner takes (bad UTF-8, lone surrogates,
	 * big numbers: see fuzz_scan.c), and keeps a repeated key's last
	 * value where the member reader does too: compared only when it read it. */
	if (j && m && !(name && !strcmp(name, PRIV) && p &&
			json_string_length(json_object_get(params, "payload")) == m->len &&
			!memcmp(p, MSG_DATA(m), m->len)))
		differ("unwrap and jansson differ on the payload");
	if (m && m->len > 4096)
		differ("unwrap gave more than the maximum");
	if (m)
		msg_free(m);
	json_decref(j);
}

/* The input as a message for the mapper: carried, read back; and as the
 * payload of the channel's event, unwrapped. */
static void round_trip(const char *buf, size_t size)
{
	struct msg *c = channel_carrier(1000000001, "S", "O", buf, size), *m;
	json_t *j = json_loadb((const char *)MSG_DATA(c), c->len, JSON_ALLOW_NUL, NULL), *v, *ev;
	struct scan_result r;
	const char *why;
	char *text;

	if (scan_message((const char *)MSG_DATA(c), c->len, &r) < 0)
		differ("a carrier is not JSON to the scanner");
	v = json_object_get(json_array_get(json_object_get(json_object_get(j, "params"), "arguments"), 0), "value");
	if (!j) {   /* only bytes that are not UTF-8 may make jansson refuse it */
		json_t *s = json_stringn(buf, size);
		if (s)
			differ("jansson refuses a carrier of UTF-8");
		msg_free(c);
		return;
	}
	if (!v || json_string_length(v) != size || memcmp(json_string_value(v), buf, size))
		differ("the carrier's value is not the message");
	ev = json_pack("{s:s, s:{s:s, s:O}, s:s}", "method", "Runtime.bindingCalled", "params",
		       "name", PRIV, "payload", v, "sessionId", "S");
	text = json_dumps(ev, JSON_COMPACT);
	if (scan_message(text, strlen(text), &r) < 0)
		differ("jansson's event is not JSON to the scanner");
	m = channel_unwrap(text, &r, PRIV, size + 1, &why);
	if (!m || m->len != size || memcmp(MSG_DATA(m), buf, size))
		differ("the event's payload does not unwrap to the message");
	msg_free(m);
	free(text);
	json_decref(ev);
	json_decref(j);
	msg_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1), *copy = malloc(size ? size : 1);

	memcpy(buf, data, size);
	memcpy(copy, data, size);
	as_event(buf, size);
	if (memcmp(buf, copy, size))
		differ("the input changed");
	round_trip(buf, size);
	free(buf);
	free(copy);
	return 0;
}
