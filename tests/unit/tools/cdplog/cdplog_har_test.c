/* cdplog_har_test: `cdplog har` on a small log: a redirect as two entries,
 * extra-info headers (out of order too), a fetched body, a failed request, the --max-requests
 * bound, an unfinished request at detach, page timings, the timings rule,
 * and secrets redacted although the log kept them (--log-secrets). */
#include "util.h"
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logrec.h"
#include "har.h"
#include "cdplog.h"

#include "tap.h"

#define EV(t, m, params) "{\"t\":" #t ",\"conn\":1,\"dir\":\"down\",\"kind\":\"event\",\"method\":\"" m \
	"\",\"session\":\"S1\",\"bytes\":1,\"body\":{\"method\":\"" m "\",\"params\":" params ",\"sessionId\":\"S1\"}}\n"

static const char LOG[] =
	"{\"t\":1000,\"conn\":1,\"kind\":\"session\",\"event\":\"attached\",\"session\":\"S1\",\"targetId\":\"T1\",\"type\":\"page\"}\n"
	EV(1001, "Network.requestWillBeSent", "{\"requestId\":\"R1\",\"loaderId\":\"R1\",\"frameId\":\"T1\",\"type\":\"Document\","
	   "\"timestamp\":10.0,\"wallTime\":1000.0,\"request\":{\"url\":\"http://u:pw@x/\",\"method\":\"GET\","
	   "\"headers\":{\"Authorization\":\"Bearer sekrit1\"}}}")
	EV(1002, "Network.requestWillBeSentExtraInfo", "{\"requestId\":\"R1\",\"headers\":{\"Cookie\":\"a=sekrit2\",\"Host\":\"x\"},"
	   "\"associatedCookies\":[{\"cookie\":{\"name\":\"a\",\"value\":\"sekrit2\"},\"blockedReasons\":[]}]}")
	EV(1003, "Network.requestWillBeSent", "{\"requestId\":\"R1\",\"loaderId\":\"R1\",\"frameId\":\"T1\",\"type\":\"Document\","
	   "\"timestamp\":10.1,\"wallTime\":1000.1,\"request\":{\"url\":\"http://x/a\",\"method\":\"GET\",\"headers\":{}},"
	   "\"redirectResponse\":{\"url\":\"http://x/\",\"status\":302,\"statusText\":\"Found\",\"headers\":{\"Location\":\"/a\"},"
	   "\"mimeType\":\"text/plain\",\"protocol\":\"http/1.1\",\"encodedDataLength\":80}}")
	/* Extra info out of order: the redirect's after the next hop's request. */
	EV(1003, "Network.responseReceivedExtraInfo", "{\"requestId\":\"R1\",\"statusCode\":302,"
	   "\"headers\":{\"Location\":\"/a\",\"X-Hop\":\"1\"}}")
	EV(1003, "Network.responseReceivedExtraInfo", "{\"requestId\":\"R1\",\"statusCode\":200,"
	   "\"headers\":{\"Set-Cookie\":\"b=sekrit3\\nc=sekrit4\",\"X-Multi\":\"one\\ntwo\",\"X-Hop\":\"2\"}}")
	EV(1004, "Network.responseReceived", "{\"requestId\":\"R1\",\"timestamp\":10.106,\"type\":\"Document\",\"response\":{"
	   "\"url\":\"http://x/a\",\"status\":200,\"statusText\":\"OK\",\"headers\":{\"Set-Cookie\":\"b=sekrit3\\nc=sekrit4\",\"X-Multi\":\"one\\ntwo\"},"
	   "\"mimeType\":\"text/html\",\"protocol\":\"http/1.1\",\"remoteIPAddress\":\"[::1]\",\"connectionId\":7,"
	   "\"timing\":{\"requestTime\":10.1,\"dnsStart\":-1,\"dnsEnd\":-1,\"connectStart\":-1,\"connectEnd\":-1,"
	   "\"sslStart\":-1,\"sslEnd\":-1,\"sendStart\":1,\"sendEnd\":2,\"receiveHeadersEnd\":5}}}")
	EV(1005, "Network.dataReceived", "{\"requestId\":\"R1\",\"dataLength\":5}")
	EV(1006, "Network.loadingFinished", "{\"requestId\":\"R1\",\"timestamp\":10.11,\"encodedDataLength\":100}")
	"{\"t\":1007,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":7,\"method\":\"Network.getResponseBody\",\"session\":\"S1\","
	"\"bytes\":1,\"body\":{\"id\":7,\"method\":\"Network.getResponseBody\",\"params\":{\"requestId\":\"R1\"},\"sessionId\":\"S1\"}}\n"
	"{\"t\":1008,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":7,\"method\":\"Network.getResponseBody\",\"session\":\"S1\","
	"\"bytes\":1,\"body\":{\"id\":7,\"result\":{\"body\":\"hello\",\"base64Encoded\":false},\"sessionId\":\"S1\"}}\n"
	EV(1009, "Network.requestWillBeSent", "{\"requestId\":\"R2\",\"loaderId\":\"R1\",\"frameId\":\"T1\",\"type\":\"Image\","
	   "\"timestamp\":10.2,\"wallTime\":1000.2,\"request\":{\"url\":\"http://x/i.png?a=1&b=%20c+d\",\"method\":\"GET\",\"headers\":{}}}")
	EV(1010, "Network.requestWillBeSent", "{\"requestId\":\"R3\",\"loaderId\":\"R1\",\"frameId\":\"T1\",\"type\":\"Fetch\","
	   "\"timestamp\":10.3,\"wallTime\":1000.3,\"request\":{\"url\":\"http://x/api\",\"method\":\"POST\","
	   "\"headers\":{\"Content-Type\":\"application/json\"},\"postData\":\"{\\\"password\\\":\\\"sekrit5\\\",\\\"n\\\":1}\"}}")
	/* The third held request: R2, the oldest, is pushed out (--max-requests 2). */
	EV(1011, "Network.requestWillBeSent", "{\"requestId\":\"R4\",\"loaderId\":\"R1\",\"frameId\":\"T1\",\"type\":\"Image\","
	   "\"timestamp\":10.4,\"wallTime\":1000.4,\"request\":{\"url\":\"http://x/never\",\"method\":\"GET\",\"headers\":{}}}")
	EV(1012, "Network.loadingFailed", "{\"requestId\":\"R3\",\"timestamp\":10.35,\"errorText\":\"net::ERR_FAILED\",\"canceled\":true}")
	EV(1013, "Page.lifecycleEvent", "{\"frameId\":\"T1\",\"loaderId\":\"R1\",\"name\":\"load\",\"timestamp\":10.5}")
	"not a record\n"
	"{\"t\":1014,\"conn\":1,\"dir\":\"down\",\"kind\":\"event\",\"method\":\"Target.detachedFromTarget\",\"bytes\":1,"
	"\"body\":{\"method\":\"Target.detachedFromTarget\",\"params\":{\"sessionId\":\"S1\"}}}\n";

