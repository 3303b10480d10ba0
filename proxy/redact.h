/* redact: takes secrets (auth headers, cookies) out of message bodies before
 * they are logged. Pure. */
#ifndef CDPPROXY_REDACT_H
#define CDPPROXY_REDACT_H

#include <stddef.h>

#define REDACTED "<redacted>"

/* If body (a CDP message) may hold a secret, returns a copy with the values of
 * Authorization, Proxy-Authorization, Cookie and Set-Cookie headers (as JSON
 * members or as lines of a raw header text) and of cookies' "value" replaced
 * by "<redacted>", and its length in *outlen. NULL when there is nothing to
 * redact (the body may be logged as it is). A body that is not JSON but
 * mentions a secret header is withheld whole: "<redacted: not JSON>". */
char *redact_body(const char *body, size_t len, size_t *outlen);

#endif
