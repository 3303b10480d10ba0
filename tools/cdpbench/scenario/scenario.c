/* scenario: what a CDP client does to the page before the upload (the built-in
 * catalogue, --scenarios lists, and replay files). */
#include "scenario.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "replay.h"
#include "util.h"

/* The default matrix answers the report's questions in 5 minutes on 2 cores:
 * what a rig's Network.enable costs an upload and the policies that give it
 * back (u8), that request interception costs Blob too, and its remedy
 * (blob), and what Network costs a download with its remedy (download). A
 * trial is a fresh Chromium, about 2.4 s however fast its transfers, and
 * Network, playwright and playwright-route on u8 6-10 s at 4 MiB: 17 cells,
 * 61-64 s of trials a round with the 1000 ms warm-up (medians of three
 * default runs, 2026-12-05; 56 s at 150 ms), so 4
 * rounds fit and the budget adds more for the cells still wide. With 19
 * (attach, and Network on blob, too: 61 s) 2 of 3 runs cut the fourth
 * round short, leaving cells with 3 and no verdict; the 35 cells before
 * took 135 s a round: 2 rounds, every verdict inconclusive. attach, Page,
 * Runtime, puppeteer, pw-no-network, proxy-passthrough (the proxy's A/A)
 * and every domain alone, on every body, are in --full. */
const char *const scenario_default_spec =
	"native,none,Network,Network-capped,playwright,pw-postdata-cap,playwright-route,"
	"pw-route-routes-only,pw-buffer-cap,none";
const struct scenario_cells scenario_default_cells[] = {
	{ "u8", "native,none,Network,Network-capped,playwright,pw-postdata-cap,"
		"playwright-route,pw-route-routes-only,none#2" },
	{ "blob", "none,playwright-route,pw-route-routes-only,none#2" },
	{ "download", "none,playwright,pw-buffer-cap,none#2" },
	{ NULL, NULL },
};

int scenario_cells_has(const struct scenario_cells *cells, const char *body, const char *name)
{
	for (; cells && cells->body; cells++) {
		const char *p = cells->names;
		size_t n = strlen(name);
		if (strcmp(cells->body, body))
			continue;
		while ((p = strstr(p, name)))
			if ((p == cells->names || p[-1] == ',') && (p[n] == ',' || !p[n]))
				return 1;
			else
				p += n;
		return 0;
	}
	return 1;
}
const char *const scenario_quick_spec = "native,none,attach,Network,playwright";
const char *const scenario_full_spec =
	"native,none,attach,Page,Runtime,Network,Log,DOM,CSS,Debugger,Profiler,HeapProfiler,"
	"Performance,Fetch,Overlay,Accessibility,Audits,Network-capped,playwright,puppeteer,"
	"pw-no-network,pw-postdata-cap,screencast,tracing,cache-disabled,cpu-throttle,net-emulation,"
	"proxy-passthrough,none";
const char *const scenario_atlas_spec =
	"none,attach,Page,Runtime,Network,Network-capped,Log,DOM,CSS,Debugger,Profiler,HeapProfiler,"
	"Performance,Fetch,Overlay,Accessibility,Audits,playwright,playwright-route,puppeteer,"
	"puppeteer-route,none";
const char *const scenario_atlas_quick_spec = "none,playwright-route";

/* Domains a scenario may enable by name, and what each needs enabled first
 * (Chromium answers CSS.enable and Overlay.enable with an error otherwise). */
static const struct { const char *name, *needs; } domains[] = {
	{ "Page", NULL }, { "Runtime", NULL }, { "Network", NULL }, { "Log", NULL },
	{ "DOM", NULL }, { "CSS", "DOM" }, { "Debugger", NULL }, { "Profiler", NULL },
	{ "HeapProfiler", NULL }, { "Performance", NULL }, { "Fetch", NULL },
	{ "Overlay", "DOM" }, { "Accessibility", NULL }, { "Audits", NULL },
};
#define N_DOMAINS (sizeof domains / sizeof domains[0])

