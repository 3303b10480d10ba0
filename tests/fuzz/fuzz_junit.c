/* fuzz_junit: libFuzzer driver for cdpbench audit's JUnit reader
 * (tools/cdpbench/audit/audit_junit.c, included for its statics): any bytes as
 * the file. Oracles: no crash, no leak, bounded time and memory (libFuzzer's
 * -timeout and -rss_limit_mb); either an error that names the file or the
 * tests, each with a name and a time that is a finite duration; and the
 * input read with a cap under its length gives what the whole input gives,
 * unless refused as larger. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlerror.h>

#include "audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *err)
{
	fprintf(stderr, "fuzz_junit: %s\n  err: %s\n", what, err);
	abort();
}

/* libxml2's own reports (XML_PARSE_NOERROR does not silence them all) stay
 * out of the fuzzer's log. */
static void quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

/* Reads data with the cap; 0 or -1, the error in err, the tests in *ntests. */
static int read_once(const uint8_t *data, size_t size, size_t cap, char *err, size_t errlen,
		     size_t *ntests)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct audit_test *t;
	size_t n;
	int rc = junit_read_stream(f, "fuzz.xml", cap, &t, &n, err, errlen);

	fclose(f);
	*ntests = n;
	if (rc < 0) {
		if (n || t)
			fail("refused, yet tests", err);
		if (!strstr(err, "fuzz.xml"))
			fail("an error that does not name the file", err);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		if (!t[i].name || !isfinite(t[i].seconds) || t[i].seconds < 0)
			fail("a test with no name, or a time that is not a duration", t[i].name ? t[i].name : "(null)");
		free(t[i].name);
	}
	free(t);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	char whole[512] = "", half[512] = "";
	size_t n_whole, n_half;
	int rc, rc_half;

	if (!init) {
		xmlSetGenericErrorFunc(NULL, quiet);
		init = 1;
	}
	if (!size)
		return 0;
	rc = read_once(data, size, size, whole, sizeof whole, &n_whole);
	if (size < 2)
		return 0;
	/* Under a cap the input does not fit in, the cap changes nothing but
	 * refuses it as larger: found by fuzzing, libxml2 stops before reading
	 * that far at an error ("Extra content at the end") and at a NUL after
	 * the root (the rest is never read: the whole input reads the same). */
	rc_half = read_once(data, size, size / 2, half, sizeof half, &n_half);
	if (rc_half < 0 && !strstr(half, "larger than") && (rc == 0 || strcmp(half, whole)))
		fail("under the cap: neither refused as larger nor the whole file's error", half);
	if (rc_half == 0 && (rc != 0 || n_half != n_whole))
		fail("under the cap: read, and not as the whole file reads", whole);
	return 0;
}
