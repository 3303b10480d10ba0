/* bidi_test: the BiDi decoder on the shapes ChromeDriver 156 really sent
 * and received (tests/fuzz/corpus/bidi/cd156-*, from a Selenium session
 * through the wrapper with --log-bodies), the other drivers' shapes and
 * broken ones (the same corpus: each file's name says what it must decode
 * to), the member lookup it stands on, and the round-trip tracker. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bidi.h"
#include "scan.h"
#include "tap.h"
#include "util.h"

#define CORPUS "tests/fuzz/corpus/bidi"

/* Decodes the CDP message msg (n bytes, an exact-size copy, so nothing
 * past it is read) into m; checks its bytes are left as they were. */
static enum bidi_type decode(const char *msg, size_t n, struct bidi_msg *m)
{
	char *buf = xmalloc(n ? n : 1), method[128] = "";
	struct scan_result r;
	enum bidi_type t = BIDI_NONE;

	memcpy(buf, msg, n);
	memset(m, 0, sizeof *m);
	if (scan_message(buf, n, &r) < 0) {
		ok(0, "the carrier scans: %.60s", msg);
	} else {
		long k = scan_str_copy(buf, &r.method, method, sizeof method);
		t = bidi_decode(buf, &r, method, k < 0 ? 0 : (size_t)k, m);
		ok(!memcmp(buf, msg, n), "the carrier's bytes are unchanged");
	}
	free(buf);
	return t;
}

static enum bidi_type decode_str(const char *msg, struct bidi_msg *m)
{
	return decode(msg, strlen(msg), m);
}

/* "cd156-error-unknown-command.json" -> "error"; "invalid-bad-escape--x"
 * -> "invalid" and why "bad escape". */
static void expected(const char *file, char *type, size_t tlen, char *why, size_t wlen)
{
	const char *p = strncmp(file, "cd156-", 6) ? file : file + 6, *dash = strchr(p, '-'), *end;
	size_t n = dash ? (size_t)(dash - p) : strlen(p);

	snprintf(type, tlen, "%.*s", (int)n, p);
	why[0] = '\0';
	if (!strcmp(type, "invalid") && dash && (end = strstr(dash + 1, "--"))) {
		snprintf(why, wlen, "%.*s", (int)(end - dash - 1), dash + 1);
		for (char *c = why; *c; c++)
			if (*c == '-')
				*c = ' ';
	}
}

static void test_corpus(void)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	int files = 0;
	size_t was = bidi_set_max_bytes(4096);

	ok(d != NULL, "the corpus %s is there", CORPUS);
	while (d && (e = readdir(d))) {
		char path[512], type[32], why[64];
		struct bidi_msg m;
		json_error_t je;
		json_t *j;
		FILE *f;
		char *text;
		long n;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, CORPUS "/%s", e->d_name);
		if (!(f = fopen(path, "rb")))
			continue;
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		text = xmalloc((size_t)n + 1);
		n = (long)fread(text, 1, (size_t)n, f);
		fclose(f);
		text[n] = '\0';
		files++;
		expected(e->d_name, type, sizeof type, why, sizeof why);
		decode(text, (size_t)n, &m);
		is_str(bidi_type_name[m.type], type, "%s decodes as %s", e->d_name, type);
		if (*why)
			is_str(m.why ? m.why : "", why, "%s: why", e->d_name);
		if (m.type != BIDI_INVALID && m.type != BIDI_NONE) {
			/* The oracle: jansson reads the same message out, two levels down. */
			json_t *msg = json_loadb(text, (size_t)n, 0, &je), *params = json_object_get(msg, "params");
			const char *s = json_string_value(json_object_get(params, m.in_command ? "expression" : "payload"));
			const char *inner = s;
			if (m.in_command) {
				inner = strchr(s, '(') + 1;
				j = json_loadb(inner, strlen(inner) - 1, JSON_DECODE_ANY, &je);
				inner = json_string_value(j);
			} else {
				j = NULL;
			}
			json_t *b = json_loads(inner, 0, &je);
			json_t *id = json_object_get(b, "id");
			is_int(m.bytes, strlen(inner), "%s: bytes", e->d_name);
			is_int(m.has_id, json_is_integer(id), "%s: has an id", e->d_name);
			if (m.has_id)
				is_int(m.id, json_integer_value(id), "%s: id", e->d_name);
			if (json_is_string(json_object_get(b, "method")))
				is_str(m.method, json_string_value(json_object_get(b, "method")), "%s: method", e->d_name);
			json_t *ch = json_object_get(b, "goog:channel");
			if (!ch)
				ch = json_object_get(b, "channel");
			is_str(m.channel, ch ? json_string_value(ch) : "", "%s: channel", e->d_name);
			if (m.type == BIDI_ERROR) {
				is_str(m.error, json_string_value(json_object_get(b, "error")), "%s: error", e->d_name);
				is_str(m.message, json_string_value(json_object_get(b, "message")), "%s: message", e->d_name);
			}
			json_decref(b);
			json_decref(j);
			json_decref(msg);
		}
		free(text);
	}
	if (d)
		closedir(d);
	ok(files >= 25, "%d corpus files read", files);
	bidi_set_max_bytes(was);
}

