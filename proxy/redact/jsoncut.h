/* jsoncut: the head of a long JSON text made a whole document, so that what
 * reads documents (jansson, the redactor) can read a bounded part of a
 * message instead of all of it. Pure. */
#ifndef CDPPROXY_JSONCUT_H
#define CDPPROXY_JSONCUT_H

#include <stddef.h>

#define JSONCUT_MAX_DEPTH 128

/* p[0..n) is the head of a JSON object or array whose rest is not given.
 * Returns a new NUL-terminated document: the head up to the last point
 * where it can be closed, then the quote, brackets and braces that close
 * it. A string value cut short keeps its whole characters and escapes; a
 * key, number or literal cut short is left out with its member (and the
 * comma before it). *used is how many bytes of p the document holds, *outlen
 * its length. NULL when the head is not the start of an object or array, is
 * not JSON as far as it goes, or nests deeper than JSONCUT_MAX_DEPTH.
 * Linear in n; the head is read, not validated beyond its structure. */
char *jsoncut_close(const char *p, size_t n, size_t *used, size_t *outlen);

#endif
