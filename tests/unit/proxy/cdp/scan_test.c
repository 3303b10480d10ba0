/* scan_test: the key scanner on hand-written cases and against jansson as an oracle. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "tap.h"
#include "util.h"

/* The bytes of the last scan: an exact-size heap copy with no NUL after it,
 * so a read past len trips AddressSanitizer. */
static char *cur;

static int scan_n(const char *s, size_t n, struct scan_result *r)
{
	free(cur);
	cur = xmalloc(n);
	memcpy(cur, s, n);
	return scan_message(cur, n, r);
}

static int scan(const char *s, struct scan_result *r)
{
	return scan_n(s, strlen(s), r);
}

/* The decoded value of a string field of the last scan, or "(absent)". */
static const char *str_of(const struct scan_str *s)
{
	static char out[2][256];
	static int which;
	char *o = out[which ^= 1];

	return scan_str_copy(cur, s, o, sizeof out[0]) < 0 ? "(absent)" : o;
}

/* The raw text of a span of the last scan, or "(absent)". */
static const char *span_of(const struct scan_span *s)
{
	static char out[256];

	if (!s->present)
		return "(absent)";
	snprintf(out, sizeof out, "%.*s", (int)s->len, cur + s->off);
	return out;
}

/* s cut to 60 bytes with control bytes shown as '?', fit for a test name. */
static const char *shown(const char *s)
{
	static char out[2][61];
	static int which;
	char *o = out[which ^= 1];
	size_t i;

	for (i = 0; s[i] && i < 60; i++)
		o[i] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
	o[i] = '\0';
	return o;
}

static const char *kind_name(enum scan_kind k)
{
	static const char *names[] = { "other", "command", "response", "event" };
	return names[k];
}

/* Does the decoded scan_str match jansson's string j (which may be NULL)? */
static int same_string(const char *buf, const struct scan_str *s, json_t *j)
{
	size_t n;
	char *out;
	int same;

	if (!json_is_string(j))
		return !s->present;
	if (!s->present)
		return 0;
	n = json_string_length(j);
	out = xmalloc(n + 1);
	same = scan_str_copy(buf, s, out, n + 1) == (long)n &&
	       memcmp(out, json_string_value(j), n) == 0 &&
	       scan_str_eq(buf, s, json_string_value(j));
	free(out);
	return same;
}

/* Does the span hold exactly the JSON value j (which may be NULL)? */
static int same_span(const char *buf, const struct scan_span *s, json_t *j)
{
	json_t *v;
	int same;

	if (!j || !s->present)
		return !j && !s->present;
	v = json_loadb(buf + s->off, s->len, JSON_DECODE_ANY, NULL);
	same = v && json_equal(v, j);
	json_decref(v);
	return same;
}

/* Scans buf[0..len) and parses it with jansson. Returns NULL when the two
 * agree, else what differs. Agreeing means: whatever jansson accepts as an
 * object the scanner accepts with the same fields; nothing else is accepted.
 * Unless strict, the scanner may also accept what jansson rejects for reasons
 * it does not check (UTF-8, integer or real overflow, \u0000, lone surrogates). */
static const char *oracle_diff(const char *s, size_t len, int strict)
{
	struct scan_result r;
	json_error_t err;
	json_t *j, *id, *m, *e, *code;
	const char *diff = NULL;
	enum scan_kind kind;
	char *buf = xmalloc(len);
	int rc;

	memcpy(buf, s, len);
	rc = scan_message(buf, len, &r);
	j = json_loadb(buf, len, 0, &err);
	if (rc < 0 && (!r.why || r.error_at > len)) {
		diff = "rejection without why or with error_at past the end";
		goto out;
	}
	if (!j || !json_is_object(j)) {
		if (rc == 0 && (strict || j))
			diff = j ? "scanner accepts a top level that is not an object" :
				   "scanner accepts what jansson rejects";
		goto out;
	}
	if (rc < 0) {
		/* jansson 2.14 skips a NUL byte that follows a number or literal
		 * (akheron/jansson#331, JSONTestSuite n_multidigit_number_then_00):
		 * there it accepts what RFC 8259 does not, and we do not follow.
		 * A key read twice is refused where jansson keeps the last: there
		 * jansson told to refuse duplicates must find one. */
		if (!strcmp(r.why, "duplicate key")) {
			json_t *d = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
			if (d || json_error_code(&err) != json_error_duplicate_key)
				diff = "scanner says duplicate key where jansson finds none";
			json_decref(d);
		} else if (r.error_at >= len || buf[r.error_at] != '\0') {
			diff = "scanner rejects what jansson accepts";
		}
		goto out;
	}
	id = json_object_get(j, "id");
	m = json_object_get(j, "method");
	kind = id ? (json_is_string(m) ? SCAN_COMMAND : SCAN_RESPONSE) :
		    json_is_string(m) ? SCAN_EVENT : SCAN_OTHER;
	e = json_object_get(j, "error");
	code = json_is_object(e) ? json_object_get(e, "code") : NULL;
	if (r.kind != kind)
		diff = "kind";
	else if (r.has_id != !!id || r.id_is_int != json_is_integer(id) ||
		 (r.id_is_int && r.id != json_integer_value(id)))
		diff = "id";
	else if (!same_string(buf, &r.method, m))
		diff = "method";
	else if (!same_string(buf, &r.session, json_object_get(j, "sessionId")))
		diff = "sessionId";
	else if (!same_span(buf, &r.params, json_object_get(j, "params")))
		diff = "params";
	else if (!same_span(buf, &r.result, json_object_get(j, "result")))
		diff = "result";
	else if (!same_span(buf, &r.error, e))
		diff = "error";
	else if (r.has_error_code != json_is_integer(code) ||
		 (r.has_error_code && r.error_code != json_integer_value(code)))
		diff = "error code";
out:
	json_decref(j);
	free(buf);
	return diff;
}

