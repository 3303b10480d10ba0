/* client: who a WebSocket client is, told from its upgrade request. Pure. */
#ifndef CDPPROXY_CLIENT_H
#define CDPPROXY_CLIENT_H

#include <stdint.h>

#include <jansson.h>

/* What a client's upgrade request says about it ("" for a header it did
 * not send). */
struct client_hello {
	const char *user_agent, *origin, *host;
	int extensions;               /* it sent Sec-WebSocket-Extensions */
	int pragma;                   /* it sent Pragma (browsers and ChromeDriver do) */
};

/* One connection's client: what the proxy shows in /proxy/stats and logs
 * in the open record. */
struct client_id {
	char *user_agent;             /* NULL: none sent */
	char remote[80];              /* address:port, "" when not a socket */
	const char *library;          /* client_library's answer */
	const char *by;               /* ... and what told it */
	/* The connection carries chromium-bidi's WebDriver BiDi mapper's own
	 * CDP: set by its first command (client_on_command), or by a leg that
	 * opens a connection for the mapper. Policy rules with "mapper" match
	 * on it (policy.h). */
	int bidi_mapper;
	unsigned long commands;       /* commands the client has sent */
	uint64_t host_conn;           /* a channel's client: the connection it rides on; 0 none */
};

/* The library that sent hello, as measured on each client's defaults:
 * "playwright", "puppeteer", "python-websockets" and "chromedriver" (its
 * HTTP requests) by their User-Agent ("user-agent"); without one, by the
 * headers each sends ("handshake"): "devtools-frontend" (Origin
 * devtools://), "browser" (another page in a browser), "chromedriver"
 * (Pragma, no Origin), "python-websocket-client" (Origin http:// and the
 * request's Host), "chrome-remote-interface" (nothing else: no extensions,
 * no Origin), "node-ws" (extensions, nothing else). "unknown" when none
 * fits. *by gets "user-agent", "handshake" or "none". */
const char *client_library(const struct client_hello *h, const char **by);

/* A command the client sent, method not NUL-terminated. The first one
 * tells a BiDi mapper: chromium-bidi's CdpConnection begins with
 * Target.attachToBrowserTarget (ChromeDriver's mapper, Playwright's BiDi
 * over CDP), and Puppeteer's protocol: 'webDriverBiDi' tries the BiDi
 * command session.status on the CDP endpoint, then runs the mapper in Node
 * on that same connection. */
void client_on_command(struct client_id *c, const char *method, size_t len);

/* {"library","by","user_agent","remote"} (user_agent null when none),
 * "bidi_mapper": true for the mapper's connection, and "host_conn" for a
 * channel's client. */
json_t *client_json(const struct client_id *c);

#endif
