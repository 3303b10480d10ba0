/* logrec: reading a log line by line into records, their bodies, the
 * commands awaiting an answer, and the time formats every view shares. */
#include "logrec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

int logrec_read(FILE *f, logrec_fn fn, void *arg, struct logrec_input *in, char *err,
		size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	while ((n = getline(&line, &cap, f)) >= 0) {
		json_error_t jerr;
		json_t *obj;
		struct logrec r;

		in->lines++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		if (!n)
			continue;
		obj = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, &jerr);
		if (!obj || logrec_from(obj, in->lines, &r) < 0) {
			if (!in->bad++) {
				in->first_bad = in->lines;
				snprintf(in->first_bad_why, sizeof in->first_bad_why, "%s",
					 obj ? "not a record (an object with a numeric t)" : jerr.text);
			}
			json_decref(obj);
			continue;
		}
		in->records++;
		if (!in->t_first || r.t < in->t_first)
			in->t_first = r.t;
		if (r.t > in->t_last)
			in->t_last = r.t;
		fn(&r, arg);
		json_decref(obj);
		/* One huge body must not keep its buffer for the rest of the file. */
		if (cap > 1 << 20) {
			free(line);
			line = NULL;
			cap = 0;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "read failed at line %" PRIu64 ": %s", in->lines + 1,
			 strerror(errno));
		rc = -1;
	}
	free(line);
	return rc;
}

static uint64_t get_u64(json_t *o, const char *k, int *has)
{
	json_t *v = json_object_get(o, k);

	if (has)
		*has = json_is_integer(v);
	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

int logrec_from(json_t *obj, uint64_t line, struct logrec *r)
{
	const char *dir;

	memset(r, 0, sizeof *r);
	if (!json_is_object(obj) || !json_is_integer(json_object_get(obj, "t")))
		return -1;
	r->obj = obj;
	r->line = line;
	r->t = get_u64(obj, "t", NULL);
	r->conn = get_u64(obj, "conn", NULL);
	r->gen = get_u64(obj, "gen", NULL);
	r->kind = json_string_value(json_object_get(obj, "kind"));
	if (!r->kind)
		r->kind = "";
	dir = json_string_value(json_object_get(obj, "dir"));
	r->is_msg = dir != NULL;
	r->up = dir && !strcmp(dir, "up");
	r->has_id = json_is_integer(json_object_get(obj, "id"));
	r->id = r->has_id ? json_integer_value(json_object_get(obj, "id")) : 0;
	r->method = json_string_value(json_object_get(obj, "method"));
	r->session = json_string_value(json_object_get(obj, "session"));
	r->bytes = get_u64(obj, "bytes", NULL);
	r->rtt_us = get_u64(obj, "rtt_us", &r->has_rtt);
	r->has_error = json_is_integer(json_object_get(obj, "error"));
	r->error = r->has_error ? json_integer_value(json_object_get(obj, "error")) : 0;
	r->action = json_string_value(json_object_get(obj, "action"));
	r->by_proxy = json_is_string(json_object_get(obj, "by")) && r->is_msg;
	if (!strcmp(r->kind, "bidi")) {
		r->is_bidi = 1;
		r->bidi_type = json_string_value(json_object_get(obj, "type"));
		if (!r->bidi_type)
			r->bidi_type = "";
		dir = json_string_value(json_object_get(obj, "carrier"));   /* an invalid one's */
		r->up = !strcmp(r->bidi_type, "command") || (dir && !strcmp(dir, "Runtime.evaluate"));
		r->channel = json_string_value(json_object_get(obj, "channel"));
		r->bidi_error = json_string_value(json_object_get(obj, "error"));
	}
	return 0;
}

json_t *logrec_body(const struct logrec *r)
{
	json_t *b = json_object_get(r->obj, "body");

	if (json_is_true(json_object_get(r->obj, "truncated")))
		return NULL;
	if (json_is_object(b))
		return json_incref(b);
	if (json_is_string(b)) {
		json_t *o = json_loadb(json_string_value(b), json_string_length(b), 0, NULL);
		if (json_is_object(o))
			return o;
		json_decref(o);
	}
	return NULL;
}

void logrec_params(const struct logrec *r, char *out, size_t outlen)
{
	json_t *body, *params;
	char *s;

	out[0] = '\0';
	if (!json_object_get(r->obj, "body"))
		return;
	if (!(body = logrec_body(r))) {
		snprintf(out, outlen, "(params cut at %zu bytes)",
			 json_string_length(json_object_get(r->obj, "body")));
		return;
	}
	params = json_object_get(body, "params");
	s = params && json_object_size(params) ? json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (s)
		util_copy(out, s, outlen);
	free(s);
	json_decref(body);
}

const char *logrec_error_message(const struct logrec *r, json_t **hold)
{
	json_t *body = logrec_body(r);

	*hold = body;
	return json_string_value(json_object_get(json_object_get(body, "error"), "message"));
}

void logrec_fmt_us(uint64_t us, char *out, size_t outlen)
{
	if (us < 1000)
		snprintf(out, outlen, "%" PRIu64 "us", us);
	else if (us < 10000)
		snprintf(out, outlen, "%.1fms", (double)us / 1e3);
	else if (us < 1000000)
		snprintf(out, outlen, "%.0fms", (double)us / 1e3);
	else
		snprintf(out, outlen, "%.2fs", (double)us / 1e6);
}

void logrec_fmt_rel(uint64_t t, uint64_t base, char *out, size_t outlen)
{
	if (t >= base)
		snprintf(out, outlen, "+%.3f", (double)(t - base) / 1e6);
	else
		snprintf(out, outlen, "-%.3f", (double)(base - t) / 1e6);
}

void logrec_fmt_utc(uint64_t t, char *out, size_t outlen)
{
	time_t s = (time_t)(t / 1000000);
	struct tm tm;

	gmtime_r(&s, &tm);
	strftime(out, outlen, "%Y-%m-%d %H:%M:%S", &tm);
}

int logrec_parse_time(const char *s, uint64_t base, uint64_t *out, char *err, size_t errlen)
{
	char *end;
	double v, sec;
	struct tm tm;
	int len = 0;

	memset(&tm, 0, sizeof tm);
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%lf%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &sec, &len) == 6 &&
	    (!s[len] || (s[len] == 'Z' && !s[len + 1])) && sec >= 0 && sec < 61) {
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		*out = (uint64_t)timegm(&tm) * 1000000 + (uint64_t)(sec * 1e6);
		return 0;
	}
	errno = 0;
	v = strtod(s[0] == '+' ? s + 1 : s, &end);
	if (errno || end == s || *end || v < 0) {
		snprintf(err, errlen, "'%s' is not a time: seconds since the log's start (12.5), "
			 "microseconds since the epoch, or YYYY-MM-DDTHH:MM:SSZ", s);
		return -1;
	}
	*out = v >= 1e12 ? (uint64_t)v : base + (uint64_t)(v * 1e6);
	return 0;
}