static json_t *entry_at(json_t *har, const char *url, int status)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(json_object_get(har, "log"), "entries"), i, e)
		if (!strcmp(json_string_value(json_object_get(json_object_get(e, "request"), "url")), url) &&
		    (status < 0 || json_integer_value(json_object_get(json_object_get(e, "response"), "status")) == status))
			return e;
	return NULL;
}

static const char *path_str(json_t *j, const char *a, const char *b, const char *c)
{
	json_t *v = json_object_get(j, a);

	if (b)
		v = json_object_get(v, b);
	if (c)
		v = json_object_get(v, c);
	return json_string_value(v);
}

/* NULL-safe: a missing member fails the check, not the test program. */
static int str_is(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

static int str_has(const char *a, const char *b)
{
	return a && strstr(a, b);
}

static double path_num(json_t *j, const char *a, const char *b)
{
	return json_number_value(json_object_get(json_object_get(j, a), b));
}

static void test_har(void)
{
	struct logrec_opts lo = { .sessions_max = 10 };
	char path[] = "/tmp/cdplog_har_testXXXXXX", err[300] = "";
	struct har_opts o = { .out = path, .max_requests = 2 };
	FILE *f = fmemopen((void *)LOG, strlen(LOG), "r");
	int fd = mkstemp(path);
	size_t len;
	char *text;
	json_t *har, *e, *q;

	close(fd);
	is_int(cdplog_har(f, "test.jsonl", &lo, &o, err, sizeof err), 0, "cdplog har reads the log: %s", err);
	fclose(f);
	text = util_read_file(path, &len, err, sizeof err);
	har = text ? json_loads(text, 0, NULL) : NULL;
	ok(har != NULL, "the HAR is JSON");
	is_int(json_array_size(json_object_get(json_object_get(har, "log"), "entries")), 5,
	       "5 entries: a redirect and its target, a pushed out, a failed and an unfinished request");
	ok(text && !strstr(text, "sekrit"), "no secret of the log is in the HAR");
	ok(text && !strstr(text, "u:pw@"), "URL userinfo redacted too");

	e = entry_at(har, "http://x/a", 200);
	ok(e && str_is(path_str(e, "response", "content", "text"), "hello"), "the body the client fetched");
	ok(e && str_is(path_str(e, "serverIPAddress", NULL, NULL), "::1") && str_is(path_str(e, "connection", NULL, NULL), "7"),
	   "server address without brackets, connection id");
	ok(e && fabs(path_num(e, "timings", "blocked") - 1) < 1e-6 && fabs(path_num(e, "timings", "send") - 1) < 1e-6 &&
	   fabs(path_num(e, "timings", "wait") - 3) < 1e-6 && fabs(path_num(e, "timings", "receive") - 5) < 1e-6 &&
	   fabs(json_number_value(json_object_get(e, "time")) - 10) < 1e-6, "timings: blocked 1, send 1, wait 3, receive 5; time 10");
	q = e ? json_object_get(json_object_get(e, "response"), "headers") : NULL;
	is_int(json_array_size(q), 4, "a header of two lines: two headers; Set-Cookie redacted whole: one");
	ok(q && str_is(path_str(json_array_get(q, 3), "value", NULL, NULL), "2"),
	   "headers from its own responseReceivedExtraInfo, not the redirect's that came after the next request");
	ok(e && str_is(path_str(e, "pageref", NULL, NULL), "page_1"), "on the page");

	e = entry_at(har, "http://<redacted>@x/", 302);
	ok(e != NULL, "the redirect is an entry of its own");
	ok(e && str_is(path_str(e, "response", "redirectURL", NULL), "http://x/a"), "redirectURL: the next hop");
	ok(e && json_array_size(json_object_get(json_object_get(e, "request"), "headers")) == 2,
	   "request headers from requestWillBeSentExtraInfo");
	ok(e && text && strstr(text, "\"name\":\"Cookie\",\"value\":\"<redacted>\""), "Cookie redacted");

	e = entry_at(har, "http://x/i.png?a=1&b=%20c+d", -1);
	q = e ? json_object_get(json_object_get(e, "request"), "queryString") : NULL;
	ok(q && json_array_size(q) == 2 && str_is(path_str(json_array_get(q, 1), "value", NULL, NULL), " c d"),
	   "the query string, decoded");
	ok(e && str_has(path_str(e, "response", "content", "comment"), "--max-requests 2"), "pushed out, and said so");

	e = entry_at(har, "http://x/api", -1);
	ok(e && str_has(path_str(e, "request", "postData", "text"), "\"n\":1") &&
	   str_is(path_str(e, "request", "postData", "mimeType"), "application/json"), "the POST body");
	ok(e && str_is(path_str(e, "response", "_error", NULL), "net::ERR_FAILED (canceled)"), "failed: its error");

	e = entry_at(har, "http://x/never", -1);
	ok(e && str_has(path_str(e, "comment", NULL, NULL), "unfinished"), "unfinished at detach, and said so");

	q = json_array_get(json_object_get(json_object_get(har, "log"), "pages"), 0);
	ok(q && fabs(path_num(q, "pageTimings", "onLoad") - 500) < 1e-6, "page onLoad from the lifecycle event: 500 ms");
	ok(q && str_is(path_str(q, "startedDateTime", NULL, NULL), "1970-01-01T00:16:40.000Z"), "page start: its document's");
	ok(str_has(path_str(har, "log", "comment", NULL), "1 lines not records"), "the comment counts the bad line");
	json_decref(har);
	free(text);
	unlink(path);
}

/* One finished request with no body on session sid (a C string literal). */
#define ONE(t, sid, rid) \
	"{\"t\":" #t ",\"conn\":1,\"dir\":\"down\",\"kind\":\"event\",\"method\":\"Network.requestWillBeSent\",\"session\":\"" sid "\",\"bytes\":1," \
	"\"body\":{\"method\":\"Network.requestWillBeSent\",\"params\":{\"requestId\":\"" rid "\",\"type\":\"Image\",\"timestamp\":1.0," \
	"\"wallTime\":1000.0,\"request\":{\"url\":\"http://x/" rid "\",\"method\":\"GET\",\"headers\":{}}},\"sessionId\":\"" sid "\"}}\n" \
	"{\"t\":" #t ",\"conn\":1,\"dir\":\"down\",\"kind\":\"event\",\"method\":\"Network.loadingFinished\",\"session\":\"" sid "\",\"bytes\":1," \
	"\"body\":{\"method\":\"Network.loadingFinished\",\"params\":{\"requestId\":\"" rid "\",\"timestamp\":1.1,\"encodedDataLength\":0}," \
	"\"sessionId\":\"" sid "\"}}\n"

#define LONG40 "0123456789012345678901234567890123456789"

/* A request of session S1 with 5 bytes of body, finished. */
#define DONE(t, rid) \
	EV(t, "Network.requestWillBeSent", "{\"requestId\":\"" rid "\",\"type\":\"Script\",\"timestamp\":1.0,\"wallTime\":1000.0," \
	   "\"request\":{\"url\":\"http://x/" rid "\",\"method\":\"GET\",\"headers\":{}}}") \
	EV(t, "Network.dataReceived", "{\"requestId\":\"" rid "\",\"dataLength\":5}") \
	EV(t, "Network.loadingFinished", "{\"requestId\":\"" rid "\",\"timestamp\":1.1,\"encodedDataLength\":90}")
#define MSG(t, dir, kind, id, m, by, body) "{\"t\":" #t ",\"conn\":1,\"dir\":\"" dir "\",\"kind\":\"" kind "\",\"id\":" #id \
	",\"method\":\"" m "\",\"session\":\"S1\",\"bytes\":1" by ",\"body\":" body "}\n"

/* Where each body comes from: the proxy's own fetch (--record-bodies), an
 * intercepting client's Fetch.getResponseBody (by the interception's id,
 * before loadingFinished); and why the others have none: past the proxy's
 * budget (its body_not_fetched record), nobody asked. stderr's last line
 * counts them. */
static void test_bodies(void)
{
	static const char LOG3[] =
		DONE(1, "R1")
		MSG(2, "up", "command", 1000000000, "Network.getResponseBody", ",\"by\":\"proxy\"",
		    "{\"id\":1000000000,\"method\":\"Network.getResponseBody\",\"params\":{\"requestId\":\"R1\"},\"sessionId\":\"S1\"}")
		MSG(3, "down", "response", 1000000000, "Network.getResponseBody", ",\"by\":\"proxy\"",
		    "{\"id\":1000000000,\"result\":{\"body\":\"hello\",\"base64Encoded\":false},\"sessionId\":\"S1\"}")
		DONE(4, "R2")
		"{\"t\":4,\"conn\":1,\"kind\":\"body_not_fetched\",\"session\":\"S1\",\"requestId\":\"R2\",\"encodedDataLength\":90,"
		"\"fetched\":70000000,\"budget\":67108864,\"why\":\"over the --record-bodies budget\"}\n"
		EV(5, "Network.requestWillBeSent", "{\"requestId\":\"R3\",\"type\":\"Script\",\"timestamp\":1.0,\"wallTime\":1000.0,"
		   "\"request\":{\"url\":\"http://x/R3\",\"method\":\"GET\",\"headers\":{}}}")
		EV(6, "Fetch.requestPaused", "{\"requestId\":\"interception-job-7.0\",\"networkId\":\"R3\",\"responseStatusCode\":200,"
		   "\"request\":{\"url\":\"http://x/R3\",\"method\":\"GET\",\"headers\":{}}}")
		MSG(7, "up", "command", 9, "Fetch.getResponseBody", "",
		    "{\"id\":9,\"method\":\"Fetch.getResponseBody\",\"params\":{\"requestId\":\"interception-job-7.0\"},\"sessionId\":\"S1\"}")
		MSG(8, "down", "response", 9, "Fetch.getResponseBody", "",
		    "{\"id\":9,\"result\":{\"body\":\"aGVsbG8=\",\"base64Encoded\":true},\"sessionId\":\"S1\"}")
		EV(9, "Network.dataReceived", "{\"requestId\":\"R3\",\"dataLength\":5}")
		EV(9, "Network.loadingFinished", "{\"requestId\":\"R3\",\"timestamp\":1.1,\"encodedDataLength\":90}")
		DONE(10, "R4");
	struct logrec_opts lo = { .sessions_max = 10 };
	char path[] = "/tmp/cdplog_har_bodiesXXXXXX", errpath[] = "/tmp/cdplog_har_stderrXXXXXX", err[300] = "";
	struct har_opts o = { .out = path, .max_requests = 10 };
	FILE *f = fmemopen((void *)LOG3, strlen(LOG3), "r");
	int fd = mkstemp(path), efd = mkstemp(errpath), saved;
	char *text, *said;
	size_t len;
	json_t *har, *e;

	close(fd);
	fflush(stderr);
	saved = dup(2);
	dup2(efd, 2);
	is_int(cdplog_har(f, "bodies.jsonl", &lo, &o, err, sizeof err), 0, "cdplog har reads it: %s", err);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(efd);
	fclose(f);
	text = util_read_file(path, &len, err, sizeof err);
	har = text ? json_loads(text, 0, NULL) : NULL;
	e = entry_at(har, "http://x/R1", -1);
	ok(e && str_is(path_str(e, "response", "content", "text"), "hello"), "the body the proxy fetched");
	e = entry_at(har, "http://x/R3", -1);
	ok(e && str_is(path_str(e, "response", "content", "text"), "aGVsbG8=") &&
	   str_is(path_str(e, "response", "content", "encoding"), "base64"), "the body Fetch.getResponseBody gave");
	e = entry_at(har, "http://x/R2", -1);
	ok(e && str_has(path_str(e, "response", "content", "comment"), "over the --record-bodies budget (70000000 of 67108864"),
	   "past the budget, and said so: %s", e ? path_str(e, "response", "content", "comment") : "");
	e = entry_at(har, "http://x/R4", -1);
	ok(e && str_has(path_str(e, "response", "content", "comment"), "nobody asked Chrome for it"),
	   "not fetched, and said so");
	said = util_read_file(errpath, &len, err, sizeof err);
	ok(said && strstr(said, "cdplog: 2 of 4 entries have no response body: 1 not fetched: nobody asked Chrome "
			  "for them (record with cdpproxy --record-bodies); 1 past the --record-bodies budget\n"),
	   "stderr counts the entries without a body, by why: %s", said ? said : "");
	free(said);
	json_decref(har);
	free(text);
	unlink(path);
	unlink(errpath);
}

/* --per-session names each file from its session's id, cleaned and cut:
 * ids that clean or cut to the same text (S/1 and S.1; two that share 40
 * characters) must still get files of their own, none written over, and
 * none written through a link found at its name. */
static void test_per_session_names(void)
{
	static const char LOG2[] =
		ONE(1, "S/1", "A") ONE(2, "S.1", "B") ONE(3, "S_1", "C") ONE(4, LONG40 "-one", "D")
		ONE(5, LONG40 "-two", "E") ONE(6, "plain", "F");
	struct logrec_opts lo = { .sessions_max = 10 };
	char dir[] = "/tmp/cdplog_har_namesXXXXXX", base[64], path[512], err[300] = "";
	struct har_opts o = { .out = base, .per_session = 1, .max_requests = 10 };
	FILE *f;
	DIR *d;
	struct dirent *de;
	int files = 0, entries = 0, rc;
	char *text, seen[8] = "";
	size_t len;

	if (!mkdtemp(dir)) {
		ok(0, "a temporary directory");
		return;
	}
	snprintf(base, sizeof base, "%s/out.har", dir);
	f = fmemopen((void *)LOG2, strlen(LOG2), "r");
	is_int(cdplog_har(f, "names.jsonl", &lo, &o, err, sizeof err), 0, "six sessions, six files: %s", err);
	fclose(f);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		json_t *har, *e;
		size_t i;
		if (de->d_name[0] == '.')
			continue;
		files++;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		text = util_read_file(path, &len, err, sizeof err);
		har = text ? json_loads(text, 0, NULL) : NULL;
		json_array_foreach(json_object_get(json_object_get(har, "log"), "entries"), i, e) {
			const char *url = json_string_value(json_object_get(json_object_get(e, "request"), "url"));
			entries++;
			if (url && strlen(seen) < sizeof seen - 1)
				strncat(seen, url + strlen(url) - 1, 1);
		}
		json_decref(har);
		free(text);
		unlink(path);
	}
	if (d)
		closedir(d);
	is_int(files, 6, "a file per session: S/1, S.1 and S_1 apart, the two sharing 40 characters apart");
	is_int(entries, 6, "every entry written, none over another's: %s", seen);

	/* A link where a session's file goes: not followed, not written. */
	snprintf(path, sizeof path, "%s/victim", dir);
	f = fopen(path, "w");
	fputs("keep me\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/out-plain.har", dir);
	ok(symlink("victim", path) == 0, "a link at out-plain.har");
	f = fmemopen((void *)LOG2, strlen(LOG2), "r");
	rc = cdplog_har(f, "names.jsonl", &lo, &o, err, sizeof err);
	fclose(f);
	is_int(rc, -1, "refused");
	ok(strstr(err, "out-plain.har") && strstr(err, "exists"), "naming the file that is there: %s", err);
	snprintf(path, sizeof path, "%s/victim", dir);
	text = util_read_file(path, &len, err, sizeof err);
	ok(text && !strcmp(text, "keep me\n"), "what the link points at is untouched");
	free(text);
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void test_timings_without_response(void)
{
	double total;
	json_t *t = har_entry_timings(NULL, 10.0, 0, 10.25, &total);

	ok(fabs(json_number_value(json_object_get(t, "blocked")) - 250) < 1e-6 && fabs(total - 250) < 1e-6,
	   "no response: all of it blocked");
	json_decref(t);
}

int main(void)
{
	test_har();
	test_per_session_names();
	test_bodies();
	test_timings_without_response();
	return tap_done();
}
