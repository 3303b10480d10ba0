/* policy_check: a parsed policy held against the protocol table: unknown
 * methods and events (with the nearest known name), parameters a method does
 * not take, values of the wrong JSON type. */
#include "policy_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "protocol.h"
#include "util.h"

/* Names longer than this get no "did you mean": no CDP name is that long,
 * and the distance costs their product. */
#define NAME_MAX_SUGGEST 96
/* The work a policy may cost, in table entries looked at (about a quarter
 * of a second): a 1 MiB PUT of rules on "*" must not hold up the loop. */
#define CHECK_BUDGET 1000000

struct check {
	const struct policy *p;
	json_t *out;
	size_t left_out;
	size_t budget;              /* CHECK_BUDGET, less what was spent */
	int stopped;                /* the budget ran out */
};

/* Is there room for another warning? If not, it is counted as left out, so
 * that a huge policy costs no more than POLICY_CHECK_MAX suggestions. */
static int room(struct check *c)
{
	if (json_array_size(c->out) < POLICY_CHECK_MAX)
		return 1;
	c->left_out++;
	return 0;
}

__attribute__((format(printf, 3, 4)))
static void warn(struct check *c, const char *path, const char *fmt, ...)
{
	char line[640];
	va_list ap;
	int n;

	if (!room(c))
		return;
	n = snprintf(line, sizeof line, "%s: %s: ", c->p->source, path);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof line)
		vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	json_array_append_new(c->out, util_json_str(line));
}

/* Takes units of work from the budget: 0 when it has run out (said once,
 * at path), and nothing more is checked. */
static int spend(struct check *c, size_t units, const char *path)
{
	if (c->stopped)
		return 0;
	if (units > c->budget) {
		c->stopped = 1;
		warn(c, path, "the policy is too large to check whole: not checked from here on");
		return 0;
	}
	c->budget -= units;
	return 1;
}

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and swaps of two neighbours cost 1 ("enabel" is 1 from "enable"). Both
 * lengths are at most NAME_MAX_SUGGEST. */
