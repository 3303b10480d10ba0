/* cdplog_test: the log reader's one pass: counts and round trips per method,
 * enabled domains with their params, sessions and their bound, bad lines,
 * the pending bound, and the pairs view's order. */
#include <string.h>

#include "logagg.h"
#include "cdplog.h"
#include "sessions.h"
#include "logrec.h"

#include "tap.h"

static const char LOG[] =
	"{\"t\":1000000,\"gen\":1,\"conn\":0,\"kind\":\"policy\",\"name\":\"passthrough\",\"source\":\"built-in\",\"via\":\"start\"}\n"
	"{\"t\":1000010,\"gen\":1,\"conn\":1,\"kind\":\"open\",\"path\":\"/devtools/browser/x\"}\n"
	"{\"t\":1000020,\"gen\":1,\"conn\":1,\"kind\":\"session\",\"event\":\"attached\",\"session\":\"S1\",\"targetId\":\"T1\",\"type\":\"page\",\"url\":\"about:blank\"}\n"
	/* Network.enable with params in a string body, answered after 300 us. */
	"{\"t\":1000100,\"gen\":1,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":1,\"method\":\"Network.enable\",\"session\":\"S1\",\"bytes\":90,"
	"\"body\":\"{\\\"id\\\":1,\\\"method\\\":\\\"Network.enable\\\",\\\"params\\\":{\\\"maxPostDataSize\\\":65536},\\\"sessionId\\\":\\\"S1\\\"}\"}\n"
	/* Page.enable, body logged as an object. */
	"{\"t\":1000110,\"gen\":1,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":2,\"method\":\"Page.enable\",\"session\":\"S1\",\"bytes\":50,"
	"\"body\":{\"id\":2,\"method\":\"Page.enable\",\"sessionId\":\"S1\"}}\n"
	"{\"t\":1000400,\"gen\":1,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":1,\"method\":\"Network.enable\",\"session\":\"S1\",\"bytes\":40,\"rtt_us\":300}\n"
	"{\"t\":1000500,\"gen\":1,\"conn\":1,\"dir\":\"down\",\"kind\":\"event\",\"method\":\"Network.requestWillBeSent\",\"session\":\"S1\",\"bytes\":1000}\n"
	"this is not JSON\n"
	/* Runtime.enable fails: not enabled. */
	"{\"t\":1000600,\"gen\":1,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":3,\"method\":\"Runtime.enable\",\"session\":\"S1\",\"bytes\":30}\n"
	"{\"t\":1000700,\"gen\":1,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":3,\"method\":\"Runtime.enable\",\"session\":\"S1\",\"bytes\":80,\"rtt_us\":100,\"error\":-32000,"
	"\"body\":\"{\\\"id\\\":3,\\\"error\\\":{\\\"code\\\":-32000,\\\"message\\\":\\\"Cannot find context with specified id\\\"},\\\"sessionId\\\":\\\"S1\\\"}\"}\n"
	"{\"t\":1000800,\"gen\":1,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":2,\"method\":\"Page.enable\",\"session\":\"S1\",\"bytes\":40,\"rtt_us\":690}\n"
	"{\"t\":1000900,\"gen\":2,\"conn\":0,\"kind\":\"policy\",\"name\":\"capped\",\"source\":\"built-in\",\"via\":\"http\"}\n"
	"{\"t\":1001000,\"gen\":2,\"conn\":1,\"kind\":\"mark\",\"label\":\"phase two\",\"session\":\"S1\"}\n"
	"{\"t\":1001100,\"gen\":2,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":4,\"method\":\"Page.disable\",\"session\":\"S1\",\"bytes\":30}\n"
	"{\"t\":1001200,\"gen\":2,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":4,\"method\":\"Page.disable\",\"session\":\"S1\",\"bytes\":30,\"rtt_us\":100}\n"
	/* A command never answered, and an answer whose command is not in the log. */
	"{\"t\":1001300,\"gen\":2,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":5,\"method\":\"Runtime.evaluate\",\"bytes\":60}\n"
	"{\"t\":1001400,\"gen\":2,\"conn\":2,\"dir\":\"down\",\"kind\":\"response\",\"id\":9,\"method\":\"Browser.getVersion\",\"bytes\":60,\"rtt_us\":50}\n";

