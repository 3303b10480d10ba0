/* protocol: the CDP method and event names the protocol defines. */
#ifndef CDPPROXY_PROTOCOL_H
#define CDPPROXY_PROTOCOL_H

#include <stddef.h>

/* Is name (len bytes, not NUL-terminated) a command or event of
 * browser_protocol.pdl or js_protocol.pdl ("Network.enable")? */
int protocol_known(const char *name, size_t len);

#endif
