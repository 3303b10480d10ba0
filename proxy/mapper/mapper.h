/* mapper: the BiDi mapper's channel as a leg (README.md): the client side
 * of the mapper's connection, which rides on ChromeDriver's connection
 * (proxy/core/channel.h), opened with a WebSocket leg's connection to
 * Chrome as its other side. */
#ifndef CDPPROXY_MAPPER_H
#define CDPPROXY_MAPPER_H

#include "proxy.h"

extern const struct proxy_leg mapper_leg;

#endif
