/* policy_cases_test: runs the data-driven policy cases in tests/policy-cases/
 * through route.c, with the transport replaced by two recording queues. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "route.h"
#include "tap.h"
#include "util.h"

#define MAX_OUT 64

static struct msg *out[2][MAX_OUT];
static size_t n_out[2], next_out[2];

/* The legs, as the core sees them: what it queued is taken at once (after
 * each call into route) and recorded; nothing is ever paused. */
static void take(struct core_conn *cc)
{
	for (int s = DOWN; s <= UP; s++) {
		while (cc->out[s].head) {
			if (n_out[s] < MAX_OUT)
				out[s][n_out[s]++] = queue_pop(&cc->out[s]);
			else
				queue_free_head(&cc->out[s]);
		}
		core_drained(cc, (enum side)s);
	}
}

struct run {
	const char *file;
	int line;
	char name[128];
	struct core core;
	int policy_set;              /* the case set its policy */
	struct core_conn *c;
	int failed_before;
};

static void reset_out(void)
{
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < n_out[s]; i++)
			msg_free(out[s][i]);
		n_out[s] = next_out[s] = 0;
	}
}

static void case_end(struct run *r)
{
	if (!r->c)
		return;
	for (int s = 0; s < 2; s++)
		for (size_t i = next_out[s]; i < n_out[s]; i++)
			ok(0, "%s: %s:%d: nothing more to %s, but got %.*s", r->name, r->file, r->line,
			   s == UP ? "Chrome" : "the client", (int)out[s][i]->len,
			   (char *)out[s][i]->buf + MSG_PRE);
	reset_out();
	core_conn_free(r->c);
	free(r->c);
	r->c = NULL;
}

static void case_start(struct run *r, const char *path)
{
	r->c = xcalloc(1, sizeof *r->c);
	core_conn_init(&r->core, r->c, NULL, path);   /* route asks nothing of a leg */
	route_conn_opened(r->c);
	take(r->c);
}

static json_t *parse_json(struct run *r, const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);

	if (!j)
		ok(0, "%s:%d: bad JSON in the case: %s", r->file, r->line, je.text);
	return j;
}

static void feed(struct run *r, enum side from, const char *text)
{
	size_t n = strlen(text);
	struct msg *m = msg_new(n);

	memcpy(m->buf + MSG_PRE, text, n);
	m->len = n;
	/* Each message a read of its own, as proxy_read_clock sees it. */
	core_read_clock(&r->core, NULL);
	route_deliver(r->c, from, m);
	take(r->c);
}

/* The next message queued for side s must equal want (as JSON). */
static void expect(struct run *r, enum side s, const char *want_text, const char *verb)
{
	json_t *want = parse_json(r, want_text), *got = NULL;
	struct msg *m = next_out[s] < n_out[s] ? out[s][next_out[s]++] : NULL;

	if (m)
		got = json_loadb((char *)m->buf + MSG_PRE, m->len, 0, NULL);
	ok(want && got && json_equal(want, got), "%s: %s %s", r->name, verb, want_text);
	if (!(want && got && json_equal(want, got)))
		printf("#   %s:%d: got %.*s\n", r->file, r->line, m ? (int)m->len : 6,
		       m ? (char *)m->buf + MSG_PRE : "(none)");
	json_decref(want);
	json_decref(got);
}

/* The last message expected for side s is held back ms milliseconds. */
static void expect_delay(struct run *r, enum side s, long ms)
{
	struct msg *m = next_out[s] ? out[s][next_out[s] - 1] : NULL;
	int64_t left = m ? (int64_t)m->not_before_us - (int64_t)util_mono_us() : -1;

	ok(m && left > (ms - 100) * 1000 && left <= ms * 1000, "%s: held back %ld ms (%lld us left)",
	   r->name, ms, (long long)left);
}

static void bad_policy(struct run *r, const char *doc_text, const char *want_err)
{
	json_t *doc = parse_json(r, doc_text);
	char err[512] = "";
	struct policy *p = doc ? policy_parse(doc, "case", "case.json", err, sizeof err) : NULL;

	ok(!p, "%s: policy refused", r->name);
	is_str(err, want_err, "%s: with the reason", r->name);
	policy_free(p);
	json_decref(doc);
}

static void set_policy(struct run *r, const char *text, int sync)
{
	json_t *doc = parse_json(r, text);
	char err[512];
	struct policy *p = doc ? policy_parse(doc, "case", "case.json", err, sizeof err) : NULL;

	if (!p) {
		ok(0, "%s:%d: policy: %s", r->file, r->line, doc ? err : "not JSON");
		json_decref(doc);
		return;
	}
	json_decref(doc);
	if (sync && r->c) {
		route_set_policy(&r->core, p, "case");
		if (r->c)
			take(r->c);
		return;
	}
	/* A case's policy before its first message: no switch, no re-sync. */
	policy_free(r->core.policy);
	r->core.policy = p;
	r->policy_set = 1;
}

