/* scenario_test: cdpbench's --scenarios lists (built-ins, domains with params,
 * A+B, A/A repeats, files they need) and replay files (the replay format and
 * cdpproxy logs), with the errors bad input gets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"
#include "scenario.h"
#include "tap.h"

static char root[64], replays[128], policies[128];

static void write_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void remove_file(const char *rel)
{
	char path[256];

	snprintf(path, sizeof path, "%s/%s", root, rel);
	unlink(path);
}

/* Parses spec into a fresh list; returns its count, or -1 with err filled. */
static long parse(struct scenario_list *l, const char *spec, char *err)
{
	struct scenario_env env = { replays, policies };

	scenario_list_free(l);
	err[0] = '\0';
	return scenario_parse_list(l, spec, &env, err, 512) < 0 ? -1 : (long)l->n;
}

/* The default matrix is written twice, as the scenarios to parse and as each
 * body's cells: every cell's scenario is in the spec (none#2 as its second
 * none), and every scenario of the spec has a cell. */
static int in_list(const char *list, const char *name)
{
	const struct scenario_cells one[] = { { "b", list }, { NULL, NULL } };

	return scenario_cells_has(one, "b", name);
}

static void test_default_matrix(void)
{
	char spec[1024], *save = NULL;
	int unused = 0, missing = 0, none = 0;

	for (const struct scenario_cells *c = scenario_default_cells; c->body; c++) {
		char names[1024], *s2 = NULL;

		snprintf(names, sizeof names, "%s", c->names);
		for (char *n = strtok_r(names, ",", &s2); n; n = strtok_r(NULL, ",", &s2)) {
			char *hash = strchr(n, '#');

			if (hash)
				*hash = '\0';
			missing += !in_list(scenario_default_spec, n);
		}
	}
	snprintf(spec, sizeof spec, "%s", scenario_default_spec);
	for (char *n = strtok_r(spec, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		int used = 0;

		none += !strcmp(n, "none");
		for (const struct scenario_cells *c = scenario_default_cells; c->body; c++)
			used |= in_list(c->names, n);
		unused += !used;
	}
	is_int(missing, 0, "every default cell's scenario is in the default spec");
	is_int(unused, 0, "every scenario of the default spec has a cell");
	is_int(none, 2, "the default spec has none twice (none#2, the A/A)");
}

static void test_lists(void)
{
	struct scenario_list l = { NULL, 0 };
	char err[512];

	is_int(parse(&l, "none,attach,Network", err), 3, "three scenarios");
	ok(l.v[0].kind == SCENARIO_NONE && l.v[1].kind == SCENARIO_CDP && l.v[1].ncmds == 0,
	   "none has no debugger; attach is CDP with no commands");
	ok(l.v[2].ncmds == 1 && !strcmp(l.v[2].cmds[0].method, "Network.enable") &&
	   !strcmp(l.v[2].cmds[0].params, "{}"), "a domain is DOMAIN.enable {}");

	is_int(parse(&l, " native , Network-capped ", err), 2, "spaces around names are trimmed");
	ok(l.v[0].kind == SCENARIO_NATIVE, "native has no browser");
	is_str(l.v[1].cmds[0].params, "{\"maxPostDataSize\":65536}", "Network-capped's params");

	is_int(parse(&l, "Network:{\"maxPostDataSize\": 1024, \"x\": [1,2]},Page", err), 2,
	       "a comma inside params does not split the list");
	is_str(l.v[0].name, "Network:{\"maxPostDataSize\": 1024, \"x\": [1,2]}", "named as written");
	is_str(l.v[0].cmds[0].params, "{\"maxPostDataSize\":1024,\"x\":[1,2]}", "params kept, compact");

	is_int(parse(&l, "CSS,Overlay,DOM+CSS,Page+Runtime+Network", err), 4, "combinations");
	ok(l.v[0].ncmds == 2 && !strcmp(l.v[0].cmds[0].method, "DOM.enable") &&
	   !strcmp(l.v[0].cmds[1].method, "CSS.enable"), "CSS enables DOM first");
	ok(l.v[1].ncmds == 2 && !strcmp(l.v[1].cmds[0].method, "DOM.enable"), "so does Overlay");
	is_int(l.v[2].ncmds, 2, "DOM+CSS does not enable DOM twice");
	ok(l.v[3].ncmds == 3 && !strcmp(l.v[3].cmds[2].method, "Network.enable"), "A+B+C in order");
	is_str(l.v[3].about, "Page.enable, Runtime.enable, Network.enable", "described by its commands");

	is_int(parse(&l, "none,attach,none,none", err), 4, "repeats are kept");
	is_str(l.v[2].name, "none#2", "the second none is none#2");
	is_str(l.v[2].aa_with, "none", "an A/A check against none");
	is_str(l.v[3].name, "none#3", "the third is none#3");
	ok(l.v[0].aa_with[0] == '\0', "the first is not an A/A repeat");

	is_int(parse(&l, "proxy-passthrough", err), 1, "proxy-passthrough");
	ok(l.v[0].via_proxy && !l.v[0].policy && !strcmp(l.v[0].aa_with, "attach"),
	   "through cdpproxy with no policy, A/A against attach");
	scenario_list_free(&l);
}

static void test_files(void)
{
	struct scenario_list l = { NULL, 0 };
	char err[512];

	is_int(parse(&l, "playwright", err), -1, "playwright without its replay file");
	ok(strstr(err, "tools/cdpbench/scenario/replays/playwright.jsonl") != NULL, "names the file: %s", err);
	write_file("tools/cdpbench/scenario/replays/playwright.jsonl",
		   "# comment\n{\"method\":\"Page.enable\"}\n\n{\"method\":\"Network.enable\",\"params\":{}}\n");
	is_int(parse(&l, "playwright", err), 1, "playwright with its replay (%s)", err);
	ok(l.v[0].ncmds == 2 && l.v[0].source && strstr(l.v[0].source, "playwright.jsonl"),
	   "two commands from the replay");
	is_int(parse(&l, "pw-no-network", err), -1, "pw-no-network without its policy");
	ok(strstr(err, "policies/no-network.json") != NULL, "names the policy: %s", err);
	write_file("policies/no-network.json", "{}");
	is_int(parse(&l, "pw-no-network", err), 1, "pw-no-network with its policy");
	ok(l.v[0].via_proxy && l.v[0].policy && strstr(l.v[0].policy, "policies/no-network.json") &&
	   l.v[0].ncmds == 2, "through cdpproxy with the policy, playwright's commands");
	remove_file("policies/no-network.json");
	remove_file("tools/cdpbench/scenario/replays/playwright.jsonl");
	scenario_list_free(&l);
}

static void test_list_errors(void)
{
	static const struct { const char *spec, *want; } bad[] = {
		{ "Netwrk", "unknown scenario or domain 'Netwrk'" },
		{ "", "empty scenario name" },
		{ "none,,attach", "empty scenario name" },
		{ "none,", "empty scenario name" },
		{ "Network:{\"a\":1", "unbalanced braces" },
		{ "Network:{\"a\":\"}", "unterminated string" },
		{ "Network:[1]", "must be a JSON object" },
		{ "Network:{bad}", "must be a JSON object" },
		{ "Page+", "empty part around '+'" },
		{ "+Page", "empty part around '+'" },
		{ "Page+Bogus", "unknown scenario or domain 'Bogus'" },
		{ "Network:{\"a\":\"0123456789012345678901234567890123456789012345678901234567\"}",
		  "longer than 63 bytes" },
	};
	struct scenario_list l = { NULL, 0 };
	struct scenario_env env = { replays, policies };
	char err[512];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		long n = parse(&l, bad[i].spec, err);
		ok(n == -1 && strstr(err, bad[i].want), "'%s' -> %s (got: %s)", bad[i].spec, bad[i].want,
		   err);
	}
	scenario_list_free(&l);
	scenario_parse_list(&l, "none,attach", &env, err, sizeof err);
	ok(scenario_parse_list(&l, "Page,Nope", &env, err, sizeof err) < 0 && l.n == 2,
	   "a failed list leaves the list as it was");
	ok(scenario_parse_list(&l, "none", &env, err, sizeof err) == 0 &&
	   !strcmp(l.v[2].name, "none#2"), "a later list's repeat is judged against the whole list");
	scenario_list_free(&l);
}

