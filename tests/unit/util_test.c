/* util_test: util_json_string makes a JSON string of any bytes. */
#include <string.h>

#include "tap.h"
#include "util.h"

/* The string util_json_string makes of the n bytes at p, as JSON text. */
static void check(const char *p, size_t n, const char *want, const char *what)
{
	json_t *j = util_json_string(p, n);
	char *s = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;

	ok(j != NULL, "%s: a string", what);
	is_str(s ? s : "(null)", want, "%s: as JSON", what);
	free(s);
	json_decref(j);
}

int main(void)
{
	char cut[300];

	check("Network.enable", 14, "\"Network.enable\"", "plain ASCII stays");
	check("caf\xc3\xa9", 5, "\"caf\\u00E9\"", "valid UTF-8 stays");
	check("caf\xc3", 4, "\"caf\\uFFFD\"", "a character cut short becomes U+FFFD");
	check("\xc0\xaf", 2, "\"\\uFFFD\\uFFFD\"", "an overlong form is not UTF-8");
	check("\xed\xa0\x80", 3, "\"\\uFFFD\\uFFFD\\uFFFD\"", "a surrogate is not UTF-8");
	check("\xf4\x90\x80\x80", 4, "\"\\uFFFD\\uFFFD\\uFFFD\\uFFFD\"", "past U+10FFFF is not UTF-8");
	check("a\xff" "b", 3, "\"a\\uFFFDb\"", "a stray byte amid text");
	/* 150 e-acutes cut at an odd byte, as a snprintf("%.299s") would. */
	for (int i = 0; i < 150; i++)
		memcpy(cut + 2 * i, "\xc3\xa9", 2);
	{
		json_t *j = util_json_string(cut, 299);
		ok(j && json_string_length(j) == 298 + 3, "300 bytes of e-acutes cut mid-character: "
		   "149 kept and one U+FFFD (%zu bytes)", j ? json_string_length(j) : 0);
		json_decref(j);
	}
	return tap_done();
}
