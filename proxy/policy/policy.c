/* policy: ordered rules that decide, per message, pass, stub, reject, rewrite,
 * drop or delay, plus commands to inject when a session attaches. Pure but
 * for policy_load, which reads the file. */
#include "policy.h"

#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "policy_check.h"
#include "policy_mapper.h"
#include "util.h"

static const char *const action_names[] = { "pass", "stub", "reject", "rewrite", "drop", "delay" };
#define N_ACTIONS (sizeof action_names / sizeof action_names[0])

/* The kinds each action may apply to, and the default when a rule names
 * none: a rewrite touches params (commands, events) unless it names
 * responses, whose result it then touches. */
static const unsigned action_kinds[] = {
	PK_COMMAND | PK_EVENT | PK_RESPONSE, PK_COMMAND, PK_COMMAND,
	PK_COMMAND | PK_EVENT | PK_RESPONSE, PK_EVENT, PK_COMMAND | PK_EVENT | PK_RESPONSE,
};
static const unsigned default_kinds[] = {
	PK_COMMAND | PK_EVENT | PK_RESPONSE, PK_COMMAND, PK_COMMAND,
	PK_COMMAND | PK_EVENT, PK_EVENT, PK_COMMAND | PK_EVENT | PK_RESPONSE,
};

const char *policy_action_name(enum policy_action a)
{
	return action_names[a];
}

/* Parsing: every error names the source and the JSON path. */
struct parse {
	const char *source;
	char *err;
	size_t errlen;
	int failed;
};

static int fail(struct parse *ps, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct parse *ps, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ps->failed++)
		return -1;
	n = snprintf(ps->err, ps->errlen, "%s: %s: ", ps->source, path);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < ps->errlen)
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *type_name(const json_t *v)
{
	static const char *const names[] = { "an object", "an array", "a string", "an integer",
					     "a number", "true", "false", "null" };
	return names[json_typeof(v)];
}

static int check_glob(struct parse *ps, const char *path, const char *g)
{
	if (!*g)
		return fail(ps, path, "bad glob: empty");
	for (const char *c = g; *c; c++) {
		if (*c == '\\') {   /* the next character is itself, whatever it is */
			if (!*++c)
				return fail(ps, path, "bad glob '%s': ends in a lone backslash", g);
			continue;
		}
		if (*c == '[' || *c == ']' || *c == '{' || *c == '}')
			return fail(ps, path, "bad glob '%s': only * and ? are special "
				    "(quote '%c' with a backslash)", g, *c);
	}
	return 0;
}

/* A string member, optional; NULL when absent. */
static int get_string(struct parse *ps, const char *path, const json_t *obj, const char *key,
		      char **out)
{
	json_t *v = json_object_get(obj, key);
	char p[256];

	*out = NULL;
	if (!v)
		return 0;
	snprintf(p, sizeof p, "%s.%s", path, key);
	if (!json_is_string(v))
		return fail(ps, p, "must be a string, not %s", type_name(v));
	*out = xstrdup(json_string_value(v));
	return 0;
}

static int check_keys(struct parse *ps, const char *path, const json_t *obj,
		      const char *const *allowed)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		size_t i = 0;
		while (allowed[i] && strcmp(allowed[i], key))
			i++;
		if (!allowed[i])
			return fail(ps, path, "unknown key '%s'", key);
	}
	return 0;
}

static int parse_kinds(struct parse *ps, const char *path, const json_t *v, unsigned *kinds)
{
	static const char *const names[] = { "command", "event", "response" };
	json_t *one;
	size_t i;

	*kinds = 0;
	if (!v)
		return 0;
	if (json_is_string(v)) {
		json_t *arr = json_pack("[O]", v);
		int rc = parse_kinds(ps, path, arr, kinds);
		json_decref(arr);
		return rc;
	}
	if (!json_is_array(v) || !json_array_size(v))
		return fail(ps, path, "must be \"command\", \"event\", \"response\" or an array of them");
	json_array_foreach(v, i, one) {
		size_t k = 0;
		while (k < 3 && !(json_is_string(one) && !strcmp(json_string_value(one), names[k])))
			k++;
		if (k == 3)
			return fail(ps, path, "must be \"command\", \"event\", \"response\" or an array of them");
		*kinds |= 1u << k;
	}
	return 0;
}

static int parse_action_args(struct parse *ps, const char *path, const json_t *j,
			     struct policy_rule *r)
{
	json_t *v;
	char p[256];
	/* The member a message is about: "$.rules[2].ms". */
#define AT(key) (snprintf(p, sizeof p, "%s." key, path), p)