static int read_log(const char *text, logrec_fn fn, void *arg, struct logrec_input *in)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	char err[200];
	int rc = logrec_read(f, fn, arg, in, err, sizeof err);

	fclose(f);
	return rc;
}

static struct logagg_count *count_of(struct table *t, const char *name)
{
	void **v = table_get(t, name, strlen(name));

	return v ? *v : NULL;
}

static struct logagg_sess *sess_of(struct logagg *a, const char *id)
{
	void **v = table_get(&a->sessions, id, strlen(id));

	return v ? *v : NULL;
}

static void test_agg(void)
{
	struct logrec_opts o = { .pending_max = 100, .sessions_max = 100 };
	struct logrec_input in = { 0 };
	struct logagg a;
	struct logagg_count *c;
	struct logagg_sess *s;

	logagg_init(&a, &o);
	is_int(read_log(LOG, logagg_add, &a, &in), 0, "the log is read");
	is_int(in.records, 16, "16 records");
	is_int(in.bad, 1, "one line is not JSON");
	is_int(in.first_bad, 8, "and it is line 8");
	is_int(a.total.messages, 11, "11 messages");
	is_int(a.total.errors, 1, "one error response");
	c = count_of(&a.methods, "Network.enable");
	ok(c && c->messages == 2 && c->commands == 1 && c->responses == 1 && c->bytes[0] == 90 &&
	   c->bytes[1] == 40, "Network.enable: a command up, a response down, their bytes");
	ok(c && c->rtt.n == 1 && hist_quantile(&c->rtt, 0.5) == 300, "its round trip, from rtt_us");
	c = count_of(&a.domains, "Page");
	ok(c && c->messages == 4 && c->rtt.n == 2 && c->rtt.max == 690, "domain Page sums its methods");
	c = count_of(&a.methods, "Runtime.enable");
	ok(c && c->errors == 1, "Runtime.enable's error is counted");
	s = sess_of(&a, "S1");
	ok(s && s->target && !strcmp(s->target, "T1") && !strcmp(s->type, "page"),
	   "the session record maps S1 to its target");
	ok(s && s->messages == 9, "S1 carried 9 messages (%llu)", s ? (unsigned long long)s->messages : 0);
	is_str(json_string_value(json_object_get(s->enabled, "Network")), "{\"maxPostDataSize\":65536}",
	       "Network enabled with the params of its command's body");
	ok(!json_object_get(s->enabled, "Page"), "Page enabled, then disabled");
	ok(!json_object_get(s->enabled, "Runtime"), "a failed Runtime.enable enables nothing");
	is_int(a.policies.n, 2, "two policy generations");
	is_int(a.marks.n, 1, "one mark");
	ok(s->events.n >= 5 && strstr(s->events.v[0].what, "attached"), "the session's timeline begins with its attach");
	ok(a.enables.n == 0, "no enable command is left waiting");
	logagg_free(&a);
}

static void test_bounds(void)
{
	struct logrec_opts o = { .pending_max = 2, .sessions_max = 2 };
	struct logrec_input in = { 0 };
	struct logagg a;
	struct logrec_pending p;
	struct logrec r;
	struct logrec_cmd *old;
	const char *sessions =
		"{\"t\":1,\"conn\":1,\"kind\":\"session\",\"event\":\"attached\",\"session\":\"A\",\"targetId\":\"TA\"}\n"
		"{\"t\":2,\"conn\":1,\"kind\":\"session\",\"event\":\"attached\",\"session\":\"B\",\"targetId\":\"TB\"}\n"
		"{\"t\":3,\"conn\":1,\"dir\":\"up\",\"kind\":\"event\",\"method\":\"X.y\",\"session\":\"A\",\"bytes\":1}\n"
		"{\"t\":4,\"conn\":1,\"kind\":\"session\",\"event\":\"attached\",\"session\":\"C\",\"targetId\":\"TC\"}\n";

	logagg_init(&a, &o);
	read_log(sessions, logagg_add, &a, &in);
	ok(a.sessions.n == 2 && sess_of(&a, "A") && sess_of(&a, "C") && !sess_of(&a, "B"),
	   "past --sessions-max the least recently seen session (B) is forgotten");
	is_int(a.sessions_forgotten, 1, "and counted");
	logagg_free(&a);

	logrec_pending_init(&p, 2);
	for (int i = 1; i <= 3; i++) {
		json_t *j = json_pack("{s:i,s:i,s:s,s:s,s:i,s:s}", "t", i, "conn", 1, "dir", "up", "kind",
				      "command", "id", i, "method", "A.b");
		logrec_from(j, (uint64_t)i, &r);
		logrec_pending_add(&p, &r, 0, &old);
		ok(i < 3 ? !old : old && old->id == 1, "command %d: %s", i,
		   i < 3 ? "kept" : "the oldest is pushed out");
		logrec_cmd_free(old);
		json_decref(j);
	}
	is_int(p.n, 2, "two commands pending at most");
	logrec_pending_free(&p);
}

