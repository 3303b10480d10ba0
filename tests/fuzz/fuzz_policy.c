/* fuzz_policy: libFuzzer driver for the policy loader and what a loaded policy is used for. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "policy.h"
#include "policy_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_STRINGS 16
/* The longest domain the proxy can record as enabled: route.c and
 * sessions.c hold methods in 128 and 64 byte buffers. */
#define MAX_DOMAIN 126

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_policy: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

/* Strings of the document (keys and values, depth first), to use as the
 * methods, targets and URLs that the policy is matched against. */
struct strings {
	const char *s[MAX_STRINGS];
	size_t n;
};

static void collect(const json_t *j, struct strings *st, int depth)
{
	const char *key;
	json_t *v;
	size_t i;

	if (st->n == MAX_STRINGS || depth > 32)
		return;
	if (json_is_string(j)) {
		st->s[st->n++] = json_string_value(j);
	} else if (json_is_object(j)) {
		json_object_foreach((json_t *)j, key, v) {
			if (st->n < MAX_STRINGS)
				st->s[st->n++] = key;
			collect(v, st, depth + 1);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			collect(v, st, depth + 1);
	}
}

/* The reference glob: * any run, ? one byte, \c the byte c; dynamic
 * programming over (pattern, subject) suffixes. -1 when too big to bother. */
static int ref_glob(const char *pat, const char *s, size_t n)
{
	size_t plen = strlen(pat), cells = (plen + 1) * (n + 1);
	unsigned char *m;   /* m[i*(n+1)+j]: pat+i matches s[j..n) */
	int out;

	if (cells > 200000)
		return -1;
	m = calloc(cells, 1);
	for (size_t ii = plen + 1; ii-- > 0;) {
		for (size_t j = n + 1; j-- > 0;) {
			const char *p = pat + ii;
			unsigned char *cell = &m[ii * (n + 1) + j];
			if (!*p) {
				*cell = j == n;
			} else if (*p == '*') {
				*cell = m[(ii + 1) * (n + 1) + j] || (j < n && m[ii * (n + 1) + j + 1]);
			} else if (*p == '\\') {
				/* A lone trailing backslash matches nothing. */
				*cell = p[1] && j < n && s[j] == p[1] && m[(ii + 2) * (n + 1) + j + 1];
			} else {
				*cell = j < n && (*p == '?' || *p == s[j]) && m[(ii + 1) * (n + 1) + j + 1];
			}
		}
	}
	out = m[0];
	free(m);
	return out;
}

/* policy_match as the contract says it: the first rule that matches. With
 * *unsure set when a glob was too big for ref_glob. */
static const struct policy_rule *ref_match(const struct policy *p, enum policy_kind kind,
					   const char *method, size_t mlen, const char *target,
					   const char *url, int *unsure)
{
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct policy_rule *r = &p->rules[i];
		int g;
		if (!(r->kinds & kind))
			continue;
		if ((g = ref_glob(r->method, method, mlen)) < 0)
			return *unsure = 1, NULL;
		if (!g || (r->target && (!target || strcmp(r->target, target))))
			continue;
		if (r->url && (!url || (g = ref_glob(r->url, url, strlen(url))) == 0))
			continue;
		if (r->url && g < 0)
			return *unsure = 1, NULL;
		return r;
	}
	return NULL;
}

/* A subject the glob g matches: each * becomes star, each ? a 'Z', each \c
 * a c. So the matcher is also tried on hits, not only on misses. */
static char *instance(const char *g, const char *star)
{
	char *out = malloc(strlen(g) * (strlen(star) + 1) + 1), *o = out;

	for (; *g; g++) {
		if (*g == '*') {
			o = stpcpy(o, star);
		} else if (*g == '?') {
			*o++ = 'Z';
		} else {
			if (*g == '\\' && g[1])
				g++;
			*o++ = *g;
		}
	}
	*o = '\0';
	return out;
}

static void check_rule(const struct policy_rule *r)
{
	if (!r->method || !*r->method || !r->kinds || r->kinds & ~7u ||
	    r->action > ACT_DELAY || !policy_action_name(r->action))
		fail("a parsed rule is incomplete", r->method);
	if ((r->action == ACT_STUB && !json_is_object(r->result)) ||
	    (r->action == ACT_REJECT && !r->message) ||
	    (r->action == ACT_REWRITE && !r->merge && !r->remove) ||
	    (r->action == ACT_DELAY && r->delay_ms > 600000))
		fail("a parsed rule lacks its action's arguments", r->method);
	if (!glob_match(r->method, r->method, 0) != !ref_glob(r->method, "", 0))
		fail("glob_match on an empty subject", r->method);
}