static void oracle(const char *s, int strict)
{
	const char *diff = oracle_diff(s, strlen(s), strict);

	ok(!diff, "oracle agrees on %s", shown(s));
	if (diff)
		printf("#   differs in: %s\n", diff);
}

static void test_basics(void)
{
	struct scan_result r;

	is_int(scan("{\"id\":1,\"method\":\"Network.enable\",\"params\":{}}", &r), 0, "command scans");
	is_str(kind_name(r.kind), "command", "id and method: command");
	ok(r.has_id && r.id_is_int && r.id == 1, "id 1");
	is_str(str_of(&r.method), "Network.enable", "method");
	ok(!r.method.escaped && r.method.off == 18 && r.method.len == 14, "method span is the raw bytes");
	ok(scan_str_eq(cur, &r.method, "Network.enable"), "scan_str_eq on a plain string");
	ok(!scan_str_eq(cur, &r.method, "Network.enabl") && !scan_str_eq(cur, &r.method, "Network.enable2"),
	   "scan_str_eq rejects a prefix and an extension");
	is_str(span_of(&r.params), "{}", "params span");
	ok(!r.session.present && !r.result.present && !r.error.present, "absent fields stay absent");

	is_int(scan("{\"id\":7,\"result\":\"x\",\"sessionId\":\"S1\"}", &r), 0, "response scans");
	is_str(kind_name(r.kind), "response", "id only: response");
	is_str(span_of(&r.result), "\"x\"", "a string span includes its quotes");
	is_str(str_of(&r.session), "S1", "sessionId");

	is_int(scan("{\"method\":\"Page.loadEventFired\",\"params\":{\"timestamp\":1.5}}", &r), 0, "event");
	is_str(kind_name(r.kind), "event", "method only: event");
	ok(!r.has_id, "an event has no id");

	is_int(scan("{}", &r), 0, "empty object");
	is_str(kind_name(r.kind), "other", "neither: other");
	is_int(scan("{\"method\":5,\"sessionId\":null,\"x\":[]}", &r), 0, "non-string method");
	ok(!r.method.present && !r.session.present, "method and sessionId count only as strings");
	is_str(kind_name(r.kind), "other", "a non-string method makes no event");
	is_int(scan("{\"id\":\"seven\",\"method\":\"A.b\"}", &r), 0, "string id");
	ok(r.has_id && !r.id_is_int, "a string id is present but not an integer");
	is_str(kind_name(r.kind), "command", "any id counts for the kind");
	is_int(scan("{\"params\":[1,{\"a\":[true,false,null]}],\"x\":{\"y\":{}}}", &r), 0, "nested values");
	is_str(span_of(&r.params), "[1,{\"a\":[true,false,null]}]", "array span");
}

