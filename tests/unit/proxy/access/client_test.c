/* client_test: client_library on the upgrade headers each real client sent
 * (captured from Playwright 1.61, Puppeteer 24.43, chrome-remote-interface
 * 0.34, ChromeDriver 156, Chromium 156's DevTools frontend, Python
 * websockets 10.4 and websocket-client 1.2.3 with their defaults). */
#include <stdlib.h>

#include "client.h"
#include "tap.h"

static const struct {
	struct client_hello h;
	const char *library, *by;
} cases[] = {
	{ { "Playwright/1.61.1 (x64; debian 12) node/20.20", "", "127.0.0.1:9222", 1, 0 },
	  "playwright", "user-agent" },
	{ { "Puppeteer 24.43.1", "", "127.0.0.1:9222", 0, 0 }, "puppeteer", "user-agent" },
	{ { "Python/3.11 websockets/10.4", "", "127.0.0.1:9222", 1, 0 },
	  "python-websockets", "user-agent" },
	{ { "", "", "127.0.0.1", 0, 1 }, "chromedriver", "handshake" },
	{ { "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
	    "HeadlessChrome/156.0.0.0 Safari/537.36", "devtools://devtools", "127.0.0.1:9222", 1, 1 },
	  "devtools-frontend", "handshake" },
	{ { "Mozilla/5.0 (X11; Linux x86_64) Chrome/156", "http://127.0.0.1:9222", "127.0.0.1:9222", 1, 1 },
	  "browser", "handshake" },
	{ { "", "http://127.0.0.1:9222", "127.0.0.1:9222", 0, 0 },
	  "python-websocket-client", "handshake" },
	{ { "", "", "127.0.0.1:9222", 0, 0 }, "chrome-remote-interface", "handshake" },
	{ { "", "", "127.0.0.1:9222", 1, 0 }, "node-ws", "handshake" },
	/* An Origin of another host, no User-Agent: nothing known sends that. */
	{ { "", "http://evil.example", "127.0.0.1:9222", 0, 0 }, "unknown", "none" },
	{ { "curl/7.88.1", "", "127.0.0.1:9222", 0, 0 }, "unknown", "none" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *by = NULL, *lib = client_library(&cases[i].h, &by);
		is_str(lib, cases[i].library, "'%s' origin '%s': %s", cases[i].h.user_agent,
		       cases[i].h.origin, cases[i].library);
		is_str(by, cases[i].by, "... told by %s", cases[i].by);
	}
	{
		struct client_id c = { .remote = "127.0.0.1:5555", .library = "puppeteer", .by = "user-agent" };
		json_t *j = client_json(&c);
		ok(json_is_null(json_object_get(j, "user_agent")), "no User-Agent: null");
		is_str(json_string_value(json_object_get(j, "remote")), "127.0.0.1:5555", "remote");
		json_decref(j);
	}
	return tap_done();
}