	switch (r->action) {
	case ACT_STUB:
		v = json_object_get(j, "result");
		r->result = v ? json_incref(v) : json_object();
		if (!json_is_object(r->result))
			return fail(ps, AT("result"), "must be an object, not %s", type_name(r->result));
		return 0;
	case ACT_REJECT:
		v = json_object_get(j, "code");
		if (v && !json_is_integer(v))
			return fail(ps, AT("code"), "must be an integer, not %s", type_name(v));
		r->code = v ? json_integer_value(v) : -32000;
		if (get_string(ps, path, j, "message", &r->message))
			return -1;
		if (!r->message)
			r->message = xstrdup("blocked by cdpproxy policy");
		return 0;
	case ACT_REWRITE:
		v = json_object_get(j, "params");
		if (v && !json_is_object(v))
			return fail(ps, AT("params"), "must be an object, not %s", type_name(v));
		r->merge = v ? json_incref(v) : NULL;
		v = json_object_get(j, "remove");
		if (v) {
			size_t i;
			json_t *k;
			if (!json_is_array(v))
				return fail(ps, AT("remove"), "must be an array of key names, not %s",
					    type_name(v));
			json_array_foreach(v, i, k)
				if (!json_is_string(k)) {
					snprintf(p, sizeof p, "%s.remove[%zu]", path, i);
					return fail(ps, p, "must be a string, not %s", type_name(k));
				}
			r->remove = json_incref(v);
		}
		if (!r->merge && !r->remove)
			return fail(ps, path, "rewrite needs \"params\" to merge or \"remove\"");
		return 0;
	case ACT_DELAY:
		v = json_object_get(j, "ms");
		if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 600000)
			return fail(ps, AT("ms"), "delay needs milliseconds, an integer from 0 to 600000, not %s",
				    v ? type_name(v) : "nothing");
		r->delay_ms = (uint64_t)json_integer_value(v);
		return 0;
	default:
		return 0;
	}
#undef AT
}

static int parse_rule(struct parse *ps, const char *path, const json_t *j, struct policy_rule *r)
{
	static const char *const keys[] = { "method", "kind", "target", "url", "action", "log",
		"result", "code", "message", "params", "remove", "ms", "comment", "mapper", NULL };
	char p[256], *action = NULL;
	json_t *log, *mapper;
	size_t a;

	r->log = 1;
	if (!json_is_object(j))
		return fail(ps, path, "a rule must be an object, not %s", type_name(j));
	if (check_keys(ps, path, j, keys) || get_string(ps, path, j, "method", &r->method) ||
	    get_string(ps, path, j, "target", &r->target) || get_string(ps, path, j, "url", &r->url) ||
	    get_string(ps, path, j, "action", &action))
		goto out;
	snprintf(p, sizeof p, "%s.method", path);
	if (!r->method) {
		fail(ps, p, "missing (a glob such as \"Network.enable\", \"Network.*\" or \"*.enable\")");
		goto out;
	}
	if (check_glob(ps, p, r->method))
		goto out;
	snprintf(p, sizeof p, "%s.url", path);
	if (r->url && check_glob(ps, p, r->url))
		goto out;
	snprintf(p, sizeof p, "%s.action", path);
	for (a = 0; action && a < N_ACTIONS && strcmp(action, action_names[a]); a++)
		;
	if (!action || a == N_ACTIONS) {
		fail(ps, p, "%s%s%s (expected pass, stub, reject, rewrite, drop or delay)",
		     action ? "unknown action '" : "missing", action ? action : "", action ? "'" : "");
		goto out;
	}
	r->action = (enum policy_action)a;
	snprintf(p, sizeof p, "%s.kind", path);
	if (parse_kinds(ps, p, json_object_get(j, "kind"), &r->kinds))
		goto out;
	if (!r->kinds)
		r->kinds = default_kinds[a];
	if (r->kinds & ~action_kinds[a]) {
		fail(ps, p, "%s applies to %s", action,
		     action_kinds[a] == PK_EVENT ? "events only (a dropped command or response "
		     "would leave the client waiting)" : "commands only");
		goto out;
	}
	log = json_object_get(j, "log");
	if (log && !json_is_boolean(log)) {
		snprintf(p, sizeof p, "%s.log", path);
		fail(ps, p, "must be true or false, not %s", type_name(log));
		goto out;
	}
	r->log = !log || json_is_true(log);
	mapper = json_object_get(j, "mapper");
	if (mapper && !json_is_boolean(mapper)) {
		snprintf(p, sizeof p, "%s.mapper", path);
		fail(ps, p, "must be true or false, not %s", type_name(mapper));
		goto out;
	}
	r->mapper = mapper ? json_is_true(mapper) : -1;
	parse_action_args(ps, path, j, r);
out:
	free(action);
	return ps->failed ? -1 : 0;
}

