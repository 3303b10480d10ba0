/* protocol: the CDP method and event names the protocol defines. */
#ifndef CDPPROXY_PROTOCOL_H
#define CDPPROXY_PROTOCOL_H

#include <stddef.h>

/* Is name (len bytes, not NUL-terminated) a command or event of
 * browser_protocol.pdl or js_protocol.pdl ("Network.enable")? */
int protocol_known(const char *name, size_t len);
/* Is domain (len bytes, no '.') one the protocol defines ("Network"): the
 * part before the '.' of one of its names? */
int protocol_domain_known(const char *domain, size_t len);

#endif