static void test_strings(void)
{
	struct scan_result r;
	char out[64];

	is_int(scan("{\"method\":\"a\\\"b\\\\c\\/d\",\"id\":1}", &r), 0, "escaped quote, backslash, slash");
	is_str(str_of(&r.method), "a\"b\\c/d", "escapes decoded");
	ok(r.method.escaped, "escaped flag set");
	ok(scan_str_eq(cur, &r.method, "a\"b\\c/d"), "scan_str_eq decodes");
	is_int(scan("{\"x\":\"\\\\\",\"method\":\"\\\\\\\"\"}", &r), 0, "string ending in an escaped backslash");
	is_str(str_of(&r.method), "\\\"", "backslash then quote");
	is_int(scan("{\"method\":\"\\b\\f\\n\\r\\t\"}", &r), 0, "control escapes");
	is_str(str_of(&r.method), "\b\f\n\r\t", "control escapes decoded");

	is_int(scan("{\"method\":\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\"}", &r), 0, "unicode escapes");
	is_str(str_of(&r.method), "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "1, 2, 3 and 4 byte UTF-8");
	ok(scan_str_eq(cur, &r.method, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "scan_str_eq on unicode");
	is_int(scan("{\"method\":\"a\\ud800b\\udc00\"}", &r), 0, "lone surrogates are accepted");
	is_str(str_of(&r.method), "a\xef\xbf\xbd" "b\xef\xbf\xbd", "lone surrogates decode to U+FFFD");
	is_int(scan("{\"method\":\"\\ud83d\\ud83d\\u0041\\udbff\\udfff\"}", &r), 0, "high, high, A, pair");
	is_str(str_of(&r.method), "\xef\xbf\xbd\xef\xbf\xbd" "A\xf4\x8f\xbf\xbf", "only high+low pairs combine");
	is_int(scan("{\"method\":\"raw \xc3\xa9 \xff\"}", &r), 0, "raw bytes >= 0x80 pass unchecked");

	is_int(scan("{\"\\u0069\\u0064\":42,\"met\\u0068od\":\"M\",\"session\\u0049d\":\"S\"}", &r), 0,
	       "escaped keys");
	ok(r.has_id && r.id == 42, "id matched through \\u escapes");
	is_str(kind_name(r.kind), "command", "escaped method key counts");
	is_str(str_of(&r.session), "S", "escaped sessionId key counts");
	is_int(scan("{\"id\\u0000\":1,\"\\u006d\\u0065\\u0074\\u0068\\u006f\\u0064\\u0073\":\"x\"}", &r), 0,
	       "near-miss escaped keys");
	ok(!r.has_id && !r.method.present, "\"id\\0\" and \"methods\" match nothing");

	is_int(scan("{\"method\":\"a\\u00e9\\u20ac\"}", &r), 0, "copy source");
	is_int(scan_str_copy(cur, &r.method, out, sizeof out), 6, "scan_str_copy returns the decoded length");
	is_int(scan_str_copy(cur, &r.method, out, 4), 6, "a short buffer still reports the full length");
	is_str(out, "a\xc3\xa9", "copy truncated to outlen-1 bytes");
	scan_str_copy(cur, &r.method, out, 3);
	is_str(out, "a", "truncation does not split a UTF-8 character");
	scan_str_copy(cur, &r.method, out, 5);
	is_str(out, "a\xc3\xa9", "nor a 3-byte one");
	out[0] = 'z';
	is_int(scan_str_copy(cur, &r.method, out, 0), 6, "outlen 0 writes nothing");
	ok(out[0] == 'z', "outlen 0 leaves out alone");
	is_int(scan("{\"method\":\"Network.enable\"}", &r), 0, "plain copy source");
	scan_str_copy(cur, &r.method, out, 8);
	is_str(out, "Network", "plain strings truncate too");
	is_int(scan_str_copy(cur, &r.session, out, sizeof out), -1, "copying an absent string: -1");
	ok(!scan_str_eq(cur, &r.session, ""), "an absent string equals nothing");
}

static void test_top_level_only(void)
{
	struct scan_result r;
	const char *msg = "{\"params\":{\"method\":\"Inner.x\",\"id\":5,\"sessionId\":\"in\","
			  "\"error\":{\"code\":9}},\"id\":7,\"result\":{\"code\":3}}";

	is_int(scan(msg, &r), 0, "nested look-alikes");
	ok(!r.method.present, "a method inside params is not taken");
	ok(!r.session.present, "a sessionId inside params is not taken");
	ok(r.id == 7, "the top-level id is");
	is_str(kind_name(r.kind), "response", "so it is a response");
	ok(!r.has_error_code && !r.error.present, "error inside params is not taken");
	oracle(msg, 1);

	is_int(scan("{\"id\":4,\"error\":{\"code\":-32601,\"message\":\"'Foo.bar' wasn't found\"}}", &r), 0,
	       "error response");
	ok(r.has_error_code && r.error_code == -32601, "error code -32601");
	is_int(scan("{\"error\":{\"data\":{\"code\":3},\"x\":[{\"code\":4}],\"c\\u006fde\":7}}", &r), 0,
	       "code inside error");
	ok(r.has_error_code && r.error_code == 7, "only error's own (escaped) code counts");
	is_int(scan("{\"error\":{\"data\":[1],\"code\":5}}", &r), 0, "code after an array in error");
	ok(r.has_error_code && r.error_code == 5, "an array inside error does not hide code");
	is_int(scan("{\"error\":[{\"code\":1}],\"code\":2}", &r), 0, "error as array");
	ok(!r.has_error_code, "an error array has no code");
	is_int(scan("{\"error\":{\"code\":1e3}}", &r), 0, "exponent code");
	ok(!r.has_error_code, "code 1e3 is a real, not an integer");
	is_int(scan("{\"error\":{\"code\":\"1\"}}", &r), 0, "string code");
	ok(!r.has_error_code && r.error.present, "a string code is no code");
}

static void test_numbers(void)
{
	static const struct { const char *msg; int is_int; int64_t id; } cases[] = {
		{ "{\"id\":1e3}", 0, 0 },
		{ "{\"id\":1E+3}", 0, 0 },
		{ "{\"id\":1.0}", 0, 0 },
		{ "{\"id\":-5}", 1, -5 },
		{ "{\"id\":-0}", 1, 0 },
		{ "{\"id\":0}", 1, 0 },
		{ "{\"id\":-1.5e-7}", 0, 0 },
		{ "{\"id\":9223372036854775807}", 1, INT64_MAX },
		{ "{\"id\":-9223372036854775808}", 1, INT64_MIN },
		{ "{\"id\":9223372036854775808}", 0, 0 },
		{ "{\"id\":-9223372036854775809}", 0, 0 },
		{ "{\"id\":184467440737095516160}", 0, 0 },
		{ "{\"id\":-18446744073709551615}", 0, 0 },
	};
	struct scan_result r;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		is_int(scan(cases[i].msg, &r), 0, "%s scans", cases[i].msg);
		ok(r.has_id && r.id_is_int == cases[i].is_int && (!r.id_is_int || r.id == cases[i].id),
		   "%s: id %s", cases[i].msg, cases[i].is_int ? "integer" : "not an integer");
		oracle(cases[i].msg, 0);
	}
	is_str(kind_name(r.kind), "response", "a non-integer id still makes a response");
}

static void test_whitespace_and_duplicates(void)
{
	struct scan_result r;
	const char *ws = " \t\r\n{ \"id\" \n: -3 ,\t\"method\"\r: \"m\" , \"params\" : [ 1 , { } , true , "
			 "[ ] , { \"a\" : null } ] , \"error\" : { \"code\" : 2 } } \n\t";

	is_int(scan(ws, &r), 0, "whitespace between all tokens");
	ok(r.id == -3 && r.has_error_code && r.error_code == 2, "values read through whitespace");
	is_str(span_of(&r.params), "[ 1 , { } , true , [ ] , { \"a\" : null } ]", "span has no outer space");
	oracle(ws, 1);

	/* A key the scanner reads, twice in its object: refused, as Chromium
	 * refuses it (-32700); the cut-through path reads the first "method",
	 * the whole scan would have read the last. */
	static const struct { const char *msg; size_t at; } dups[] = {
		{ "{\"method\":\"a\",\"method\":\"b\"}", 14 },
		{ "{\"method\":\"a\",\"method\":1}", 14 },
		{ "{\"method\":1,\"method\":\"a\"}", 12 },
		{ "{\"id\":1,\"id\":2,\"method\":\"a\"}", 8 },
		{ "{\"id\":1,\"id\":\"x\"}", 8 },
		{ "{\"sessionId\":\"a\",\"id\":1,\"sessionId\":\"b\"}", 24 },
		{ "{\"error\":{\"code\":1},\"error\":{\"message\":\"x\"}}", 20 },
		{ "{\"error\":{\"code\":1,\"code\":2.5}}", 19 },
		{ "{\"params\":[1],\"params\":{}}", 14 },
		{ "{\"result\":{},\"result\":{}}", 13 },
		{ "{\"method\":\"Page.navigate\",\"met\\u0068od\":\"Runtime.evaluate\"}", 26 },
		{ "{ \"id\" : 1 , \"id\" : 2 }", 13 },
	};
	for (size_t i = 0; i < sizeof dups / sizeof dups[0]; i++) {
		is_int(scan(dups[i].msg, &r), -1, "a key read twice is refused: %s", shown(dups[i].msg));
		ok(r.why && !strcmp(r.why, "duplicate key") && r.error_at == dups[i].at,
		   "  why \"duplicate key\", at the second key (%s at %zu)", r.why ? r.why : "(none)", r.error_at);
		oracle(dups[i].msg, 1);
	}
	/* Keys it does not read may repeat: nothing is judged by them. */
	is_int(scan("{\"a\":1,\"a\":2,\"method\":\"m\"}", &r), 0, "another key twice at the top level");
	is_str(str_of(&r.method), "m", "  its method read");
	is_int(scan("{\"params\":{\"x\":1,\"x\":2},\"id\":1}", &r), 0, "a key twice inside params");
	is_int(scan("{\"error\":{\"code\":1},\"code\":2}", &r), 0, "code in the error and at the top level");
	ok(r.has_error_code && r.error_code == 1, "  the error's code read");
	is_int(scan("{\"params\":{\"method\":\"x\"},\"method\":\"m\"}", &r), 0, "method inside params and at the top level");
	is_str(str_of(&r.method), "m", "  the top level's read");
	oracle("{\"sessionId\":\"a\",\"sessionId\":\"b\",\"id\":1,\"id\":3,\"method\":\"x\",\"method\":\"y\"}", 1);
}

/* The top-level keys CDP sends are told by their bytes when a ':' follows
 * at once (known_key): near misses, and keys too near the end for it, must
 * come out as the general path says (jansson agrees with each). */
static void test_known_keys(void)
{
	static const char *const msgs[] = {
		"{\"id\":1,\"method\":\"a.b\",\"params\":{},\"sessionId\":\"S\"}",
		"{\"id\" :1,\"method\" :\"a.b\",\"params\" :{},\"sessionId\" :\"S\"}",
		"{\"idx\":1,\"methods\":\"a\",\"param\":{},\"sessionIdX\":\"S\",\"sessionI\":\"T\"}",
		"{\"i\":1,\"Id\":2,\"ID\":3,\"metho\":\"m\",\"resul\":1,\"erro\":{\"code\":1}}",
		"{\"error\":{\"code\":-32601,\"message\":\"x\"},\"id\":12345678}",
		"{\"errors\":{\"code\":1},\"results\":2,\"sessionIds\":\"x\",\"id\":1}",
		"{\"result\":{\"id\":9,\"method\":\"in\"},\"id\":3,\"sessionId\":\"A\"}",
		"{\"x\":0,\"id\":1}", "{\"x\":0,\"id\" :1}", "{\"method\":\"m\"}",
		"{\"x\":1,\"sessionId\":\"S\"}", "{\"sessionId\":\"S\"}",
		"{\"\\u0069d\":4,\"method\":\"a\"}",
	};
	struct scan_result r;

	for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++)
		oracle(msgs[i], 1);
	is_int(scan("{\"idx\":1,\"methods\":\"a\",\"sessionIdX\":\"S\"}", &r), 0, "near-miss keys");
	ok(!r.has_id && !r.method.present && !r.session.present && r.kind == SCAN_OTHER,
	   "idx, methods, sessionIdX are not id, method, sessionId");
	is_int(scan("{\"id\" :7,\"sessionId\" :\"S\"}", &r), 0, "keys with a space before ':'");
	ok(r.id == 7 && r.kind == SCAN_RESPONSE && r.session.present, "still found");
}

