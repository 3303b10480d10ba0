/* report_files: a report's files in cfg->out_dir: report.json from the
 * figures, report.md and report.html from the view. */
#include "report_view.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int report_write_files(const struct report *r, const struct report_view *v, char *err,
		       size_t errlen)
{
	char path[BENCH_PATH_MAX + 32];

	if (mkdir(r->cfg->out_dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", r->cfg->out_dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof path, "%s/report.json", r->cfg->out_dir);
	if (report_write_json(report_json(r), path, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/report.md", r->cfg->out_dir);
	if (report_write_md(v, path, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/report.html", r->cfg->out_dir);
	return report_write_html(v, path, err, errlen);
}
