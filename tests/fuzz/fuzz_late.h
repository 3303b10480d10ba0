/* fuzz_late: the one rule the cut-through fuzz drivers (fuzz_wsleg,
 * fuzz_pipecut) plant, and the reference's answer to it. */
#ifndef FUZZ_LATE_H
#define FUZZ_LATE_H

#include <stddef.h>
#include <string.h>

#include "scan.h"

/* Does the rule drop this message: an event whose method starts with Late,
 * as route_deliver sees it (decoded, cut at 127 bytes)? 2 when either may be
 * seen: the message names a method more than once, and one cut through is
 * judged by its first (proxy/ws/README.md). */
static inline int fuzz_late_dropped(const char *q, size_t n)
{
	struct scan_result r;
	char method[128];
	int times = 0;

	if (scan_message(q, n, &r) < 0 || r.kind != SCAN_EVENT)
		return 0;
	scan_str_copy(q, &r.method, method, sizeof method);
	if (strncmp(method, "Late", 4))
		return 0;
	for (size_t i = 0; i + 8 <= n && times < 2; i++)
		times += !memcmp(q + i, "\"method\"", 8);
	return times > 1 ? 2 : 1;
}

#endif
