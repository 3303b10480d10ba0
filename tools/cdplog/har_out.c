/* har_out: one HAR file written as it goes: its head, each entry as it
 * completes, the pages (kept in a temporary file meanwhile, as they close
 * after their entries) and the end. */
#include "har.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cdplog.h"
#include "util.h"

/* path made anew, never an existing file nor through a link at it (a
 * name built from the log's data): NULL with errno EEXIST when something
 * is there. */
static FILE *create_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (fd >= 0 && !f)
		close(fd);
	return f;
}

struct har_out *har_out_open(const char *path, int anew, const char *source, char *err, size_t errlen)
{
	struct har_out *o;
	FILE *f = !path || !strcmp(path, "-") ? stdout : anew ? create_new(path) : fopen(path, "w");
	FILE *pages = tmpfile();
	json_t *creator;

	if (!f || !pages) {
		if (!f && anew && errno == EEXIST)
			snprintf(err, errlen, "cannot create %s: it exists (--per-session writes only new "
				 "files, never over a file nor through a link: remove it or choose another -o)", path);
		else
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

/* The name part of session s's file: its id (connN without one) when that
 * is at most 40 letters, digits and '-'; any other is cleaned (no '/', no
 * "..", nothing a shell reads) and cut to 40, and the hash of the whole id
 * added, so two ids never share a name (S/1 and S.1, two of 41 characters
 * alike in 40). A name this run used already (a hash alike, a session
 * forgotten and seen again) gets -2, -3, ... */
static void file_id(struct har *h, const struct har_sess *s, char *id, size_t idlen)
{
	char conn[32], plain[48];
	const char *raw = s->session;
	size_t n, k = 0;
	int clean = 1;

	if (!raw) {
		snprintf(conn, sizeof conn, "conn%" PRIu64, s->conn);
		raw = conn;
	}
	n = strlen(raw);
	for (size_t i = 0; i < n && k < 40; i++) {
		char c = raw[i];
		int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
		plain[k++] = ok ? c : '_';
		clean &= ok;
	}
	plain[k] = '\0';
	if (clean && n <= 40)
		snprintf(id, idlen, "%s", plain);
	else
		snprintf(id, idlen, "%s-%016" PRIx64, plain, table_hash(raw, n));
	k = strlen(id);
	for (uint64_t seq = 2; table_get(&h->names, id, strlen(id)); seq++)
		snprintf(id + k, idlen - k, "-%" PRIu64, seq);
	*table_put(&h->names, id, strlen(id)) = NULL;
}

struct har_out *har_out_for(struct har *h, struct har_sess *s)
{
	char *path, id[96];
	const char *base = h->o->out;
	size_t n = strlen(base);

	if (!h->o->per_session)
		return h->out;
	if (s->out || h->failed)
		return s->out;
	if (n > 4 && !strcmp(base + n - 4, ".har"))
		n -= 4;
	file_id(h, s, id, sizeof id);
	path = xmalloc(n + strlen(id) + 8);
	sprintf(path, "%.*s-%s.har", (int)n, base, id);
	if (!(s->out = har_out_open(path, 1, h->source, h->err, sizeof h->err)))
		h->failed = 1;
	free(path);
	return s->out;
}
