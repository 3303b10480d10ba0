/* protocol: the CDP commands and events the protocol defines, with their
 * parameters' names and JSON types. */
#ifndef CDPPROXY_PROTOCOL_H
#define CDPPROXY_PROTOCOL_H

#include <stddef.h>

/* A command or event. A shape lists members as "name:T name:T", T the JSON
 * type: i integer, n number, b boolean, s string, o object, a array, * any. */
struct protocol_method {
	const char *name;           /* "Network.enable" */
	char kind;                  /* 'c' command, 'e' event */
	const char *params;         /* the shape of its params */
	const char *returns;        /* a command's result shape; "" for an event */
};

/* Every method, sorted by name (byte order), from browser_protocol.pdl,
 * js_protocol.pdl and the proxy's own CDPProxy domain. */
extern const struct protocol_method protocol_methods[];
extern const size_t protocol_n_methods;

/* The method named name (len bytes, not NUL-terminated), or NULL. */
const struct protocol_method *protocol_find(const char *name, size_t len);
/* Is name (len bytes, not NUL-terminated) a command or event of
 * browser_protocol.pdl, js_protocol.pdl or CDPProxy ("Network.enable")? */
int protocol_known(const char *name, size_t len);
/* The type letter of member name in shape, or 0 when shape has none. */
char protocol_member_type(const char *shape, const char *name);

#endif
