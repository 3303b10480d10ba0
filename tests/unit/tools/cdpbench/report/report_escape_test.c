/* report_escape_test: every string cdpbench's reports take from a log, a
 * JUnit file, a command's output or the command line stays text (issue 27
 * #10): audit.html and report.html parsed with libxml2's HTML parser have
 * no element or attribute but the report's own, and show the hostile
 * strings as text; audit.md and report.md keep their tables' cells, have
 * no raw HTML and no backtick outside their own code spans and fences. */
#include "util.h"
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/HTMLparser.h>

/* Included for the functions the reports call. */
#include "audit_findings.h"
#include "audit.h"

#include "audit_view.h"
#include "report.h"

#include "replay.h"

#include "report_view.h"
#include "scenario.h"
#include "tap.h"

#define ROUNDS 3

/* What a page that runs them would show: each one must appear as text. */
#define IMG "<img src=x onerror=alert(1)>"
#define SCRIPT "<script>alert(2)</script>"
#define QUOTE "\" onmouseover=\"alert(3)"
#define APOS "'><svg onload=alert(4)>"
#define MD "a|b `c` *d* [e](javascript:f)\n| g | h |"

static char dir[64];

static char *slurp(const char *name)
{
	char path[128];
	FILE *f;
	long n;
	char *s;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = xmalloc((size_t)n + 1);
	s[fread(s, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return s;
}

static void put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* The elements a report page is made of; anything else came from a string. */
static int own_element(const char *name)
{
	static const char *const own[] = { "html", "head", "meta", "title", "style", "body", "h1", "h2",
		"p", "code", "ul", "li", "b", "span", "br", "table", "tr", "th", "td", "svg", "text",
		"rect", "circle", "line", "path", "g", NULL };

	for (int i = 0; own[i]; i++)
		if (!strcmp(name, own[i]))
			return 1;
	return 0;
}

/* Elements not the page's own, and attributes named on*, in the tree. */
static int foreign(xmlNode *n, char *what, size_t len)
{
	int bad = 0;

	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE) {
			if (!own_element((const char *)n->name)) {
				snprintf(what, len, "element <%s>", n->name);
				bad++;
			}
			for (xmlAttr *a = n->properties; a; a = a->next)
				if (!strncasecmp((const char *)a->name, "on", 2)) {
					snprintf(what, len, "attribute %s on <%s>", a->name, n->name);
					bad++;
				}
		}
		bad += foreign(n->children, what, len);
	}
	return bad;
}

