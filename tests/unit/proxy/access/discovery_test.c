/* discovery_test: which /json paths are rewritten, and the rewrite of real
 * Chrome /json/version and /json/list answers to the proxy's address. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "discovery.h"
#include "tap.h"
#include "util.h"

static void test_paths(void)
{
	static const char *const yes[] = {
		"/json", "/json/", "/json/list", "/json/list/", "/json/version",
		"/json/version/", "/json/new",
	};
	static const char *const no[] = {
		"/json/protocol", "/json/protocol/", "/json/activate/BFFD5E13", "/json/close/BFFD5E13",
		"/json/versionx", "/jsonx", "/json//", "/", "", "/devtools/page/BFFD5E13",
		"/json/list/x", "/x/json",
	};

	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		is_int(discovery_rewrites(yes[i]), 1, "rewrites %s", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		is_int(discovery_rewrites(no[i]), 0, "leaves \"%s\" alone", no[i]);
}

/* Real answers of Chromium 156 (--remote-debugging-port), trimmed to two targets
 * and with the other front-end URL forms added. */
static const char version_body[] =
	"{\n"
	"   \"Browser\": \"Chrome/156.0.8078.114\",\n"
	"   \"File-Path-Style\": \"posix\",\n"
	"   \"Protocol-Version\": \"1.3\",\n"
	"   \"User-Agent\": \"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
	"HeadlessChrome/156.0.0.0 Safari/537.36\",\n"
	"   \"V8-Version\": \"15.6.75.63\",\n"
	"   \"WebKit-Version\": \"537.36 (@ea19f9737303a76e07b53c6a1eec43355aca3b1d)\",\n"
	"   \"webSocketDebuggerUrl\": \"ws://127.0.0.1:9222/devtools/browser/c864cdf4-43a1-4e05-bb36-345faa316530\"\n"
	"}\n";

#define ID1 "BFFD5E1302E662E7C4DAAB99E7A4EEE9"
#define ID2 "F95F2AFB7153CCA9597DA474F59A4F74"
#define ID3 "7818D8D65E7412E2BAC2DBE95745CDE2"
#define ID4 "0A1B2C3D4E5F60718293A4B5C6D7E8F9"
#define ID5 "11112222333344445555666677778888"
#define APPSPOT "https://chrome-devtools-frontend.appspot.com/serve_rev/@ea19f9737303a76e07b53c6a1eec43355aca3b1d/inspector.html"

static const char list_body[] =
	"[ {\n"
	"   \"description\": \"\",\n"
	"   \"devtoolsFrontendUrl\": \"" APPSPOT "?ws=127.0.0.1:9222/devtools/page/" ID1 "\",\n"
	"   \"id\": \"" ID1 "\",\n"
	"   \"title\": \"ws://127.0.0.1:9222/ in a title\",\n"
	"   \"type\": \"page\",\n"
	"   \"url\": \"http://127.0.0.1:9222/?ws=127.0.0.1:9222/devtools/page/" ID1 "\",\n"
	"   \"webSocketDebuggerUrl\": \"ws://127.0.0.1:9222/devtools/page/" ID1 "\"\n"
	"}, {\n"
	"   \"description\": \"\",\n"
	"   \"devtoolsFrontendUrl\": \"/devtools/inspector.html?ws=127.0.0.1:9222/devtools/page/" ID2 "\",\n"
	"   \"faviconUrl\": \"https://example.com/favicon.ico\",\n"
	"   \"id\": \"" ID2 "\",\n"
	"   \"parentId\": \"" ID1 "\",\n"
	"   \"title\": \"Example\",\n"
	"   \"type\": \"iframe\",\n"
	"   \"url\": \"https://example.com/\",\n"
	"   \"webSocketDebuggerUrl\": \"ws://127.0.0.1:9222/devtools/page/" ID2 "\"\n"
	"}, {\n"
	"   \"description\": \"\",\n"
	"   \"devtoolsFrontendUrl\": \"" APPSPOT "?wss=127.0.0.1:9222/devtools/page/" ID3 "\",\n"
	"   \"id\": \"" ID3 "\",\n"
	"   \"title\": \"\",\n"
	"   \"type\": \"service_worker\",\n"
	"   \"url\": \"https://example.com/sw.js\",\n"
	"   \"webSocketDebuggerUrl\": \"wss://127.0.0.1:9222/devtools/page/" ID3 "\"\n"
	"}, {\n"
	"   \"description\": \"\",\n"
	"   \"devtoolsFrontendUrl\": \"/devtools/inspector.html?experiments=true&ws=[::1]:9222/devtools/page/" ID4 "\",\n"
	"   \"id\": \"" ID4 "\",\n"
	"   \"title\": \"\",\n"
	"   \"type\": \"page\",\n"
	"   \"url\": \"about:blank\",\n"
	"   \"webSocketDebuggerUrl\": \"ws://[::1]:9222/devtools/page/" ID4 "\"\n"
	"}, {\n"
	"   \"description\": \"\",\n"
	"   \"devtoolsFrontendUrl\": \"" APPSPOT "?ws=localhost:9222/devtools/page/" ID5 "&panel=network\",\n"
	"   \"id\": \"" ID5 "\",\n"
	"   \"title\": \"\",\n"
	"   \"type\": \"page\",\n"
	"   \"url\": \"about:blank\",\n"
	"   \"webSocketDebuggerUrl\": \"ws://localhost:9222/devtools/page/" ID5 "\"\n"
	"} ]\n";

/* discovery_rewrite of body (an exact-size copy without a NUL, for ASan),
 * parsed back; NULL when the rewrite returned NULL or its text is not JSON. */