/* Rewrites a params object with r and checks the merge and the removal. */
static void check_rewrite(const struct policy_rule *r, const struct strings *st)
{
	json_t *params = json_pack("{s:i, s:{s:i}, s:[]}", "maxPostDataSize", 0, "a", "b", 1, "c");
	const char *key;
	json_t *v, *k;
	size_t i;

	if (st->n)
		json_object_set_new(params, st->s[0], json_string("x"));
	policy_rewrite(r, params);
	json_object_foreach(r->merge, key, v) {
		int removed = 0;
		json_array_foreach(r->remove, i, k)
			removed |= !strcmp(json_string_value(k), key);
		if (!removed && !json_object_get(params, key))
			fail("a merged key is missing after the rewrite", key);
	}
	json_array_foreach(r->remove, i, k)
		if (json_object_get(params, json_string_value(k)))
			fail("a removed key is still there", json_string_value(k));
	json_decref(params);
}

/* policy_desired for one session: every domain comes from the client's
 * enables or from an injected X.enable, and only a stub or reject drops one. */
static void check_desired(const struct policy *p, const struct strings *st, const char *target,
			  const char *url)
{
	json_t *client = json_pack("{s:{}, s:{s:i}, s:{}, s:{s:[{s:s}]}}", "Page", "Network",
				   "maxPostDataSize", 0, "Runtime", "Fetch", "patterns", "urlPattern", "*");
	json_t *injects = policy_injects(p, target), *want, *v, *c;
	const char *domain;
	size_t i;

	for (i = 0; i < st->n; i++) {
		size_t n = strcspn(st->s[i], ".");
		json_object_setn_new(client, st->s[i], n < MAX_DOMAIN ? n : MAX_DOMAIN, json_object());
	}
	if (!json_is_array(injects))
		fail("policy_injects is not an array", NULL);
	want = policy_desired(p, client, target, url, 0);
	if (!json_is_object(want))
		fail("policy_desired is not an object", NULL);
	json_object_foreach(want, domain, v) {
		int injected = 0;
		json_array_foreach(injects, i, c) {
			const char *m = json_string_value(json_object_get(c, "method"));
			size_t n = strlen(domain);
			injected |= !strncmp(m, domain, n) && !strcmp(m + n, ".enable");
		}
		if (!json_object_get(client, domain) && !injected)
			fail("policy_desired wants a domain from nowhere", domain);
		if (!json_is_object(v))
			fail("policy_desired: params are not an object", domain);
	}
	json_object_foreach(client, domain, v) {
		char method[MAX_DOMAIN + 16];
		int n = snprintf(method, sizeof method, "%s.enable", domain);
		const struct policy_rule *r = policy_match(p, PK_COMMAND, method, (size_t)n, target, url, 0);
		if (!(r && (r->action == ACT_STUB || r->action == ACT_REJECT)) && !json_object_get(want, domain))
			fail("policy_desired lost a client's domain", domain);
	}
	json_decref(want);
	json_decref(injects);
	json_decref(client);
}

