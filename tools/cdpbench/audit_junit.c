/* audit_junit: each test's duration and outcome from the JUnit XML that
 * Playwright, Jest, Mocha and most runners write, read with libxml2. */
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "audit.h"
#include "util.h"

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
		t->seconds = time ? strtod((char *)time, NULL) : 0;
		t->ok = !has_child(tc, "failure") && !has_child(tc, "error");
	}
	xmlFree(name);
	xmlFree(cls);
	xmlFree(time);
}

/* Every <testcase> under node, in document order, whatever nests them. */
static void walk(xmlNode *node, struct audit_test **tests, size_t *n)
{
	for (xmlNode *c = node; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (!strcmp((const char *)c->name, "testcase"))
			add_case(c, tests, n);
		else
			walk(c->children, tests, n);
	}
}

int audit_junit_read(const char *path, struct audit_test **tests, size_t *n, char *err,
		     size_t errlen)
{
	/* No network, no external entities: the file is data, not a document to fetch for. */
	xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
				  XML_PARSE_NOWARNING | XML_PARSE_HUGE);
	xmlNode *root;

	*tests = NULL;
	*n = 0;
	if (!doc) {
		const xmlError *e = xmlGetLastError();
		snprintf(err, errlen, "cannot read %s as XML%s%.*s", path, e && e->message ? ": " : "",
			 e && e->message ? (int)strcspn(e->message, "\n") : 0,
			 e && e->message ? e->message : "");
		return -1;
	}
	root = xmlDocGetRootElement(doc);
	if (!root || (strcmp((const char *)root->name, "testsuites") &&
		      strcmp((const char *)root->name, "testsuite"))) {
		snprintf(err, errlen, "%s is not JUnit XML (its root is <%s>)", path,
			 root ? (const char *)root->name : "nothing");
		xmlFreeDoc(doc);
		return -1;
	}
	walk(root, tests, n);
	xmlFreeDoc(doc);
	return 0;
}