int logrec_session_match(const char *want, const char *s)
{
	if (!want)
		return 1;
	if (!strcmp(want, "-"))
		return !s;
	return s && !strncmp(s, want, strlen(want));
}

/* The commands awaiting an answer are cdplog's own table, not the proxy's
 * (sessions.h): a log merges every connection's, a command stays after its
 * answer until the older ones are shown (pairs keeps the order sent), and an
 * answer's record already names its command's method.
 * Commands are keyed by connection and id: ids are per connection. A BiDi
 * command's id is per CDP session and BiDi channel (ChromeDriver numbers
 * each channel from 1): those two, hashed, are in its key too. */
static size_t cmd_key(char *key, const struct logrec *r)
{
	uint64_t h;
	char sc[512];
	int n;

	memcpy(key, &r->conn, 8);
	memcpy(key + 8, &r->id, 8);
	if (!r->is_bidi)
		return 16;
	n = snprintf(sc, sizeof sc, "%s%c%s", r->session ? r->session : "", 0, r->channel ? r->channel : "");
	h = table_hash(sc, n < 0 ? 0 : (size_t)n < sizeof sc ? (size_t)n : sizeof sc - 1);
	memcpy(key + 16, &h, 8);
	return 24;
}

void logrec_pending_init(struct logrec_pending *p, size_t max)
{
	memset(p, 0, sizeof *p);
	table_init(&p->by_key);
	p->max = max ? max : 1;
}

void logrec_cmd_free(struct logrec_cmd *c)
{
	if (!c)
		return;
	free(c->method);
	free(c->session);
	free(c->params);
	free(c->error_message);
	free(c->channel);
	free(c->error_code);
	free(c);
}

void logrec_pending_unlink(struct logrec_pending *p, struct logrec_cmd *c)
{
	if (table_get(&p->by_key, c->key, c->klen) && *table_get(&p->by_key, c->key, c->klen) == c)
		table_del(&p->by_key, c->key, c->klen);
	if (c->prev)
		c->prev->next = c->next;
	else
		p->oldest = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		p->newest = c->prev;
	c->prev = c->next = NULL;
	p->n--;
}

void logrec_pending_free(struct logrec_pending *p)
{
	while (p->oldest) {
		struct logrec_cmd *c = p->oldest;
		logrec_pending_unlink(p, c);
		logrec_cmd_free(c);
	}
	table_free(&p->by_key, NULL);
}

struct logrec_cmd *logrec_pending_add(struct logrec_pending *p, const struct logrec *r,
				      int with_params, struct logrec_cmd **evicted)
{
	struct logrec_cmd *c = xcalloc(1, sizeof *c);
	void **slot;

	*evicted = NULL;
	if (p->n >= p->max) {
		*evicted = p->oldest;
		logrec_pending_unlink(p, p->oldest);
		p->evicted++;
	}
	c->klen = cmd_key(c->key, r);
	c->bidi = r->is_bidi;
	c->channel = r->channel ? xstrdup(r->channel) : NULL;
	c->t = r->t;
	c->conn = r->conn;
	c->id = r->id;
	c->method = xstrdup(r->method ? r->method : "");
	c->session = r->session ? xstrdup(r->session) : NULL;
	if (with_params) {
		char params[256];
		logrec_params(r, params, sizeof params);
		c->params = xstrdup(params);
	}
	/* A reused id: the older command is no longer the one answered next. */
	slot = table_put(&p->by_key, c->key, c->klen);
	*slot = c;
	c->prev = p->newest;
	if (p->newest)
		p->newest->next = c;
	else
		p->oldest = c;
	p->newest = c;
	p->n++;
	return c;
}

struct logrec_cmd *logrec_pending_find(struct logrec_pending *p, const struct logrec *r)
{
	char key[32];
	size_t klen = cmd_key(key, r);
	void **v = table_get(&p->by_key, key, klen);

	return v ? *v : NULL;
}
