/* cdplog: an offline reader of a cdpproxy --log file (summary, pairs,
 * timeline, har), in one pass over the file with bounded memory. */
#ifndef CDPLOG_H
#define CDPLOG_H

#include <stdio.h>

#include "logagg.h"

int cdplog_summary(FILE *f, const char *name, const struct logrec_opts *o, FILE *out,
		   char *err, size_t errlen);
int cdplog_pairs(FILE *f, const char *name, const struct logrec_opts *o, FILE *out,
		 char *err, size_t errlen);
int cdplog_timeline(FILE *f, const char *name, const struct logrec_opts *o, FILE *out,
		    char *err, size_t errlen);

/* What `cdplog har` writes: out ("-" stdout), or with per_session one file
 * per page session named from out; max_requests: requests held at once. */
struct har_opts {
	const char *out;
	int per_session;
	size_t max_requests;
};

int cdplog_har(FILE *f, const char *name, const struct logrec_opts *lo, const struct har_opts *o,
	       char *err, size_t errlen);

#endif