static json_t *rewrite(const char *body, const char *host, char **text)
{
	size_t n = strlen(body), outlen = (size_t)-1;
	char *in = xmalloc(n ? n : 1), *out;
	json_t *j = NULL;

	memcpy(in, body, n);
	out = discovery_rewrite(in, n, host, &outlen);
	free(in);
	if (out) {
		ok(outlen == strlen(out), "outlen is the text's length (%s)", host);
		j = json_loads(out, 0, NULL);
	}
	if (text)
		*text = out;
	else
		free(out);
	return j;
}

/* Are all keys of a and b but the two URL fields equal (and the same keys)? */
static int same_but_urls(const json_t *a, const json_t *b)
{
	const char *k;
	json_t *v;

	if (!json_is_object(a) || !json_is_object(b) || json_object_size(a) != json_object_size(b))
		return 0;
	json_object_foreach((json_t *)a, k, v) {
		if (!strcmp(k, "webSocketDebuggerUrl") || !strcmp(k, "devtoolsFrontendUrl"))
			continue;
		if (!json_equal(v, json_object_get(b, k)))
			return 0;
	}
	return 1;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "(missing)";
}

static void test_version(const char *host)
{
	json_t *in = json_loads(version_body, 0, NULL), *out = rewrite(version_body, host, NULL);
	char want[256];

	ok(out != NULL, "/json/version rewrite parses (%s)", host);
	snprintf(want, sizeof want, "ws://%s/devtools/browser/c864cdf4-43a1-4e05-bb36-345faa316530", host);
	is_str(str(out, "webSocketDebuggerUrl"), want, "/json/version webSocketDebuggerUrl -> %s", host);
	ok(json_object_get(out, "devtoolsFrontendUrl") == NULL, "/json/version gains no front-end URL");
	ok(same_but_urls(in, out), "/json/version other fields unchanged (%s)", host);
	json_decref(in);
	json_decref(out);
}

static void test_list(const char *host)
{
	static const struct { const char *id, *scheme, *front_pre, *front_post; } want[] = {
		{ ID1, "ws", APPSPOT "?ws=", "" },
		{ ID2, "ws", "/devtools/inspector.html?ws=", "" },
		{ ID3, "wss", APPSPOT "?wss=", "" },
		{ ID4, "ws", "/devtools/inspector.html?experiments=true&ws=", "" },
		{ ID5, "ws", APPSPOT "?ws=", "&panel=network" },
	};
	json_t *in = json_loads(list_body, 0, NULL), *out = rewrite(list_body, host, NULL);
	char w[512];

	ok(json_is_array(out), "/json/list rewrite is an array (%s)", host);
	is_int(json_array_size(out), 5, "/json/list keeps 5 targets (%s)", host);
	for (size_t i = 0; i < 5; i++) {
		json_t *t = json_array_get(out, i);
		snprintf(w, sizeof w, "%s://%s/devtools/page/%s", want[i].scheme, host, want[i].id);
		is_str(str(t, "webSocketDebuggerUrl"), w, "target %zu webSocketDebuggerUrl (%s)", i, host);
		snprintf(w, sizeof w, "%s%s/devtools/page/%s%s", want[i].front_pre, host, want[i].id,
			 want[i].front_post);
		is_str(str(t, "devtoolsFrontendUrl"), w, "target %zu devtoolsFrontendUrl (%s)", i, host);
		ok(same_but_urls(json_array_get(in, i), t), "target %zu other fields unchanged (%s)", i, host);
	}
	json_decref(in);
	json_decref(out);
}

static void test_not_json(void)
{
	static const char *const bodies[] = {
		"", "Unknown command: 'foo'", "<html><body>500</body></html>", "{\"a\":", "[{}",
		"{\"webSocketDebuggerUrl\":\"ws://127.0.0.1:9222/x\"} trailing",
	};
	char *text;

	for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		json_t *j = rewrite(bodies[i], "127.0.0.1:9323", &text);
		ok(text == NULL, "not JSON -> NULL: \"%s\"", bodies[i]);
		free(text);
		json_decref(j);
	}
}

static void test_untouched(void)
{
	static const char *const bodies[] = {
		"{\"Browser\":\"Chrome/156.0.8078.114\",\"Protocol-Version\":\"1.3\"}",
		"[]",
		"{}",
		"[{\"id\":\"X\",\"type\":\"page\",\"url\":\"ws://127.0.0.1:9222/devtools/page/X\"}]",
		"{\"webSocketDebuggerUrl\":null,\"devtoolsFrontendUrl\":42}",
		"{\"devtoolsFrontendUrl\":\"/devtools/inspector.html?panel=console\"}",
		"{\"devtoolsFrontendUrl\":\"/devtools/inspector.html?xws=127.0.0.1:9222/x\"}",
		"{\"webSocketDebuggerUrl\":\"127.0.0.1:9222/devtools/page/X\"}",
		"{\"protocol\":{\"domains\":[{\"domain\":\"Network\"}]}}",
	};

	for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		json_t *in = json_loads(bodies[i], 0, NULL), *out = rewrite(bodies[i], "127.0.0.1:9323", NULL);
		ok(in && out && json_equal(in, out), "without rewritable fields, equal: %s", bodies[i]);
		json_decref(in);
		json_decref(out);
	}
}

int main(void)
{
	static const char *const hosts[] = { "127.0.0.1:9323", "localhost:9323", "[::1]:9323" };

	test_paths();
	for (size_t i = 0; i < 3; i++) {
		test_version(hosts[i]);
		test_list(hosts[i]);
	}
	test_not_json();
	test_untouched();
	return tap_done();
}