/* A command whose params hold a multi-megabyte string (with some escapes)
 * and whose sessionId comes last, as Chrome may send it. */
static void test_big(void)
{
	const size_t big = 8u << 20;
	const char *head = "{\"id\":99,\"method\":\"Page.captureScreenshot\",\"params\":{\"data\":\"";
	const char *tail = "\",\"n\":[1,2,3]},\"sessionId\":\"ABCDEF0123\"}";
	size_t hl = strlen(head), tl = strlen(tail), len = hl + big + tl;
	char *msg = xmalloc(len);
	struct scan_result r;
	const char *diff;

	memcpy(msg, head, hl);
	for (size_t i = 0; i < big; i++)
		msg[hl + i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[i % 64];
	memcpy(msg + hl + 1000, "\\\"\\\\\\u00e9", 10);
	memcpy(msg + hl + big - 7, "\\n\\\\\\/", 6);
	memcpy(msg + hl + big, tail, tl);
	is_int(scan_n(msg, len, &r), 0, "8 MB params scans");
	is_str(str_of(&r.session), "ABCDEF0123", "sessionId after 8 MB of params");
	ok(r.kind == SCAN_COMMAND && r.id == 99, "command id 99");
	ok(r.params.off == hl - 9 && r.params.len == big + 9 + strlen("\",\"n\":[1,2,3]}"), "params span");
	diff = oracle_diff(msg, len, 1);
	if (!tap_ok(!diff, "oracle: 8 MB message"))
		printf("#   %s\n", diff);
	msg[hl + 5000] = '\x1f';
	is_int(scan_n(msg, len, &r), -1, "a control byte deep in a big string");
	ok(r.error_at == hl + 5000, "error_at points at it");
	free(msg);
}

static void test_non_object(void)
{
	static const char *cases[] = { "[]", "[{\"id\":1}]", "\"x\"", "1", "true", "null", "" };
	struct scan_result r;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		is_int(scan(cases[i], &r), -1, "top level '%s' rejected", cases[i]);
		oracle(cases[i], 1);
	}
	scan("  [1]", &r);
	is_str(r.why, "top level is not an object", "why for an array");
	ok(r.error_at == 2, "error_at at the '['");
	is_int(scan("   ", &r), -1, "only whitespace");
	is_str(r.why, "truncated", "only whitespace is truncated");
}

