/* sessions_test: session tracking fed with real CDP message text: own session
 * from the path, round trips per (sessionId, id), enabled domains and their
 * params, targets followed through Target.* events and responses. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "scan.h"
#include "sessions.h"
#include "tap.h"
#include "util.h"

static struct sessions S;

/* The message being fed: an exact-size heap copy with no NUL after it, freed
 * right after the call, so sessions must copy what it keeps (ASan checks). */
static int feed(const char *msg, struct scan_result *r, char **buf)
{
	size_t n = strlen(msg);

	*buf = xmalloc(n);
	memcpy(*buf, msg, n);
	if (scan_message(*buf, n, r) < 0) {
		ok(0, "test message scans: %.60s", msg);
		return -1;
	}
	return 0;
}

/* msg with its session id and method decoded into sid and method, as
 * route.c does (SESSIONS_NAME each). */
static struct sessions_msg decoded(const char *buf, const struct scan_result *r,
				   char *sid, char *method)
{
	long sn = scan_str_copy(buf, &r->session, sid, SESSIONS_NAME);
	long mn = scan_str_copy(buf, &r->method, method, SESSIONS_NAME);
	struct sessions_msg m = { buf, r, sid, method, 0, 0 };

	if (sn < 0)
		sid[0] = '\0';
	if (mn < 0)
		method[0] = '\0';
	m.sid_len = strlen(sid);
	m.method_len = strlen(method);
	return m;
}

/* A command sent by the proxy (by_proxy) or for the client, whose params
 * before a rewrite were client_params (JSON text; NULL: as sent). */
static void cmd_as(const char *msg, uint64_t now, int by_proxy, const char *client_params)
{
	struct scan_result r;
	json_t *cp = client_params ? json_loads(client_params, 0, NULL) : NULL;
	char *buf;

	char sid[SESSIONS_NAME], method[SESSIONS_NAME];

	if (feed(msg, &r, &buf) == 0) {
		struct sessions_msg m = decoded(buf, &r, sid, method);
		sessions_on_command(&S, &m, now, by_proxy, cp);
	}
	free(buf);
	json_decref(cp);
}

static void cmd(const char *msg, uint64_t now)
{
	cmd_as(msg, now, 0, NULL);
}

/* What the last matched response answered. */
static struct sessions_match got;

static int resp(const char *msg, uint64_t now)
{
	struct scan_result r;
	char *buf;
	int rc = -2;

	strcpy(got.method, "(untouched)");
	got.rtt_us = UINT64_MAX;
	got.by_proxy = -1;
	char sid[SESSIONS_NAME], method[SESSIONS_NAME];

	if (feed(msg, &r, &buf) == 0) {
		struct sessions_msg m = decoded(buf, &r, sid, method);
		rc = sessions_on_response(&S, &m, now, &got);
	}
	free(buf);
	return rc;
}

static void event(const char *msg)
{
	struct scan_result r;
	char *buf;

	if (feed(msg, &r, &buf) == 0)
		json_decref(sessions_on_event(&S, buf, &r));
	free(buf);
}

/* A string field of session sid, "(no session)" or "(null)" when unset. */
static const char *field(const char *sid, int which)
{
	struct session *se = sessions_get(&S, sid);
	const char *v;

	if (!se)
		return "(no session)";
	v = which == 0 ? se->target_id : which == 1 ? se->type : se->url;
	return v ? v : "(null)";
}
#define TARGET(sid) field(sid, 0)
#define TYPE(sid) field(sid, 1)
#define URL(sid) field(sid, 2)

/* The params domain was enabled with on sid, as Chrome has it, as the client
 * asked for it, or by the proxy itself; NULL when it is not enabled. */
static json_t *enabled(const char *sid, const char *domain)
{
	struct session *se = sessions_get(&S, sid);

	return se ? json_object_get(se->enabled, domain) : NULL;
}

static json_t *client_enabled(const char *sid, const char *domain)
{
	struct session *se = sessions_get(&S, sid);

	return se ? json_object_get(se->client_enabled, domain) : NULL;
}

