/* jsoncut_test: a JSON text's head, closed, is a document that holds the head. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsoncut.h"
#include "tap.h"

/* Closes in's first n bytes and checks the document is want (NULL: none). */
static void check(const char *in, size_t n, const char *want, const char *name)
{
	size_t used = 0, len = 0;
	char *out = jsoncut_close(in, n, &used, &len);

	if (!want) {
		ok(out == NULL, "%s: refused", name);
	} else {
		ok(out && !strcmp(out, want) && len == strlen(want) && used <= n && !memcmp(out, in, used),
		   "%s", name);
		if (!(out && !strcmp(out, want)))
			printf("#   got %s\n", out ? out : "(null)");
	}
	free(out);
}

/* Every head of doc closes into a document jansson reads, holding the head
 * up to `used`, and `used` never goes back as the head grows, except where
 * a string's end or a key makes it. */
static void every_head(const char *doc, const char *name)
{
	size_t n = strlen(doc), bad = 0;

	for (size_t k = 1; k <= n; k++) {
		size_t used = 0, len = 0;
		char *out = jsoncut_close(doc, k, &used, &len);
		json_t *j = out ? json_loadb(out, len, 0, NULL) : NULL;

		if (!j || used > k || memcmp(out, doc, used)) {
			if (!bad++)
				printf("#   head %zu: %s\n", k, out ? out : "(null)");
		}
		json_decref(j);
		free(out);
	}
	ok(bad == 0, "%s: all %zu heads close into JSON", name, n);
}

int main(void)
{
	char deep[JSONCUT_MAX_DEPTH + 2];

	check("{\"a\":1,\"b\":\"hello world\"", 23, "{\"a\":1,\"b\":\"hello world\"}",
	      "a string value cut keeps what it holds");
	check("{\"a\":\"h\xc3\xa9llo\"}", 8, "{\"a\":\"h\"}", "not into a UTF-8 sequence");
	check("{\"a\":\"h\xe2\x82\xac!\"}", 9, "{\"a\":\"h\"}", "not into a 3-byte sequence");
	check("{\"a\":\"h\xe2\x82\xac!\"}", 10, "{\"a\":\"h\xe2\x82\xac\"}", "a whole sequence stays");
	check("{\"a\":\"x\\u00e9\"}", 10, "{\"a\":\"x\"}", "not into a \\u escape");
	check("{\"a\":\"x\\n\"}", 8, "{\"a\":\"x\"}", "not into a one-letter escape");
	check("{\"a\":\"x\\n\"}", 9, "{\"a\":\"x\\n\"}", "a whole escape stays");
	check("{\"a\":1,\"bc\":2}", 10, "{\"a\":1}", "a key cut short: its member left out");
	check("{\"a\":1,\"bc\":2}", 12, "{\"a\":1}", "a member without its value left out");
	check("[1,2,3", 6, "[1,2]", "a number cut short is left out");
	check("[1,2,3]", 7, "[1,2,3]", "a whole document is itself");
	check("{\"a\":[{\"b\":tru", 14, "{\"a\":[{}]}", "a literal cut short, nested");
	check("{\"a\":[true, null ,false]}  {\"b\":1}", 36, "{\"a\":[true, null ,false]}",
	      "what follows a whole document is not read");
	check("  {\"a\":", 7, "  {}", "leading space, a key and nothing else");
	check("\"str\"", 5, NULL, "not an object or an array");
	check("{\"a\"::1}", 8, NULL, "not JSON as far as it goes");
	check("{\"a\":1]", 7, NULL, "a bracket that does not match");
	check("", 0, NULL, "nothing");
	memset(deep, '[', sizeof deep);
	check(deep, JSONCUT_MAX_DEPTH + 1, NULL, "nested deeper than the bound");
	{
		char want[2 * JSONCUT_MAX_DEPTH + 1];

		memset(want, '[', JSONCUT_MAX_DEPTH);
		memset(want + JSONCUT_MAX_DEPTH, ']', JSONCUT_MAX_DEPTH);
		want[2 * JSONCUT_MAX_DEPTH] = '\0';
		check(deep, JSONCUT_MAX_DEPTH, want, "as deep as the bound: closed");
	}
	every_head("{\"method\":\"Network.requestWillBeSent\",\"params\":{\"requestId\":\"1.2\",\"request\":"
		   "{\"url\":\"http://a/\",\"headers\":{\"Authorization\":\"Bearer \\u00e9\\\"x\\\\\",\"n\":-1.5e+3},"
		   "\"postData\":\"k=1&password=\xc3\xa9t\xe2\x82\xac\",\"hasPostData\":true,\"e\":[],\"o\":{},"
		   "\"z\":null,\"f\":false}},\"sessionId\":\"AB\"}",
		   "a requestWillBeSent");
	every_head("[[1,[2,{\"a\":[3,{}]}]],\"s\",[],{\"k\":[\"v\",0]}]", "nested arrays");
	return tap_done();
}