static void test_invalid(void)
{
	static const struct { const char *msg, *why; size_t at; } cases[] = {
		{ "{\"a\":\"\\x\"}", "bad escape", 7 },
		{ "{\"a\":\"\\u12G4\"}", "bad escape", 10 },
		{ "{\"a\":\"\\u12\"}", "bad escape", 10 },
		{ "{\"a\":\"\\U0041\"}", "bad escape", 7 },
		{ "{\"a\":\"\\'\"}", "bad escape", 7 },
		/* escapes back to back (scan.c takes a run of them in one loop) */
		{ "{\"a\":\"\\u0000\\u0000\\u00G0\"}", "bad escape", 22 },
		{ "{\"a\":\"\\u0000\\u0000\\x\"}", "bad escape", 19 },
		{ "{\"a\":\"\\u0000\\u0000\\u00\"}", "bad escape", 22 },
		{ "{\"a\":\"\\u0000\\u0000\x01\"}", "control character in string", 18 },
		{ "{\"a\":\"tab\there\"}", "control character in string", 9 },
		{ "{\"a\":\"line\nbreak\"}", "control character in string", 10 },
		{ "{\"a\x01\":1}", "control character in string", 3 },
		{ "{\"a\":01}", "leading zero", 6 },
		{ "{\"a\":-01}", "leading zero", 7 },
		{ "{\"a\":00}", "leading zero", 6 },
		{ "{\"a\":1.}", "bad number", 7 },
		{ "{\"a\":1.e5}", "bad number", 7 },
		{ "{\"a\":-}", "bad number", 6 },
		{ "{\"a\":-a}", "bad number", 6 },
		{ "{\"a\":1e}", "bad number", 7 },
		{ "{\"a\":1e+}", "bad number", 8 },
		{ "{\"a\":.5}", "expected a value", 5 },
		{ "{\"a\":+1}", "expected a value", 5 },
		{ "{\"a\":0x10}", "expected ',' or '}'", 6 },
		{ "{\"a\":1} x", "trailing data", 8 },
		{ "{\"a\":1}}", "trailing data", 7 },
		{ "{\"a\":1}{}", "trailing data", 7 },
		{ "{\"a\":1 \"b\":2}", "expected ',' or '}'", 7 },
		{ "{\"a\" 1}", "expected ':'", 5 },
		{ "{\"a\":[1 2]}", "expected ',' or ']'", 8 },
		{ "{\"a\":1]", "expected ',' or '}'", 6 },
		{ "{\"a\":[}]}", "expected a value", 6 },
		{ "{\"a\":[1,]}", "expected a value", 8 },
		{ "{\"a\":1,}", "expected a string key", 7 },
		{ "{,}", "expected a string key", 1 },
		{ "{a:1}", "expected a string key", 1 },
		{ "{'a':1}", "expected a string key", 1 },
		{ "{\"a\":tru}", "bad literal", 8 },
		{ "{\"a\":nul}", "bad literal", 8 },
		{ "{\"a\":True}", "expected a value", 5 },
		{ "{\"a\":falsy}", "bad literal", 9 },
		{ "{\"a\":truex}", "expected ',' or '}'", 9 },
		{ "{\"a\":[1,2}", "expected ',' or ']'", 9 },
		{ "{\"a\":1,,\"b\":2}", "expected a string key", 7 },
		{ "{\"a\":\"\\u00e9\" , \"b\" : [ { } , ] }", "expected a value", 30 },
		{ "{\"a\":1}\f", "trailing data", 7 },
		{ "{\"a\":1}\v", "trailing data", 7 },
	};
	struct scan_result r;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = scan(cases[i].msg, &r);
		ok(rc == -1 && r.why && !strcmp(r.why, cases[i].why) && r.error_at == cases[i].at,
		   "invalid: %s", shown(cases[i].msg));
		if (rc == 0 || !r.why || strcmp(r.why, cases[i].why) || r.error_at != cases[i].at)
			printf("#   got %d '%s' at %zu, want '%s' at %zu\n", rc, r.why ? r.why : "",
			       r.error_at, cases[i].why, cases[i].at);
		oracle(cases[i].msg, 1);
	}
	/* NUL bytes: in a string, after the value, in place of a value. */
	is_int(scan_n("{\"a\":\"x\0y\"}", 11, &r), -1, "raw NUL in a string");
	is_str(r.why, "control character in string", "raw NUL is a control character");
	is_int(scan_n("{\"a\":1}\0", 8, &r), -1, "NUL after the object");
	is_str(r.why, "trailing data", "NUL after the object is trailing data");
	is_int(scan_n("{\"a\":\0}", 7, &r), -1, "NUL as a value");
	is_int(scan_n("{\"id\":1\0,\"a\":true\0}", 18, &r), -1, "NUL after a number (jansson skips it)");
	ok(r.error_at == 7 && !strcmp(r.why, "expected ',' or '}'"), "rejected at the NUL");
}

