/* audit_junit_test: JUnit XML as runners write it (Playwright's nesting,
 * jest-junit's classname, a lone <testsuite>), failures and skips, and files
 * that are not JUnit or not XML at all. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../tools/cdpbench/audit_junit.c"
#include "tap.h"

static const char *write_tmp(const char *text)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof path, "/tmp/audit-junit-test-%d.xml", (int)getpid());
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static void free_tests(struct audit_test *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].name);
	free(t);
}

int main(void)
{
	struct audit_test *t;
	size_t n;
	char err[512];
	const char *p;
	int rc;

	p = write_tmp("<?xml version=\"1.0\"?>\n<testsuites id=\"\" tests=\"3\">\n"
		      " <testsuite name=\"upload.spec.js\"><properties/>\n"
		      "  <testcase name=\"fetch() uploads\" classname=\"upload.spec.js\" time=\"2.5\"></testcase>\n"
		      "  <testcase name=\"renders &amp; shoots\" classname=\"upload.spec.js\" time=\"0.75\">\n"
		      "   <failure message=\"boom\" type=\"FAILURE\">stack</failure></testcase>\n"
		      "  <testcase name=\"later\" classname=\"upload.spec.js\" time=\"0\"><skipped/></testcase>\n"
		      " </testsuite></testsuites>\n");
	ok(audit_junit_read(p, &t, &n, err, sizeof err) == 0, "Playwright's JUnit reads");
	ok(n == 2, "two tests: the skipped one is left out (%zu)", n);
	ok(n == 2 && !strcmp(t[0].name, "upload.spec.js: fetch() uploads") && t[0].seconds == 2.5 && t[0].ok,
	   "classname: name, its time, passed (%s)", n ? t[0].name : "-");
	ok(n == 2 && !strcmp(t[1].name, "upload.spec.js: renders & shoots") && !t[1].ok,
	   "entities decoded; a <failure> is not ok");
	free_tests(t, n);

	p = write_tmp("<testsuite name=\"jest\"><testcase classname=\"adds\" name=\"adds\" time=\"0.01\"/>"
		      "<testcase name=\"no class\" time=\"1\"><error/></testcase></testsuite>");
	ok(audit_junit_read(p, &t, &n, err, sizeof err) == 0 && n == 2, "a lone <testsuite> reads");
	ok(n == 2 && !strcmp(t[0].name, "adds") && !strcmp(t[1].name, "no class") && !t[1].ok,
	   "classname equal to name is not repeated; <error> is not ok");
	free_tests(t, n);

	p = write_tmp("<html><body>not junit</body></html>");
	rc = audit_junit_read(p, &t, &n, err, sizeof err);
	ok(rc < 0 && strstr(err, "not JUnit XML"), "another XML document is refused: %s", err);
	p = write_tmp("<testsuites><testcase name=");
	rc = audit_junit_read(p, &t, &n, err, sizeof err);
	ok(rc < 0 && strstr(err, "cannot read"), "broken XML is refused: %s", err);
	/* XML_PARSE_NONET and no entity substitution: nothing is fetched */
	p = write_tmp("<!DOCTYPE x [<!ENTITY e SYSTEM \"http://127.0.0.1:1/x\">]><testsuite><testcase name=\"&e;\"/></testsuite>");
	rc = audit_junit_read(p, &t, &n, err, sizeof err);
	ok(rc < 0 && strstr(err, "external entity"), "an external entity is refused, not fetched: %s", err);
	rc = audit_junit_read("/nonexistent/junit.xml", &t, &n, err, sizeof err);
	ok(rc < 0 && n == 0, "a missing file: %s", err);
	unlink(p);
	return tap_done();
}
