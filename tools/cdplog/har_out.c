/* har_out: one HAR file written as it goes: its head, each entry as it
 * completes, the pages (kept in a temporary file meanwhile, as they close
 * after their entries) and the end. */
#include "har.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cdplog.h"
#include "util.h"

struct har_out *har_out_open(const char *path, const char *source, char *err, size_t errlen)
{
	struct har_out *o;
	FILE *f = path && strcmp(path, "-") ? fopen(path, "w") : stdout;
	FILE *pages = tmpfile();
	json_t *creator;

	if (!f || !pages) {
		snprintf(err, errlen, "cannot open %s: %s", !f ? path : "a temporary file", strerror(errno));
		if (f && f != stdout)
			fclose(f);
		if (pages)
			fclose(pages);
		return NULL;
	}
	o = xcalloc(1, sizeof *o);
	o->path = f == stdout ? NULL : xstrdup(path);
	o->f = f;
	o->pages = pages;
	creator = json_pack("{s:s,s:s,s:o}", "name", "cdplog", "version", CDPPROXY_VERSION, "comment",
			    json_sprintf("from the cdpproxy log %s", source));
	fputs("{\"log\":{\"version\":\"1.2\",\"creator\":", f);
	json_dumpf(creator, f, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	fputs(",\"entries\":[", f);
	json_decref(creator);
	return o;
}

void har_out_entry(struct har_out *o, json_t *entry)
{
	fputs(o->entries++ ? ",\n" : "\n", o->f);
	json_dumpf(entry, o->f, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
}

void har_out_page(struct har_out *o, json_t *page)
{
	fputs(o->npages++ ? ",\n" : "\n", o->pages);
	json_dumpf(page, o->pages, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
}

int har_out_close(struct har_out *o, const char *comment, char *err, size_t errlen)
{
	char buf[1 << 16];
	size_t n;
	int rc = 0;

	fputs("\n],\"pages\":[", o->f);
	rewind(o->pages);
	while ((n = fread(buf, 1, sizeof buf, o->pages)) > 0)
		fwrite(buf, 1, n, o->f);
	fputs("\n]", o->f);
	if (comment) {
		json_t *c = json_string(comment);
		fputs(",\"comment\":", o->f);
		json_dumpf(c, o->f, JSON_COMPACT | JSON_ENCODE_ANY);
		json_decref(c);
	}
	fputs("}}\n", o->f);
	if (ferror(o->pages) || fflush(o->f) || ferror(o->f)) {
		snprintf(err, errlen, "writing %s failed: %s", o->path ? o->path : "the output", strerror(errno));
		rc = -1;
	}
	fclose(o->pages);
	if (o->f != stdout && fclose(o->f) && !rc) {
		snprintf(err, errlen, "writing %s failed: %s", o->path, strerror(errno));
		rc = -1;
	}
	free(o->path);
	free(o);
	return rc;
}

struct har_out *har_out_for(struct har *h, struct har_sess *s)
{
	char *path, id[64];
	const char *base = h->o->out;
	size_t n = strlen(base);

	if (!h->o->per_session)
		return h->out;
	if (s->out || h->failed)
		return s->out;
	if (n > 4 && !strcmp(base + n - 4, ".har"))
		n -= 4;
	if (s->session)
		snprintf(id, sizeof id, "%.40s", s->session);
	else
		snprintf(id, sizeof id, "conn%" PRIu64, s->conn);
	/* The id comes from the log: no '/', no "..", nothing a shell reads. */
	for (char *c = id; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
			*c = '_';
	path = xmalloc(n + strlen(id) + 8);
	sprintf(path, "%.*s-%s.har", (int)n, base, id);
	if (!(s->out = har_out_open(path, h->source, h->err, sizeof h->err)))
		h->failed = 1;
	free(path);
	return s->out;
}
