/* report_out: writing cdpbench's files (report and audit alike): numbers and
 * CIs as JSON, a JSON document, a text file opened and closed with its
 * errors in err. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

json_t *report_num_json(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

json_t *report_ci_json(const struct estimate_ci *ci)
{
	return json_pack("{s:o,s:o,s:o,s:I}", "point", report_num_json(ci->point), "lo",
			 report_num_json(ci->lo), "hi", report_num_json(ci->hi), "n", (json_int_t)ci->n);
}

int report_write_json(json_t *j, const char *path, char *err, size_t errlen)
{
	int rc = json_dump_file(j, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));

	json_decref(j);
	if (rc < 0)
		snprintf(err, errlen, "cannot write %s", path);
	return rc < 0 ? -1 : 0;
}

FILE *report_open(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");

	if (!f)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	return f;
}

int report_close(FILE *f, const char *tail, const char *path, char *err, size_t errlen)
{
	fputs(tail, f);
	if (fclose(f) == 0)
		return 0;
	snprintf(err, errlen, "cannot write %s", path);
	return -1;
}
