/* util_test: util_json_bytes keeps valid UTF-8 and replaces the rest. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util.h"

/* The JSON text of util_json_bytes(in, n), as jansson writes it. */
static void check(const char *in, size_t n, const char *want, const char *name)
{
	json_t *j = util_json_bytes(in, n);
	char *s = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

	ok(j != NULL, "%s: a string, never NULL", name);
	is_str(s ? s : "(null)", want, "%s", name);
	free(s);
	json_decref(j);
}

int main(void)
{
	char e300[601];

	check("plain", 5, "\"plain\"", "ASCII as it is");
	check("\xc3\xa9t\xc3\xa9", 5, "\"\xc3\xa9t\xc3\xa9\"", "valid UTF-8 as it is");
	check("a\xc3", 2, "\"a\xef\xbf\xbd\"", "a character cut at the end");
	check("\xff\xfe", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"", "each bad byte is one U+FFFD");
	check("\xc0\xaf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"", "an overlong '/' is refused");
	check("\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", "a surrogate is refused");
	check("\xf4\x90\x80\x80", 4, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
	      "past U+10FFFF is refused");
	check("a\0b", 3, "\"a\\u0000b\"", "a NUL byte stays");
	check("", 0, "\"\"", "empty");
	for (int i = 0; i < 300; i++)
		memcpy(e300 + 2 * i, "\xc3\xa9", 2);
	{
		json_t *j = util_json_bytes(e300, 599);   /* 300 e-acute, the last one cut */
		const char *v = json_string_value(j);
		ok(v && json_string_length(j) == 598 + 3 && !memcmp(v + 598, "\xef\xbf\xbd", 3),
		   "299 e-acute and U+FFFD for the cut one");
		json_decref(j);
	}
	{
		json_t *j = util_json_str(NULL);
		is_str(json_string_value(j), "", "util_json_str(NULL) is \"\"");
		json_decref(j);
	}
	return tap_done();
}
