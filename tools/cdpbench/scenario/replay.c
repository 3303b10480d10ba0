/* replay: the command sequence a real client sent to a page, read from a replay
 * file or straight from a cdpproxy --log, and written back as a replay file. */
#include "replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util.h"

/* Commands that would take the page away from the bench: never replayed. */
static const char *const never_replayed[] = {
	"Page.navigate", "Page.reload", "Page.close", "Page.navigateToHistoryEntry",
	"Target.closeTarget", "Target.detachFromTarget", "Browser.close",
};

struct rec {
	size_t line;
	json_t *j;
};

/* A connection and session that sent commands up. */
struct sess {
	json_int_t conn;
	const char *session;      /* "" for the connection's own target */
	size_t ncmds;
	int page_enable;
};

static int replayable(const char *method)
{
	for (size_t i = 0; i < sizeof never_replayed / sizeof never_replayed[0]; i++)
		if (!strcmp(method, never_replayed[i]))
			return 0;
	return 1;
}

/* Splits text into JSON objects, one per line. A last line without its
 * newline that does not parse is a log cut mid-write: ignored. */
static int split_lines(const char *text, size_t len, const char *origin, struct rec **out,
		       size_t *nout, char *err, size_t errlen)
{
	struct rec *v = NULL;
	size_t n = 0, lineno = 0;

	for (size_t off = 0; off < len; ) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t end = nl ? (size_t)(nl - text) : len, a = off;
		json_error_t je;
		json_t *j;

		lineno++;
		off = end + 1;
		while (a < end && (text[a] == ' ' || text[a] == '\t' || text[a] == '\r'))
			a++;
		if (a == end || text[a] == '#')
			continue;
		j = json_loadb(text + a, end - a, JSON_ALLOW_NUL, &je);
		if (!j && !nl)
			break;
		if (!j || !json_is_object(j)) {
			snprintf(err, errlen, "%s:%zu: %s%s", origin, lineno,
				 j ? "not a JSON object" : "not JSON: ", j ? "" : je.text);
			json_decref(j);
			goto fail;
		}
		v = xrealloc(v, (n + 1) * sizeof *v);
		v[n].line = lineno;
		v[n++].j = j;
	}
	*out = v;
	*nout = n;
	return 0;
fail:
	for (size_t i = 0; i < n; i++)
		json_decref(v[i].j);
	free(v);
	return -1;
}

static void cmd_push(struct scenario_cmd **cmds, size_t *n, const char *method, json_t *params)
{
	*cmds = xrealloc(*cmds, (*n + 1) * sizeof **cmds);
	(*cmds)[*n].method = xstrdup(method);
	(*cmds)[*n].params = params ? json_dumps(params, JSON_COMPACT | JSON_PRESERVE_ORDER)
				    : xstrdup("{}");
	(*n)++;
}

/* Replaces, everywhere inside v, the string target with SCENARIO_TARGET. */
static void mark_target(json_t *v, const char *target)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, x) {
			if (json_is_string(x) && !strcmp(json_string_value(x), target))
				json_object_set_new(v, k, json_string(SCENARIO_TARGET));
			else
				mark_target(x, target);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x) {
			if (json_is_string(x) && !strcmp(json_string_value(x), target))
				json_array_set_new(v, i, json_string(SCENARIO_TARGET));
			else
				mark_target(x, target);
		}
	}
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The one {"method","params"} per line format. */
static int from_replay_format(struct rec *r, size_t n, const char *origin,
			      struct scenario_cmd **cmds, size_t *ncmds, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const char *method = str_of(r[i].j, "method");
		json_t *params = json_object_get(r[i].j, "params");

		if (!method || !strchr(method, '.') || method[0] == '.') {
			snprintf(err, errlen, "%s:%zu: wants \"method\": \"Domain.command\"", origin,
				 r[i].line);
			return -1;
		}
		if (params && !json_is_object(params)) {
			snprintf(err, errlen, "%s:%zu: \"params\" must be an object", origin, r[i].line);
			return -1;
		}
		if (replayable(method))
			cmd_push(cmds, ncmds, method, params);
	}
	return 0;
}