/* Parses text as a replay; returns the command count or -1. */
static long replay(const char *text, struct scenario_cmd **cmds, size_t *n, struct scenario_lost *lossy,
		   char *err)
{
	err[0] = '\0';
	return replay_parse(text, strlen(text), "f", cmds, n, lossy, err, 512) < 0 ? -1 : (long)*n;
}

static void test_replay_format(void)
{
	struct scenario_cmd *cmds;
	size_t n;
	struct scenario_lost lossy;
	char err[512], *text, *bound;

	is_int(replay("# a comment\n\n{\"method\":\"Page.enable\"}\n"
		      "  {\"method\":\"Page.navigate\",\"params\":{\"url\":\"x\"}}\n"
		      "{\"method\":\"Page.createIsolatedWorld\",\"params\":{\"frameId\":\"$TARGET_ID\"},"
		      "\"sessionId\":\"S\"}\n", &cmds, &n, &lossy, err), 2,
	       "comments, blank lines and Page.navigate are skipped");
	ok(!strcmp(cmds[0].params, "{}") && !lossy.cut && !lossy.no_body, "no params is {}");
	bound = replay_bind_target(cmds[1].params, "ABC123");
	is_str(bound, "{\"frameId\":\"ABC123\"}", "the target id is filled in");
	free(bound);
	bound = replay_bind_target("{\"a\":\"$TARGET_ID\",\"b\":[\"$TARGET_ID\"],\"c\":\"$TARGET_IDx\"}", "T");
	is_str(bound, "{\"a\":\"T\",\"b\":[\"T\"],\"c\":\"$TARGET_IDx\"}", "every whole occurrence");
	free(bound);
	text = replay_format(cmds, n);
	is_str(text, "{\"method\":\"Page.enable\",\"params\":{}}\n{\"method\":\"Page.createIsolatedWorld\","
	       "\"params\":{\"frameId\":\"$TARGET_ID\"}}\n", "written back one per line");
	replay_free(cmds, n);
	is_int(replay(text, &cmds, &n, &lossy, err), 2, "and read again");
	replay_free(cmds, n);
	free(text);

	is_int(replay("{\"method\":\"Page.enable\"}\n{\"method\":\"Page.enable\"\n", &cmds, &n, &lossy,
		      err), -1, "a broken line");
	ok(strstr(err, "f:2: not JSON") != NULL, "names the line: %s", err);
	is_int(replay("[1,2]\n", &cmds, &n, &lossy, err), -1, "an array");
	ok(strstr(err, "f:1: not a JSON object") != NULL, "%s", err);
	is_int(replay("{\"params\":{}}\n", &cmds, &n, &lossy, err), -1, "no method");
	ok(strstr(err, "f:1: wants \"method\"") != NULL, "%s", err);
	is_int(replay("{\"method\":\"enable\"}\n", &cmds, &n, &lossy, err), -1, "a method with no domain");
	is_int(replay("{\"method\":\"Page.enable\",\"params\":[1]}\n", &cmds, &n, &lossy, err), -1,
	       "params not an object");
	ok(strstr(err, "\"params\" must be an object") != NULL, "%s", err);
	is_int(replay("# only a comment\n", &cmds, &n, &lossy, err), -1, "nothing to replay");
	ok(strstr(err, "no commands (an empty replay)") != NULL, "%s", err);
	is_int(replay("{\"method\":\"Page.navigate\",\"params\":{\"url\":\"x\"}}\n", &cmds, &n, &lossy,
		      err), -1, "only commands that are never replayed");
	ok(strstr(err, "no commands left to replay") != NULL, "%s", err);
}

