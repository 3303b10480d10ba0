/* redact: takes secrets (auth headers, cookies, passwords, credential fields
 * of bodies, URL userinfo) out of message bodies before they are logged. Pure. */
#ifndef CDPPROXY_REDACT_H
#define CDPPROXY_REDACT_H

#include <stddef.h>

#define REDACTED "<redacted>"
#define REDACTED_NOT_JSON "<redacted: not JSON>"

/* If body (a CDP message) holds a secret, returns a copy (compact JSON) with
 * each secret replaced by "<redacted>", and its length in *outlen; NULL when
 * nothing was replaced (the body may be logged as it is). The secrets, by their
 * shapes in browser_protocol.pdl, wherever they are in the message:
 *  - members of a Network.Headers object named Authorization,
 *    Proxy-Authorization, Cookie or Set-Cookie (case and spaces aside);
 *  - the value of a header entry {name, value} (Fetch.HeaderEntry,
 *    CacheStorage.Header) with such a name;
 *  - in a headers container (the value of a member named *headers, any case:
 *    an object, or an array of entries), also every header whose name holds
 *    a credential word (redact.c's cred_words: pass, pwd, secret, token,
 *    key, auth, credential, session, sessid, cookie, csrf, xsrf, jwt,
 *    signature; or is "sid"), and so in raw header lines and for
 *    Preload.PrerenderMismatchedHeaders (both values);
 *  - such lines of raw header text (headersText, requestHeadersText; lines
 *    end at \r, \n or NUL; a folded line continues its header) and of
 *    Fetch's base64 binaryResponseHeaders (decoded, redacted, encoded);
 *  - a cookie's value: Network.Cookie and CookieParam objects (in cookies
 *    arrays, under a cookie member, or known by their members in a message
 *    that names cookies), the params of Network.setCookie;
 *  - cookie lines (cookieLine of blocked and exempted Set-Cookies, Audits'
 *    rawCookieLine): the value and any segment that is not a cookie
 *    attribute; the name and attributes stay;
 *  - a password member (Fetch.AuthChallengeResponse);
 *  - credential fields of bodies (base64 ones decoded and encoded again):
 *    postData (Network.Request, a getRequestPostData result; base64 in
 *    Fetch.continueRequest or where base64Encoded says so),
 *    postDataEntries[].bytes, Fetch.fulfillRequest's body, the body of a
 *    getResponseBody result and the data of an IO.read one (where a
 *    base64Encoded member is beside them), WebSocket frames' payloadData.
 *    Bodies are read as the servers that receive them would: a JSON
 *    body (after spaces and byte order marks) loses each member named
 *    with a credential word, and its strings are read as bodies too (JSON
 *    in them, forms); any other text, binary included, loses the content
 *    of each multipart part so named (name=, name*=; any line starting
 *    with "--" may be a delimiter: preambles, LF line ends) and, read as
 *    a form split at '&', at '&' or ';' and at line ends (text/plain),
 *    the value of each field so named in any of these readings (%XX
 *    decoded). A body that looks like JSON but does not parse is withheld
 *    whole if a credential word is in it (\uXXXX and %XX decoded);
 *  - URL userinfo ("scheme://user:password@host", the last '@' of the
 *    authority) in every string value and in bodies: user and password;
 *  - the same inside the message string of Target.sendMessageToTarget and
 *    Target.receivedMessageFromTarget.
 * A body that is not a JSON object or array but may hold a secret is
 * withheld whole: REDACTED_NOT_JSON. Not recognised: secrets in values
 * a page or client computes (a Runtime.evaluate of document.cookie) other
 * than URL userinfo; query strings; HTML; object keys. Linear in len. */
char *redact_body(const char *body, size_t len, size_t *outlen);

/* As redact_body for a log that keeps only the first keep bytes of a body:
 * a body longer than REDACT_HEAD_SPAN(keep) is redacted by its first
 * REDACT_HEAD_SPAN(keep) bytes alone, closed into a document (jsoncut), so
 * the time is bounded by keep, not by the body (a 117 MiB upload's
 * requestWillBeSent is not parsed whole to log 16 KiB of it). The first keep
 * bytes of what it returns are those of redact_body's unless a value's
 * secret is known only by what follows it by more than the span's slack
 * (3 * keep + 64 KiB): a header entry written {"value":...,"name":...}. A
 * string the span cuts is redacted as the text it holds. *outlen as for
 * redact_body; NULL: nothing in the span was replaced. */
#define REDACT_HEAD_SPAN(keep) (4 * (keep) + 65536)
char *redact_body_head(const char *body, size_t len, size_t keep, size_t *outlen);

/* A copy of s (a URL, or any text) with the userinfo of each URL in it
 * replaced: "http://user:pw@host/" becomes "http://<redacted>@host/". The
 * caller frees it. For what the proxy logs of its own (session URLs). */
char *redact_url(const char *s);

#endif
