/* audit_junit: each test's duration and outcome from the JUnit XML that
 * Playwright, Jest, Mocha and most runners write, read with libxml2 within
 * its limits: no DOCTYPE (so no entities), bounded size, depth and time. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "audit.h"
#include "util.h"

/* A JUnit report of 10,000 tests is a few MiB; this is far past any real one
 * and still a bounded cost (libxml2's tree is a few times the file). */
#define JUNIT_MAX_BYTES ((size_t)256 << 20)

/* What the reader refused, beyond what libxml2 reports. */
struct junit_src {
	FILE *f;
	size_t read, cap;
	int too_big, doctype, io_errno;
};

/* libxml2's read callback. A refusal (too big, a DOCTYPE, a read error) is
 * recorded here and told to libxml2 as the end of the input, never as -1:
 * 2.9.14's error path for a failed read halts the parser under a
 * comment's or a name's feet (a fuzz run saw xmlParseComment read past its
 * buffer after one; tests/fuzz/corpus/junit/regress-xmlparsecomment-overflow.xml),
 * while an early end is the path every truncated file takes. */
static int junit_io_read(void *ctx, char *buf, int len)
{
	struct junit_src *s = ctx;
	size_t n;

	if (s->too_big || s->doctype || s->io_errno)
		return 0;
	n = fread(buf, 1, (size_t)len, s->f);
	if (n == 0 && ferror(s->f)) {
		s->io_errno = errno ? errno : EIO;
		return 0;
	}
	s->read += n;
	if (s->read > s->cap) {
		s->too_big = 1;
		return 0;
	}
	return (int)n;
}

/* A JUnit report never needs a DOCTYPE; one is how entities (the "billion
 * laughs" and its kin) and external fetches get in, so the first sight of
 * one stops the parse, before its internal subset is read. */
static void junit_refuse_doctype(void *ctx, const xmlChar *name, const xmlChar *ext_id,
				 const xmlChar *sys_id)
{
	xmlParserCtxtPtr ctxt = ctx;
	struct junit_src *s = ctxt->_private;

	(void)name;
	(void)ext_id;
	(void)sys_id;
	s->doctype = 1;
	xmlStopParser(ctxt);
}

/* Does the testcase have a child named <name>? */
static int has_child(xmlNode *tc, const char *name)
{
	for (xmlNode *c = tc->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
			return 1;
	return 0;
}

static void add_case(xmlNode *tc, struct audit_test **tests, size_t *n)
{
	xmlChar *name = xmlGetProp(tc, (const xmlChar *)"name");
	xmlChar *cls = xmlGetProp(tc, (const xmlChar *)"classname");
	xmlChar *time = xmlGetProp(tc, (const xmlChar *)"time");
	struct audit_test *t;
	size_t len;

	if (!has_child(tc, "skipped")) {
		*tests = xrealloc(*tests, (*n + 1) * sizeof **tests);
		t = &(*tests)[(*n)++];
		len = (name ? strlen((char *)name) : 0) + (cls ? strlen((char *)cls) : 0) + 8;
		t->name = xmalloc(len);
		/* classname is the file or suite in most runners; equal to name in some */
		if (cls && *cls && (!name || strcmp((char *)cls, (char *)name)))
			snprintf(t->name, len, "%s: %s", (char *)cls, name ? (char *)name : "?");
		else
			snprintf(t->name, len, "%s", name ? (char *)name : "?");
		/* strtod also takes "nan", "inf" and "-1": no duration, as if absent
		 * (a NaN would poison the medians) */
		t->seconds = time ? strtod((char *)time, NULL) : 0;
		if (!isfinite(t->seconds) || t->seconds < 0)
			t->seconds = 0;
		t->ok = !has_child(tc, "failure") && !has_child(tc, "error");
	}
	xmlFree(name);
	xmlFree(cls);
	xmlFree(time);
}

/* Every <testcase> under root, in document order, whatever nests them:
 * iteratively (parent links, no stack), so depth costs no C stack. */
static void walk(xmlNode *root, struct audit_test **tests, size_t *n)
{
	xmlNode *c = root;

	while (c) {
		int descend = 0;
		if (c->type == XML_ELEMENT_NODE) {
			if (!strcmp((const char *)c->name, "testcase"))
				add_case(c, tests, n);
			else
				descend = c->children != NULL;
		}
		if (descend) {
			c = c->children;
			continue;
		}
		while (c != root && !c->next)
			c = c->parent;
		c = c == root ? NULL : c->next;
	}
}

/* The testcases of the JUnit XML read from f (named name in errors), at
 * most cap bytes of it. 0, or -1 with a reason in err. */
int junit_read_stream(FILE *f, const char *name, size_t cap, struct audit_test **tests,
			     size_t *n, char *err, size_t errlen)
{
	struct junit_src src = { .f = f, .cap = cap };
	xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
	xmlDoc *doc;
	xmlNode *root;
	int rc = -1;

	*tests = NULL;
	*n = 0;
	if (!ctxt) {
		snprintf(err, errlen, "cannot read %s: out of memory", name);
		return -1;
	}
	ctxt->_private = &src;
	ctxt->sax->internalSubset = junit_refuse_doctype;
	/* libxml2's limits stay on (no XML_PARSE_HUGE: 256 levels, 10 MB of text
	 * in one node); no entity substitution (no XML_PARSE_NOENT), no network. */
	doc = xmlCtxtReadIO(ctxt, junit_io_read, NULL, &src, name, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (src.doctype) {
		snprintf(err, errlen, "%s has a DOCTYPE: refused (a JUnit report needs none, and "
			 "entities are not expanded)", name);
		goto out;
	}
	if (src.too_big) {
		if (cap % (1 << 20) == 0)
			snprintf(err, errlen, "%s is larger than %zu MiB: refused", name, cap >> 20);
		else
			snprintf(err, errlen, "%s is larger than %zu bytes: refused", name, cap);
		goto out;
	}
	if (src.io_errno) {
		snprintf(err, errlen, "cannot read %s: %s", name, strerror(src.io_errno));
		goto out;
	}
	if (!doc) {
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		const char *m = e && e->message ? e->message : "", *huge = strstr(m, " use XML_PARSE_HUGE");
		/* libxml2's advice to lift its limit is not the reader's to take */
		snprintf(err, errlen, "cannot read %s as XML%s%.*s", name, *m ? ": " : "",
			 huge ? (int)(huge - m) : (int)strcspn(m, "\n"), m);
		goto out;
	}
	root = xmlDocGetRootElement(doc);
	if (!root || (strcmp((const char *)root->name, "testsuites") &&
		      strcmp((const char *)root->name, "testsuite"))) {
		snprintf(err, errlen, "%s is not JUnit XML (its root is <%.64s>)", name,
			 root ? (const char *)root->name : "nothing");
		goto out;
	}
	walk(root, tests, n);
	rc = 0;
out:
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctxt);
	return rc;
}

int audit_junit_read(const char *path, struct audit_test **tests, size_t *n, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	int rc;

	*tests = NULL;
	*n = 0;
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	/* A regular file's size is known before a byte is parsed; anything
	 * else (a pipe) is cut off at the same bound as it is read. */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > JUNIT_MAX_BYTES) {
		snprintf(err, errlen, "%s is larger than %zu MiB (%lld bytes): refused", path,
			 JUNIT_MAX_BYTES >> 20, (long long)st.st_size);
		fclose(f);
		return -1;
	}
	rc = junit_read_stream(f, path, JUNIT_MAX_BYTES, tests, n, err, errlen);
	fclose(f);
	return rc;
}