/* The target id of the chosen session, from the log; NULL if unknown. */
static char *find_target(struct rec *r, size_t n, const struct sess *s)
{
	for (size_t i = 0; i < n; i++) {
		json_t *j = r[i].j, *msg, *params, *body = json_object_get(j, "body");
		const char *kind = str_of(j, "kind"), *path = str_of(j, "path"), *sid;
		char *id = NULL;

		if (json_integer_value(json_object_get(j, "conn")) != s->conn || !kind)
			continue;
		if (!*s->session && !strcmp(kind, "open") && path &&
		    !strncmp(path, "/devtools/page/", 15))
			return xstrdup(path + 15);
		if (!*s->session || strcmp(kind, "event") ||
		    !(str_of(j, "method") && !strcmp(str_of(j, "method"), "Target.attachedToTarget")) ||
		    !(msg = json_is_object(body) ? json_incref(body) :
			    json_loads(json_string_value(body) ? json_string_value(body) : "", 0, NULL)))
			continue;
		params = json_object_get(msg, "params");
		sid = str_of(params, "sessionId");
		if (sid && !strcmp(sid, s->session))
			id = xstrdup(str_of(json_object_get(params, "targetInfo"), "targetId") ?
				     str_of(json_object_get(params, "targetInfo"), "targetId") : "");
		json_decref(msg);
		if (id && *id)
			return id;
		free(id);
	}
	return NULL;
}

/* A cdpproxy --log: the commands of the busiest page session. */
static int from_log(struct rec *r, size_t n, const char *origin, struct scenario_cmd **cmds,
		    size_t *ncmds, struct scenario_lost *lost, char *err, size_t errlen)
{
	struct sess *ss = NULL, *best = NULL;
	size_t nss = 0;
	char *target;

	for (size_t i = 0; i < n; i++) {
		json_t *j = r[i].j;
		const char *dir = str_of(j, "dir"), *kind = str_of(j, "kind"), *method = str_of(j, "method");
		const char *session = str_of(j, "session") ? str_of(j, "session") : "";
		json_int_t conn = json_integer_value(json_object_get(j, "conn"));
		size_t k;

		if (!dir || strcmp(dir, "up") || !kind || strcmp(kind, "command") || !method)
			continue;
		for (k = 0; k < nss; k++)
			if (ss[k].conn == conn && !strcmp(ss[k].session, session))
				break;
		if (k == nss) {
			ss = xrealloc(ss, (nss + 1) * sizeof *ss);
			ss[nss++] = (struct sess){ conn, session, 0, 0 };
		}
		ss[k].ncmds++;
		ss[k].page_enable |= !strcmp(method, "Page.enable");
	}
	for (size_t k = 0; k < nss; k++)
		if (ss[k].page_enable && (!best || ss[k].ncmds > best->ncmds))
			best = &ss[k];
	if (!best) {
		snprintf(err, errlen, "%s: no page session in this log (no Page.enable was sent up)",
			 origin);
		free(ss);
		return -1;
	}
	target = find_target(r, n, best);
	for (size_t i = 0; i < n; i++) {
		json_t *j = r[i].j, *msg = NULL, *params = NULL;
		const char *dir = str_of(j, "dir"), *kind = str_of(j, "kind"), *method = str_of(j, "method");
		const char *session = str_of(j, "session") ? str_of(j, "session") : "";
		json_t *body = json_object_get(j, "body");

		if (!dir || strcmp(dir, "up") || !kind || strcmp(kind, "command") || !method ||
		    json_integer_value(json_object_get(j, "conn")) != best->conn ||
		    strcmp(session, best->session) || !replayable(method))
			continue;
		/* A whole body is an object, or older logs' JSON text; a cut one is text. */
		if (json_is_true(json_object_get(j, "truncated"))) {
			lost->cut++;
			if (json_string_length(body) > lost->cut_at)
				lost->cut_at = json_string_length(body);
		} else if (json_is_object(body))
			msg = json_incref(body);
		else if (!json_is_string(body) || !(msg = json_loads(json_string_value(body), 0, NULL)))
			lost->no_body++;
		params = json_object_get(msg, "params");
		if (params && target)
			mark_target(params, target);
		cmd_push(cmds, ncmds, method, json_is_object(params) ? params : NULL);
		json_decref(msg);
	}
	free(target);
	free(ss);
	return 0;
}

