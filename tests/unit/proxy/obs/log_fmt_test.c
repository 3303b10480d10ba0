/* log_fmt_test: event records from any fields and any bytes are one JSON
 * line each (issue 14.7). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "log_fmt.h"
#include "tap.h"
#include "util.h"

/* The event line for fields, parsed (NULL if it does not parse or is not
 * one line ending in '\n'). */
static json_t *event(const char *kind, json_t *fields)
{
	size_t n = 0;
	char *line = log_fmt_event(1700000000000000, 2, 7, kind, fields, &n);
	json_t *j = NULL;

	if (n && line[n - 1] == '\n' && !memchr(line, '\n', n - 1))
		j = json_loadb(line, n - 1, JSON_ALLOW_NUL, NULL);
	free(line);
	json_decref(fields);
	return j;
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "(missing)";
}

int main(void)
{
	json_t *r;

	r = event("close", json_pack("{s:s, s:i}", "side", "down", "code", 1000));
	ok(r && json_integer_value(json_object_get(r, "t")) == 1700000000000000 &&
	   json_integer_value(json_object_get(r, "gen")) == 2 &&
	   json_integer_value(json_object_get(r, "conn")) == 7, "t, gen, conn");
	is_str(jstr(r, "kind"), "close", "kind");
	is_str(jstr(r, "side"), "down", "fields merged");
	ok(!json_object_get(r, "fields_invalid"), "good fields: no fields_invalid");
	json_decref(r);

	/* What conn.c's json_pack gives for a close reason that is not UTF-8. */
	r = event("close", json_pack("{s:s}", "reason", "bye \xff"));
	ok(r != NULL, "NULL fields (json_pack of a bad string): still a record");
	ok(json_is_true(json_object_get(r, "fields_invalid")), "and it says fields_invalid");
	is_str(jstr(r, "kind"), "close", "with its kind");
	json_decref(r);

	r = event("open", json_string("not an object"));
	ok(json_is_true(json_object_get(r, "fields_invalid")), "fields that are not an object: fields_invalid");
	json_decref(r);

	r = event("open", json_pack("{s:o}", "path", json_stringn_nocheck("/devtools/\xc3", 12)));
	ok(r && json_is_true(json_object_get(r, "fields_invalid")),
	   "a string jansson cannot write (made unchecked): fields_invalid, not a NULL line");
	json_decref(r);

	r = event("close", json_pack("{s:o, s:o}", "reason", util_json_str("bye \xff\xc3(\xe2\x82"),
				     "path", util_json_bytes("/a\0b", 4)));
	is_str(jstr(r, "reason"), "bye \xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd",
	       "util_json_str: each bad byte is U+FFFD");
	ok(json_string_length(json_object_get(r, "path")) == 4, "util_json_bytes: a NUL byte kept");
	json_decref(r);

	r = util_json_str(NULL);
	ok(json_is_string(r) && !json_string_length(r), "util_json_str(NULL) is \"\"");
	json_decref(r);
	r = util_json_str("caf\xc3\xa9 \xf0\x9f\x98\x80");
	is_str(json_string_value(r), "caf\xc3\xa9 \xf0\x9f\x98\x80", "util_json_str: UTF-8 stays as it is");
	json_decref(r);

	r = event("\xff", NULL);
	is_str(jstr(r, "kind"), "\xef\xbf\xbd", "a kind that is not UTF-8 (not expected) still gives JSON");
	json_decref(r);
	return tap_done();
}