static json_t *proxy_enabled(const char *sid, const char *domain)
{
	struct session *se = sessions_get(&S, sid);

	return se ? json_object_get(se->proxy_enabled, domain) : NULL;
}

static size_t n_enabled(const char *sid)
{
	struct session *se = sessions_get(&S, sid);

	return se ? json_object_size(se->enabled) : (size_t)-1;
}

/* Does j equal the JSON text want? */
static int json_is(const json_t *j, const char *want)
{
	json_t *w = json_loads(want, 0, NULL);
	int same = j && w && json_equal(j, w);

	json_decref(w);
	return same;
}

static void test_init(void)
{
	sessions_init(&S, "/devtools/page/BFFD5E1302E662E7C4DAAB99E7A4EEE9");
	ok(sessions_get(&S, "") != NULL, "page path: own session \"\" exists");
	is_str(TYPE(""), "page", "page path: own session is a page");
	is_str(TARGET(""), "BFFD5E1302E662E7C4DAAB99E7A4EEE9", "page path: targetId from the path");
	is_str(URL(""), "(null)", "page path: url not known yet");
	is_int(n_enabled(""), 0, "page path: nothing enabled");
	ok(sessions_get(&S, "BFFD5E1302E662E7C4DAAB99E7A4EEE9") == NULL,
	   "page path: the target id is not a session id");
	sessions_free(&S);

	sessions_init(&S, "/devtools/browser/c864cdf4-43a1-4e05-bb36-345faa316530");
	is_str(TYPE(""), "browser", "browser path: own session is the browser");
	is_str(TARGET(""), "c864cdf4-43a1-4e05-bb36-345faa316530", "browser path: its id");
	sessions_free(&S);

	sessions_init(&S, "/devtools/page/ABC?x=1");
	is_str(TARGET(""), "ABC", "page path with a query: targetId stops at '?'");
	sessions_free(&S);

	sessions_init(&S, "/devtools/whatever");
	ok(sessions_get(&S, "") != NULL, "other path: own session still exists");
	is_str(TYPE(""), "(null)", "other path: type unknown");
	is_str(TARGET(""), "(null)", "other path: targetId unknown");
	sessions_free(&S);
}