static int parse_inject(struct parse *ps, const char *path, const json_t *j, struct policy_inject *in)
{
	static const char *const keys[] = { "target", "commands", "comment", NULL };
	json_t *cmds = json_object_get(j, "commands"), *c;
	char p[256];
	size_t i;

	if (!json_is_object(j))
		return fail(ps, path, "must be an object, not %s", type_name(j));
	if (check_keys(ps, path, j, keys) || get_string(ps, path, j, "target", &in->target))
		return -1;
	snprintf(p, sizeof p, "%s.commands", path);
	if (!json_is_array(cmds))
		return fail(ps, p, "must be an array of {\"method\", \"params\"}");
	json_array_foreach(cmds, i, c) {
		json_t *params = json_object_get(c, "params");
		snprintf(p, sizeof p, "%s.commands[%zu]", path, i);
		if (!json_is_object(c) || !json_is_string(json_object_get(c, "method")) ||
		    !strchr(json_string_value(json_object_get(c, "method")), '.'))
			return fail(ps, p, "must be {\"method\": \"Domain.command\", \"params\": {...}}");
		if (params && !json_is_object(params))
			return fail(ps, p, "\"params\" must be an object, not %s", type_name(params));
	}
	in->commands = json_incref(cmds);
	return 0;
}

struct policy *policy_parse(const json_t *doc, const char *name, const char *source,
			    char *err, size_t errlen)
{
	static const char *const keys[] = { "name", "description", "rules", "inject", "comment", NULL };
	struct parse ps = { source, err, errlen, 0 };
	struct policy *p = xcalloc(1, sizeof *p);
	json_t *rules = json_object_get(doc, "rules"), *inject = json_object_get(doc, "inject"), *v;
	char path[64];
	size_t i;

	p->source = xstrdup(source);
	if (!json_is_object(doc)) {
		fail(&ps, "$", "a policy must be an object, not %s", type_name(doc));
		goto out;
	}
	p->doc = json_deep_copy(doc);
	if (check_keys(&ps, "$", doc, keys) || get_string(&ps, "$", doc, "name", &p->name))
		goto out;
	if (!p->name)
		p->name = xstrdup(name);
	if (rules && !json_is_array(rules)) {
		fail(&ps, "$.rules", "must be an array of rules, not %s", type_name(rules));
		goto out;
	}
	if (inject && !json_is_array(inject)) {
		fail(&ps, "$.inject", "must be an array, not %s", type_name(inject));
		goto out;
	}
	p->rules = xcalloc(json_array_size(rules), sizeof *p->rules);
	json_array_foreach(rules, i, v) {
		snprintf(path, sizeof path, "$.rules[%zu]", i);
		p->n_rules++;
		if (parse_rule(&ps, path, v, &p->rules[i]))
			goto out;
	}
	p->injects = xcalloc(json_array_size(inject), sizeof *p->injects);
	json_array_foreach(inject, i, v) {
		snprintf(path, sizeof path, "$.inject[%zu]", i);
		p->n_injects++;
		if (parse_inject(&ps, path, v, &p->injects[i]))
			goto out;
	}
out:
	if (!ps.failed && policy_mapper_check(p, err, errlen))
		ps.failed = 1;
	if (ps.failed) {
		policy_free(p);
		return NULL;
	}
	p->warnings = policy_check(p);
	return p;
}

struct policy *policy_load(const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	char *copy, *base, *dot;
	struct policy *p;

	if (!doc) {
		if (je.line > 0)
			snprintf(err, errlen, "%s: line %d column %d: %s", path, je.line, je.column, je.text);
		else
			snprintf(err, errlen, "%s: %s", path, je.text);
		return NULL;
	}
	copy = xstrdup(path);
	base = basename(copy);
	if ((dot = strrchr(base, '.')) && dot != base)
		*dot = '\0';
	p = policy_parse(doc, base, path, err, errlen);
	free(copy);
	json_decref(doc);
	return p;
}

