/* glob: the method and URL patterns of policy rules: * any run, ? one
 * character, \ quotes the next one. */
#ifndef CDPPROXY_GLOB_H
#define CDPPROXY_GLOB_H

#include <stddef.h>

/* Does the NUL-terminated pattern match s (n bytes, not NUL-terminated)? */
int glob_match(const char *pattern, const char *s, size_t n);

#endif