/* A session's enabled domains follow the proxy's rule (sessions.h): the
 * domain is the part before the only dot, and a set is bounded. */
static void test_enabled_rule(void)
{
	struct logrec_opts o = { .pending_max = 10, .sessions_max = 10 };
	struct logrec_input in = { 0 };
	struct logagg a;
	char *log = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&log, &len);
	int i;

	for (i = 0; i < SESSIONS_DOMAINS_MAX + 2; i++)
		fprintf(f, "{\"t\":%d,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":%d,"
			"\"method\":\"D%d.enable\",\"session\":\"S\",\"action\":\"stub\"}\n", i + 1, i, i);
	fprintf(f, "{\"t\":%d,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":%d,"
		"\"method\":\"A.B.enable\",\"session\":\"T\"}\n", i + 1, i);
	fprintf(f, "{\"t\":%d,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":%d,"
		"\"method\":\"D0.disable\",\"session\":\"S\"}\n", i + 2, i + 1);
	fclose(f);
	logagg_init(&a, &o);
	read_log(log, logagg_add, &a, &in);
	is_int(json_object_size(sess_of(&a, "S")->enabled), SESSIONS_DOMAINS_MAX - 1,
	       "a session holds SESSIONS_DOMAINS_MAX enabled domains at most, less the one disabled");
	ok(!json_object_get(sess_of(&a, "S")->enabled, "D0") &&
	   json_object_get(sess_of(&a, "S")->enabled, "D1"), "X.disable removes X");
	is_int(json_object_size(sess_of(&a, "T")->enabled), 0, "A.B.enable enables nothing");
	logagg_free(&a);
	free(log);
}

static void test_pairs(void)
{
	struct logrec_opts o = { .pending_max = 100, .sessions_max = 100 };
	char *text = NULL, err[200];
	size_t len = 0;
	FILE *in = fmemopen((void *)LOG, strlen(LOG), "r"), *out = open_memstream(&text, &len);
	const char *net, *page, *rt;

	is_int(cdplog_pairs(in, "t", &o, out, err, sizeof err), 0, "pairs runs");
	fclose(in);
	fclose(out);
	net = strstr(text, "Network.enable");
	page = strstr(text, "Page.enable");
	rt = strstr(text, "Runtime.enable");
	ok(net && page && rt && net < page && page < rt,
	   "commands in the order sent, though Page.enable was answered after Runtime.enable");
	ok(page && strstr(page, "690us") < strchr(page, '\n'), "Page.enable's round trip on its line");
	ok(strstr(text, "error -32000: Cannot find context with specified id"), "the error's message from the body");
	ok(strstr(text, "Runtime.evaluate") && strstr(text, "no answer in the log"), "an unanswered command is said so");
	ok(strstr(text, "Browser.getVersion") && strstr(text, "its command is not in the log"),
	   "an answer without its command is shown");
	ok(strstr(text, "6 commands shown, 5 answered (1 with an error), 1 without an answer"),
	   "the totals line: %s", strrchr(text, ':') ? "" : text);
	free(text);

	o.method = "Page";
	o.since = "0.0006";
	text = NULL;
	in = fmemopen((void *)LOG, strlen(LOG), "r");
	out = open_memstream(&text, &len);
	cdplog_pairs(in, "t", &o, out, err, sizeof err);
	fclose(in);
	fclose(out);
	ok(strstr(text, "Page.disable") && !strstr(text, "Page.enable") && !strstr(text, "Network"),
	   "--method Page --since 0.0006: only Page.disable");
	free(text);
}

