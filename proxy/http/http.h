/* http: the HTTP leg, as the loop sees it (proxy_leg): discovery (/json/...)
 * forwarded to Chrome with its WebSocket URLs rewritten, the /proxy/ admin
 * endpoints, and WebSocket upgrades handed over (proxy_upgrade). It must
 * be the first leg: its first protocol serves accepted connections. */
#ifndef CDPPROXY_HTTP_H
#define CDPPROXY_HTTP_H

#include "proxy.h"

extern const struct proxy_leg http_leg;

#endif
