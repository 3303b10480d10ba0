/* redact_test: secrets leave logged bodies; everything else stays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "redact.h"
#include "redact_text.h"
#include "tap.h"

/* Redacts in and checks the result (in itself when there was nothing to
 * redact) equals want (as JSON). */
static void check(const char *in, const char *want, const char *name)
{
	size_t n = 0;
	char *out = redact_body(in, strlen(in), &n);
	json_t *got = out ? json_loadb(out, n, JSON_ALLOW_NUL, NULL) : json_loads(in, 0, NULL);
	json_t *exp = json_loads(want, JSON_ALLOW_NUL, NULL);

	ok(got && exp && json_equal(got, exp), "%s", name);
	if (!(got && exp && json_equal(got, exp)))
		printf("#   got %s\n", out ? out : "(null)");
	json_decref(got);
	json_decref(exp);
	free(out);
}

/* Redacts body in[0..n) as Fetch.continueRequest's base64 postData (as a
 * client sends it through the proxy) and checks it decodes to want[0..wn). */
static void check_post(const char *in, size_t n, const char *want, size_t wn, const char *name)
{
	json_t *enc = redact_text_b64_encode(in, n), *msg = json_object(), *params = json_object(), *got;
	char *text, *out, *raw = NULL;
	size_t len = 0, rawlen = 0;

	json_object_set_new(params, "requestId", json_string("r"));
	json_object_set_new(params, "postData", enc);
	json_object_set_new(msg, "id", json_integer(1));
	json_object_set_new(msg, "method", json_string("Fetch.continueRequest"));
	json_object_set_new(msg, "params", params);
	text = json_dumps(msg, JSON_COMPACT);
	out = redact_body(text, strlen(text), &len);
	got = out ? json_loadb(out, len, 0, NULL) : json_incref(msg);
	enc = json_object_get(json_object_get(got, "params"), "postData");
	if (json_is_string(enc))
		raw = redact_text_b64_decode(json_string_value(enc), json_string_length(enc), &rawlen);
	ok(raw && rawlen == wn && !memcmp(raw, want, wn), "%s", name);
	if (!(raw && rawlen == wn && !memcmp(raw, want, wn)))
		printf("#   got %.*s\n", raw ? (int)rawlen : 6, raw ? raw : "(none)");
	free(raw);
	json_decref(got);
	json_decref(msg);
	free(out);
	free(text);
}
#define POST(in, want, name) check_post(in, sizeof in - 1, want, sizeof want - 1, name)

/* Issue 46 #1: bodies shaped otherwise than the browser shapes them, read
 * as the servers that receive them would. */
