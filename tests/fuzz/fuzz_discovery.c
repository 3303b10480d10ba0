/* fuzz_discovery: libFuzzer driver for the /json answer rewriter. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discovery.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HOST "127.0.0.1:9323"

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_discovery: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

/* s with the bytes from `from` up to the first of "/&#" (or the end)
 * replaced by HOST: the rewrite of a ws= parameter as discovery.h describes it. */
static json_t *with_host(const char *s, size_t from)
{
	size_t end = from + strcspn(s + from, "/&#"), tail = strlen(s + end);
	char *e = malloc(from + strlen(HOST) + tail + 1);
	json_t *j;

	memcpy(e, s, from);
	strcpy(e + from, HOST);
	memcpy(e + from + strlen(HOST), s + end, tail + 1);
	j = json_string(e);
	free(e);
	return j;
}

/* webSocketDebuggerUrl before (in) and after (out) the rewrite. What
 * matters: a client following out reaches HOST as a URL parser reads it
 * (WHATWG: the authority ends at the first '/', '?' or '#', and for ws and
 * wss at '\'). And nothing else changes: out is in with the authority after
 * the first "://" replaced, never a byte of the path. */
static void check_ws_url(const char *in, const char *out)
{
	const char *p = strstr(in, "://"), *rest;
	size_t pre, hl = strlen(HOST), inlen = strlen(in), restlen;

	if (!out)
		fail("webSocketDebuggerUrl is gone", in);
	if (!p) {
		if (strcmp(in, out))
			fail("a webSocketDebuggerUrl without :// was changed", out);
		return;
	}
	pre = (size_t)(p + 3 - in);
	if (strncmp(out, in, pre) || strncmp(out + pre, HOST, hl))
		fail("webSocketDebuggerUrl does not start with its scheme and the proxy's host", out);
	rest = out + pre + hl;
	if (*rest && !strchr("/?#\\", *rest))
		fail("webSocketDebuggerUrl is not on the proxy's host", out);
	restlen = strlen(rest);
	if (restlen > inlen - pre || strcmp(in + inlen - restlen, rest) ||
	    memchr(in + pre, '/', inlen - restlen - pre))
		fail("webSocketDebuggerUrl lost more than its authority", out);
}

/* Checks one target (in, rewritten as got) and applies to want, a copy of
 * in, the rewrite it should have had: then want must equal got. */
static void check_target(const json_t *in, const json_t *got, json_t *want)
{
	const char *ws = json_string_value(json_object_get(in, "webSocketDebuggerUrl"));
	const char *fe = json_string_value(json_object_get(in, "devtoolsFrontendUrl"));

	if (ws) {
		json_t *ws_got = json_object_get(got, "webSocketDebuggerUrl");
		check_ws_url(ws, json_string_value(ws_got));
		json_object_set(want, "webSocketDebuggerUrl", ws_got);
	}
	/* ws= or wss=, right after the '?' or after any later '&'. */
	for (const char *p = fe ? strchr(fe, '?') : NULL; p; p = strchr(p + 1, '&')) {
		size_t k = !strncmp(p + 1, "ws=", 3) ? 3 : !strncmp(p + 1, "wss=", 4) ? 4 : 0;
		if (k) {
			json_object_set_new(want, "devtoolsFrontendUrl", with_host(fe, (size_t)(p + 1 + k - fe)));
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t outlen = (size_t)-1, i;
	char *out = discovery_rewrite((const char *)data, size, HOST, &outlen);
	json_t *in = json_loadb((const char *)data, size, 0, NULL), *got, *want, *t;
	json_error_t err;

	if (!out != !in)
		fail(out ? "rewrote a body that is not JSON" : "NULL for a JSON body", NULL);
	if (!out)
		return 0;
	if (outlen != strlen(out))
		fail("*outlen is not the output's length", NULL);
	if (!(got = json_loadb(out, outlen, 0, &err)))
		fail("the output does not parse", err.text);
	if (json_typeof(got) != json_typeof(in) || json_array_size(got) != json_array_size(in))
		fail("the output is not the same kind of document", out);
	want = json_deep_copy(in);
	if (json_is_object(in))
		check_target(in, got, want);
	json_array_foreach(in, i, t)
		check_target(t, json_array_get(got, i), json_array_get(want, i));
	if (!json_equal(got, want))
		fail("the output differs from the documented rewrite", out);
	json_decref(want);
	json_decref(got);
	json_decref(in);
	free(out);
	return 0;
}