static void exercise(struct policy *p, const json_t *doc)
{
	static const char *const methods[] = { "Network.enable", "Page.enable", "Runtime.evaluate",
		"Target.setAutoAttach", "Network.requestWillBeSent", "Fetch.requestPaused", "",
		"Network.enable\0tail" };
	static const size_t method_lens[] = { 14, 11, 16, 20, 25, 19, 0, 19 };
	static const enum policy_kind kinds[] = { PK_COMMAND, PK_EVENT, PK_RESPONSE };
	const char *targets[4 + MAX_STRINGS] = { NULL, "page", "iframe", "worker" };
	const char *urls[4 + MAX_STRINGS] = { NULL, "https://example.com/upload?x=1", "about:blank", "" };
	struct strings st = { { NULL }, 0 };
	size_t nt = 4, nu = 4, round = 0;
	json_t *pj, *w;
	size_t wi;

	char *own[MAX_STRINGS];
	size_t n_own = 0;

	collect(doc, &st, 0);
	/* Instances of the rules' globs take the place of the last strings. */
	for (size_t i = 0; i < p->n_rules && n_own + 2 <= MAX_STRINGS / 2; i++) {
		own[n_own++] = instance(p->rules[i].method, i % 2 ? "ab" : "");
		own[n_own++] = instance(p->rules[i].url ? p->rules[i].url : p->rules[i].method, "x/");
		if (!glob_match(p->rules[i].method, own[n_own - 2], strlen(own[n_own - 2])))
			fail("a glob does not match its own instance", p->rules[i].method);
	}
	if (st.n > MAX_STRINGS - n_own)
		st.n = MAX_STRINGS - n_own;
	for (size_t i = 0; i < n_own; i++)
		st.s[st.n++] = own[i];
	for (size_t i = 0; i < st.n; i++)
		targets[nt++] = urls[nu++] = st.s[i];
	for (size_t i = 0; i < p->n_rules; i++)
		check_rule(&p->rules[i]);
	for (size_t i = 0; i < sizeof methods / sizeof methods[0] + st.n; i++) {
		int fixed = i < sizeof methods / sizeof methods[0];
		const char *m = fixed ? methods[i] : st.s[i - sizeof methods / sizeof methods[0]];
		size_t mlen = fixed ? method_lens[i] : strlen(m);
		for (size_t k = 0; k < 3; k++, round++) {
			const char *t = targets[round % nt], *u = urls[(round * 7 + k) % nu];
			struct policy_rule *got = policy_match(p, kinds[k], m, mlen, t, u, 0);
			int unsure = 0;
			const struct policy_rule *want = ref_match(p, kinds[k], m, mlen, t, u, &unsure);
			if (!unsure && got != want)
				fail("policy_match differs from the reference matcher", m);
		}
	}
	for (size_t i = 0; i < p->n_rules; i++)
		if (p->rules[i].action == ACT_REWRITE)
			check_rewrite(&p->rules[i], &st);
	check_desired(p, &st, "page", "https://example.com/");
	check_desired(p, &st, NULL, NULL);
	check_desired(p, &st, st.n ? st.s[st.n - 1] : "worker", st.n ? st.s[0] : "about:blank");
	/* Warnings: bounded, each a string naming the source. */
	if (!json_is_array(p->warnings) || json_array_size(p->warnings) > POLICY_CHECK_MAX + 1)
		fail("policy_check: not an array of at most POLICY_CHECK_MAX + 1 warnings", NULL);
	json_array_foreach(p->warnings, wi, w)
		if (!json_is_string(w) || strncmp(json_string_value(w), "fuzz.json: ", 11))
			fail("policy_check: a warning that does not start with its source", json_string_value(w));
	pj = policy_json(p);
	if (!json_is_object(pj) || json_array_size(json_object_get(pj, "rules")) != p->n_rules ||
	    !json_object_get(pj, "warnings") != !json_array_size(p->warnings))
		fail("policy_json", NULL);
	free(json_dumps(pj, JSON_COMPACT));
	json_decref(pj);
	for (size_t i = 0; i < n_own; i++)
		free(own[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* As PUT /proxy/policy parses it; any top level, to reach "$: must be an object". */
	json_t *doc = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	char err[256] = "", small[48];
	size_t smalllen = size % sizeof small;
	struct policy *p, *again;

	if (!doc)
		return 0;
	p = policy_parse(doc, "fuzz", "fuzz.json", err, sizeof err);
	if (!p && strncmp(err, "fuzz.json: $", 12))
		fail("a refused policy without a 'SOURCE: $.path: reason' error", err);
	/* The same with a short error buffer: truncated, still terminated. */
	memset(small, 'X', sizeof small);
	again = policy_parse(doc, "fuzz", "fuzz.json", small, smalllen);
	if (!again != !p)
		fail("policy_parse depends on errlen", NULL);
	if (!again && smalllen && strnlen(small, smalllen) == smalllen)
		fail("error not NUL-terminated within errlen", NULL);
	if (smalllen < sizeof small && small[smalllen] != 'X')
		fail("error written past errlen", NULL);
	policy_free(again);
	if (p) {
		if (!p->name || !p->source || !json_is_object(p->doc))
			fail("a parsed policy lacks its name, source or document", NULL);
		exercise(p, doc);
	}
	policy_free(p);
	json_decref(doc);
	return 0;
}
