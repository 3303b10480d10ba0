/* ws: the WebSocket leg, as the loop sees it (proxy_leg): a client's
 * WebSocket to Chrome's, message by message through the core. */
#ifndef CDPPROXY_WS_H
#define CDPPROXY_WS_H

#include "proxy.h"

extern const struct proxy_leg ws_leg;

#endif