/* The captured error, field by field, and the real bound. */
static void test_captured(void)
{
	static const char cmd[] = "{\"id\":44,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":"
		"\"onBidiMessage(\\\"{\\\\\\\"goog:channel\\\\\\\":\\\\\\\"/3/chan/bidi\\\\\\\",\\\\\\\"id\\\\\\\":2,"
		"\\\\\\\"method\\\\\\\":\\\\\\\"nosuch.command\\\\\\\",\\\\\\\"params\\\\\\\":{}}\\\")\"},"
		"\"sessionId\":\"A56361137D7B2E74D0A9A7A3EFF5B535\"}";
	static const char err[] = "{\"method\":\"Runtime.bindingCalled\",\"params\":{\"name\":\"sendBidiResponse\","
		"\"payload\":\"{\\\"type\\\":\\\"error\\\",\\\"id\\\":2,\\\"error\\\":\\\"unknown command\\\","
		"\\\"message\\\":\\\"Unknown command 'nosuch.command'.\\\",\\\"goog:channel\\\":\\\"/3/chan/bidi\\\"}\","
		"\"executionContextId\":1},\"sessionId\":\"A56361137D7B2E74D0A9A7A3EFF5B535\"}";
	struct bidi_msg m;
	char *big;
	size_t n = BIDI_MAX_BYTES + 64;

	is_int(decode_str(cmd, &m), BIDI_COMMAND, "ChromeDriver's command");
	is_str(m.method, "nosuch.command", "its method");
	is_int(m.id, 2, "its BiDi id");
	is_str(m.channel, "/3/chan/bidi", "its goog:channel");
	is_int(m.bytes, 76, "its size, the BiDi text's");
	is_int(decode_str(err, &m), BIDI_ERROR, "the mapper's error answer");
	is_str(m.error, "unknown command", "its code");
	is_str(m.message, "Unknown command 'nosuch.command'.", "its message");
	ok(!m.in_command && m.has_id && m.id == 2, "its id, in an event");

	/* Just over the real bound: refused before anything is decoded. */
	big = xmalloc(n + 200);
	int k = snprintf(big, n + 200, "{\"id\":1,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"onBidiMessage(\\\"");
	memset(big + k, 'x', n);
	k += (int)n;
	k += snprintf(big + k, 200, "\\\")\"}}");
	is_int(decode(big, (size_t)k, &m), BIDI_INVALID, "a carrier past BIDI_MAX_BYTES");
	is_str(m.why, "too large", "said too large");
	ok(m.bytes == n + 19, "with its size (%zu)", m.bytes);
	free(big);
}

static void test_members(void)
{
	static const char obj[] = "{\"a\":1,\"n\\u0061me\":\"x\",\"p\":{\"name\":\"inner\"},\"payload\":\"y\","
				  "\"name\":\"z\",\"payload\":[1]}";
	static const char *const keys[] = { "name", "payload", "none" };
	struct scan_span sp = { 0, sizeof obj - 1, 1 };
	struct scan_str v[3];

	is_int(scan_member_strs(obj, &sp, keys, 3, v), 1, "one of three found");
	ok(v[0].present && v[0].len == 1 && obj[v[0].off] == 'z', "a key repeated: its last value");
	ok(!v[1].present, "a repeat that is no string: absent");
	ok(!v[2].present, "an absent key: absent");
	sp.len = 15;   /* {"a":1,"n\u0061 */
	ok(scan_member_strs(obj, &sp, keys, 3, v) == 0, "a cut object: nothing, no read past it");
	sp = (struct scan_span){ 0, 7, 1 };
	ok(scan_member_strs("\"name\":", &sp, keys, 1, v) == 0, "not an object");
}

static void test_track(void)
{
	struct bidi_track t;
	struct bidi_msg c = { .type = BIDI_COMMAND, .has_id = 1, .id = 1 }, a;
	uint64_t rtt = 0;

	bidi_track_init(&t);
	t.max = 2;
	snprintf(c.method, sizeof c.method, "session.new");
	c.method_len = strlen(c.method);
	snprintf(c.channel, sizeof c.channel, "/init-bidi-session/bidi");
	bidi_track_command(&t, "S", 1, &c, 1000);
	snprintf(c.method, sizeof c.method, "script.evaluate");
	c.method_len = strlen(c.method);
	snprintf(c.channel, sizeof c.channel, "/3/chan/bidi");
	bidi_track_command(&t, "S", 1, &c, 2000);   /* the same id 1 on another channel */
	a = (struct bidi_msg){ .type = BIDI_SUCCESS, .has_id = 1, .id = 1 };
	snprintf(a.channel, sizeof a.channel, "/3/chan/bidi");
	is_int(bidi_track_answer(&t, "S", 1, &a, 2500, &rtt), 0, "an answer finds its command");
	is_str(a.method, "script.evaluate", "by its channel");
	is_int(rtt, 500, "its round trip");
	is_int(bidi_track_answer(&t, "S", 1, &a, 2600, &rtt), -1, "answered once only");
	is_int(bidi_track_answer(&t, "T", 1, &a, 2600, &rtt), -1, "another session's id 1 is not it");
	snprintf(a.channel, sizeof a.channel, "/init-bidi-session/bidi");
	is_int(bidi_track_answer(&t, "S", 1, &a, 3000, &rtt), 0, "the other channel's id 1");
	is_str(a.method, "session.new", "with its method");
	for (int i = 10; i < 13; i++) {
		c.id = i;
		bidi_track_command(&t, "", 0, &c, 4000);
	}
	is_int(t.evicted, 1, "past max the oldest is forgotten");
	a.id = 10;
	snprintf(a.channel, sizeof a.channel, "/3/chan/bidi");
	is_int(bidi_track_answer(&t, "", 0, &a, 5000, &rtt), -1, "its answer is unmatched");
	a.id = 12;
	is_int(bidi_track_answer(&t, "", 0, &a, 5000, &rtt), 0, "a newer one is matched");
	bidi_track_free(&t);
}

static void test_names(void)
{
	ok(bidi_method_known("script.evaluate", 15), "script.evaluate is BiDi's");
	ok(bidi_method_known("goog:cdp.sendCommand", 20), "so is goog:cdp.sendCommand");
	ok(!bidi_method_known("script.evaluat", 14) && !bidi_method_known("nosuch.command", 14),
	   "a prefix, an unknown name are not");
	ok(bidi_module_known("browsingContext", 15) && !bidi_module_known("browsing", 8), "modules");
	is_int(bidi_error_index("unknown command"), 27, "an error code's index");
	is_str(bidi_error_codes[bidi_error_index("no such frame")], "no such frame", "and back");
	is_int(bidi_error_index("made up"), BIDI_ERROR_CODES, "a code BiDi does not define");
}

int main(void)
{
	test_captured();
	test_corpus();
	test_members();
	test_track();
	test_names();
	return tap_done();
}