static void shape_checks(void)
{
	POST("{\"data\":\"{\\\"password\\\":\\\"S50\\\"}\"}",
	     "{\"data\":\"{\\\"password\\\":\\\"<redacted>\\\"}\"}",
	     "JSON inside a JSON string");
	POST("{\"a\":[\"x=1&token=S51\",\"{\\\"k\\\":\\\"[\\\\\\\"jwt=S52\\\\\\\"]\\\"}\"]}",
	     "{\"a\":[\"x=1&token=<redacted>\",\"{\\\"k\\\":\\\"[\\\\\\\"jwt=<redacted>\\\\\\\"]\\\"}\"]}",
	     "a form in a JSON string, and JSON two levels down");
	POST("\xef\xbb\xbf {\"password\":\"S53\"}", "\xef\xbb\xbf {\"password\":\"<redacted>\"}",
	     "JSON after a byte order mark");
	POST("preamble\r\n--B\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n--B\r\n"
	     "Content-Disposition: form-data; name=\"password\"\r\n\r\nS54\r\n--B--\r\n",
	     "preamble\r\n--B\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n--B\r\n"
	     "Content-Disposition: form-data; name=\"password\"\r\n\r\n<redacted>\r\n--B--\r\n",
	     "multipart with a preamble");
	POST("\n--B\nContent-Disposition: form-data; name=\"password\"\n\nS55\nmore S55\n--B--\n",
	     "\n--B\nContent-Disposition: form-data; name=\"password\"\n\n<redacted>\n--B--\n",
	     "multipart with LF line ends and a leading newline");
	POST("a=1;password=S56;b=2", "a=1;password=<redacted>;b=2", "a form split by ';'");
	POST("password=S56;b=2&c=3", "password=<redacted>&c=3", "a value with a ';' runs to the next '&'");
	POST("x;pass=S57&b=2", "x;pass=<redacted>&b=2", "a form name that holds a ';'");
	POST("--B\r\nContent-Disposition: form-data; name*=UTF-8''password\r\n\r\nS58\r\n--B--",
	     "--B\r\nContent-Disposition: form-data; name*=UTF-8''password\r\n\r\n<redacted>\r\n--B--",
	     "a part named name*=UTF-8''password");
	POST("--B\r\nContent-Disposition: form-data; name*0*=UTF-8''pa%73; name*1=\"s\\w\"; NAME*2 = ord\r\n\r\nS59\r\n--B--",
	     "--B\r\nContent-Disposition: form-data; name*0*=UTF-8''pa%73; name*1=\"s\\w\"; NAME*2 = ord\r\n\r\n<redacted>\r\n--B--",
	     "a part named in RFC 2231 pieces, escaped and spaced");
	POST("--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"password.txt\"\r\n\r\nhello\r\n--B--",
	     "--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"password.txt\"\r\n\r\nhello\r\n--B--",
	     "a file named like a credential stays");
	POST("a=1&password=S60\0", "a=1&password=<redacted>", "a form with a NUL");
	POST("a=\0\0&pass\0word=S61&b=2", "a=\0\0&pass\0word=<redacted>&b=2", "NUL bytes in names and values");
	POST("user=ann\r\npassword=S62&x\r\nnote=a&b\r\n", "user=ann\r\npassword=<redacted>\r\nnote=a&b\r\n",
	     "a text/plain form: a field per line, '&' in a value");
	POST("(() => {\n  const token = [\"a\", \"b\"].join('-');\n})();\n",
	     "(() => {\n  const token = [\"a\", \"b\"].join('-');\n})();\n",
	     "a script's source (LF line ends, no CRLF) is not read as a text/plain form");
	POST("{\"p\\u0061ssword\":\"S63", "<redacted>", "cut JSON with an escaped credential name: withheld");
	POST("{x=1&y=2", "{x=1&y=2", "text that starts like JSON, no credential in it: as it is");
}

/* A requestWillBeSent of about len bytes: an Authorization header, then a
 * form body whose password field comes first, then filler. */
static char *big_request(size_t len, size_t *n)
{
	static const char pre[] = "{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":"
		"{\"url\":\"http://u:pw@a/\",\"headers\":{\"Authorization\":\"Bearer t\",\"Accept\":\"*/*\"},"
		"\"postData\":\"password=S43&k=";
	static const char post[] = "\",\"hasPostData\":true}},\"sessionId\":\"AB\"}";
	char *b = malloc(len + sizeof pre + sizeof post);

	memcpy(b, pre, sizeof pre - 1);
	for (size_t i = 0; i < len; i++)
		b[sizeof pre - 1 + i] = "abc\xc3\xa9%2B"[i % 8];
	memcpy(b + sizeof pre - 1 + len, post, sizeof post);
	*n = sizeof pre - 1 + len + sizeof post - 1;
	return b;
}

