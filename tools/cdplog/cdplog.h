/* cdplog: an offline reader of a cdpproxy --log file (summary, pairs,
 * timeline), in one pass over the file with bounded memory. */
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

#endif
