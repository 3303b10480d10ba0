/* policy_check_test: the protocol table and the warnings a policy gets
 * against it (the edges; 62-policy-files.t runs the common cases through
 * --check-policy). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "policy.h"
#include "policy_check.h"
#include "protocol.h"
#include "tap.h"

/* The warnings of a policy given as JSON, or NULL when it is refused. */
static json_t *warnings_of(const char *doc_text)
{
	json_t *doc = json_loads(doc_text, 0, NULL), *w;
	char err[256];
	struct policy *p = doc ? policy_parse(doc, "t", "t.json", err, sizeof err) : NULL;

	json_decref(doc);
	if (!p)
		return NULL;
	w = json_incref(p->warnings);
	policy_free(p);
	return w;
}

/* The policy has exactly the warning want (after "t.json: "), or none. */
static void check(const char *doc, const char *want, const char *name)
{
	json_t *w = warnings_of(doc);
	char full[512];

	if (!want) {
		ok(w && json_array_size(w) == 0, "%s: no warning", name);
		if (w && json_array_size(w))
			printf("#   got %s\n", json_string_value(json_array_get(w, 0)));
	} else {
		snprintf(full, sizeof full, "t.json: %s", want);
		ok(w && json_array_size(w) == 1, "%s: one warning", name);
		is_str(json_string_value(json_array_get(w, 0)), full, "%s: the warning", name);
	}
	json_decref(w);
}