static void test_round_trip(void)
{
	sessions_init(&S, "/devtools/page/P1");
	cmd("{\"id\":1,\"method\":\"Page.navigate\",\"params\":{\"url\":\"about:blank\"}}", 1000);
	is_int(resp("{\"id\":1,\"result\":{\"frameId\":\"F1\",\"loaderId\":\"L1\"}}", 3500), 0,
	       "response to a pending command matches");
	is_str(got.method, "Page.navigate", "response carries the command's method");
	is_int(got.rtt_us, 2500, "round trip is the now difference");
	is_int(resp("{\"id\":1,\"result\":{}}", 4000), -1, "a second response to id 1 is unknown");
	is_str(got.method, "(untouched)", "unknown response leaves method alone");

	is_int(resp("{\"id\":99,\"result\":{}}", 10), -1, "response with no command is unknown");
	is_int(resp("{\"id\":\"1\",\"result\":{}}", 10), -1, "string id is never matched");

	/* A reused id: the later command wins. */
	cmd("{\"id\":5,\"method\":\"Page.reload\"}", 100);
	cmd("{\"id\":5,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"1\"}}", 300);
	is_int(resp("{\"id\":5,\"result\":{}}", 1300), 0, "reused id: matched");
	is_str(got.method, "Runtime.evaluate", "reused id: the later command's method");
	is_int(got.rtt_us, 1000, "reused id: round trip from the later command");

	/* One id on three sessions: each response finds its own command, in
	 * any order, and a reused id on one session leaves the others alone. */
	cmd("{\"id\":7,\"method\":\"Page.enable\"}", 10);
	cmd("{\"id\":7,\"method\":\"DOM.enable\",\"sessionId\":\"SA\"}", 20);
	cmd("{\"id\":7,\"method\":\"CSS.enable\",\"sessionId\":\"SB\"}", 30);
	cmd("{\"id\":7,\"method\":\"Log.enable\",\"sessionId\":\"SA\"}", 40);
	is_int(resp("{\"id\":7,\"result\":{},\"sessionId\":\"SB\"}", 130), 0, "shared id: SB's matched");
	is_str(got.method, "CSS.enable", "shared id: SB's method");
	is_int(n_enabled("SB"), 1, "shared id: CSS.enable's effect went to SB");
	is_int(got.rtt_us, 100, "shared id: SB's round trip");
	is_int(resp("{\"id\":7,\"result\":{},\"sessionId\":\"SB\"}", 140), -1,
	       "shared id: SB's answered once");
	is_int(resp("{\"id\":7,\"result\":{}}", 210), 0, "shared id: own session's matched");
	is_str(got.method, "Page.enable", "shared id: own session's method");
	is_int(resp("{\"id\":7,\"result\":{},\"sessionId\":\"SA\"}", 340), 0, "shared id: SA's matched");
	is_str(got.method, "Log.enable", "shared id: SA's later command won");
	is_int(got.rtt_us, 300, "shared id: SA's round trip from the later command");
	is_int(resp("{\"id\":7,\"result\":{},\"sessionId\":\"SA\"}", 350), -1,
	       "shared id: the earlier SA command is gone");
	is_int(resp("{\"id\":7,\"result\":{},\"sessionId\":\"S\"}", 350), -1,
	       "shared id: a session id that is a prefix matches nothing");

	/* A method as long as SESSIONS_NAME holds comes back whole. */
	cmd("{\"id\":6,\"method\":\"LongDomainName.aMethodNameSoLongThatItCannotFitInSixtyFourBytesAtAll"
	    "ButInOneHundredAndTwentySevenItFitsWithRoomToSpare.x\"}", 0);
	is_int(resp("{\"id\":6,\"result\":{}}", 7), 0, "long method: matched");
	is_str(got.method, "LongDomainName.aMethodNameSoLongThatItCannotFitInSixtyFourBytesAtAll"
	       "ButInOneHundredAndTwentySevenItFitsWithRoomToSpare.x", "long method: whole");
	is_int(got.method_len, 120, "long method: its length");
	is_int(got.rtt_us, 7, "long method: round trip");
	sessions_free(&S);
}

static void test_per_session(void)
{
	sessions_init(&S, "/devtools/browser/B");
	cmd("{\"id\":7,\"method\":\"Runtime.evaluate\",\"sessionId\":\"S1\"}", 100);
	cmd("{\"id\":7,\"method\":\"DOM.getDocument\",\"sessionId\":\"S2\"}", 200);
	cmd("{\"id\":7,\"method\":\"Browser.getVersion\"}", 300);

	is_int(resp("{\"id\":7,\"result\":{},\"sessionId\":\"S2\"}", 1200), 0, "S2 id 7 matched");
	is_str(got.method, "DOM.getDocument", "S2 id 7 is S2's command");
	is_int(got.rtt_us, 1000, "S2 id 7 round trip");
	is_int(resp("{\"id\":7,\"result\":{}}", 400), 0, "own id 7 matched");
	is_str(got.method, "Browser.getVersion", "own id 7 is the browser command");
	is_int(got.rtt_us, 100, "own id 7 round trip");
	is_int(resp("{\"sessionId\":\"S1\",\"id\":7,\"result\":{}}", 5100), 0, "S1 id 7 matched");
	is_str(got.method, "Runtime.evaluate", "S1 id 7 is S1's command");
	is_int(got.rtt_us, 5000, "S1 id 7 round trip");

	is_int(resp("{\"id\":7,\"result\":{},\"sessionId\":\"S1\"}", 6000), -1, "S1 id 7 only once");
	is_int(resp("{\"id\":7,\"result\":{},\"sessionId\":\"S2\"}", 6000), -1, "S2 id 7 only once");
	is_int(resp("{\"id\":7,\"result\":{}}", 6000), -1, "own id 7 only once");

	cmd("{\"id\":8,\"method\":\"Page.enable\",\"sessionId\":\"S1\"}", 0);
	is_int(resp("{\"id\":8,\"result\":{},\"sessionId\":\"S3\"}", 1), -1,
	       "id 8 answered on another session is unknown");
	is_int(resp("{\"id\":8,\"result\":{}}", 1), -1, "id 8 answered without a session is unknown");
	is_int(resp("{\"id\":8,\"result\":{},\"sessionId\":\"S\\u0031\"}", 9), 0,
	       "sessionId compared decoded: \"S\\u0031\" is S1");
	sessions_free(&S);
}