/* How each connection ended: closed by the client, by Chrome (with its
 * reason), or with no close record at all: a process killed with SIGKILL
 * (ChromeDriver ends its browser so) writes none. summary says which, in
 * text and JSON. */
static void test_conn_ends(void)
{
	static const char ENDS[] =
		"{\"t\":1000000,\"conn\":1,\"kind\":\"open\",\"path\":\"/devtools/browser/a\",\"leg\":\"websocket\","
		"\"client\":{\"library\":\"playwright\"}}\n"
		"{\"t\":1000100,\"conn\":2,\"kind\":\"open\",\"path\":\"/devtools/browser/b\",\"leg\":\"websocket\","
		"\"client\":{\"library\":\"chromedriver\"}}\n"
		"{\"t\":1000200,\"conn\":3,\"kind\":\"open\",\"path\":\"/devtools/page/c\",\"leg\":\"websocket\","
		"\"client\":{\"library\":\"unknown\",\"user_agent\":\"curl/8\"}}\n"
		"{\"t\":1000300,\"conn\":1,\"kind\":\"close\",\"side\":\"client\",\"code\":1000,\"reason\":\"\",\"by\":\"client\"}\n"
		"{\"t\":1000300,\"conn\":1,\"kind\":\"close\",\"side\":\"upstream\",\"code\":1000,\"reason\":\"\",\"by\":\"proxy\"}\n"
		"{\"t\":1000400,\"conn\":3,\"kind\":\"close\",\"side\":\"upstream\",\"code\":1011,\"reason\":\"chromium exited\",\"by\":\"upstream\"}\n"
		"{\"t\":1000500,\"conn\":2,\"dir\":\"up\",\"kind\":\"command\",\"id\":1,\"method\":\"Browser.getVersion\",\"bytes\":40}\n"
		"{\"t\":1000600,\"conn\":0,\"kind\":\"mark\",\"label\":\"last\"}\n";
	struct logrec_opts o = { .pending_max = 10, .sessions_max = 10, .top = 30 };
	char *text = NULL, err[200];
	size_t len = 0;
	FILE *in = fmemopen((void *)ENDS, strlen(ENDS), "r"), *out = open_memstream(&text, &len);
	json_t *j, *c;

	is_int(cdplog_summary(in, "ends.jsonl", &o, out, err, sizeof err), 0, "summary");
	fclose(out);
	fclose(in);
	ok(text && strstr(text, "Connections: 3, 2 with a close record, 1 without (the process was killed after record 8)"),
	   "the count, and the record after which the process was killed");
	ok(text && strstr(text, "playwright") && strstr(text, "closed by the client (1000)"), "closed by the client");
	ok(text && strstr(text, "curl/8") && strstr(text, "closed by the upstream (1011: chromium exited)"),
	   "closed by Chrome, with its reason; the client by its User-Agent");
	ok(text && strstr(text, "chromedriver") &&
	   strstr(text, "no close record: the process was killed after record 8 (its own last: record 7)"),
	   "no close record: said so, with its own last record");
	free(text);
	o.json = 1;
	text = NULL;
	in = fmemopen((void *)ENDS, strlen(ENDS), "r");
	out = open_memstream(&text, &len);
	cdplog_summary(in, "ends.jsonl", &o, out, err, sizeof err);
	fclose(out);
	fclose(in);
	j = text ? json_loads(text, 0, NULL) : NULL;
	c = json_array_get(json_object_get(j, "connections"), 1);
	ok(c && json_is_false(json_object_get(c, "closed")) && json_integer_value(json_object_get(c, "last_record")) == 7 &&
	   strstr(json_string_value(json_object_get(c, "ended")), "killed after record 8"), "JSON: the same per connection");
	json_decref(j);
	free(text);
}

