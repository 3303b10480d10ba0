/* bidilog_test: BiDi through the core (route_deliver): each carrier goes
 * on byte for byte, its BiDi is logged as a "bidi" record right after the
 * carrier's own, answers find their commands per channel, an error's
 * message loses URL userinfo, a carrier not read says so, and the stats'
 * BiDi table counts what the log says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "core.h"
#include "route.h"
#include "tap.h"

/* text from side `from`, as a leg hands it over; then the queue for the
 * other side must end with it, unchanged. */
static void deliver(struct core *core, struct core_conn *cc, enum side from, const char *text)
{
	size_t n = strlen(text);
	struct msg *m = msg_new(n);
	const struct msg *last;

	memcpy(MSG_DATA(m), text, n);
	m->len = n;
	core_read_clock(core, m);
	route_deliver(cc, from, m);
	last = cc->out[!from].tail;
	ok(last && last->len == n && !memcmp(MSG_DATA(last), text, n), "forwarded as it came: %.50s", text);
}

static const char *CMD1 = "{\"id\":32,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"onBidiMessage("
	"\\\"{\\\\\\\"goog:channel\\\\\\\":\\\\\\\"/init/bidi\\\\\\\",\\\\\\\"id\\\\\\\":1,\\\\\\\"method\\\\\\\":"
	"\\\\\\\"session.new\\\\\\\",\\\\\\\"params\\\\\\\":{}}\\\")\"},\"sessionId\":\"M1\"}";
static const char *CMD2 = "{\"id\":33,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"onBidiMessage("
	"\\\"{\\\\\\\"goog:channel\\\\\\\":\\\\\\\"/3/chan/bidi\\\\\\\",\\\\\\\"id\\\\\\\":1,\\\\\\\"method\\\\\\\":"
	"\\\\\\\"browsingContext.navigate\\\\\\\",\\\\\\\"params\\\\\\\":{}}\\\")\"},\"sessionId\":\"M1\"}";
static const char *ERR2 = "{\"method\":\"Runtime.bindingCalled\",\"params\":{\"name\":\"sendBidiResponse\",\"payload\":"
	"\"{\\\"type\\\":\\\"error\\\",\\\"id\\\":1,\\\"error\\\":\\\"unknown error\\\",\\\"message\\\":"
	"\\\"cannot open http://user:pw@example.com/\\\",\\\"goog:channel\\\":\\\"/3/chan/bidi\\\"}\","
	"\"executionContextId\":1},\"sessionId\":\"M1\"}";
static const char *OK1 = "{\"method\":\"Runtime.bindingCalled\",\"params\":{\"name\":\"sendBidiResponse\",\"payload\":"
	"\"{\\\"type\\\":\\\"success\\\",\\\"id\\\":1,\\\"result\\\":{},\\\"goog:channel\\\":\\\"/init/bidi\\\"}\","
	"\"executionContextId\":1},\"sessionId\":\"M1\"}";
static const char *CUT = "{\"id\":34,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"onBidiMessage(\\\"{\\\\\\\"id\"},\"sessionId\":\"M1\"}";
static const char *PLAIN = "{\"id\":35,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"1\"},\"sessionId\":\"M1\"}";

int main(void)
{
	char dir[] = "/tmp/bidilog_test.XXXXXX", path[256], err[256], line[8192];
	struct core core;
	struct core_conn cc = { 0 };
	struct log *lg;
	json_t *recs = json_array(), *r, *st, *b;
	const char *kinds[16];
	size_t n = 0;
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	lg = log_open(path, 0, err, sizeof err);
	ok(lg != NULL, "log opened: %s", lg ? "" : err);
	core_init(&core, NULL, lg, 1 << 20);
	core_conn_init(&core, &cc, NULL, "/devtools/browser/x");
	deliver(&core, &cc, DOWN, CMD1);
	deliver(&core, &cc, DOWN, CMD2);
	deliver(&core, &cc, UP, ERR2);
	deliver(&core, &cc, UP, OK1);
	deliver(&core, &cc, DOWN, CUT);
	deliver(&core, &cc, DOWN, PLAIN);
	st = stats_json(core.stats);
	core_conn_free(&cc);
	core_free(&core);
	log_close(lg);

	f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		r = json_loads(line, 0, NULL);
		if (r && strcmp(json_string_value(json_object_get(r, "kind")), "policy")) {
			json_array_append(recs, r);
			if (n < 16)
				kinds[n++] = json_string_value(json_object_get(r, "kind"));
		}
		json_decref(r);
	}
	if (f)
		fclose(f);
	is_int(json_array_size(recs), 11, "five carriers with a bidi record each, and a plain evaluate");
	ok(n >= 11 && !strcmp(kinds[0], "command") && !strcmp(kinds[1], "bidi") && !strcmp(kinds[4], "event") &&
	   !strcmp(kinds[5], "bidi") && !strcmp(kinds[8], "command") && !strcmp(kinds[9], "bidi") &&
	   !strcmp(kinds[10], "command"),
	   "each bidi record right after its carrier's, none after a plain evaluate");
	r = json_array_get(recs, 5);
	is_str(json_string_value(json_object_get(r, "type")), "error", "the error answer");
	is_str(json_string_value(json_object_get(r, "method")), "browsingContext.navigate",
	       "matched on its channel, not to the other id 1");
	is_str(json_string_value(json_object_get(r, "message")), "cannot open http://<redacted>@example.com/",
	       "its message without the URL's userinfo");
	ok(json_integer_value(json_object_get(r, "t")) == json_integer_value(json_object_get(json_array_get(recs, 4), "t")),
	   "stamped with its carrier's time");
	r = json_array_get(recs, 7);
	is_str(json_string_value(json_object_get(r, "method")), "session.new", "the other channel's id 1");
	ok(json_is_integer(json_object_get(r, "rtt_us")), "with its round trip");
	r = json_array_get(recs, 9);
	is_str(json_string_value(json_object_get(r, "type")), "invalid", "a cut command");
	is_str(json_string_value(json_object_get(r, "why")), "cut", "said cut");
	is_str(json_string_value(json_object_get(r, "carrier")), "Runtime.evaluate", "with its carrier");

	b = json_object_get(st, "bidi");
	is_int(json_integer_value(json_object_get(json_object_get(b, "errors"), "unknown error")), 1, "stats: the error by code");
	is_int(json_integer_value(json_object_get(json_object_get(json_object_get(b, "methods"), "browsingContext.navigate"),
						  "errors")), 1, "stats: by method");
	ok(json_object_get(json_object_get(b, "methods"), "(invalid)") != NULL, "stats: the cut one under (invalid)");
	is_int(json_integer_value(json_array_get(json_object_get(json_object_get(json_object_get(st, "methods"),
		"Runtime.evaluate"), "messages"), 0)), 4, "CDP's table counts the carriers as ever");
	json_decref(st);
	json_decref(recs);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