static const char attached_s1[] =
	"{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"S1\","
	"\"targetInfo\":{\"targetId\":\"T1\",\"type\":\"page\",\"title\":\"\",\"url\":\"about:blank\","
	"\"attached\":true,\"canAccessOpener\":false,\"browserContextId\":\"CTX\"},"
	"\"waitingForDebugger\":false}}";

static void test_enable(void)
{
	sessions_init(&S, "/devtools/browser/B");
	event(attached_s1);

	cmd("{\"id\":2,\"method\":\"Network.enable\",\"params\":{\"maxPostDataSize\":65536},"
	    "\"sessionId\":\"S1\"}", 10);
	ok(enabled("S1", "Network") == NULL, "Network not enabled before its response");
	is_int(resp("{\"id\":2,\"result\":{},\"sessionId\":\"S1\"}", 20), 0, "Network.enable answered");
	is_str(got.method, "Network.enable", "Network.enable: method");
	ok(json_is(enabled("S1", "Network"), "{\"maxPostDataSize\":65536}"),
	   "Network enabled on S1 with the command's params");
	ok(enabled("", "Network") == NULL, "Network not enabled on the own session");

	cmd("{\"id\":3,\"method\":\"Page.enable\",\"sessionId\":\"S1\"}", 30);
	resp("{\"id\":3,\"result\":{},\"sessionId\":\"S1\"}", 40);
	ok(json_is(enabled("S1", "Page"), "{}"), "Page.enable without params: enabled with {}");

	cmd("{\"id\":4,\"method\":\"Fetch.enable\",\"params\":{\"patterns\":[{\"urlPattern\":\"*\"}]},"
	    "\"sessionId\":\"S1\"}", 50);
	is_int(resp("{\"id\":4,\"error\":{\"code\":-32000,\"message\":\"nope\"},\"sessionId\":\"S1\"}",
		    60), 0, "an error response still matches");
	is_str(got.method, "Fetch.enable", "error response: method");
	ok(enabled("S1", "Fetch") == NULL, "an error response does not enable");

	cmd("{\"id\":5,\"method\":\"Network.enable\",\"params\":{\"maxPostDataSize\":1,"
	    "\"maxTotalBufferSize\":1000}}", 70);
	resp("{\"id\":5,\"result\":{}}", 80);
	ok(json_is(enabled("", "Network"), "{\"maxPostDataSize\":1,\"maxTotalBufferSize\":1000}"),
	   "own session: Network enabled with its own params");
	ok(json_is(enabled("S1", "Network"), "{\"maxPostDataSize\":65536}"),
	   "S1's Network params unaffected by the own session's");

	cmd("{\"id\":6,\"method\":\"Network.enable\",\"sessionId\":\"S1\"}", 90);
	resp("{\"id\":6,\"result\":{},\"sessionId\":\"S1\"}", 100);
	ok(json_is(enabled("S1", "Network"), "{}"), "enabling again replaces the params");

	cmd("{\"id\":7,\"method\":\"Network.disable\",\"sessionId\":\"S1\"}", 110);
	resp("{\"id\":7,\"error\":{\"code\":-32601,\"message\":\"x\"},\"sessionId\":\"S1\"}", 120);
	ok(enabled("S1", "Network") != NULL, "a failed disable leaves the domain enabled");
	cmd("{\"id\":8,\"method\":\"Network.disable\",\"sessionId\":\"S1\"}", 130);
	is_int(resp("{\"id\":8,\"result\":{},\"sessionId\":\"S1\"}", 140), 0, "Network.disable answered");
	ok(enabled("S1", "Network") == NULL, "Network.disable removes Network from S1");
	ok(enabled("S1", "Page") != NULL, "Page stays enabled on S1");
	is_int(n_enabled("S1"), 1, "S1 has only Page left");
	ok(enabled("", "Network") != NULL, "own session's Network untouched by S1's disable");
	sessions_free(&S);
}