static void test_small(void)
{
	uint64_t t;
	char err[200] = "", buf[64];
	json_t *j = json_pack("{s:i,s:s,s:s,s:s,s:b}", "t", 1, "dir", "up", "kind", "command", "body",
			      "{\"id\":1,\"method\":\"Network.en", "truncated", 1);
	struct logrec r;

	ok(!logrec_parse_time("12.5", 1000000, &t, err, sizeof err) && t == 13500000, "seconds since the start");
	ok(!logrec_parse_time("1796291145000830", 5, &t, err, sizeof err) && t == 1796291145000830ull,
	   "microseconds since the epoch");
	ok(!logrec_parse_time("2026-12-03T09:45:42.5Z", 5, &t, err, sizeof err) && t == 1796291142500000ull,
	   "a UTC time");
	ok(logrec_parse_time("soon", 5, &t, err, sizeof err) < 0 && strstr(err, "not a time"), "a bad time: %s", err);
	ok(logrec_session_match("AB", "ABCD") && !logrec_session_match("AC", "ABCD") &&
	   logrec_session_match("-", NULL) && !logrec_session_match("-", "A"), "sessions match by prefix");
	logrec_from(j, 1, &r);
	logrec_params(&r, buf, sizeof buf);
	is_str(buf, "(params cut at 28 bytes)", "a cut body's params are said to be cut");
	json_decref(j);
	logrec_fmt_us(850, buf, sizeof buf);
	is_str(buf, "850us", "850us");
	logrec_fmt_us(1234567, buf, sizeof buf);
	is_str(buf, "1.23s", "1.23s");
}

/* A ChromeDriver BiDi session as the proxy logs it (bidi records only):
 * id 1 on two channels, an error, an event, one not read. */
static const char BIDI_LOG[] =
	"{\"t\":2000000,\"gen\":1,\"conn\":1,\"kind\":\"bidi\",\"type\":\"command\",\"session\":\"M1\",\"cdp_id\":32,\"id\":1,\"method\":\"session.new\",\"channel\":\"/init-bidi-session/bidi\",\"bytes\":460}\n"
	"{\"t\":2000100,\"gen\":1,\"conn\":1,\"kind\":\"bidi\",\"type\":\"command\",\"session\":\"M1\",\"cdp_id\":33,\"id\":1,\"method\":\"script.evaluate\",\"channel\":\"/3/chan/bidi\",\"bytes\":195}\n"
	"{\"t\":2000300,\"gen\":1,\"conn\":1,\"kind\":\"bidi\",\"type\":\"success\",\"session\":\"M1\",\"id\":1,\"method\":\"script.evaluate\",\"channel\":\"/3/chan/bidi\",\"bytes\":289,\"rtt_us\":200}\n"
	"{\"t\":2000900,\"gen\":1,\"conn\":1,\"kind\":\"bidi\",\"type\":\"success\",\"session\":\"M1\",\"id\":1,\"method\":\"session.new\",\"channel\":\"/init-bidi-session/bidi\",\"bytes\":708,\"rtt_us\":900}\n"
	"{\"t\":2001000,\"gen\":1,\"conn\":1,\"kind\":\"bidi\",\"type\":\"command\",\"session\":\"M1\",\"cdp_id\":34,\"id\":2,\"method\":\"nosuch.command\",\"channel\":\"/3/chan/bidi\",\"bytes\":76}\n"
	"{\"t\":2001050,\"gen\":1,\"conn\":1,\"kind\":\"bidi\",\"type\":\"error\",\"session\":\"M1\",\"id\":2,\"method\":\"nosuch.command\",\"channel\":\"/3/chan/bidi\",\"bytes\":125,\"rtt_us\":50,\"error\":\"unknown command\",\"message\":\"Unknown command 'nosuch.command'.\"}\n"
	"{\"t\":2001100,\"gen\":1,\"conn\":1,\"kind\":\"bidi\",\"type\":\"event\",\"session\":\"M1\",\"method\":\"log.entryAdded\",\"channel\":\"/3/chan/bidi\",\"bytes\":435}\n"
	"{\"t\":2001200,\"gen\":1,\"conn\":1,\"kind\":\"bidi\",\"type\":\"invalid\",\"session\":\"M1\",\"cdp_id\":35,\"bytes\":20,\"why\":\"cut\",\"carrier\":\"Runtime.evaluate\"}\n";