/* A cdpproxy log: a browser connection with two page sessions; S1 is busier. */
static const char log_text[] =
	"{\"t\":1,\"conn\":1,\"kind\":\"open\",\"path\":\"/devtools/browser/b\",\"upstream\":\"u\"}\n"
	"{\"t\":2,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":1,\"method\":\"Target.setAutoAttach\","
	"\"bytes\":9,\"body\":\"{\\\"id\\\":1,\\\"method\\\":\\\"Target.setAutoAttach\\\"}\"}\n"
	"{\"t\":3,\"conn\":1,\"dir\":\"down\",\"kind\":\"event\",\"method\":\"Target.attachedToTarget\","
	"\"bytes\":9,\"body\":\"{\\\"method\\\":\\\"Target.attachedToTarget\\\",\\\"params\\\":{"
	"\\\"sessionId\\\":\\\"S1\\\",\\\"targetInfo\\\":{\\\"targetId\\\":\\\"T1\\\",\\\"type\\\":\\\"page\\\"}}}\"}\n"
	"{\"t\":4,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":2,\"method\":\"Page.enable\","
	"\"session\":\"S2\",\"bytes\":9}\n"
	"{\"t\":5,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":3,\"method\":\"Page.enable\","
	"\"session\":\"S1\",\"bytes\":9,\"body\":\"{\\\"id\\\":3,\\\"method\\\":\\\"Page.enable\\\","
	"\\\"sessionId\\\":\\\"S1\\\"}\"}\n"
	"{\"t\":6,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":4,\"method\":\"Network.enable\","
	"\"session\":\"S1\",\"bytes\":9,\"body\":\"{\\\"id\\\":4,\\\"method\\\":\\\"Network.enable\\\","
	"\\\"params\\\":{\\\"maxPostDataSize\\\":7},\\\"sessionId\\\":\\\"S1\\\"}\"}\n"
	"{\"t\":7,\"conn\":1,\"dir\":\"down\",\"kind\":\"response\",\"id\":4,\"method\":\"Network.enable\","
	"\"session\":\"S1\",\"bytes\":9}\n"
	"{\"t\":8,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":5,\"method\":\"Page.createIsolatedWorld\","
	"\"session\":\"S1\",\"bytes\":9,\"body\":\"{\\\"id\\\":5,\\\"method\\\":\\\"Page.createIsolatedWorld\\\","
	"\\\"params\\\":{\\\"frameId\\\":\\\"T1\\\",\\\"worldName\\\":\\\"w\\\"},\\\"sessionId\\\":\\\"S1\\\"}\"}\n"
	"{\"t\":9,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":6,\"method\":\"Page.navigate\","
	"\"session\":\"S1\",\"bytes\":9}\n"
	"{\"t\":10,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":7,\"method\":\"Runtime.enable\","
	"\"session\":\"S1\",\"bytes\":9,\"body\":\"{\\\"id\\\":7,\\\"meth\",\"truncated\":true}\n"
	"{\"t\":11,\"conn\":1,\"dir\":\"up\",\"kind\":\"comm";

