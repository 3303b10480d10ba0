/* audit_junit_test: JUnit XML as runners write it (Playwright's nesting,
 * jest-junit's classname, a lone <testsuite>), failures and skips, files
 * that are not JUnit or not XML at all, and hostile ones (issue 27 #4: deep
 * nesting, entity expansion, size) refused in bounded time and memory. */
#include "util.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
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

/* The parts, concatenated into the test's file. */
static const char *write_parts(const char *head, const char *unit, size_t times, const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail), len = hl + ul * times + tl;
	char *buf = xmalloc(len + 1), *p = buf;
	const char *path;

	memcpy(p, head, hl);
	p += hl;
	for (size_t i = 0; i < times; i++, p += ul)
		memcpy(p, unit, ul);
	memcpy(p, tail, tl + 1);
	path = write_tmp(buf);
	free(buf);
	return path;
}

static long maxrss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_alarm(int sig)
{
	static const char msg[] = "not ok - a hostile JUnit file was still being read after 60 s\n";

	(void)sig;
	if (write(1, msg, sizeof msg - 1) < 0)
		_exit(1);
	_exit(1);
}

/* Reads p, which must be refused with an error containing want, within 60 s
 * (SIGALRM ends the test) and 200 MB more of peak RSS (generous: each of
 * these costs a few MB when refused, 374 MB to forever when not). */
static void refused(const char *p, const char *want, const char *what)
{
	struct audit_test *t;
	size_t n;
	char err[512] = "";
	long rss0 = maxrss_kib(), grew;
	double t0 = now_s();
	int rc;

	alarm(60);
	rc = audit_junit_read(p, &t, &n, err, sizeof err);
	alarm(0);
	grew = maxrss_kib() - rss0;
	ok(rc < 0 && n == 0 && strstr(err, want) && strstr(err, p), "%s: refused, naming the file: %s", what, err);
	ok(grew < 200 * 1024, "%s: peak RSS grew %ld KiB (< 200 MiB), in %.2f s", what, grew, now_s() - t0);
	if (rc == 0)
		free_tests(t, n);
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

	/* Found by fuzz_junit's oracle: a time strtod reads but that is no duration. */
	p = write_tmp("<testsuite><testcase name=\"a\" time=\"nan\"/><testcase name=\"b\" time=\"-inf\"/>"
		      "<testcase name=\"c\" time=\"-2\"/><testcase name=\"d\" time=\"0x1p1\"/></testsuite>");
	ok(audit_junit_read(p, &t, &n, err, sizeof err) == 0 && n == 4, "odd times read");
	ok(n == 4 && t[0].seconds == 0 && t[1].seconds == 0 && t[2].seconds == 0 && t[3].seconds == 2,
	   "nan, -inf and -2 count as no time (0), not as NaN or negative (%g %g %g %g)",
	   n == 4 ? t[0].seconds : -1, n == 4 ? t[1].seconds : -1, n == 4 ? t[2].seconds : -1, n == 4 ? t[3].seconds : -1);
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
	ok(rc < 0 && strstr(err, "DOCTYPE"), "an external entity is refused, not fetched: %s", err);
	rc = audit_junit_read("/nonexistent/junit.xml", &t, &n, err, sizeof err);
	ok(rc < 0 && n == 0 && strstr(err, "/nonexistent/junit.xml"), "a missing file: %s", err);

	/* Issue 27 #4, the three reproducers. */
	signal(SIGALRM, on_alarm);
	p = write_parts("<testsuites>", "<a>", 1000000, "");
	{
		/* the closing tags too: a well-formed document 1M levels deep */
		FILE *f = fopen(p, "a");
		for (int i = 0; i < 1000000; i++)
			fputs("</a>", f);
		fputs("</testsuites>", f);
		fclose(f);
	}
	refused(p, "depth", "1M nested elements");
	p = write_tmp("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n"
		      " <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
		      " <!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">\n"
		      " <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
		      " <!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n"
		      " <!ENTITY lol5 \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;\">\n"
		      " <!ENTITY lol6 \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;\">\n"
		      " <!ENTITY lol7 \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;\">\n"
		      " <!ENTITY lol8 \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;\">\n"
		      " <!ENTITY lol9 \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;\">\n"
		      "]>\n<testsuite><testcase name=\"&lol9;\" classname=\"&lol9;\"/></testsuite>\n");
	refused(p, "DOCTYPE", "a 9-level internal entity (billion laughs)");
	{
		/* a 50 KB entity, referenced 20,000 times */
		char *big = xmalloc(50 * 1024 + 64);
		snprintf(big, 64, "<!DOCTYPE t [<!ENTITY big \"");
		memset(big + strlen(big), 'x', 50 * 1024);
		strcpy(big + strlen("<!DOCTYPE t [<!ENTITY big \"") + 50 * 1024, "\">]><testsuite><testcase name=\"");
		p = write_parts(big, "&big;", 20000, "\"/></testsuite>");
		free(big);
	}
	refused(p, "DOCTYPE", "a 50 KB entity repeated 20,000 times");

	/* A DOCTYPE of any kind is refused; deep but legal nesting is walked. */
	p = write_tmp("<!DOCTYPE testsuite><testsuite><testcase name=\"a\"/></testsuite>");
	refused(p, "DOCTYPE", "a bare DOCTYPE");
	p = write_parts("<testsuites>", "<testsuite>", 200, "<testcase name=\"deep\"/>");
	{
		FILE *f = fopen(p, "a");
		for (int i = 0; i < 200; i++)
			fputs("</testsuite>", f);
		fputs("<testcase name=\"after\"/></testsuites>", f);
		fclose(f);
	}
	rc = audit_junit_read(p, &t, &n, err, sizeof err);
	ok(rc == 0 && n == 2 && !strcmp(t[0].name, "deep") && !strcmp(t[1].name, "after"),
	   "200 levels deep: its testcase and the one after it are read (%s)", rc ? err : "");
	if (rc == 0)
		free_tests(t, n);

	/* The size cap: a sparse 300 MiB file is refused before it is read... */
	{
		FILE *f = fopen(p, "w");
		fputs("<testsuite>", f);
		fclose(f);
		if (truncate(p, (off_t)300 << 20) < 0)
			perror("truncate");
	}
	refused(p, "larger than 256 MiB", "a 300 MiB file");
	/* ... and a stream that is not a regular file is cut off as it is read. */
	{
		static const char doc[] = "<testsuite><testcase name=\"a\"/><testcase name=\"b\"/></testsuite>";
		FILE *f = fmemopen((void *)doc, sizeof doc - 1, "r");
		rc = junit_read_stream(f, "stream", 16, &t, &n, err, sizeof err);
		fclose(f);
		ok(rc < 0 && strstr(err, "stream is larger than"), "past the cap as it is read: %s", err);
		f = fmemopen((void *)doc, sizeof doc - 1, "r");
		rc = junit_read_stream(f, "stream", sizeof doc - 1, &t, &n, err, sizeof err);
		fclose(f);
		ok(rc == 0 && n == 2, "exactly the cap reads (%s)", rc ? err : "");
		if (rc == 0)
			free_tests(t, n);
	}
	unlink(p);
	return tap_done();
}