/* What Chrome has enabled, what the client asked for, what the proxy added. */
static void test_views(void)
{
	int sessions_made = 0;
	json_t *p;

	sessions_init(&S, "/devtools/page/P1");
	/* The policy rewrote the client's Network.enable {} on its way. */
	cmd_as("{\"id\":1,\"method\":\"Network.enable\",\"params\":{\"maxPostDataSize\":65536}}",
	       0, 0, "{}");
	is_int(resp("{\"id\":1,\"result\":{}}", 5), 0, "rewritten Network.enable answered");
	is_int(got.by_proxy, 0, "the client's command: by_proxy 0");
	ok(json_is(enabled("", "Network"), "{\"maxPostDataSize\":65536}"),
	   "enabled: the params Chrome got");
	ok(json_is(client_enabled("", "Network"), "{}"), "client_enabled: the params the client sent");
	ok(proxy_enabled("", "Network") == NULL, "proxy_enabled: not the proxy's");

	cmd("{\"id\":2,\"method\":\"Page.enable\",\"params\":{\"enableFileChooserOpenedEvent\":true}}", 0);
	resp("{\"id\":2,\"result\":{}}", 5);
	ok(json_is(client_enabled("", "Page"), "{\"enableFileChooserOpenedEvent\":true}"),
	   "not rewritten: client_enabled has the params as sent");

	cmd_as("{\"id\":3,\"method\":\"Runtime.enable\"}", 0, 1, NULL);
	is_int(resp("{\"id\":3,\"result\":{}}", 5), 0, "the proxy's Runtime.enable answered");
	is_int(got.by_proxy, 1, "the proxy's command: by_proxy 1");
	ok(json_is(enabled("", "Runtime"), "{}"), "the proxy's enable: in enabled");
	ok(json_is(proxy_enabled("", "Runtime"), "{}"), "the proxy's enable: in proxy_enabled");
	ok(client_enabled("", "Runtime") == NULL, "the proxy's enable: not in client_enabled");

	p = json_loads("{\"patterns\":[{\"urlPattern\":\"*\"}]}", 0, NULL);
	sessions_on_stub(&S, "", "Fetch.enable", p);
	json_decref(p);
	ok(json_is(client_enabled("", "Fetch"), "{\"patterns\":[{\"urlPattern\":\"*\"}]}"),
	   "stubbed Fetch.enable: the client believes Fetch is on, with its params");
	ok(enabled("", "Fetch") == NULL, "stubbed Fetch.enable: Chrome does not have it");
	sessions_on_stub(&S, "", "Fetch.disable", NULL);
	ok(client_enabled("", "Fetch") == NULL, "stubbed Fetch.disable: off in client_enabled");

	/* A policy that stubs every X.enable: what the client makes up stays bounded. */
	for (int i = 0; i < 1000; i++) {
		char m[32], sid[32];
		snprintf(m, sizeof m, "Made%d.enable", i);
		snprintf(sid, sizeof sid, "made-up-%d", i);
		sessions_on_stub(&S, "", m, NULL);
		sessions_on_stub(&S, sid, "Network.enable", NULL);
		sessions_made += sessions_get(&S, sid) != NULL;
	}
	is_int(json_object_size(sessions_get(&S, "")->client_enabled), SESSIONS_DOMAINS_MAX,
	       "1,000 stubbed made-up domains: client_enabled keeps %d", SESSIONS_DOMAINS_MAX);
	is_int(sessions_made, 0, "a stub on a session id no one attached makes no session");
	sessions_on_stub(&S, "", "Page.disable", NULL);
	ok(client_enabled("", "Page") == NULL, "a full set still takes a disable");
	for (int i = 0; i < 1000; i++) {
		char m[32];
		snprintf(m, sizeof m, "Made%d.disable", i);
		sessions_on_stub(&S, "", m, NULL);
	}
	sessions_on_stub(&S, "", "Page.enable", NULL);
	ok(client_enabled("", "Page") != NULL, "and has room again once they are gone");

	cmd_as("{\"id\":4,\"method\":\"Log.enable\",\"params\":{\"x\":1}}", 0, 0, "{}");
	resp("{\"id\":4,\"error\":{\"code\":-32000,\"message\":\"no\"}}", 5);
	ok(!enabled("", "Log") && !client_enabled("", "Log"), "failed enable: in neither view");

	cmd("{\"id\":5,\"method\":\"Network.disable\"}", 0);
	resp("{\"id\":5,\"result\":{}}", 5);
	ok(!enabled("", "Network") && !client_enabled("", "Network"),
	   "the client's Network.disable: off in both views");
	ok(enabled("", "Runtime") && proxy_enabled("", "Runtime"), "the proxy's Runtime stays on");
	sessions_free(&S);
}