/* Every proper prefix of a valid message is truncated: -1, "truncated", error_at len. */
static void test_truncated(void)
{
	static const char *msgs[] = {
		"{\"id\":12,\"method\":\"Network.enable\",\"params\":{\"maxPostDataSize\":65536}}",
		"{ \"method\" : \"Network.requestWillBeSent\", \"params\" : { \"request\" : { \"postData\" : "
		"\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\" , \"n\" : [ -1.5e+10 , 0 , -0.25E-3 , true , false , null ] } } ,"
		" \"sessionId\" : \"9F1C\" }",
		"{\"id\":3,\"error\":{\"code\":-32000,\"message\":\"x\"}}",
		"{\"method\":\"X\",\"params\":{\"postData\":\"\\u0000\\u0000\\u0000\\u00fF\\n\\u0001\"},"
		"\"sessionId\":\"S\"}",
	};

	for (size_t m = 0; m < sizeof msgs / sizeof msgs[0]; m++) {
		size_t len = strlen(msgs[m]), bad = 0;
		struct scan_result r;

		for (size_t n = 0; n < len; n++)
			if (scan_n(msgs[m], n, &r) != -1 || strcmp(r.why, "truncated") || r.error_at != n) {
				if (!bad++)
					printf("# prefix %zu: why '%s' at %zu\n", n, r.why ? r.why : "", r.error_at);
			}
		ok(bad == 0, "all %zu proper prefixes of message %zu are truncated", len, m);
		is_int(scan_n(msgs[m], len, &r), 0, "the whole message %zu scans", m);
	}
}

/* A value nested deeper than jansson's JSON_PARSER_MAX_DEPTH (2048, the top
 * object being 1) is rejected by both; anything up to it by neither. */
static void test_depth(void)
{
	static const struct { size_t arrays; const char *inner; int rc; } cases[] = {
		{ 2046, "1", 0 }, { 2047, "", 0 }, { 2047, "1", -1 }, { 2047, "{}", -1 }, { 2048, "", -1 },
		{ 1000000, "", -1 },
	};
	struct scan_result r;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = cases[i].arrays, il = strlen(cases[i].inner), len = 6 + 2 * n + il;
		char *msg = xmalloc(len);
		const char *diff;

		memcpy(msg, "{\"a\":", 5);
		memset(msg + 5, '[', n);
		memcpy(msg + 5 + n, cases[i].inner, il);
		memset(msg + 5 + n + il, ']', n);
		msg[len - 1] = '}';
		is_int(scan_n(msg, len, &r), cases[i].rc, "object + %zu arrays + '%s'", n, cases[i].inner);
		if (cases[i].rc)
			is_str(r.why, "nested too deeply", "why: nested too deeply");
		diff = oracle_diff(msg, len, 1);
		if (!tap_ok(!diff, "oracle agrees on the depth limit"))
			printf("#   %s\n", diff);
		free(msg);
	}
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state * 0x2545F4914F6CDD1Dull;  /* xorshift64*: the low bits too are random */
}

/* Applies one random edit to buf (len bytes, capacity cap), returning the new length. */
static size_t mutate(char *buf, size_t len, size_t cap)
{
	static const char alphabet[] = "\"\\{}[],:0123456789-+.eEutfnrlsa /\x01\x1f\x7f\x80\xff\t\n";
	size_t at = len ? rng() % len : 0, span;
	char c = rng() % 4 ? alphabet[rng() % (sizeof alphabet - 1)] : (char)rng();

	switch (rng() % 6) {
	case 0:  /* replace */
		if (len)
			buf[at] = c;
		return len;
	case 1:  /* delete */
		if (len)
			memmove(buf + at, buf + at + 1, len - at - 1);
		return len ? len - 1 : 0;
	case 2:  /* insert */
		if (len == cap)
			return len;
		memmove(buf + at + 1, buf + at, len - at);
		buf[at] = c;
		return len + 1;
	case 3:  /* duplicate a short run */
		span = 1 + rng() % 12;
		if (at + span > len || len + span > cap)
			return len;
		memmove(buf + at + span, buf + at, len - at);
		return len + span;
	case 4:  /* truncate */
		return at;
	default: /* swap two bytes */
		if (len) {
			size_t b = rng() % len;
			char t = buf[at];
			buf[at] = buf[b];
			buf[b] = t;
		}
		return len;
	}
}