/* redact_body_head: a long body's first keep bytes come out as redact_body's. */
static void head_checks(void)
{
	size_t keep = 1024, n, whole_n = 0, head_n = 0;
	char *b = big_request(1 << 20, &n);
	char *whole = redact_body(b, n, &whole_n), *head = redact_body_head(b, n, keep, &head_n);

	ok(n > REDACT_HEAD_SPAN(keep) && whole && head && head_n >= keep && whole_n >= keep &&
	   !memcmp(whole, head, keep) && !strstr(head, "S43") && !strstr(head, "Bearer t") &&
	   !strstr(head, "u:pw"),
	   "a 1 MiB request redacted by its head: its first 1 KiB as the whole's, secrets out");
	ok(head_n < REDACT_HEAD_SPAN(keep) + 64, "and only the head was read and written (%zu bytes)", head_n);
	free(whole);
	free(head);
	memcpy(b + n - 8, "\"}}}}}}}", 8);   /* no longer JSON at its end: the head does not see it */
	head = redact_body_head(b, n, keep, &head_n);
	ok(head && !strncmp(head, "{\"method\":", 10) && !strstr(head, "S43"), "a broken tail is not read");
	free(head);
	memcpy(b, "[1,{:}", 6);   /* not JSON at its start, and a secret in the head */
	head = redact_body_head(b, n, keep, &head_n);
	ok(head && !strcmp(head, REDACTED_NOT_JSON), "a broken head that mentions a secret is withheld");
	free(head);
	free(b);
	b = malloc(REDACT_HEAD_SPAN(keep) * 2);
	n = (size_t)snprintf(b, 64, "{\"method\":\"Page.x\",\"params\":{\"data\":\"");
	memset(b + n, 'x', REDACT_HEAD_SPAN(keep) * 2 - n - 4);
	memcpy(b + REDACT_HEAD_SPAN(keep) * 2 - 4, "\"}}", 3);
	n = REDACT_HEAD_SPAN(keep) * 2 - 1;
	ok(redact_body_head(b, n, keep, &head_n) == NULL, "a long body with no secret in its head: as it is");
	free(b);
}

