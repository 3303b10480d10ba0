/* redact_body: the credential fields of request and response bodies, by
 * their formats, for redact.c. Internal to redact; pure. */
#ifndef CDPPROXY_REDACT_BODY_H
#define CDPPROXY_REDACT_BODY_H

#include <stddef.h>

#include <jansson.h>

/* The replacement for a body member s[0..n) (base64 when b64 says so and it
 * decodes), or NULL when it holds no credential field or URL userinfo. A
 * JSON object or array loses its members named like credentials (and its
 * strings are read as bodies); other text, the content of multipart parts
 * so named and, read as a form every way servers split one, the value of
 * each field so named; a body that looks like JSON but does not parse is
 * withheld whole when a credential word is in it. */
json_t *redact_body_member(const char *s, size_t n, int b64);

#endif