static void test_oracle_mutations(void)
{
	static const char *samples[] = {
		"{\"id\":1,\"method\":\"Network.enable\",\"params\":{}}",
		"{\"id\":2,\"method\":\"Target.setAutoAttach\",\"params\":{\"autoAttach\":true,\"flatten\":true,"
		"\"waitForDebuggerOnStart\":false}}",
		"{\"method\":\"Network.requestWillBeSent\",\"params\":{\"requestId\":\"1000.1\",\"request\":"
		"{\"url\":\"https://x/\",\"method\":\"POST\",\"postData\":\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\"},"
		"\"timestamp\":123.456e-3,\"wallTime\":1.7E9,\"initiator\":null},\"sessionId\":\"8F2C\"}",
		"{\"id\":3,\"result\":{\"data\":\"iVBORw0KGgo=\",\"list\":[1,-2,3.5,[],{}]},\"sessionId\":\"S1\"}",
		"{\"id\":4,\"error\":{\"code\":-32601,\"message\":\"'Foo.bar' wasn't found\",\"data\":[1,{\"code\":2}]}}",
		"{\"method\":\"Target.attachedToTarget\",\"params\":{\"sessionId\":\"inner\",\"targetInfo\":"
		"{\"targetId\":\"T\",\"type\":\"page\",\"attached\":true}}}",
		" { \"id\" : 5 , \"method\" : \"Runtime.evaluate\" , \"params\" : { \"expression\" : \"1+1\" } ,"
		" \"sessionId\" : \"A\\u0042C\" } ",
		"{\"\\u0069d\":6,\"met\\u0068od\":\"X.y\",\"error\":{\"c\\u006fde\":0},\"id\":-7}",
		"{\"id\":1e3,\"error\":{\"code\":1.5},\"method\":\"m\",\"method\":\"n\",\"result\":[[[{}]]]}",
	};
	const int rounds = 40000;
	int disagree = 0, accepted = 0;
	char buf[512];

	for (int i = 0; i < rounds; i++) {
		const char *s = samples[rng() % (sizeof samples / sizeof samples[0])], *diff;
		size_t len = strlen(s);
		int edits = 1 + (int)(rng() % 3);
		json_t *j;

		memcpy(buf, s, len);
		while (edits--)
			len = mutate(buf, len, sizeof buf);
		if ((diff = oracle_diff(buf, len, 0)) && disagree++ < 5)
			printf("#   %s on: %.*s\n", diff, (int)len, buf);
		if ((j = json_loadb(buf, len, 0, NULL)) && json_is_object(j))
			accepted++;
		json_decref(j);
	}
	ok(disagree == 0, "scanner and jansson agree on %d mutated messages", rounds);
	printf("# jansson accepted %d of them as objects\n", accepted);
	ok(accepted > rounds / 20, "the mutations are not all invalid");
}

/* Strings are skipped 64 bytes a step with AVX2 (where the CPU has it) and
 * 32, 16, then the last 1-15 bytes in one look with SSE2: every length from
 * 0 to 300, with a quote escape, a \\u escape, a raw control byte or
 * nothing at every place, whole and cut anywhere, must scan alike both ways
 * (scan_n's buffer is exact, so a look past the end trips ASan). */
static void test_simd_paths_agree(void)
{
	static const char *specials[] = { "", "\\\"", "\\u00e9", "\x01" };
	char msg[400], body[340];
	size_t cases = 0, differ = 0, wrong = 0;

	for (size_t len = 0; len <= 300; len += len < 80 ? 1 : 7) {
		for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
			for (size_t at = 0; at <= len; at += k ? 1 + len / 17 : len + 1) {
				size_t sl = strlen(specials[k]), n;
				memset(body, 'a', len + sl);
				memcpy(body + at, specials[k], sl);
				n = (size_t)snprintf(msg, sizeof msg, "{\"sessionId\":\"%.*s\",\"id\":1}",
						     (int)(len + sl), body);
				for (size_t cut = n > 40 ? n - 40 : 0; cut <= n; cut++) {
					struct scan_result a, b;
					int ra, rb, was;
					ra = scan_n(msg, cut, &a);
					was = scan_set_avx2(0);
					rb = scan_n(msg, cut, &b);
					scan_set_avx2(was);
					cases++;
					/* And right: a control byte is refused where it is,
					 * else the whole scans and any cut is truncated. */
					if (k == 3 && cut > 14 + at)
						wrong += ra != -1 || strcmp(a.why, "control character in string") ||
							 a.error_at != 14 + at;
					else if (cut < n)
						wrong += ra != -1 || strcmp(a.why, "truncated") || a.error_at != cut;
					else
						wrong += ra != 0 || a.session.len != len + sl;
					if (ra != rb || memcmp(&a, &b, sizeof a)) {
						if (!differ++)
							printf("# differ: '%.*s' (%d '%s' at %zu, %d '%s' at %zu)\n",
							       (int)cut, msg, ra, a.why ? a.why : "", a.error_at,
							       rb, b.why ? b.why : "", b.error_at);
					}
				}
			}
		}
	}
	ok(differ == 0, "%zu strings and cuts scan the same with and without AVX2", cases);
	ok(wrong == 0, "each is accepted, truncated or refused at its control byte as it should be");
}

/* Feeds s to a stream scan in pieces of `step` bytes (each prefix in a
 * fresh exact-size copy), keeping strings of min bytes or more; returns
 * whether scan_message_streamed then gives what scan_message gives. */