/* Distinct ids spread over 0..10^9: sequential ids barely collide in the table. */
static unsigned scattered(int i)
{
	return (unsigned)i * 2654435761u % 1000000007u;
}

static void test_targets(void)
{
	sessions_init(&S, "/devtools/browser/B");
	event(attached_s1);
	ok(sessions_get(&S, "S1") != NULL, "attachedToTarget creates S1");
	is_str(TARGET("S1"), "T1", "S1 targetId");
	is_str(TYPE("S1"), "page", "S1 type");
	is_str(URL("S1"), "about:blank", "S1 url");
	is_int(n_enabled("S1"), 0, "S1 starts with nothing enabled");

	/* A worker attached inside S1 (auto-attach carries the parent's sessionId). */
	event("{\"method\":\"Target.attachedToTarget\",\"sessionId\":\"S1\",\"params\":{"
	      "\"sessionId\":\"S2\",\"targetInfo\":{\"targetId\":\"T2\",\"type\":\"worker\","
	      "\"url\":\"https://example.com/w.js\"},\"waitingForDebugger\":true}}");
	is_str(TARGET("S2"), "T2", "nested attach creates S2 with its own targetId");
	is_str(TYPE("S2"), "worker", "S2 type");

	event("{\"method\":\"Target.targetInfoChanged\",\"params\":{\"targetInfo\":{\"targetId\":\"T1\","
	      "\"type\":\"page\",\"title\":\"Example\",\"url\":\"https://example.com/\",\"attached\":true}}}");
	is_str(URL("S1"), "https://example.com/", "targetInfoChanged updates S1's url");
	is_str(URL("S2"), "https://example.com/w.js", "targetInfoChanged for T1 leaves T2 alone");
	event("{\"method\":\"Target.targetInfoChanged\",\"params\":{\"targetInfo\":{\"targetId\":\"T9\","
	      "\"type\":\"page\",\"url\":\"https://other/\"}}}");
	is_str(URL("S1"), "https://example.com/", "targetInfoChanged for an unknown target changes nothing");
	event("{\"method\":\"Page.frameNavigated\",\"sessionId\":\"S1\",\"params\":{\"frame\":{"
	      "\"id\":\"F2\",\"parentId\":\"T1\",\"url\":\"https://child/\"}}}");
	is_str(URL("S1"), "https://example.com/", "a child frame's navigation leaves the url alone");
	event("{\"method\":\"Page.frameNavigated\",\"sessionId\":\"S1\",\"params\":{\"frame\":{"
	      "\"id\":\"T1\",\"url\":\"https://elsewhere/\"}}}");
	is_str(URL("S1"), "https://elsewhere/", "the main frame's navigation moves the url (clients without targetInfoChanged)");
	event("{\"method\":\"Page.loadEventFired\",\"sessionId\":\"S1\",\"params\":{\"url\":\"https://no/\"}}");
	is_str(URL("S1"), "https://elsewhere/", "other events are ignored");

	/* Commands in flight on S1 and S2 with scattered ids: 381 entries fill
	 * the pending table to 3/4, so removing S1's shifts entries of both
	 * along probe runs while the sweep goes on. */
	for (int i = 1; i <= 190; i++) {
		char m[128];
		snprintf(m, sizeof m, "{\"id\":%u,\"method\":\"Runtime.evaluate\",\"sessionId\":\"S1\"}",
			 scattered(i));
		cmd(m, 0);
		snprintf(m, sizeof m, "{\"id\":%u,\"method\":\"DOM.enable\",\"sessionId\":\"S2\"}",
			 scattered(i + 1000));
		cmd(m, 0);
	}
	cmd("{\"id\":1,\"method\":\"Target.getTargets\"}", 0);
	event("{\"method\":\"Target.detachedFromTarget\",\"params\":{\"sessionId\":\"S1\",\"targetId\":\"T1\"}}");
	ok(sessions_get(&S, "S1") == NULL, "detachedFromTarget removes S1");
	{
		int s1 = 0, s2 = 0;
		for (int i = 1; i <= 190; i++) {
			char m[96];
			snprintf(m, sizeof m, "{\"id\":%u,\"result\":{},\"sessionId\":\"S1\"}", scattered(i));
			s1 += resp(m, 1) == 0;
			snprintf(m, sizeof m, "{\"id\":%u,\"result\":{},\"sessionId\":\"S2\"}",
				 scattered(i + 1000));
			s2 += resp(m, 1) == 0;
		}
		is_int(s1, 0, "S1's 190 pending commands went with it");
		is_int(s2, 190, "S2's 190 pending commands are all still matched");
	}
	is_int(resp("{\"id\":1,\"result\":{}}", 1), 0, "own session's pending command survives");
	ok(sessions_get(&S, "S2") != NULL, "S2 survives S1's detach");
	ok(sessions_get(&S, "") != NULL, "own session survives");
	event("{\"method\":\"Target.detachedFromTarget\",\"params\":{\"sessionId\":\"nope\"}}");
	ok(sessions_get(&S, "S2") != NULL, "detaching an unknown session changes nothing");

	/* Target.attachToTarget: the new session comes in the response. */
	cmd("{\"id\":20,\"method\":\"Target.attachToTarget\",\"params\":{\"targetId\":\"T9\",\"flatten\":true}}", 0);
	is_int(resp("{\"id\":20,\"result\":{\"sessionId\":\"S9\"}}", 5), 0, "attachToTarget answered");
	is_str(got.method, "Target.attachToTarget", "attachToTarget: method");
	is_str(TARGET("S9"), "T9", "attachToTarget response creates S9 with the command's targetId");
	cmd("{\"id\":21,\"method\":\"Target.attachToTarget\",\"params\":{\"targetId\":\"T10\",\"flatten\":true}}", 0);
	resp("{\"id\":21,\"error\":{\"code\":-32602,\"message\":\"No target with given id found\"}}", 5);
	{
		json_t *all = sessions_json(&S);
		is_int(json_array_size(all), 3, "failed attachToTarget adds no session (\"\", S2, S9)");
		json_decref(all);
	}
	sessions_free(&S);
}