struct policy *policy_passthrough(void)
{
	json_t *doc = json_pack("{s:s, s:[]}", "name", "passthrough", "rules");
	char err[64];
	struct policy *p = policy_parse(doc, "passthrough", "built-in", err, sizeof err);

	json_decref(doc);
	return p;
}

void policy_free(struct policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_rules; i++) {
		struct policy_rule *r = &p->rules[i];
		free(r->method);
		free(r->target);
		free(r->url);
		free(r->message);
		json_decref(r->result);
		json_decref(r->merge);
		json_decref(r->remove);
	}
	for (size_t i = 0; i < p->n_injects; i++) {
		free(p->injects[i].target);
		json_decref(p->injects[i].commands);
	}
	free(p->rules);
	free(p->injects);
	json_decref(p->doc);
	json_decref(p->warnings);
	free(p->name);
	free(p->source);
	free(p);
}

struct policy_rule *policy_match(const struct policy *p, enum policy_kind kind,
				 const char *method, size_t mlen,
				 const char *target, const char *url, int mapper)
{
	for (size_t i = 0; i < p->n_rules; i++) {
		struct policy_rule *r = &p->rules[i];
		if (!(r->kinds & kind) || !glob_match(r->method, method, mlen))
			continue;
		if (r->mapper >= 0 && r->mapper != !!mapper)
			continue;
		if (r->target && (!target || strcmp(r->target, target)))
			continue;
		if (r->url && (!url || !glob_match(r->url, url, strlen(url))))
			continue;
		return r;
	}
	return NULL;
}

int policy_may_match(const struct policy *p, enum policy_kind kind,
		     const char *method, size_t mlen)
{
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct policy_rule *r = &p->rules[i];
		if ((r->kinds & kind) && (!method || glob_match(r->method, method, mlen)))
			return 1;
	}
	return 0;
}

void policy_rewrite(const struct policy_rule *rule, json_t *params)
{
	size_t i;
	json_t *k;

	if (rule->merge)
		json_object_update_recursive(params, rule->merge);
	json_array_foreach(rule->remove, i, k)
		json_object_del(params, json_string_value(k));
}

json_t *policy_injects(const struct policy *p, const char *target)
{
	json_t *out = json_array();

	for (size_t i = 0; i < p->n_injects; i++)
		if (!p->injects[i].target || (target && !strcmp(p->injects[i].target, target)))
			json_array_extend(out, p->injects[i].commands);
	return out;
}

json_t *policy_desired(const struct policy *p, const json_t *client_enabled,
		       const char *target, const char *url, int mapper)
{
	json_t *want = json_object(), *params, *injects = policy_injects(p, target), *c;
	const char *domain;
	size_t i;

	json_object_foreach((json_t *)client_enabled, domain, params) {
		char method[160];
		int n = snprintf(method, sizeof method, "%s.enable", domain);
		struct policy_rule *r;
		json_t *sent;
		if (n < 0 || (size_t)n >= sizeof method)   /* no such domain name in CDP */
			continue;
		r = policy_match(p, PK_COMMAND, method, (size_t)n, target, url, mapper);
		if (r && (r->action == ACT_STUB || r->action == ACT_REJECT))
			continue;
		sent = json_deep_copy(params);
		if (r && r->action == ACT_REWRITE)
			policy_rewrite(r, sent);
		json_object_set_new(want, domain, sent);
	}
	json_array_foreach(injects, i, c) {
		const char *m = json_string_value(json_object_get(c, "method"));
		const char *dot = strchr(m, '.');
		json_t *ps = json_object_get(c, "params");
		if (strcmp(dot + 1, "enable") || json_object_getn(want, m, (size_t)(dot - m)))
			continue;   /* the client's own enable wins */
		json_object_setn_new(want, m, (size_t)(dot - m), ps ? json_deep_copy(ps) : json_object());
	}
	json_decref(injects);
	return want;
}

json_t *policy_json(const struct policy *p)
{
	json_t *rules = json_array();

	for (size_t i = 0; i < p->n_rules; i++) {
		json_t *r = json_deep_copy(json_array_get(json_object_get(p->doc, "rules"), i));
		json_object_set_new(r, "hits", json_integer((json_int_t)p->rules[i].hits));
		json_array_append_new(rules, r);
	}
	return json_pack("{s:s, s:s, s:o, s:O*, s:O*}", "name", p->name, "source", p->source,
			 "rules", rules, "inject", json_object_get(p->doc, "inject"), "warnings",
			 json_array_size(p->warnings) ? p->warnings : NULL);
}