static const struct builtin {
	const char *name, *about;
	enum scenario_kind kind;
	const char *domain, *params;    /* one X.enable with params */
	const char *replay;             /* replays/NAME.jsonl */
	const char *policy;             /* via cdpproxy: policies/NAME.json ("" for none) */
	const char *aa_with;
	const char *proxy_flag;         /* via cdpproxy --log FILE and this flag */
} builtins[] = {
	{ "native", "a C client, no browser, uploading the same bytes to the same sink: the ceiling",
	  SCENARIO_NATIVE, NULL, NULL, NULL, NULL, NULL, NULL },
	{ "none", "Chromium with no remote debugging at all, opening the page: the baseline",
	  SCENARIO_NONE, NULL, NULL, NULL, NULL, NULL, NULL },
	{ "attach", "a CDP client attached to the page, nothing enabled",
	  SCENARIO_CDP, NULL, NULL, NULL, NULL, NULL, NULL },
	{ "Network-capped", "Network.enable {maxPostDataSize: 65536}, as Chrome's own DevTools sends",
	  SCENARIO_CDP, "Network", "{\"maxPostDataSize\":65536}", NULL, NULL, NULL, NULL },
	{ "playwright", "the commands Playwright sends to a new page (replays/playwright.jsonl)",
	  SCENARIO_CDP, NULL, NULL, "playwright", NULL, NULL, NULL },
	{ "puppeteer", "the commands Puppeteer sends to a new page (replays/puppeteer.jsonl)",
	  SCENARIO_CDP, NULL, NULL, "puppeteer", NULL, NULL, NULL },
	{ "playwright-route", "playwright with one page.route matching every request, continued: "
	  "Fetch.enable {urlPattern: *} (replays/playwright-route.jsonl)",
	  SCENARIO_CDP, NULL, NULL, "playwright-route", NULL, NULL, NULL },
	{ "puppeteer-route", "puppeteer with setRequestInterception(true), every request continued "
	  "(replays/puppeteer-route.jsonl)",
	  SCENARIO_CDP, NULL, NULL, "puppeteer-route", NULL, NULL, NULL },
	{ "pw-no-network", "playwright through cdpproxy --policy policies/no-network.json",
	  SCENARIO_CDP, NULL, NULL, "playwright", "no-network", NULL, NULL },
	{ "pw-postdata-cap", "playwright through cdpproxy --policy policies/network-postdata-cap.json",
	  SCENARIO_CDP, NULL, NULL, "playwright", "network-postdata-cap", NULL, NULL },
	{ "screencast", "Page.startScreencast, every frame acknowledged (replays/screencast.jsonl)",
	  SCENARIO_CDP, NULL, NULL, "screencast", NULL, NULL, NULL },
	{ "tracing", "Tracing.start left running (replays/tracing.jsonl)",
	  SCENARIO_CDP, NULL, NULL, "tracing", NULL, NULL, NULL },
	{ "cache-disabled", "Network-capped plus Network.setCacheDisabled (replays/cache-disabled.jsonl)",
	  SCENARIO_CDP, NULL, NULL, "cache-disabled", NULL, NULL, NULL },
	{ "cpu-throttle", "Emulation.setCPUThrottlingRate 4 (replays/cpu-throttle.jsonl)",
	  SCENARIO_CDP, NULL, NULL, "cpu-throttle", NULL, NULL, NULL },
	{ "net-emulation", "Network-capped plus 20 ms emulated latency (replays/net-emulation.jsonl)",
	  SCENARIO_CDP, NULL, NULL, "net-emulation", NULL, NULL, NULL },
	{ "pw-route-routes-only", "playwright-route through cdpproxy --policy "
	  "policies/fetch-routes-only.json (only the routes' URLs paused)",
	  SCENARIO_CDP, NULL, NULL, "playwright-route", "fetch-routes-only", NULL, NULL },
	{ "pw-buffer-cap", "playwright through cdpproxy --policy policies/network-buffer-cap.json",
	  SCENARIO_CDP, NULL, NULL, "playwright", "network-buffer-cap", NULL, NULL },
	{ "proxy-passthrough", "attach through cdpproxy with no policy (A/A against attach)",
	  SCENARIO_CDP, NULL, NULL, NULL, "", "attach", NULL },
	{ "pw-logged", "playwright through cdpproxy --log --log-bodies (pw-record-bodies' baseline)",
	  SCENARIO_CDP, NULL, NULL, "playwright", "", NULL, "--log-bodies" },
	{ "pw-record-bodies", "playwright through cdpproxy --log --record-bodies: the proxy fetches "
	  "each response body", SCENARIO_CDP, NULL, NULL, "playwright", "", NULL, "--record-bodies" },
	{ "capped-logged", "Network-capped through cdpproxy --log --log-bodies (capped-record-bodies' "
	  "baseline)", SCENARIO_CDP, "Network", "{\"maxPostDataSize\":65536}", NULL, "", NULL, "--log-bodies" },
	{ "capped-record-bodies", "Network-capped through cdpproxy --log --record-bodies: the proxy "
	  "fetches each response body", SCENARIO_CDP, "Network", "{\"maxPostDataSize\":65536}", NULL, "",
	  NULL, "--record-bodies" },
};
#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