static void test_replay_log(void)
{
	struct scenario_cmd *cmds;
	size_t n;
	struct scenario_lost lossy;
	char err[512];

	is_int(replay(log_text, &cmds, &n, &lossy, err), 4,
	       "the busier page session's commands, navigation left out (%s)", err);
	ok(!strcmp(cmds[0].method, "Page.enable") && !strcmp(cmds[1].method, "Network.enable") &&
	   !strcmp(cmds[2].method, "Page.createIsolatedWorld") && !strcmp(cmds[3].method, "Runtime.enable"),
	   "in the order they were sent");
	is_str(cmds[1].params, "{\"maxPostDataSize\":7}", "params from the logged body");
	is_str(cmds[2].params, "{\"frameId\":\"$TARGET_ID\",\"worldName\":\"w\"}",
	       "the page's target id becomes $TARGET_ID");
	ok(lossy.cut == 1 && !strcmp(cmds[3].params, "{}"), "a truncated body replays with {} and says so");
	is_int(lossy.cut_at, 13, "the limit it was cut at, from the cut body's length");
	{
		char why[512];
		replay_lost_text(&lossy, why, sizeof why);
		ok(strstr(why, "1 command replays with {} params: 1 had its body cut at 13 bytes") &&
		   strstr(why, "larger --log-bodies=N"), "and the remedy is named: %s", why);
	}
	replay_free(cmds, n);

	is_int(replay("{\"t\":1,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":1,"
		      "\"method\":\"Page.enable\",\"bytes\":2}\n", &cmds, &n, &lossy, err), 1,
	       "a log without bodies");
	ok(lossy.no_body == 1 && !lossy.cut, "is lossy: no body");
	replay_free(cmds, n);
	is_int(replay("{\"t\":1,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":1,"
		      "\"method\":\"Page.enable\",\"bytes\":2,\"body\":{\"id\":1,\"method\":\"Page.enable\","
		      "\"params\":{\"enableFileChooserOpenedEvent\":true}}}\n", &cmds, &n, &lossy, err), 1,
	       "a log whose body is an object");
	ok(!lossy.no_body && !lossy.cut && !strcmp(cmds[0].params, "{\"enableFileChooserOpenedEvent\":true}"),
	   "gives its params, nothing lost (%s)", cmds[0].params);
	replay_free(cmds, n);
	is_int(replay("{\"t\":1,\"conn\":1,\"dir\":\"up\",\"kind\":\"command\",\"id\":1,"
		      "\"method\":\"Runtime.enable\",\"bytes\":2}\n", &cmds, &n, &lossy, err), -1,
	       "a log with no Page.enable");
	ok(strstr(err, "no page session") != NULL, "%s", err);
}

int main(void)
{
	char dir[128];

	snprintf(root, sizeof root, "/tmp/scenario-test-XXXXXX");
	if (!mkdtemp(root))
		return 1;
	snprintf(replays, sizeof replays, "%s/tools/cdpbench/scenario/replays", root);
	snprintf(policies, sizeof policies, "%s/policies", root);
	snprintf(dir, sizeof dir, "%s/tools", root);
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s/tools/cdpbench", root);
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s/tools/cdpbench/scenario", root);
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s/tools/cdpbench/scenario/replays", root);
	mkdir(dir, 0700);
	snprintf(dir, sizeof dir, "%s/policies", root);
	mkdir(dir, 0700);
	test_lists();
	test_default_matrix();
	test_files();
	test_list_errors();
	test_replay_format();
	test_replay_log();
	rmdir(dir);
	snprintf(dir, sizeof dir, "%s/tools/cdpbench/scenario/replays", root);
	rmdir(dir);
	snprintf(dir, sizeof dir, "%s/tools/cdpbench/scenario", root);
	rmdir(dir);
	snprintf(dir, sizeof dir, "%s/tools/cdpbench", root);
	rmdir(dir);
	snprintf(dir, sizeof dir, "%s/tools", root);
	rmdir(dir);
	rmdir(root);
	return tap_done();
}
