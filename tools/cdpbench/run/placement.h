/* placement: which CPUs the sink and the browsers run on (sched_setaffinity). */
#ifndef CDPBENCH_PLACEMENT_H
#define CDPBENCH_PLACEMENT_H

#include <sys/types.h>

#include <jansson.h>

enum placement {
	PLACEMENT_SHARED,   /* everything on every CPU, as the scheduler likes */
	PLACEMENT_SPLIT,    /* the sink on the last allowed CPU, cdpbench and all it starts on the rest */
};

/* "shared" or "split" into *out; 0, or -1 if it is neither. */
int placement_parse(const char *text, enum placement *out);

/* Applies p to the running sink and to this process (browsers and proxies
 * started later inherit its CPUs). Returns what was done, for the report's
 * environment: {"placement", "sink_cpus", "browser_cpus", "note"}. With fewer
 * than two allowed CPUs, split falls back to shared and says so. */
json_t *placement_apply(enum placement p, pid_t sink);

#endif