/* The first N_BASELINES built-ins (native, none, attach) come before the domains. */
#define N_BASELINES 3

void scenario_catalogue(void (*emit)(const char *name, const char *about, void *arg), void *arg)
{
	char about[128];

	for (size_t i = 0; i < N_BASELINES; i++)
		emit(builtins[i].name, builtins[i].about, arg);
	for (size_t i = 0; i < N_DOMAINS; i++) {
		if (domains[i].needs)
			snprintf(about, sizeof about, "%s.enable (after %s.enable, which it needs)",
				 domains[i].name, domains[i].needs);
		else
			snprintf(about, sizeof about, "%s.enable alone%s", domains[i].name,
				 strcmp(domains[i].name, "Fetch") ? "" :
				 "; cdpbench continues every paused request");
		emit(domains[i].name, about, arg);
	}
	for (size_t i = N_BASELINES; i < N_BUILTINS; i++)
		emit(builtins[i].name, builtins[i].about, arg);
}

static void cmd_add(struct scenario *s, const char *method, const char *params)
{
	s->cmds = xrealloc(s->cmds, (s->ncmds + 1) * sizeof *s->cmds);
	s->cmds[s->ncmds].method = xstrdup(method);
	s->cmds[s->ncmds].params = xstrdup(params ? params : "{}");
	s->ncmds++;
}

static void scenario_clear(struct scenario *s)
{
	free(s->about);
	replay_free(s->cmds, s->ncmds);
	free(s->policy);
	free(s->source);
	memset(s, 0, sizeof *s);
}

