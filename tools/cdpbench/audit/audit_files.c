/* audit_files: an audit's files in cfg->out_dir: audit.json from the figures,
 * audit.md and audit.html from the view. */
#include "audit_view.h"

#include <stdio.h>

#include "report.h"

int audit_write_files(const struct audit *a, const struct audit_view *v, char *err,
		      size_t errlen)
{
	char path[BENCH_PATH_MAX + 32];

	snprintf(path, sizeof path, "%s/audit.json", a->cfg->out_dir);
	if (report_write_json(audit_json(a), path, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/audit.md", a->cfg->out_dir);
	if (audit_write_md(v, path, err, errlen) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/audit.html", a->cfg->out_dir);
	return audit_write_html(v, path, err, errlen);
}