static size_t distance(const char *a, size_t m, const char *b, size_t n)
{
	size_t rows[3][NAME_MAX_SUGGEST + 1], *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	for (size_t j = 0; j <= n; j++)
		prev[j] = j;
	for (size_t i = 1; i <= m; i++) {
		size_t *t;
		cur[0] = i;
		for (size_t j = 1; j <= n; j++) {
			size_t cost = a[i - 1] != b[j - 1], best = prev[j - 1] + cost;
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[n];
}

/* The closest candidate to a name, if close: at most 1 edit per 8
 * characters, plus one, and never more than 3. */
struct nearest {
	const char *want;
	size_t want_len, best_d;
	const char *best;
	size_t best_len;
};

static void nearest_init(struct nearest *nb, const char *want)
{
	size_t len = strlen(want), limit = 1 + len / 8;

	*nb = (struct nearest){ want, len, (limit < 3 ? limit : 3) + 1, NULL, 0 };
}

static void nearest_consider(struct nearest *nb, const char *cand, size_t len)
{
	size_t d;

	/* The length difference alone is at least the distance: most
	 * candidates end here. */
	if (nb->want_len > NAME_MAX_SUGGEST || len > NAME_MAX_SUGGEST ||
	    (len > nb->want_len ? len - nb->want_len : nb->want_len - len) >= nb->best_d)
		return;
	d = distance(nb->want, nb->want_len, cand, len);
	if (d < nb->best_d) {
		nb->best_d = d;
		nb->best = cand;
		nb->best_len = len;
	}
}

/* " (did you mean X?)" or "", in buf. */
static const char *nearest_text(const struct nearest *nb, char *buf, size_t buflen)
{
	if (!nb->best)
		return "";
	snprintf(buf, buflen, " (did you mean %.*s?)", (int)nb->best_len, nb->best);
	return buf;
}

/* Does a rule of these kinds reach method m? A command is matched as a
 * command and by its response. */
static int kind_fits(const struct protocol_method *m, unsigned kinds)
{
	return m->kind == 'e' ? !!(kinds & PK_EVENT) : !!(kinds & (PK_COMMAND | PK_RESPONSE));
}

/* "a command", "an event", "a command or event"; plural: "commands", ... */
static const char *kinds_text(unsigned kinds, int plural)
{
	int k = !(kinds & PK_EVENT) ? 0 : kinds & (PK_COMMAND | PK_RESPONSE) ? 2 : 1;
	static const char *const text[2][3] = {
		{ "a command", "an event", "a command or event" },
		{ "commands", "events", "commands and events" },
	};

	return text[plural][k];
}

static int is_pattern(const char *g)
{
	for (; *g; g++) {
		if (*g == '\\' && g[1])
			g++;
		else if (*g == '*' || *g == '?')
			return 1;
	}
	return 0;
}

/* A glob without pattern characters, its quoting removed, into buf. */
static const char *unquote(const char *g, char *buf, size_t buflen)
{
	size_t n = 0;

	for (; *g && n + 1 < buflen; g++) {
		if (*g == '\\' && g[1])
			g++;
		buf[n++] = *g;
	}
	buf[n] = '\0';
	return buf;
}

/* A JSON value's type as a shape letter; 'z' for null. */
static char value_type(const json_t *v)
{
	static const char letters[] = { 'o', 'a', 's', 'i', 'n', 'b', 'b', 'z' };

	return letters[json_typeof(v)];
}

static const char *type_text(char t)
{
	switch (t) {
	case 'o': return "an object";
	case 'a': return "an array";
	case 's': return "a string";
	case 'i': return "an integer";
	case 'n': return "a number";
	case 'b': return "a boolean";
	default: return "null";
	}
}

static int type_accepts(char want, const json_t *v)
{
	char t = value_type(v);

	return want == '*' || want == t || (want == 'n' && t == 'i');
}

/* The methods a rule is checked against, and which of their shapes: params
 * for commands (PK_COMMAND) and events (PK_EVENT), returns for responses. */
struct target {
	const struct protocol_method **ms;
	size_t n;
	unsigned kinds;
	const char *name;           /* "Network.enable", or the rule's pattern */
	int pattern;
};

static const char *shapes_of(const struct protocol_method *m, unsigned kinds, const char **second)
{
	*second = NULL;
	if (m->kind == 'e')
		return kinds & PK_EVENT ? m->params : NULL;
	if (kinds & PK_RESPONSE)
		*second = m->returns;
	return kinds & PK_COMMAND ? m->params : NULL;
}

/* Checks one member of params (result, for responses) against the target's
 * shapes: unknown name, or value (NULL: a name to remove) of another type. */
static void check_member(struct check *c, const char *path, const struct target *t,
			 const char *key, const json_t *value)
{
	const char *noun = t->kinds & PK_RESPONSE ? t->kinds & (PK_COMMAND | PK_EVENT) ?
		"parameter or result member" : "result member" : "parameter";
	const char *typed_by = NULL, *shape[2];
	char want = 0, hint[160];
	struct nearest nb;
	int found = 0, suggest = json_array_size(c->out) < POLICY_CHECK_MAX;

	if (!spend(c, t->n, path))
		return;
	nearest_init(&nb, key);
	for (size_t i = 0; i < t->n; i++) {
		shape[0] = shapes_of(t->ms[i], t->kinds, &shape[1]);
		for (int s = 0; s < 2; s++) {
			char ty = shape[s] ? protocol_member_type(shape[s], key) : 0;
			if (ty && (!value || type_accepts(ty, value)))
				return;
			if (ty) {
				found = 1;
				if (!want) {
					want = ty;
					typed_by = t->ms[i]->name;
				}
			}
			for (const char *p = shape[s]; !found && suggest && p && *p; ) {
				const char *colon = strchr(p, ':');
				nearest_consider(&nb, p, (size_t)(colon - p));
				p = colon + 2;
				p += *p == ' ';
			}
		}
	}
	if (found)
		warn(c, path, "'%.100s' of %s is %s, not %s", key, typed_by, type_text(want),
		     type_text(value_type(value)));
	else if (t->pattern)
		warn(c, path, "no method matching '%.100s' has a %s '%.100s'%s", t->name, noun, key,
		     nearest_text(&nb, hint, sizeof hint));
	else
		warn(c, path, "%s has no %s '%.100s'%s", t->name, noun, key,
		     nearest_text(&nb, hint, sizeof hint));
}

static void check_members(struct check *c, const char *path, const struct target *t,
			  const json_t *obj)
{
	const char *key;
	json_t *v;
	char p[320];

	json_object_foreach((json_t *)obj, key, v) {
		snprintf(p, sizeof p, "%s.%.100s", path, key);
		check_member(c, p, t, key, v);
	}
}

/* A name the protocol does not have, with the nearest one of these kinds. */
static void unknown_name(struct check *c, const char *path, const char *name, unsigned kinds)
{
	char hint[160];
	struct nearest nb;

	if (!room(c) || !spend(c, protocol_n_methods, path))
		return;
	nearest_init(&nb, name);
	for (size_t i = 0; i < protocol_n_methods; i++)
		if (kind_fits(&protocol_methods[i], kinds))
			nearest_consider(&nb, protocol_methods[i].name, strlen(protocol_methods[i].name));
	warn(c, path, "'%.100s' is not %s of the protocol%s", name, kinds_text(kinds, 0),
	     nearest_text(&nb, hint, sizeof hint));
}

/* A rule's method glob that reaches no method of the protocol: why. */
static void unknown_method(struct check *c, const char *path, const char *glob, unsigned kinds)
{
	const struct protocol_method *m;
	char name[160];

	if (is_pattern(glob)) {
		warn(c, path, "'%.100s' matches none of the protocol's %s", glob,
		     kinds_text(kinds, 1));
		return;
	}
	unquote(glob, name, sizeof name);
	if ((m = protocol_find(name, strlen(name))))
		warn(c, path, "%s is %s, and this rule matches %s only", name,
		     m->kind == 'e' ? "an event" : "a command", kinds_text(kinds, 1));
	else
		unknown_name(c, path, name, kinds);
}

static void check_rule(struct check *c, size_t index, const struct policy_rule *r,
		       const struct protocol_method **ms)
{
	char path[64], p[192];
	struct target t = { ms, 0, r->kinds, r->method, is_pattern(r->method) };
	size_t i;
	json_t *k;

	snprintf(path, sizeof path, "$.rules[%zu]", index);
	if (!spend(c, t.pattern ? protocol_n_methods : 1, path))
		return;
	if (!t.pattern) {   /* one name: a lookup, not a pass over the table */
		const struct protocol_method *pm;
		unquote(r->method, p, sizeof p);
		if ((pm = protocol_find(p, strlen(p))) && kind_fits(pm, r->kinds))
			ms[t.n++] = pm;
	}
	for (size_t m = 0; t.pattern && m < protocol_n_methods; m++) {
		const struct protocol_method *pm = &protocol_methods[m];
		if (kind_fits(pm, r->kinds) && glob_match(r->method, pm->name, strlen(pm->name)))
			ms[t.n++] = pm;
	}
	if (!t.n) {
		snprintf(p, sizeof p, "%s.method", path);
		unknown_method(c, p, r->method, r->kinds);
		return;
	}
	if (!t.pattern)
		t.name = ms[0]->name;
	if (r->action == ACT_REWRITE) {
		snprintf(p, sizeof p, "%s.params", path);
		check_members(c, p, &t, r->merge);
		json_array_foreach(r->remove, i, k) {
			snprintf(p, sizeof p, "%s.remove[%zu]", path, i);
			check_member(c, p, &t, json_string_value(k), NULL);
		}
	} else if (r->action == ACT_STUB) {
		t.kinds = PK_RESPONSE;   /* a stub's result stands for Chrome's */
		snprintf(p, sizeof p, "%s.result", path);
		check_members(c, p, &t, r->result);
	}
}

static void check_inject(struct check *c, size_t index, const struct policy_inject *in)
{
	const struct protocol_method *m;
	const char *name;
	char path[96], p[112];
	size_t j;
	json_t *cmd;

	json_array_foreach(in->commands, j, cmd) {
		struct target t = { &m, 1, PK_COMMAND, NULL, 0 };
		name = json_string_value(json_object_get(cmd, "method"));
		snprintf(path, sizeof path, "$.inject[%zu].commands[%zu]", index, j);
		if (!spend(c, 1, path))
			return;
		m = protocol_find(name, strlen(name));
		snprintf(p, sizeof p, "%s.method", path);
		if (m && m->kind != 'c') {
			warn(c, p, "%s is an event; only commands can be injected", m->name);
			continue;
		}
		if (!m) {
			unknown_name(c, p, name, PK_COMMAND);
			continue;
		}
		t.name = m->name;
		snprintf(p, sizeof p, "%s.params", path);
		check_members(c, p, &t, json_object_get(cmd, "params"));
	}
}

json_t *policy_check(const struct policy *p)
{
	struct check c = { p, json_array(), 0, CHECK_BUDGET, 0 };
	const struct protocol_method **ms = xmalloc(protocol_n_methods * sizeof *ms);

	for (size_t i = 0; i < p->n_rules; i++)
		check_rule(&c, i, &p->rules[i], ms);
	for (size_t i = 0; i < p->n_injects; i++)
		check_inject(&c, i, &p->injects[i]);
	free(ms);
	if (c.left_out) {
		char line[160];
		snprintf(line, sizeof line, "%s: %zu more warnings left out", p->source, c.left_out);
		json_array_append_new(c.out, util_json_str(line));
	}
	return c.out;
}