void scenario_list_free(struct scenario_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		scenario_clear(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static const struct scenario *find(const struct scenario_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

static int load_replay_into(struct scenario *s, const char *path, char *err, size_t errlen)
{
	if (replay_load(path, &s->cmds, &s->ncmds, &s->lost, err, errlen) < 0)
		return -1;
	/* The run goes on (enables mostly have no params anyway); the report says it too. */
	replay_warn_lossy(path, &s->lost);
	s->source = xstrdup(path);
	return 0;
}

/* The index of a domain name, or -1. */
static int domain_index(const char *name, size_t len)
{
	for (size_t i = 0; i < N_DOMAINS; i++)
		if (strlen(domains[i].name) == len && !strncmp(domains[i].name, name, len))
			return (int)i;
	return -1;
}

/* "native, none, ...": every name a list may use, for error messages. */
static void known_names(char *out, size_t outlen)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < N_BUILTINS && n < outlen; i++)
		n += (size_t)snprintf(out + n, outlen - n, "%s%s", i ? ", " : "", builtins[i].name);
	for (size_t i = 0; i < N_DOMAINS && n < outlen; i++)
		n += (size_t)snprintf(out + n, outlen - n, ", %s", domains[i].name);
}

/* Fills s from one built-in; -1 with a reason when its file is missing. */
static int from_builtin(struct scenario *s, const struct builtin *b, const struct scenario_env *env,
			char *err, size_t errlen)
{
	char path[4096];

	snprintf(s->name, sizeof s->name, "%s", b->name);
	s->about = xstrdup(b->about);
	s->kind = b->kind;
	if (b->domain) {
		char method[64];
		snprintf(method, sizeof method, "%s.enable", b->domain);
		cmd_add(s, method, b->params);
	}
	if (b->replay) {
		snprintf(path, sizeof path, "%s/%s.jsonl", env->replays, b->replay);
		if (load_replay_into(s, path, err, errlen) < 0)
			return -1;
	}
	if (b->policy) {
		s->via_proxy = 1;
		if (*b->policy) {
			snprintf(path, sizeof path, "%s/%s.json", env->policies, b->policy);
			FILE *f = fopen(path, "r");
			if (!f) {
				snprintf(err, errlen, "%s needs %s, which does not exist", b->name, path);
				return -1;
			}
			fclose(f);
			s->policy = xstrdup(path);
		}
	}
	if (b->aa_with)
		snprintf(s->aa_with, sizeof s->aa_with, "%s", b->aa_with);
	s->proxy_flag = b->proxy_flag;
	return 0;
}

/* One DOMAIN or DOMAIN:{json} part of an item: appends its enable command(s). */
static int domain_part(struct scenario *s, const char *part, size_t len, char *err, size_t errlen)
{
	const char *colon = memchr(part, ':', len);
	size_t nlen = colon ? (size_t)(colon - part) : len;
	int d = domain_index(part, nlen);
	char method[80], *params = NULL;

	if (d < 0) {
		char known[1024];
		known_names(known, sizeof known);
		snprintf(err, errlen, "unknown scenario or domain '%.*s' (known: %s)", (int)nlen, part,
			 known);
		return -1;
	}
	if (colon) {
		json_error_t je;
		json_t *p = json_loadb(colon + 1, len - nlen - 1, 0, &je);
		if (!p || !json_is_object(p)) {
			snprintf(err, errlen, "'%.*s': the params after ':' must be a JSON object (%s)",
				 (int)len, part, p ? "not an object" : je.text);
			json_decref(p);
			return -1;
		}
		params = json_dumps(p, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(p);
	}
	if (domains[d].needs) {
		int already = 0;
		snprintf(method, sizeof method, "%s.enable", domains[d].needs);
		for (size_t i = 0; i < s->ncmds; i++)
			already |= !strcmp(s->cmds[i].method, method);
		if (!already)
			cmd_add(s, method, "{}");
	}
	snprintf(method, sizeof method, "%s.enable", domains[d].name);
	cmd_add(s, method, params);
	free(params);
	return 0;
}

/* "DOM.enable, CSS.enable {...}": what a composed scenario sends. */
static char *describe_cmds(const struct scenario *s)
{
	size_t n = 0, cap = 64;
	char *out = xmalloc(cap);

	out[0] = '\0';
	for (size_t i = 0; i < s->ncmds; i++) {
		int plain = !strcmp(s->cmds[i].params, "{}");
		size_t need = strlen(s->cmds[i].method) + strlen(s->cmds[i].params) + 4;
		if (n + need >= cap)
			out = xrealloc(out, cap = (n + need) * 2);
		n += (size_t)snprintf(out + n, cap - n, "%s%s%s%s", i ? ", " : "", s->cmds[i].method,
				      plain ? "" : " ", plain ? "" : s->cmds[i].params);
	}
	return out;
}

/* Parses one list item (a built-in, or domains joined by '+') into s. */
static int parse_item(struct scenario *s, const char *item, size_t len,
		      const struct scenario_env *env, char *err, size_t errlen)
{
	size_t start = 0;
	int depth = 0, in_str = 0;

	if (len >= sizeof s->name) {
		snprintf(err, errlen, "scenario '%.*s' is longer than %d bytes", (int)len, item,
			 SCENARIO_NAME_MAX - 1);
		return -1;
	}
	snprintf(s->name, sizeof s->name, "%.*s", (int)len, item);
	for (size_t i = 0; i < N_BUILTINS; i++)
		if (!strcmp(builtins[i].name, s->name))
			return from_builtin(s, &builtins[i], env, err, errlen);
	s->kind = SCENARIO_CDP;
	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? item[i] : '+';
		if (in_str) {
			if (c == '\\' && i + 1 < len)
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			depth--;
		} else if (c == '+' && depth == 0) {
			if (i == start) {
				snprintf(err, errlen, "'%.*s': empty part around '+'", (int)len, item);
				return -1;
			}
			if (domain_part(s, item + start, i - start, err, errlen) < 0)
				return -1;
			start = i + 1;
		}
	}
	s->about = describe_cmds(s);
	return 0;
}

/* Appends s to l; a name already there becomes an A/A repeat (NAME#2). */
static void list_append(struct scenario_list *l, struct scenario *s)
{
	if (find(l, s->name)) {
		char base[SCENARIO_NAME_MAX];
		snprintf(base, sizeof base, "%s", s->name);
		for (int k = 2; k < 1000; k++) {
			snprintf(s->name, sizeof s->name, "%.*s#%d", SCENARIO_NAME_MAX - 8, base, k);
			if (!find(l, s->name))
				break;
		}
		snprintf(s->aa_with, sizeof s->aa_with, "%s", base);
	}
	l->v = xrealloc(l->v, (l->n + 1) * sizeof *l->v);
	l->v[l->n++] = *s;
}

int scenario_parse_list(struct scenario_list *l, const char *spec,
			const struct scenario_env *env, char *err, size_t errlen)
{
	size_t len = strlen(spec), start = 0, n0 = l->n;
	int depth = 0, in_str = 0;

	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? spec[i] : ',';
		struct scenario s;
		size_t a, b;

		if (in_str) {
			if (c == '\\' && i + 1 < len)
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"')
			in_str = 1;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']')
			depth--;
		if (c != ',' || (depth > 0 && i < len))
			continue;
		if (depth != 0) {
			snprintf(err, errlen, "unbalanced braces in '%s'", spec);
			goto fail;
		}
		for (a = start; a < i && isspace((unsigned char)spec[a]); a++)
			;
		for (b = i; b > a && isspace((unsigned char)spec[b - 1]); b--)
			;
		start = i + 1;
		if (a == b) {
			snprintf(err, errlen, "empty scenario name in '%s'", spec);
			goto fail;
		}
		memset(&s, 0, sizeof s);
		if (parse_item(&s, spec + a, b - a, env, err, errlen) < 0) {
			scenario_clear(&s);
			goto fail;
		}
		list_append(l, &s);
	}
	if (in_str) {
		snprintf(err, errlen, "unterminated string in '%s'", spec);
		goto fail;
	}
	return 0;
fail:
	while (l->n > n0)
		scenario_clear(&l->v[--l->n]);
	return -1;
}

int scenario_add_replay(struct scenario_list *l, const char *path, char *err, size_t errlen)
{
	struct scenario s;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t blen = strcspn(base, ".");

	memset(&s, 0, sizeof s);
	snprintf(s.name, sizeof s.name, "replay:%.*s", (int)(blen ? blen : strlen(base)), base);
	s.kind = SCENARIO_CDP;
	if (load_replay_into(&s, path, err, errlen) < 0) {
		scenario_clear(&s);
		return -1;
	}
	s.about = xmalloc(strlen(path) + 64);
	sprintf(s.about, "the %zu commands replayed from %s", s.ncmds, path);
	list_append(l, &s);
	return 0;
}