static void test_bidi(void)
{
	struct logrec_opts o = { .pending_max = 100, .sessions_max = 100, .top = 30 };
	struct logrec_input in = { 0 };
	struct logagg a;
	struct logagg_count *c;
	char *text = NULL, err[200];
	size_t len = 0;
	FILE *f, *out;

	logagg_init(&a, &o);
	read_log(BIDI_LOG, logagg_add, &a, &in);
	is_int(a.total.messages, 0, "BiDi records are not CDP messages");
	is_int(a.bidi_total.messages, 8, "eight BiDi records");
	ok(a.bidi_total.commands == 3 && a.bidi_total.responses == 3 && a.bidi_total.events == 1 &&
	   a.bidi_total.errors == 1 && a.bidi_invalid == 1, "3 commands, 3 answers (1 error), 1 event, 1 not read");
	c = count_of(&a.bidi_methods, "script.evaluate");
	ok(c && c->messages == 2 && c->rtt.n == 1 && c->bytes[0] == 195 && c->bytes[1] == 289,
	   "script.evaluate: both ways, its round trip");
	c = count_of(&a.bidi_modules, "session");
	ok(c && c->messages == 2, "by module");
	c = count_of(&a.bidi_errors, "unknown command");
	ok(c && c->messages == 1, "errors by code");
	ok(count_of(&a.bidi_methods, "(invalid)") != NULL, "what was not read, under (invalid)");
	logagg_free(&a);

	f = fmemopen((void *)BIDI_LOG, strlen(BIDI_LOG), "r");
	out = open_memstream(&text, &len);
	is_int(cdplog_summary(f, "t", &o, out, err, sizeof err), 0, "summary runs");
	fclose(f);
	fclose(out);
	ok(strstr(text, "WebDriver BiDi inside CDP: 8 messages (3 commands, 3 answers, 1 events)"), "summary's BiDi line");
	ok(strstr(text, "\nBiDi method ") && strstr(text, "\nBiDi errors: unknown command 1\n"), "its tables");
	free(text);

	text = NULL;
	f = fmemopen((void *)BIDI_LOG, strlen(BIDI_LOG), "r");
	out = open_memstream(&text, &len);
	is_int(cdplog_pairs(f, "t", &o, out, err, sizeof err), 0, "pairs runs");
	fclose(f);
	fclose(out);
	{
		const char *sn = strstr(text, "BiDi session.new"), *se = strstr(text, "BiDi script.evaluate");
		ok(sn && se && sn < se, "BiDi commands in the order sent");
		ok(sn && strstr(sn, "900us") < strchr(sn, '\n'), "id 1 on its channel: session.new's answer");
		ok(se && strstr(se, "200us") < strchr(se, '\n'), "id 1 on the other: script.evaluate's");
		ok(strstr(text, "error unknown command: Unknown command 'nosuch.command'."), "the error, code and message");
		ok(strstr(text, "3 commands shown, 3 answered (1 with an error), 0 without an answer"), "all answered");
	}
	free(text);

	text = NULL;
	f = fmemopen((void *)BIDI_LOG, strlen(BIDI_LOG), "r");
	out = open_memstream(&text, &len);
	is_int(cdplog_timeline(f, "t", &o, out, err, sizeof err), 0, "timeline runs");
	fclose(f);
	fclose(out);
	ok(strstr(text, "BiDi session.new #1 on /init-bidi-session/bidi") &&
	   strstr(text, "BiDi nosuch.command #2 failed: unknown command") && strstr(text, "BiDi command not read: cut"),
	   "the mapper session's timeline: session.new, the error, the one not read");
	free(text);
}

int main(void)
{
	test_agg();
	test_bounds();
	test_enabled_rule();
	test_pairs();
	test_conn_ends();
	test_small();
	test_bidi();
	return tap_done();
}