static void check_html(const char *name)
{
	char path[128], what[256] = "";
	htmlDocPtr doc;
	xmlChar *text;
	int bad;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	doc = htmlReadFile(path, "utf-8", HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
	ok(doc != NULL, "%s parses as HTML", name);
	if (!doc)
		return;
	bad = foreign(xmlDocGetRootElement(doc), what, sizeof what);
	ok(bad == 0, "%s: no element or attribute but the page's own (%d; last: %s)", name, bad, what);
	text = xmlNodeGetContent(xmlDocGetRootElement(doc));
	ok(text && strstr((char *)text, IMG) && strstr((char *)text, SCRIPT) && strstr((char *)text, APOS),
	   "%s: the hostile strings are shown as text", name);
	xmlFree(text);
	xmlFreeDoc(doc);
}

/* A Markdown file: its tables keep their columns, and outside its own code
 * spans and fences (fence: a line of 3+ backticks) there is no '<' and no
 * unescaped backtick. */
static void check_md(const char *name, const char *own_span_line)
{
	char *md = slurp(name), *save = NULL;
	int header_cells = -1, bad_rows = 0, raw = 0, ticks = 0;
	size_t fence = 0;

	ok(md != NULL, "%s written", name);
	if (!md)
		return;
	for (char *l = strtok_r(md, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		size_t run = strspn(l, "`");
		int cells = 0;
		if (fence) {
			if (run == fence && !l[run])
				fence = 0;
			continue;
		}
		if (run >= 3) {
			fence = run;
			continue;
		}
		if (own_span_line && !strncmp(l, own_span_line, strlen(own_span_line)))
			continue;
		for (char *p = l; *p; p++) {
			if (*p == '\\' && p[1]) {
				p++;
				continue;
			}
			cells += *p == '|';
			raw += *p == '<';
			ticks += *p == '`';
		}
		if (l[0] != '|')
			header_cells = -1;
		else if (header_cells < 0)
			header_cells = cells;
		else if (cells != header_cells)
			bad_rows++;
	}
	ok(!bad_rows, "%s: every table row has its header's cells (%d rows do not)", name, bad_rows);
	ok(!raw, "%s: no '<' outside code (%d)", name, raw);
	ok(!ticks, "%s: no unescaped backtick outside its own code (%d)", name, ticks);
	ok(!fence, "%s: every fence is closed", name);
	free(md);
}

static void audit_files(void)
{
	struct bench_config cfg;
	struct audit_arm arms[2];
	struct audit_run runs[ROUNDS * 2];
	struct audit_rig rig;
	struct audit a;
	struct audit_view view;
	char err[512], log[128], junit[128];
	char *argv[] = { "npx", "playwright", "test", "--grep", "``" IMG "``", NULL };

	memset(&cfg, 0, sizeof cfg);
	cfg.resamples = 200;
	cfg.seed = ESTIMATE_SEED;
	cfg.rounds = ROUNDS;
	snprintf(cfg.out_dir, sizeof cfg.out_dir, "%s", dir);

	/* A log whose strings were written by the audited command's pages. */
	put("rig.jsonl",
	    "{\"t\":1,\"conn\":1,\"kind\":\"open\",\"path\":\"/devtools/browser/x\"}\n"
	    "{\"t\":2,\"conn\":1,\"kind\":\"session\",\"event\":\"attached\",\"session\":\"S1\",\"targetId\":\"T\","
	    "\"type\":\"" IMG "\",\"url\":\"about:blank\"}\n"
	    "{\"t\":3,\"conn\":1,\"kind\":\"session\",\"event\":\"attached\",\"session\":\"<b>S2\",\"targetId\":\"T2\","
	    "\"type\":\"" APOS "\",\"url\":\"about:blank\"}\n"
	    "{\"t\":4,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":1,\"method\":\"" SCRIPT ".enable\","
	    "\"session\":\"S1\",\"bytes\":9999999,\"body\":\"{\\\"id\\\":1,\\\"params\\\":{\\\"x\\\":\\\"" IMG "\\\"}}\"}\n"
	    "{\"t\":5,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":1,\"method\":\"" SCRIPT ".enable\","
	    "\"session\":\"S1\",\"bytes\":10,\"rtt_us\":50}\n"
	    "{\"t\":6,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":2,\"method\":\"" IMG "\","
	    "\"session\":\"<b>S2\",\"bytes\":99999999}\n"
	    "{\"t\":7,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":2,\"method\":\"" IMG "\","
	    "\"session\":\"<b>S2\",\"bytes\":10,\"rtt_us\":70}\n"
	    "{\"t\":8,\"conn\":1,\"dir\":\"down\",\"kind\":\"event\",\"method\":\"\\\" onmouseover=\\\"alert(3)\","
	    "\"session\":\"S1\",\"bytes\":10}\n"
	    "{\"t\":9,\"conn\":1,\"dir\":\"down\",\"kind\":\"event\",\"method\":\"```x\\n|a|\","
	    "\"session\":\"S1\",\"bytes\":10}\n");
	snprintf(log, sizeof log, "%s/rig.jsonl", dir);
	audit_rig_init(&rig);
	ok(audit_rig_add_file(&rig, log, err, sizeof err) == 0, "the hostile log reads");

	/* A JUnit file whose test names the suite chose. */
	put("junit.xml", "<testsuite><testcase classname=\"x|y\" name=\"&lt;img src=x onerror=alert(1)&gt;\" "
	    "time=\"1\"/><testcase name=\"a|b `c` *d* [e](javascript:f)&#10;| g | h |\" time=\"2\"/>"
	    "<testcase name=\"&lt;script&gt;alert(2)&lt;/script&gt;&apos;&gt;&lt;svg onload=alert(4)&gt;\" "
	    "time=\"3\"/></testsuite>");
	snprintf(junit, sizeof junit, "%s/junit.xml", dir);

	memset(arms, 0, sizeof arms);
	snprintf(arms[0].name, sizeof arms[0].name, "passthrough");
	snprintf(arms[1].name, sizeof arms[1].name, "pol|icy<i>`");
	arms[1].policy = "pol|icy<i>`";
	memset(runs, 0, sizeof runs);
	for (int i = 0; i < ROUNDS * 2; i++) {
		runs[i] = (struct audit_run){ .ran = 1, .ok = i != 3, .seconds = 10 + i % 2 + i * 0.1 };
		if (audit_junit_read(junit, &runs[i].tests, &runs[i].ntests, err, sizeof err) < 0)
			printf("# %s\n", err);
	}
	/* An error carrying what the command printed. */
	snprintf(runs[3].error, sizeof runs[3].error, "exit status 1 (output: %s %s %s)", IMG, MD, SCRIPT);

	memset(&a, 0, sizeof a);
	a.cfg = &cfg;
	a.argv = argv;
	a.argc = 5;
	a.arms = arms;
	a.narms = 2;
	a.runs = runs;
	a.rounds_run = ROUNDS;
	a.log_bodies = "16KiB";
	snprintf(a.started, sizeof a.started, "2026-12-04T10:00:00Z");
	a.env = json_pack("{s:s,s:i}", "chromium", "Chromium " SCRIPT " " APOS, "cpus", 2);
	a.rig = audit_rig_json(&rig);
	snprintf(a.rig_from, sizeof a.rig_from, "%s/<img>|`", dir);
	audit_stats_compute(&a);
	ok(a.ntests == 3, "three tests from the JUnit file (%zu)", a.ntests);
	audit_view_build(&view, &a);
	ok(audit_write_files(&a, &view, err, sizeof err) == 0, "audit.json, audit.md, audit.html written (%s)", err);
	audit_view_free(&view);
	check_html("audit.html");
	check_md("audit.md", "Started ");

	for (int i = 0; i < ROUNDS * 2; i++) {
		for (size_t t = 0; t < runs[i].ntests; t++)
			free(runs[i].tests[t].name);
		free(runs[i].tests);
	}
	audit_stats_free(&a);
	json_decref(a.rig);
	json_decref(a.env);
	audit_rig_free(&rig);
}

static void report_files(void)
{
	struct bench_config cfg;
	struct scenario sc[2];
	struct scenario_list scs = { sc, 2 };
	struct report_cell cells[2];
	struct bench_sample samples[2][ROUNDS];
	const char *bodies[] = { "u8" };
	struct report rep;
	struct report_view view;
	char err[512];

	memset(&cfg, 0, sizeof cfg);
	cfg.resamples = 200;
	cfg.seed = ESTIMATE_SEED;
	cfg.rounds = ROUNDS;
	cfg.bytes = 1 << 20;
	snprintf(cfg.out_dir, sizeof cfg.out_dir, "%s", dir);
	memset(sc, 0, sizeof sc);
	snprintf(sc[0].name, sizeof sc[0].name, "none");
	sc[0].kind = SCENARIO_NONE;
	sc[0].about = "no debugger";
	/* A scenario replayed from a captured log takes its name and words from it. */
	snprintf(sc[1].name, sizeof sc[1].name, "re|play<b>`");
	sc[1].kind = SCENARIO_CDP;
	sc[1].about = IMG " " MD;
	memset(samples, 0, sizeof samples);
	for (int k = 0; k < ROUNDS; k++) {
		samples[0][k] = (struct bench_sample){ .ran = 1, .ok = 1, .page_mbps = 400 + k, .sink_mbps = NAN };
		samples[1][k] = (struct bench_sample){ .ran = 1, .ok = k != 1, .page_mbps = 40 + k, .sink_mbps = NAN };
	}
	/* What the page or the browser said when the trial failed. */
	snprintf(samples[1][1].error, sizeof samples[1][1].error, "page said %s %s", SCRIPT, MD);
	memset(cells, 0, sizeof cells);
	for (int i = 0; i < 2; i++) {
		cells[i].sc = &sc[i];
		cells[i].body = "u8";
		cells[i].samples = samples[i];
	}
	memset(&rep, 0, sizeof rep);
	rep.cfg = &cfg;
	rep.cells = cells;
	rep.ncells = 2;
	rep.scenarios = &scs;
	rep.bodies = bodies;
	rep.nbodies = 1;
	rep.rounds_run = ROUNDS;
	rep.stopped_because = "the rounds asked for ran";
	snprintf(rep.started, sizeof rep.started, "2026-12-04T10:00:00Z");
	/* The environment is what commands printed. */
	rep.env = json_pack("{s:s,s:s,s:s,s:i,s:s}", "chromium", "Chromium " SCRIPT, "kernel", APOS,
			    "cpu", IMG " " MD, "cpus", 2, "memory", "`8`|GiB");
	rep.notes = json_pack("[s]", "left out: " IMG " " MD);
	report_compute(&rep);
	json_array_append_new(rep.findings, json_string("a finding naming " SCRIPT " " APOS));
	report_view_build(&view, &rep);
	ok(report_write_md(&view, strcat(strcpy((char[128]){ 0 }, dir), "/report.md"), err, sizeof err) == 0,
	   "report.md written (%s)", err);
	ok(report_write_html(&view, strcat(strcpy((char[128]){ 0 }, dir), "/report.html"), err, sizeof err) == 0,
	   "report.html written (%s)", err);
	report_view_free(&view);
	check_html("report.html");
	check_md("report.md", NULL);
	json_decref(rep.findings);
	json_decref(rep.notes);
	json_decref(rep.env);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/report-escape-test-%d", (int)getpid());
	mkdir(dir, 0700);
	audit_files();
	report_files();
	if (!getenv("KEEP"))
		(void)!system(strcat(strcpy((char[128]){ 0 }, "rm -rf "), dir));
	return tap_done();
}