/* Key order is free: sessionId may follow a large params (or result). */
static void test_key_order(void)
{
	size_t big = 1 << 20;
	char *m = xmalloc(big + 256), *p;

	sessions_init(&S, "/devtools/browser/B");
	p = m + sprintf(m, "{\"id\":30,\"method\":\"Network.enable\",\"params\":{\"maxPostDataSize\":65536,"
			"\"sessionId\":\"decoy\",\"pad\":\"");
	memset(p, 'x', big);
	strcpy(p + big, "\"},\"sessionId\":\"S2\"}");
	cmd(m, 100);
	free(m);
	is_int(resp("{\"id\":30,\"result\":{}}", 200), -1, "command with a late sessionId is not the own session's");
	is_int(resp("{\"id\":30,\"result\":{},\"sessionId\":\"decoy\"}", 200), -1,
	       "sessionId inside params is not the command's");
	is_int(resp("{\"result\":{\"sessionId\":\"decoy\"},\"id\":30,\"sessionId\":\"S2\"}", 300), 0,
	       "response with sessionId last matches S2");
	is_int(got.rtt_us, 200, "late-sessionId round trip");
	ok(enabled("S2", "Network") != NULL, "Network enabled on S2");
	is_int(json_integer_value(json_object_get(enabled("S2", "Network"), "maxPostDataSize")), 65536,
	       "S2's Network params parsed from the 1 MiB params");
	ok(sessions_get(&S, "decoy") == NULL, "no session named after a nested sessionId");
	sessions_free(&S);
}

