/* fuzz_bidi: libFuzzer driver of the BiDi decoder (bidi.c): a CDP message
 * that may carry BiDi is decoded from an exact-size copy, which must come
 * back unchanged; what it reads out is checked against jansson reading
 * the same three levels (the message, the carrier string, the BiDi text);
 * and the tracker matches the command to an answer made from it. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bidi.h"
#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void differ(const char *what, const char *got, const char *want)
{
	fprintf(stderr, "fuzz_bidi: decoder and jansson differ: %s\n  decoder: %s\n  jansson: %s\n", what,
		got ? got : "(none)", want ? want : "(none)");
	abort();
}

/* What jansson may refuse that the scanner takes (see fuzz_scan.c). */
static int excused(const json_error_t *e)
{
	switch (json_error_code(e)) {
	case json_error_invalid_utf8:
	case json_error_numeric_overflow:
	case json_error_null_character:
	case json_error_null_byte_in_key:
		return 1;
	case json_error_invalid_syntax:
		return strncmp(e->text, "invalid Unicode '", 17) == 0;
	default:
		return 0;
	}
}

/* got is what the decoder kept of want (want_len bytes): all of it when it
 * fits in n - 1 bytes and has no NUL, else a prefix. */
static void same_cut(const char *what, const char *got, const char *want, size_t want_len, size_t n)
{
	size_t g = strlen(got);

	if (g > want_len || memcmp(got, want, g) || (want_len < n - 1 && !memchr(want, 0, want_len) && g != want_len))
		differ(what, got, want);
}

/* The jansson reading of the BiDi in message msg (parsed), or NULL when
 * jansson refuses a level the decoder took, which is excused. */
static json_t *oracle(json_t *msg, int in_command)
{
	json_t *params = json_object_get(msg, "params"), *arg, *inner;
	const char *s = json_string_value(json_object_get(params, in_command ? "expression" : "payload"));
	size_t n = json_string_length(json_object_get(params, in_command ? "expression" : "payload"));
	json_error_t e;

	if (!s)
		differ("the carrier string", "found", "absent");
	if (in_command) {
		const char *open = memchr(s, '(', n), *end = s + n;
		while (end > open && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\t' || end[-1] == ';'))
			end--;
		if (!open || end[-1] != ')')
			differ("the expression's shape", "onBidiMessage(...)", s);
		if (!(arg = json_loadb(open + 1, (size_t)(end - 1 - open - 1), JSON_DECODE_ANY | JSON_ALLOW_NUL, &e)))
			return excused(&e) ? NULL : (differ("the argument", "a string", e.text), NULL);
		s = json_string_value(arg);
		n = json_string_length(arg);
		if (!s)
			differ("the argument", "a string", "not a string");
	} else {
		arg = NULL;
	}
	inner = json_loadb(s, n, JSON_ALLOW_NUL, &e);
	json_decref(arg);
	if (!inner && !excused(&e))
		differ("the BiDi text", "JSON", e.text);
	return inner;
}

static void check(const struct bidi_msg *m, json_t *b)
{
	json_t *id = json_object_get(b, "id"), *method = json_object_get(b, "method");
	json_t *ch = json_object_get(b, "goog:channel");
	const char *type = json_string_value(json_object_get(b, "type"));

	if (!ch)
		ch = json_object_get(b, "channel");
	if (m->has_id != json_is_integer(id) || (m->has_id && m->id != json_integer_value(id)))
		differ("id", m->has_id ? "an id" : "none", json_is_integer(id) ? "an id" : "none");
	if (json_is_string(method))
		same_cut("method", m->method, json_string_value(method), json_string_length(method), BIDI_NAME);
	else if (m->method_len)
		differ("method", m->method, "none");
	if (json_is_string(ch))
		same_cut("channel", m->channel, json_string_value(ch), json_string_length(ch), BIDI_NAME);
	else if (m->channel[0])
		differ("channel", m->channel, "none");
	if (!m->in_command && type && !strcmp(type, "error") && m->type != BIDI_ERROR)
		differ("type", bidi_type_name[m->type], "error");
	if (!m->in_command && type && !strcmp(type, "event") && m->type != BIDI_EVENT)
		differ("type", bidi_type_name[m->type], "event");
	if (m->type == BIDI_ERROR && json_is_string(json_object_get(b, "error")))
		same_cut("error", m->error, json_string_value(json_object_get(b, "error")),
			 json_string_length(json_object_get(b, "error")), BIDI_NAME);
}

/* An answer made from command m finds it, once. */
static void track(const struct bidi_msg *m)
{
	struct bidi_track t;
	struct bidi_msg a = *m;
	uint64_t rtt;

	bidi_track_init(&t);
	t.max = 2;
	bidi_track_command(&t, "S", 1, m, 10);
	a.type = BIDI_SUCCESS;
	a.method[0] = '\0';
	a.method_len = 0;
	if (bidi_track_answer(&t, "S", 1, &a, 25, &rtt) || rtt != 15 || strcmp(a.method, m->method))
		differ("the tracker", "no match", "a match");
	if (!bidi_track_answer(&t, "S", 1, &a, 30, &rtt))
		differ("the tracker", "a second match", "none");
	bidi_track_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1), method[128];
	struct scan_result r;
	struct bidi_msg m;
	json_error_t e;
	json_t *msg, *b;
	long k;

	bidi_set_max_bytes(4096);   /* the corpus reaches the bound */
	memcpy(buf, data, size);
	if (scan_message(buf, size, &r) < 0) {
		free(buf);
		return 0;
	}
	k = scan_str_copy(buf, &r.method, method, sizeof method);
	bidi_decode(buf, &r, method, k < 0 ? 0 : (size_t)k, &m);
	if (memcmp(buf, data, size))
		differ("the message's bytes", "changed", "as they were");
	if (m.type == BIDI_INVALID && !m.why)
		differ("why", "none", "a reason");
	if (m.type != BIDI_NONE && m.type != BIDI_INVALID) {
		if ((msg = json_loadb(buf, size, JSON_ALLOW_NUL, &e))) {
			if ((b = oracle(msg, m.in_command))) {
				check(&m, b);
				json_decref(b);
			}
			json_decref(msg);
		} else if (!excused(&e)) {
			differ("the message", "JSON", e.text);
		}
		if (m.type == BIDI_COMMAND && m.has_id)
			track(&m);
	}
	free(buf);
	return 0;
}