int main(void)
{
	json_t *w;
	char *doc, *long_name;
	size_t n = 0, len;

	/* The table: sorted as protocol_find's bsearch needs, every entry found. */
	for (size_t i = 0; i < protocol_n_methods; i++) {
		const struct protocol_method *m = &protocol_methods[i];
		if (i && strcmp(protocol_methods[i - 1].name, m->name) >= 0)
			break;
		if (protocol_find(m->name, strlen(m->name)) != m || (m->kind != 'c' && m->kind != 'e'))
			break;
		n++;
	}
	is_int(n, protocol_n_methods, "every one of the %zu methods is in order and found", protocol_n_methods);
	ok(protocol_n_methods > 800, "the table holds the protocol (%zu methods)", protocol_n_methods);
	ok(protocol_known("CDPProxy.setPolicy", 18) && protocol_known("Runtime.evaluate", 16) &&
	   !protocol_known("Network.enabl", 13) && !protocol_known("Network.enable2", 15),
	   "protocol_known: exact names only, CDPProxy's too");
	ok(protocol_member_type(protocol_find("Network.enable", 14)->params, "maxPostDataSize") == 'i' &&
	   protocol_member_type(protocol_find("Runtime.evaluate", 16)->params, "timeout") == 'n' &&
	   protocol_member_type(protocol_find("Runtime.evaluate", 16)->params, "time") == 0,
	   "parameter types: integer, number (a $ref resolved), none for a prefix");

	check("{\"rules\":[{\"method\":\"Network.enable\",\"action\":\"rewrite\",\"params\":{\"maxPostDataSize\":65536}}]}",
	      NULL, "an integer parameter");
	check("{\"rules\":[{\"method\":\"Network.enabel\",\"action\":\"stub\"}]}",
	      "$.rules[0].method: 'Network.enabel' is not a command of the protocol (did you mean Network.enable?)",
	      "a swap of two letters is one edit");
	check("{\"rules\":[{\"method\":\"Network.zzzzzz\",\"action\":\"stub\"}]}",
	      "$.rules[0].method: 'Network.zzzzzz' is not a command of the protocol", "no close name: no suggestion");
	check("{\"rules\":[{\"method\":\"Network.enabl\\\\e\",\"action\":\"stub\",\"mapper\":false}]}", NULL,
	      "a quoted character is itself");
	check("{\"rules\":[{\"method\":\"*\",\"action\":\"rewrite\",\"remove\":[\"maxPostDataSize\"]}]}", NULL,
	      "* reaches every method");
	check("{\"rules\":[{\"method\":\"Page.*\",\"action\":\"rewrite\",\"params\":{\"maxPostDataSize\":1}}]}",
	      "$.rules[0].params.maxPostDataSize: no method matching 'Page.*' has a parameter 'maxPostDataSize'",
	      "a pattern: a parameter no method it matches takes");
	check("{\"rules\":[{\"method\":\"Network.getCookies\",\"kind\":[\"command\",\"response\"],\"action\":\"rewrite\","
	      "\"params\":{\"urls\":[],\"cookies\":[]}}]}", NULL,
	      "command and response: params and result members both known");
	check("{\"rules\":[{\"method\":\"Network.getCookies\",\"kind\":\"response\",\"action\":\"rewrite\","
	      "\"params\":{\"urls\":[]}}]}",
	      "$.rules[0].params.urls: Network.getCookies has no result member 'urls'",
	      "a response is checked against the result");
	check("{\"rules\":[{\"method\":\"Runtime.evaluate\",\"action\":\"rewrite\",\"params\":{\"timeout\":null}}]}",
	      "$.rules[0].params.timeout: 'timeout' of Runtime.evaluate is a number, not null", "null is a type too");
	check("{\"rules\":[{\"method\":\"X.y\",\"action\":\"pass\",\"ms\":\"x\"}]}",
	      "$.rules[0].method: 'X.y' is not a command or event of the protocol",
	      "a key of another action is not checked");

	/* A name longer than any in CDP: no suggestion (and no cost for one). */
	len = 5000;
	long_name = malloc(len + 1);
	memset(long_name, 'a', len);
	long_name[len] = '\0';
	doc = malloc(len + 100);
	snprintf(doc, len + 100, "{\"rules\":[{\"method\":\"%s\",\"action\":\"pass\"}]}", long_name);
	w = warnings_of(doc);
	ok(w && json_array_size(w) == 1 && !strstr(json_string_value(json_array_get(w, 0)), "did you mean"),
	   "a 5000-byte name: one warning, no suggestion");
	json_decref(w);
	free(doc);
	free(long_name);

	/* Many warnings: POLICY_CHECK_MAX, then one line with the rest. */
	len = 300;
	doc = malloc(len * 60 + 64);
	n = (size_t)sprintf(doc, "{\"rules\":[");
	for (size_t i = 0; i < len; i++)
		n += (size_t)sprintf(doc + n, "%s{\"method\":\"Nope.x%zu\",\"action\":\"pass\"}", i ? "," : "", i);
	sprintf(doc + n, "]}");
	w = warnings_of(doc);
	is_int(json_array_size(w), POLICY_CHECK_MAX + 1, "%zu bad rules: %d warnings and a count", len, POLICY_CHECK_MAX);
	is_str(json_string_value(json_array_get(w, POLICY_CHECK_MAX)), "t.json: 200 more warnings left out",
	       "the count of the rest");
	json_decref(w);
	free(doc);
	/* A bounded cost: rules on "*" look at the whole table each; the check
	 * stops, saying where, before the policy costs more than its budget. */
	len = 5000;
	doc = malloc(len * 40 + 64);
	n = (size_t)sprintf(doc, "{\"rules\":[");
	for (size_t i = 0; i < len; i++)
		n += (size_t)sprintf(doc + n, "%s{\"method\":\"*\",\"action\":\"pass\"}", i ? "," : "");
	sprintf(doc + n, "]}");
	w = warnings_of(doc);
	ok(w && json_array_size(w) == 1 && strstr(json_string_value(json_array_get(w, 0)),
						   "too large to check whole: not checked from here on"),
	   "%zu rules on *: checked in part, and it says so", len);
	if (w && json_array_size(w))
		printf("#   %s\n", json_string_value(json_array_get(w, 0)));
	json_decref(w);
	free(doc);
	return tap_done();
}
