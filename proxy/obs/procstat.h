/* procstat: this process's resource use from /proc (CPU time, memory, open
 * descriptors, start time), as Prometheus' process_* metrics name it. */
#ifndef CDPPROXY_PROCSTAT_H
#define CDPPROXY_PROCSTAT_H

#include "metrics.h"

/* Fills p from /proc/self; p->ok is 0 when /proc cannot be read. */
void procstat_read(struct metrics_process *p);

#endif
