/* redact_test: secrets leave logged bodies; everything else stays. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "redact.h"
#include "tap.h"

/* Redacts in and checks the result equals want (as JSON). */
static void check(const char *in, const char *want, const char *name)
{
	size_t n = 0;
	char *out = redact_body(in, strlen(in), &n);
	json_t *got = out ? json_loadb(out, n, 0, NULL) : NULL;
	json_t *exp = json_loads(want, 0, NULL);

	ok(got && exp && json_equal(got, exp), "%s", name);
	if (!(got && exp && json_equal(got, exp)))
		printf("#   got %s\n", out ? out : "(null)");
	json_decref(got);
	json_decref(exp);
	free(out);
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
	out = redact_body("{\"Cookie\": ", 11, &n);
	ok(out && !strcmp(out, "<redacted: not JSON>"), "a broken body that mentions a secret is withheld");
	free(out);
	return tap_done();
}
