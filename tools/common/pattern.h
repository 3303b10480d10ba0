/* pattern: the a-z test pattern the tools send and check (WebSocket pads,
 * upload bodies, downloads): byte j of phase p is 'a' + (p + j) % 26. */
#ifndef TOOLS_PATTERN_H
#define TOOLS_PATTERN_H

#include <stddef.h>

#define PATTERN_PERIOD 26              /* the pattern repeats every 26 bytes */
#define PATTERN_MAX ((size_t)1 << 30)  /* the longest pattern handed out */

/* pattern_get(n) + p holds n bytes of phase p for any p < PATTERN_PERIOD.
 * The buffer never moves (peers reference it in output buffers); n is at
 * most PATTERN_MAX. */
const char *pattern_get(size_t n);

#endif