int replay_parse(const char *text, size_t len, const char *origin,
		 struct scenario_cmd **cmds, size_t *ncmds, struct scenario_lost *lost,
		 char *err, size_t errlen)
{
	struct rec *r;
	size_t n;
	int rc;

	*cmds = NULL;
	*ncmds = 0;
	memset(lost, 0, sizeof *lost);
	if (split_lines(text, len, origin, &r, &n, err, errlen) < 0)
		return -1;
	if (!n) {
		snprintf(err, errlen, "%s: no commands (an empty replay)", origin);
		free(r);
		return -1;
	}
	if (json_object_get(r[0].j, "conn") || json_object_get(r[0].j, "dir"))
		rc = from_log(r, n, origin, cmds, ncmds, lost, err, errlen);
	else
		rc = from_replay_format(r, n, origin, cmds, ncmds, err, errlen);
	for (size_t i = 0; i < n; i++)
		json_decref(r[i].j);
	free(r);
	if (rc == 0 && !*ncmds) {
		snprintf(err, errlen, "%s: no commands left to replay", origin);
		rc = -1;
	}
	if (rc < 0) {
		replay_free(*cmds, *ncmds);
		*cmds = NULL;
		*ncmds = 0;
	}
	return rc;
}

void replay_free(struct scenario_cmd *cmds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(cmds[i].method);
		free(cmds[i].params);
	}
	free(cmds);
}

int replay_load(const char *path, struct scenario_cmd **cmds, size_t *ncmds,
		struct scenario_lost *lost, char *err, size_t errlen)
{
	size_t len;
	char *text;
	int rc;

	*cmds = NULL;
	*ncmds = 0;
	memset(lost, 0, sizeof *lost);
	if (!(text = util_read_file(path, &len, err, errlen)))
		return -1;
	rc = replay_parse(text, len, path, cmds, ncmds, lost, err, errlen);
	free(text);
	return rc;
}

char *replay_format(const struct scenario_cmd *cmds, size_t n)
{
	size_t cap = 256, len = 0;
	char *out = xmalloc(cap);

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		json_t *method = json_string(cmds[i].method);
		char *m = json_dumps(method, JSON_ENCODE_ANY);
		size_t need = strlen(m) + strlen(cmds[i].params) + 32;

		if (len + need >= cap)
			out = xrealloc(out, cap = (len + need) * 2);
		len += (size_t)snprintf(out + len, cap - len, "{\"method\":%s,\"params\":%s}\n", m,
					cmds[i].params);
		free(m);
		json_decref(method);
	}
	return out;
}

char *replay_bind_target(const char *params, const char *target_id)
{
	static const char mark[] = "\"" SCENARIO_TARGET "\"";
	size_t mlen = sizeof mark - 1, hits = 0, n = 0;
	char *out;

	for (const char *p = strstr(params, mark); p; p = strstr(p + mlen, mark))
		hits++;
	out = xmalloc(strlen(params) + hits * (strlen(target_id) + 2) + 1);
	for (const char *p = params; ; ) {
		const char *hit = strstr(p, mark);
		size_t keep = hit ? (size_t)(hit - p) : strlen(p);

		memcpy(out + n, p, keep);
		n += keep;
		if (!hit)
			break;
		n += (size_t)sprintf(out + n, "\"%s\"", target_id);
		p = hit + mlen;
	}
	out[n] = '\0';
	return out;
}

void replay_lost_text(const struct scenario_lost *lost, char *buf, size_t len)
{
	size_t n = lost->cut + lost->no_body;
	int o;

	buf[0] = '\0';
	if (!n)
		return;
	o = snprintf(buf, len, "%zu command%s replay%s with {} params:", n, n == 1 ? "" : "s",
		     n == 1 ? "s" : "");
	if (o < 0 || (size_t)o >= len)
		return;
	if (lost->cut)
		o += snprintf(buf + o, len - (size_t)o, " %zu had %s body cut at %zu bytes by "
			      "cdpproxy's --log-bodies limit (rerun it with a larger --log-bodies=N)%s",
			      lost->cut, lost->cut == 1 ? "its" : "their", lost->cut_at,
			      lost->no_body ? ";" : "");
	if (lost->no_body && o >= 0 && (size_t)o < len)
		snprintf(buf + o, len - (size_t)o, " %zu %s no body in the log (run cdpproxy with "
			 "--log-bodies)", lost->no_body, lost->no_body == 1 ? "has" : "have");
}

void replay_warn_lossy(const char *path, const struct scenario_lost *lost)
{
	char text[512];

	replay_lost_text(lost, text, sizeof text);
	if (*text)
		fprintf(stderr, "cdpbench: %s: %s\n", path, text);
}
