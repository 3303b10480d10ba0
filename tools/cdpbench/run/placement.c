/* placement: which CPUs the sink and the browsers run on (sched_setaffinity). */
#define _GNU_SOURCE   /* cpu_set_t and its macros */
#include "placement.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

int placement_parse(const char *text, enum placement *out)
{
	if (!strcmp(text, "shared"))
		*out = PLACEMENT_SHARED;
	else if (!strcmp(text, "split"))
		*out = PLACEMENT_SPLIT;
	else
		return -1;
	return 0;
}

/* "0-1", "0,2": the CPUs of a set, as taskset prints them. */
static void cpus_text(const cpu_set_t *set, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && o < len; c++) {
		int end = c;
		if (!CPU_ISSET(c, set))
			continue;
		while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set))
			end++;
		o += (size_t)snprintf(buf + o, len - o, end > c ? "%s%d-%d" : "%s%d", o ? "," : "", c, end);
		c = end;
	}
}

json_t *placement_apply(enum placement p, pid_t sink)
{
	cpu_set_t all, sink_set, rest;
	char a[200], s[200], note[300] = "";
	int last = -1;

	if (sched_getaffinity(0, sizeof all, &all) < 0)
		CPU_ZERO(&all);
	cpus_text(&all, a, sizeof a);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all))
			last = c;
	if (p == PLACEMENT_SPLIT && CPU_COUNT(&all) < 2) {
		snprintf(note, sizeof note, "split needs two CPUs; %s has one: shared", a);
		p = PLACEMENT_SHARED;
	}
	if (p == PLACEMENT_SHARED)
		return json_pack("{s:s,s:s,s:s,s:s}", "placement", "shared", "sink_cpus", a,
				 "browser_cpus", a, "note", note);
	CPU_ZERO(&sink_set);
	CPU_SET(last, &sink_set);
	rest = all;
	CPU_CLR(last, &rest);
	if (sched_setaffinity(sink, sizeof sink_set, &sink_set) < 0 ||
	    sched_setaffinity(0, sizeof rest, &rest) < 0) {
		snprintf(note, sizeof note, "sched_setaffinity: %s: shared", strerror(errno));
		sched_setaffinity(sink, sizeof all, &all);
		sched_setaffinity(0, sizeof all, &all);
		return json_pack("{s:s,s:s,s:s,s:s}", "placement", "shared", "sink_cpus", a,
				 "browser_cpus", a, "note", note);
	}
	cpus_text(&sink_set, s, sizeof s);
	cpus_text(&rest, a, sizeof a);
	return json_pack("{s:s,s:s,s:s,s:s}", "placement", "split", "sink_cpus", s,
			 "browser_cpus", a, "note", note);
}