int main(void)
{
	size_t n;
	char *out;

	out = redact_body("{\"id\":1,\"method\":\"Runtime.evaluate\"}", 37, &n);
	ok(out == NULL, "a body without secrets is logged as it is");
	free(out);
	check("{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":{\"url\":\"u\","
	      "\"headers\":{\"Cookie\":\"a=1\",\"authorization\":\"Bearer x\",\"Accept\":\"*/*\"}}}}",
	      "{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":{\"url\":\"u\","
	      "\"headers\":{\"Cookie\":\"<redacted>\",\"authorization\":\"<redacted>\",\"Accept\":\"*/*\"}}}}",
	      "header objects: Cookie and Authorization redacted, Accept kept");
	check("{\"method\":\"Network.responseReceivedExtraInfo\",\"params\":{\"headers\":"
	      "{\"set-cookie\":\"s=1\"},\"headersText\":\"HTTP/1.1 200 OK\\r\\nSet-Cookie: s=1\\r\\n"
	      "Content-Type: text/html\\r\\nProxy-Authorization: Basic eA==\\r\\n\"}}",
	      "{\"method\":\"Network.responseReceivedExtraInfo\",\"params\":{\"headers\":"
	      "{\"set-cookie\":\"<redacted>\"},\"headersText\":\"HTTP/1.1 200 OK\\r\\nSet-Cookie: <redacted>\\r\\n"
	      "Content-Type: text/html\\r\\nProxy-Authorization: <redacted>\\r\\n\"}}",
	      "raw header text: secret lines redacted, others kept");
	check("{\"id\":3,\"result\":{\"cookies\":[{\"name\":\"sid\",\"value\":\"abc\",\"domain\":\"d\"}]}}",
	      "{\"id\":3,\"result\":{\"cookies\":[{\"name\":\"sid\",\"value\":\"<redacted>\",\"domain\":\"d\"}]}}",
	      "Network.getCookies / Storage.getCookies results: cookie values");
	check("{\"id\":4,\"method\":\"Network.setCookie\",\"params\":{\"name\":\"sid\",\"value\":\"abc\"}}",
	      "{\"id\":4,\"method\":\"Network.setCookie\",\"params\":{\"name\":\"sid\",\"value\":\"<redacted>\"}}",
	      "Network.setCookie params: the value");
	check("{\"id\":5,\"method\":\"Fetch.continueRequest\",\"params\":{\"headers\":"
	      "[{\"name\":\"Authorization\",\"value\":\"Bearer t\"},{\"name\":\"X\",\"value\":\"y\"}]}}",
	      "{\"id\":5,\"method\":\"Fetch.continueRequest\",\"params\":{\"headers\":"
	      "[{\"name\":\"Authorization\",\"value\":\"<redacted>\"},{\"name\":\"X\",\"value\":\"y\"}]}}",
	      "header entries [{name, value}]");
	/* The shapes Chromium sends once Network.enable is on (issue 14). */
	check("{\"method\":\"Network.requestWillBeSentExtraInfo\",\"params\":{\"associatedCookies\":"
	      "[{\"cookie\":{\"name\":\"sid\",\"value\":\"S1\",\"domain\":\"d\",\"path\":\"/\"},\"blockedReasons\":[]}],"
	      "\"headers\":{\"Cookie\":\"sid=S1\"}}}",
	      "{\"method\":\"Network.requestWillBeSentExtraInfo\",\"params\":{\"associatedCookies\":"
	      "[{\"cookie\":{\"name\":\"sid\",\"value\":\"<redacted>\",\"domain\":\"d\",\"path\":\"/\"},\"blockedReasons\":[]}],"
	      "\"headers\":{\"Cookie\":\"<redacted>\"}}}",
	      "associatedCookies[].cookie.value");
	check("{\"method\":\"Network.responseReceivedExtraInfo\",\"params\":{\"blockedCookies\":"
	      "[{\"blockedReasons\":[\"SameSiteNoneInsecure\"],\"cookieLine\":\"b=S2; Path=/; SameSite=None; x=S3\","
	      "\"cookie\":{\"name\":\"b\",\"value\":\"S2\",\"domain\":\"d\"}}],"
	      "\"exemptedCookies\":[{\"exemptionReason\":\"TPCDMetadata\",\"cookieLine\":\"e=S4;secure\"}]}}",
	      "{\"method\":\"Network.responseReceivedExtraInfo\",\"params\":{\"blockedCookies\":"
	      "[{\"blockedReasons\":[\"SameSiteNoneInsecure\"],\"cookieLine\":\"b=<redacted>; Path=/; SameSite=None; <redacted>\","
	      "\"cookie\":{\"name\":\"b\",\"value\":\"<redacted>\",\"domain\":\"d\"}}],"
	      "\"exemptedCookies\":[{\"exemptionReason\":\"TPCDMetadata\",\"cookieLine\":\"e=<redacted>;secure\"}]}}",
	      "blockedCookies and exemptedCookies: cookieLine and cookie.value");
	check("{\"method\":\"Audits.issueAdded\",\"params\":{\"issue\":{\"code\":\"CookieIssue\",\"details\":"
	      "{\"cookieIssueDetails\":{\"rawCookieLine\":\"S5\",\"cookieWarningReasons\":[]}}}}}",
	      "{\"method\":\"Audits.issueAdded\",\"params\":{\"issue\":{\"code\":\"CookieIssue\",\"details\":"
	      "{\"cookieIssueDetails\":{\"rawCookieLine\":\"<redacted>\",\"cookieWarningReasons\":[]}}}}}",
	      "Audits rawCookieLine, a value with no name");
	check("{\"id\":9,\"result\":{\"rawCookieLine\":\"Set-Cookie :x=S6\"}}",
	      "{\"id\":9,\"result\":{\"rawCookieLine\":\"Set-Cookie : <redacted>\"}}",
	      "a cookie line that is a whole Set-Cookie header");
	check("{\"method\":\"Network.responseReceived\",\"params\":{\"response\":{\"requestHeadersText\":"
	      "\"GET / HTTP/1.1\\r\\ncookie:S7\\r\\nAUTHORIZATION  :\\tBasic S8\\n\\tS9\\rX: 1\\r\\n\","
	      "\"headersText\":\"HTTP/1.1 200 OK\\rSet-Cookie: a=S10\\u0000set-COOKIE:b=S11\\r\\n\\r\\n\"}}}",
	      "{\"method\":\"Network.responseReceived\",\"params\":{\"response\":{\"requestHeadersText\":"
	      "\"GET / HTTP/1.1\\r\\ncookie: <redacted>\\r\\nAUTHORIZATION  : <redacted>\\n <redacted>\\rX: 1\\r\\n\","
	      "\"headersText\":\"HTTP/1.1 200 OK\\rSet-Cookie: <redacted>\\u0000set-COOKIE: <redacted>\\r\\n\\r\\n\"}}}",
	      "raw header text: odd spacing, case, bare \\r and \\n, folded lines");
	/* base64 of "Set-Cookie: s=S12\0X: 1" and of "Set-Cookie: <redacted>\0X: 1". */
	check("{\"id\":10,\"method\":\"Fetch.fulfillRequest\",\"params\":{\"requestId\":\"r\",\"responseCode\":200,"
	      "\"binaryResponseHeaders\":\"U2V0LUNvb2tpZTogcz1TMTIAWDogMQ==\"}}",
	      "{\"id\":10,\"method\":\"Fetch.fulfillRequest\",\"params\":{\"requestId\":\"r\",\"responseCode\":200,"
	      "\"binaryResponseHeaders\":\"U2V0LUNvb2tpZTogPHJlZGFjdGVkPgBYOiAx\"}}",
	      "Fetch binaryResponseHeaders: decoded, redacted, encoded");
	check("{\"id\":11,\"method\":\"Fetch.continueWithAuth\",\"params\":{\"requestId\":\"r\",\"authChallengeResponse\":"
	      "{\"response\":\"ProvideCredentials\",\"username\":\"u\",\"password\":\"S13\"}}}",
	      "{\"id\":11,\"method\":\"Fetch.continueWithAuth\",\"params\":{\"requestId\":\"r\",\"authChallengeResponse\":"
	      "{\"response\":\"ProvideCredentials\",\"username\":\"u\",\"password\":\"<redacted>\"}}}",
	      "Fetch.continueWithAuth: the password");
	check("{\"id\":12,\"method\":\"Storage.setCookies\",\"params\":{\"cookies\":[{\"name\":\"a\",\"value\":\"S14\"}]}}",
	      "{\"id\":12,\"method\":\"Storage.setCookies\",\"params\":{\"cookies\":[{\"name\":\"a\",\"value\":\"<redacted>\"}]}}",
	      "Storage.setCookies: CookieParam values");
	check("{\"method\":\"Preload.prerenderStatusUpdated\",\"params\":{\"mismatchedHeaders\":[{\"headerName\":\"Cookie\","
	      "\"initialValue\":\"S15\",\"activationValue\":\"S16\"}]}}",
	      "{\"method\":\"Preload.prerenderStatusUpdated\",\"params\":{\"mismatchedHeaders\":[{\"headerName\":\"Cookie\","
	      "\"initialValue\":\"<redacted>\",\"activationValue\":\"<redacted>\"}]}}",
	      "Preload mismatchedHeaders of a secret header");
	check("{\"id\":13,\"method\":\"Network.setExtraHTTPHeaders\",\"params\":{\"headers\":{\"\\u0041uthorization\":\"S17\","
	      "\" cookie \":\"S18\"}}}",
	      "{\"id\":13,\"method\":\"Network.setExtraHTTPHeaders\",\"params\":{\"headers\":{\"Authorization\":\"<redacted>\","
	      "\" cookie \":\"<redacted>\"}}}",
	      "header names escaped or spaced");
	check("{\"id\":14,\"method\":\"Target.sendMessageToTarget\",\"params\":{\"sessionId\":\"s\",\"message\":"
	      "\"{\\\"id\\\":1,\\\"method\\\":\\\"Network.setCookie\\\",\\\"params\\\":{\\\"name\\\":\\\"a\\\",\\\"value\\\":\\\"S19\\\"}}\"}}",
	      "{\"id\":14,\"method\":\"Target.sendMessageToTarget\",\"params\":{\"sessionId\":\"s\",\"message\":"
	      "\"{\\\"id\\\":1,\\\"method\\\":\\\"Network.setCookie\\\",\\\"params\\\":{\\\"name\\\":\\\"a\\\",\\\"value\\\":\\\"<redacted>\\\"}}\"}}",
	      "a message wrapped by Target.sendMessageToTarget");
	check("{\"id\":15,\"result\":{\"properties\":[{\"name\":\"color\",\"value\":\"red\"}]}}",
	      "{\"id\":15,\"result\":{\"properties\":[{\"name\":\"color\",\"value\":\"red\"}]}}",
	      "a {name, value} that is neither a cookie nor a secret header stays");
	check("{\"headerName\":\"cookie\",\"method\":\"Network.setCookie\",\"params\":{\"value\":\"x\"}}",
	      "{\"headerName\":\"cookie\",\"method\":\"<redacted>\",\"params\":\"<redacted>\"}",
	      "a message that is itself a mismatched secret header (found by fuzz_redact: a use after free)");
	/* Issue 27 #6: secrets outside the shapes above. */
	check("{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":{\"method\":\"POST\","
	      "\"postData\":\"user=ann&pass%77ord=S20&remember=1\",\"hasPostData\":true}}}",
	      "{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":{\"method\":\"POST\","
	      "\"postData\":\"user=ann&pass%77ord=<redacted>&remember=1\",\"hasPostData\":true}}}",
	      "a form body's password in request.postData (name percent-encoded)");
	check("{\"id\":20,\"result\":{\"postData\":\"{\\\"login\\\":\\\"ann\\\",\\\"auth\\\":{\\\"pwd\\\":\\\"S21\\\"}}\"}}",
	      "{\"id\":20,\"result\":{\"postData\":\"{\\\"login\\\":\\\"ann\\\",\\\"auth\\\":\\\"<redacted>\\\"}\"}}",
	      "Network.getRequestPostData result: a JSON body's credential member");
	check("{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":{\"postData\":"
	      "\"--B\\r\\nContent-Disposition: form-data; name=\\\"user\\\"\\r\\n\\r\\nann\\r\\n--B\\r\\n"
	      "Content-Disposition: form-data; name=\\\"Password\\\"\\r\\n\\r\\nS31\\r\\n--B--\\r\\n\","
	      "\"postDataEntries\":[{\"bytes\":\"dXNlcj1hbm4mcGFzc3dvcmQ9UzIy\"}]}}}",
	      "{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":{\"postData\":"
	      "\"--B\\r\\nContent-Disposition: form-data; name=\\\"user\\\"\\r\\n\\r\\nann\\r\\n--B\\r\\n"
	      "Content-Disposition: form-data; name=\\\"Password\\\"\\r\\n\\r\\n<redacted>\\r\\n--B--\\r\\n\","
	      "\"postDataEntries\":[{\"bytes\":\"dXNlcj1hbm4mcGFzc3dvcmQ9PHJlZGFjdGVkPg==\"}]}}}",
	      "a multipart part named Password; postDataEntries[].bytes (base64 of a form)");
	check("{\"id\":21,\"method\":\"Fetch.continueRequest\",\"params\":{\"requestId\":\"r\",\"postData\":\"cGFzc3dkPVMyMyZ4PTE=\"}}",
	      "{\"id\":21,\"method\":\"Fetch.continueRequest\",\"params\":{\"requestId\":\"r\",\"postData\":\"cGFzc3dkPTxyZWRhY3RlZD4meD0x\"}}",
	      "Fetch.continueRequest postData (base64 of a form)");
	check("{\"id\":22,\"method\":\"Fetch.fulfillRequest\",\"params\":{\"requestId\":\"r\",\"responseCode\":200,"
	      "\"body\":\"eyJhY2Nlc3NfdG9rZW4iOiJTMjQiLCJuIjoxfQ==\"}}",
	      "{\"id\":22,\"method\":\"Fetch.fulfillRequest\",\"params\":{\"requestId\":\"r\",\"responseCode\":200,"
	      "\"body\":\"eyJhY2Nlc3NfdG9rZW4iOiI8cmVkYWN0ZWQ+IiwibiI6MX0=\"}}",
	      "Fetch.fulfillRequest body (base64 of JSON with a token)");
	check("{\"id\":23,\"result\":{\"body\":\"{\\\"session\\\":\\\"S25\\\",\\\"ok\\\":true}\",\"base64Encoded\":false}}",
	      "{\"id\":23,\"result\":{\"body\":\"{\\\"session\\\":\\\"<redacted>\\\",\\\"ok\\\":true}\",\"base64Encoded\":false}}",
	      "Network/Fetch.getResponseBody result: a JSON body's session member");
	check("{\"method\":\"Network.requestWillBeSent\",\"params\":{\"documentURL\":\"http://ann:S26@h/\",\"request\":"
	      "{\"url\":\"https://ann:S26@h:8/p?q=1#f\"},\"initiator\":{\"stack\":{\"callFrames\":[{\"url\":\"ws://S26@h\"}]}},"
	      "\"redirectResponse\":{\"url\":\"see http://a@b:S26@h/x and ftp://u:S26@[::1]\"},\"x\":[\"http://u:S26@h\"]}}",
	      "{\"method\":\"Network.requestWillBeSent\",\"params\":{\"documentURL\":\"http://<redacted>@h/\",\"request\":"
	      "{\"url\":\"https://<redacted>@h:8/p?q=1#f\"},\"initiator\":{\"stack\":{\"callFrames\":[{\"url\":\"ws://<redacted>@h\"}]}},"
	      "\"redirectResponse\":{\"url\":\"see http://<redacted>@h/x and ftp://<redacted>@[::1]\"},\"x\":[\"http://<redacted>@h\"]}}",
	      "URL userinfo in any string: user and password replaced");
	check("{\"method\":\"Page.frameNavigated\",\"params\":{\"frame\":{\"id\":\"f\",\"url\":\"http://ann:S27@h/\","
	      "\"urlFragment\":\"#x\"}}}",
	      "{\"method\":\"Page.frameNavigated\",\"params\":{\"frame\":{\"id\":\"f\",\"url\":\"http://<redacted>@h/\","
	      "\"urlFragment\":\"#x\"}}}",
	      "Page.frameNavigated url with userinfo");
	check("{\"id\":26,\"result\":{\"text\":\"a://bhttp://u:S35@h and http:\\/\\/u:S36@h\"}}",
	      "{\"id\":26,\"result\":{\"text\":\"a://bhttp://<redacted>@h and http://<redacted>@h\"}}",
	      "a URL right after another's authority; JSON's escaped slashes");
	check("{\"id\":27,\"result\":{\"postData\":\"{x=1&sid=S37\"}}",
	      "{\"id\":27,\"result\":{\"postData\":\"<redacted>\"}}",
	      "a form that starts like JSON (found by fuzz_redact): withheld, as text that does not parse");
	check("{\"id\":28,\"result\":{\"postData\":\"{\\\"pass\\\":\\\"S38\"}}",
	      "{\"id\":28,\"result\":{\"postData\":\"<redacted>\"}}",
	      "a JSON body cut short, with a credential word in it: withheld");
	check("{\"method\":\"Network.requestWillBeSent\",\"sessionId\":\"S\",\"params\":{\"request\":{\"headers\":"
	      "{\"X-Api-Key\":\"S28\",\"X-Foo-Token\":\"S29\",\"x-session\":\"S30\",\"Accept\":\"*/*\"}}}}",
	      "{\"method\":\"Network.requestWillBeSent\",\"sessionId\":\"S\",\"params\":{\"request\":{\"headers\":"
	      "{\"X-Api-Key\":\"<redacted>\",\"X-Foo-Token\":\"<redacted>\",\"x-session\":\"<redacted>\",\"Accept\":\"*/*\"}}}}",
	      "header names by pattern in a headers object; sessionId stays");
	check("{\"id\":24,\"method\":\"Fetch.continueRequest\",\"params\":{\"headers\":"
	      "[{\"name\":\"X-Api-Key\",\"value\":\"S32\"},{\"name\":\"X\",\"value\":\"y\"}]}}",
	      "{\"id\":24,\"method\":\"Fetch.continueRequest\",\"params\":{\"headers\":"
	      "[{\"name\":\"X-Api-Key\",\"value\":\"<redacted>\"},{\"name\":\"X\",\"value\":\"y\"}]}}",
	      "header entries by pattern");
	check("{\"method\":\"Network.responseReceived\",\"params\":{\"response\":{\"headersText\":"
	      "\"HTTP/1.1 200 OK\\r\\nX-Auth-Token: S33\\r\\nLocation: http://u:S34@h/\\r\\n\"}}}",
	      "{\"method\":\"Network.responseReceived\",\"params\":{\"response\":{\"headersText\":"
	      "\"HTTP/1.1 200 OK\\r\\nX-Auth-Token: <redacted>\\r\\nLocation: http://<redacted>@h/\\r\\n\"}}}",
	      "raw header text: header names by pattern, URL userinfo");
	check("{\"id\":25,\"method\":\"Input.dispatchKeyEvent\",\"params\":{\"type\":\"keyDown\",\"key\":\"a\",\"code\":\"KeyA\"}}",
	      "{\"id\":25,\"method\":\"Input.dispatchKeyEvent\",\"params\":{\"type\":\"keyDown\",\"key\":\"a\",\"code\":\"KeyA\"}}",
	      "CDP's own members named like credentials stay (key, sessionId)");
	check("{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":{\"postData\":\"q=hello&page=2\","
	      "\"headers\":{\"Accept\":\"*/*\"},\"url\":\"http://h/a@b\"}}}",
	      "{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":{\"postData\":\"q=hello&page=2\","
	      "\"headers\":{\"Accept\":\"*/*\"},\"url\":\"http://h/a@b\"}}}",
	      "a form without credentials, and an @ past the host, stay");
	/* Each credential word, as redact.c's cred_words and mentions_secret spell
	 * them, in a header name of an otherwise quiet message. */
	{
		static const char *const words[] = {
			"pass", "pwd", "secret", "token", "key", "auth", "credential", "session", "sessid", "cookie",
			"csrf", "xsrf", "jwt", "signature", "sid",
		};
		for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
			char in[200], want[200];
			snprintf(in, sizeof in, "{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":"
				 "{\"headers\":{\"X-%s%s\":\"S40\"}}}}", i == 14 ? "" : "My", words[i]);
			snprintf(want, sizeof want, "{\"method\":\"Network.requestWillBeSent\",\"params\":{\"request\":"
				 "{\"headers\":{\"X-%s%s\":\"<redacted>\"}}}}", i == 14 ? "" : "My", words[i]);
			if (i == 14) {   /* "sid" is one only alone */
				snprintf(in, sizeof in, "{\"params\":{\"headers\":{\"SID\":\"S40\",\"inside\":\"x\"}}}");
				snprintf(want, sizeof want, "{\"params\":{\"headers\":{\"SID\":\"<redacted>\",\"inside\":\"x\"}}}");
			}
			check(in, want, words[i]);
		}
	}
	check("{\"id\":29,\"result\":{\"headers\":{\"x\":\"y\"},\"sessionId\":\"s\",\"data\":\"a+key/sid+jwt\"}}",
	      "{\"id\":29,\"result\":{\"headers\":{\"x\":\"y\"},\"sessionId\":\"s\",\"data\":\"a+key/sid+jwt\"}}",
	      "credential words outside header names stay (and sessionId)");
	check("{\"params\":{\"requestHeadersText\":\"S\\r\\nSID:S41\"}}",
	      "{\"params\":{\"requestHeadersText\":\"S\\r\\nSID: <redacted>\"}}",
	      "a header line named sid after an escaped line end (found by fuzz_redact)");
	check("{\"params\":{\"postData\":\"--x\\nk=1&password=S42\"}}",
	      "{\"params\":{\"postData\":\"--x\\nk=1&password=<redacted>\"}}",
	      "a form that starts like a multipart body (found by fuzz_redact)");
	out = redact_body("{\"Cookie\": ", 11, &n);
	ok(out && !strcmp(out, "<redacted: not JSON>"), "a broken body that mentions a secret is withheld");
	free(out);
	head_checks();
	shape_checks();
	return tap_done();
}