static int stream_agrees(const char *s, size_t len, size_t step, size_t min, struct scan_stream *st)
{
	struct scan_result a, b;
	int ra, rb;

	scan_stream_init(st, min);
	for (size_t at = 0; at < len;) {
		char *part;
		at = at + step < len ? at + step : len;
		part = malloc(at);
		memcpy(part, s, at);
		scan_stream_feed(st, part, at);
		free(part);
	}
	ra = scan_message(s, len, &a);
	rb = scan_message_streamed(s, len, st, &b);
	return ra == rb && memcmp(&a, &b, sizeof a) == 0;
}

static void test_stream(void)
{
	/* A Network.requestWillBeSent as a rig's upload makes it: one long
	 * postData of \u escapes, cut by every step at every place, escapes
	 * split at the backslash and inside the hex digits included. */
	const char *head = "{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":{\"url\":\"http://x/\",\"postData\":\"";
	const char *tail = "\"},\"type\":\"Fetch\"},\"sessionId\":\"S1\"}";
	size_t n = 3000, hl = strlen(head), tl = strlen(tail), len = hl + 6 * n + 3 + tl;
	char *big = malloc(len + 1);
	struct scan_stream st;
	struct scan_result r;
	int all = 1;

	memcpy(big, head, hl);
	for (size_t i = 0; i < n; i++)
		memcpy(big + hl + 6 * i, "\\u0000", 6);
	memcpy(big + hl + 6 * n, "abc", 3);
	memcpy(big + hl + 6 * n + 3, tail, tl + 1);
	for (size_t step = 1; step <= 13; step++)
		all &= stream_agrees(big, len, step, 1024, &st);
	ok(all, "stream scan agrees with scan_message at steps 1-13 (escapes cut anywhere)");
	ok(stream_agrees(big, len, 4096, 1024, &st) && st.n == 1 && st.hint[0].off == hl &&
	   st.hint[0].end == hl + 6 * n + 3 && st.hint[0].escaped, "the long postData is one hint, escaped");
	ok(scan_message_streamed(big, len, &st, &r) == 0 && r.kind == SCAN_EVENT &&
	   scan_str_eq(big, &r.method, "Network.requestWillBeSent") && scan_str_eq(big, &r.session, "S1"),
	   "its method and session are found past the hint");
	ok(stream_agrees(big, len, 7, len, &st) && st.n == 0, "nothing as long as min: no hint, same result");
	{	/* fed only its first half: scan_message_streamed feeds the rest */
		struct scan_result a;
		scan_stream_init(&st, 1024);
		scan_stream_feed(&st, big, len / 2);
		ok(scan_message_streamed(big, len, &st, &r) == 0 && st.at == len && st.n == 1 &&
		   scan_message(big, len, &a) == 0 && memcmp(&a, &r, sizeof a) == 0,
		   "half fed: the rest fed by the scan, the long string hinted, the same result");
	}

	/* A control byte in the long string: the stream stops keeping hints,
	 * and the refusal is scan_message's, at the same byte. */
	big[hl + 600] = '\n';
	ok(stream_agrees(big, len, 100, 16, &st) && st.stopped && st.n == 1 && st.hint[0].off == 11,
	   "a raw control byte: stopped (the method kept before it), refused alike");
	ok(scan_message_streamed(big, len, &st, &r) == -1 && r.error_at == hl + 600 &&
	   strcmp(r.why, "control character in string") == 0, "refused at the control byte");
	big[hl + 600] = '\\';
	big[hl + 601] = 'x';
	ok(stream_agrees(big, len, 5, 16, &st) && st.stopped, "a bad escape: stopped, refused alike");
	free(big);

	/* More long strings than SCAN_HINTS: the first ones are kept, the rest
	 * read by the scan; a key is a string too. */
	{
		char many[2048];
		size_t k = (size_t)snprintf(many, sizeof many, "{\"id\":5,\"result\":{");
		for (int i = 0; i < SCAN_HINTS + 4; i++)
			k += (size_t)snprintf(many + k, sizeof many - k, "%s\"key%02d_abcdefghijklmnopqrstuv\":\"v\\\"%02d_abcdefghijklmnopqrstuvwxyz\"",
					      i ? "," : "", i, i);
		k += (size_t)snprintf(many + k, sizeof many - k, "}}");
		ok(stream_agrees(many, k, 3, 24, &st) && st.n == SCAN_HINTS, "%u hints kept of %d long strings, same result",
		   st.n, 2 * (SCAN_HINTS + 4));
		ok(scan_message_streamed(many, k, &st, &r) == 0 && r.kind == SCAN_RESPONSE && r.id == 5 &&
		   r.result.present, "the response is read whole");
		many[k - 1] = ']';
		ok(stream_agrees(many, k, 11, 24, &st) && scan_message_streamed(many, k, &st, &r) == -1,
		   "bad structure after the hints: refused alike");
		ok(stream_agrees(many, k - 5, 2, 24, &st) && scan_message_streamed(many, k - 5, &st, &r) == -1 &&
		   strcmp(r.why, "truncated") == 0, "cut short inside a string: truncated, alike");
	}
}

int main(void)
{
	int had_avx2;

	test_basics();
	test_strings();
	test_top_level_only();
	test_numbers();
	test_whitespace_and_duplicates();
	test_known_keys();
	test_big();
	test_non_object();
	test_invalid();
	test_truncated();
	test_depth();
	test_oracle_mutations();
	test_simd_paths_agree();
	test_stream();
	/* Again with SSE2 alone, as on a CPU without AVX2. */
	had_avx2 = scan_set_avx2(0);
	test_strings();
	test_big();
	test_truncated();
	test_oracle_mutations();
	test_stream();
	scan_set_avx2(had_avx2);
	free(cur);
	return tap_done();
}
