/* discovery: rewrites Chrome's /json answers so clients come back through the proxy. */
#ifndef CDPPROXY_DISCOVERY_H
#define CDPPROXY_DISCOVERY_H

#include <stddef.h>

/* Does the answer to this request path (no query) carry WebSocket URLs to rewrite? */
int discovery_rewrites(const char *path);

/* Rewrites every "webSocketDebuggerUrl" (ws://HOST/...) and the ws=HOST/ (or
 * wss=) inside every "devtoolsFrontendUrl" of body, an object or an array of
 * objects, to point at proxy_host ("127.0.0.1:9223" as the client addressed
 * the proxy). Returns a new NUL-terminated body and its length in *outlen, or
 * NULL when body is not JSON (the caller then passes it on unchanged). */
char *discovery_rewrite(const char *body, size_t len, const char *proxy_host, size_t *outlen);

#endif