static void test_json(void)
{
	json_t *all, *own = NULL, *s1 = NULL, *e;
	size_t i;
	char *text;
	int shaped = 1;

	sessions_init(&S, "/devtools/page/P1");
	event(attached_s1);
	cmd_as("{\"id\":2,\"method\":\"Network.enable\",\"params\":{\"maxPostDataSize\":65536},"
	       "\"sessionId\":\"S1\"}", 0, 0, "{}");
	resp("{\"id\":2,\"result\":{},\"sessionId\":\"S1\"}", 1);

	all = sessions_json(&S);
	ok(json_is_array(all), "sessions_json is an array");
	is_int(json_array_size(all), 2, "two sessions");
	json_array_foreach(all, i, e) {
		const char *sid = json_string_value(json_object_get(e, "sessionId"));
		shaped &= json_is_object(e) && json_object_size(e) == 7 && sid &&
			  json_object_get(e, "targetId") && json_object_get(e, "type") &&
			  json_object_get(e, "url") && json_is_object(json_object_get(e, "enabled")) &&
			  json_is_object(json_object_get(e, "client_enabled")) &&
			  json_is_object(json_object_get(e, "proxy_enabled"));
		if (sid && !strcmp(sid, ""))
			own = e;
		else if (sid && !strcmp(sid, "S1"))
			s1 = e;
	}
	ok(shaped, "each entry is {sessionId, targetId, type, url, enabled, client_enabled, proxy_enabled}");
	ok(own && s1, "entries for \"\" and S1");
	ok(json_is(own, "{\"sessionId\":\"\",\"targetId\":\"P1\",\"type\":\"page\",\"url\":null,"
		   "\"enabled\":{},\"client_enabled\":{},\"proxy_enabled\":{}}"),
	   "own entry: unknown url is null");
	ok(json_is(s1, "{\"sessionId\":\"S1\",\"targetId\":\"T1\",\"type\":\"page\","
		   "\"url\":\"about:blank\",\"enabled\":{\"Network\":{\"maxPostDataSize\":65536}},"
		   "\"client_enabled\":{\"Network\":{}},\"proxy_enabled\":{}}"),
	   "S1 entry with its enabled domains and params in each view");
	text = json_dumps(all, JSON_COMPACT);
	ok(text && strstr(text, "\"maxPostDataSize\":65536"), "sessions_json serializes");
	free(text);
	json_decref(all);
	sessions_free(&S);
}

/* What an answer changes is told by the method's name alone. */
static void test_effect(void)
{
	json_t *set = json_object(), *p = json_pack("{s:i}", "x", 1);

	ok(sessions_method_effect("Network.enable", 14) == EFFECT_ENABLE &&
	   sessions_method_effect("Network.disable", 15) == EFFECT_DISABLE &&
	   sessions_method_effect("Target.attachToTarget", 21) == EFFECT_ATTACH,
	   "X.enable, X.disable, Target.attachToTarget");
	ok(sessions_method_effect("A.B.enable", 10) == EFFECT_NONE &&
	   sessions_method_effect(".enable", 7) == EFFECT_NONE &&
	   sessions_method_effect("Network.enableX", 15) == EFFECT_NONE, "not A.B.enable, .enable, X.enableX");
	sessions_set_enabled(set, "Log.enable", EFFECT_ENABLE, p);
	sessions_set_enabled(set, "Page", EFFECT_ENABLE, NULL);
	ok(json_equal(json_object_get(set, "Log"), p) && json_object_size(json_object_get(set, "Page")) == 0,
	   "enable sets the domain to its params ({} for none)");
	sessions_set_enabled(set, "Log.disable", EFFECT_DISABLE, NULL);
	ok(!json_object_get(set, "Log"), "disable removes it");
	json_decref(p);
	json_decref(set);
}

int main(void)
{
	test_init();
	test_round_trip();
	test_per_session();
	test_enable();
	test_effect();
	test_views();
	test_targets();
	test_key_order();
	test_json();
	return tap_done();
}