/* One line of a case file: "verb rest". */
static void run_line(struct run *r, char *line)
{
	char *rest = strchr(line, ' ');

	if (rest)
		*rest++ = '\0';
	else
		rest = line + strlen(line);
	if (!strcmp(line, "policy")) {
		set_policy(r, rest, 0);
	} else if (!strcmp(line, "switch")) {
		set_policy(r, rest, 1);
	} else if (!strcmp(line, "path")) {
		case_end(r);
		case_start(r, rest);
	} else if (!strcmp(line, "client") || !strcmp(line, "chrome")) {
		if (!r->c)
			case_start(r, "/devtools/browser/b");
		feed(r, line[1] == 'l' ? DOWN : UP, rest);
	} else if (!strcmp(line, "up") || !strcmp(line, "down")) {
		expect(r, line[0] == 'u' ? UP : DOWN, rest, line[0] == 'u' ? "to Chrome" : "to the client");
	} else if (!strcmp(line, "delay-up") || !strcmp(line, "delay-down")) {
		expect_delay(r, line[6] == 'u' ? UP : DOWN, strtol(rest, NULL, 10));
	} else if (!strcmp(line, "stats")) {   /* stats SESSION DOMAIN-SET JSON */
		char sid[128], set[32];
		int used = 0;
		json_t *want, *sessions = sessions_json(&r->c->sessions), *se, *got = NULL;
		size_t i;
		if (sscanf(rest, "%127s %31s %n", sid, set, &used) < 2)
			ok(0, "%s:%d: stats SESSION SET JSON", r->file, r->line);
		if (!strcmp(sid, "-"))
			sid[0] = '\0';
		want = parse_json(r, rest + used);
		json_array_foreach(sessions, i, se)
			if (!strcmp(json_string_value(json_object_get(se, "sessionId")), sid))
				got = json_object_get(se, set);
		ok(want && got && json_equal(want, got), "%s: session '%s' %s is %s", r->name, sid, set,
		   rest + used);
		if (got && !(want && json_equal(want, got))) {
			char *s = json_dumps(got, JSON_COMPACT);
			printf("#   got %s\n", s);
			free(s);
		}
		json_decref(want);
		json_decref(sessions);
	} else if (!strcmp(line, "bad-policy")) {
		char *err = strstr(rest, " => ");
		if (!err) {
			ok(0, "%s:%d: bad-policy JSON => ERROR", r->file, r->line);
			return;
		}
		*err = '\0';
		bad_policy(r, rest, err + 4);
	} else if (!strcmp(line, "hits")) {   /* hits RULE N */
		int rule = -1;
		long long n = -1;
		sscanf(rest, "%d %lld", &rule, &n);
		ok(rule >= 0 && (size_t)rule < r->core.policy->n_rules &&
		   (long long)r->core.policy->rules[rule].hits == n, "%s: rule %d decided %lld", r->name, rule, n);
	} else {
		ok(0, "%s:%d: unknown verb '%s'", r->file, r->line, line);
	}
}

static void run_file(const char *dir, const char *name)
{
	char path[256], line[8192];
	struct run r = { .file = path };
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "r"))) {
		ok(0, "cannot open %s", path);
		return;
	}
	core_init(&r.core, NULL, NULL, 1u << 30);
	while (fgets(line, sizeof line, f)) {
		r.line++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' && line[1] == ' ' && !r.c && !r.policy_set) {
			snprintf(r.name, sizeof r.name, "%.100s", line + 2);   /* a case's title */
			continue;
		}
		if (line[0] == '#')
			continue;
		if (!line[0]) {   /* a blank line ends a case */
			case_end(&r);
			policy_free(r.core.policy);
			r.core.policy = policy_passthrough();
			r.policy_set = 0;
			continue;
		}
		run_line(&r, line);
	}
	case_end(&r);
	core_free(&r.core);
	fclose(f);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/policy-cases";
	struct dirent **names;
	int n = scandir(dir, &names, NULL, by_name);

	int files = 0;

	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);
		if (len > 5 && !strcmp(names[i]->d_name + len - 5, ".test")) {
			run_file(dir, names[i]->d_name);
			files++;
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	ok(files > 0, "%d policy case files found in %s and run", files, dir);
	return tap_done();
}
