/* scenario: what a CDP client does to the page before the upload (the built-in
 * catalogue, --scenarios lists, and replay files). Pure: text in, structs out. */
#ifndef CDPBENCH_SCENARIO_H
#define CDPBENCH_SCENARIO_H

#include <stddef.h>

#define SCENARIO_NAME_MAX 64
#define SCENARIO_TARGET "$TARGET_ID"   /* in replay params: the page's target (= main frame) id */

enum scenario_kind {
	SCENARIO_NATIVE,   /* no browser: a C client uploads the same bytes */
	SCENARIO_NONE,     /* Chromium without remote debugging: the baseline */
	SCENARIO_CDP,      /* attached; cmds sent before the page loads */
};

struct scenario_cmd {
	char *method;
	char *params;      /* a JSON object, compact */
};

/* Commands of a replayed log that replay with {} because the log lacks their
 * params: logged without --log-bodies, or with bodies cut at its limit. */
struct scenario_lost {
	size_t no_body, cut;
	size_t cut_at;               /* the limit, as the longest cut body shows (bytes) */
};

struct scenario {
	char name[SCENARIO_NAME_MAX];
	char *about;                 /* one line for --list and the report */
	enum scenario_kind kind;
	struct scenario_cmd *cmds;
	size_t ncmds;
	int via_proxy;               /* through build/cdpproxy */
	char *policy;                /* its --policy file, or NULL for none */
	const char *proxy_flag;      /* via cdpproxy --log (a file of the trial's) and this flag, or NULL */
	char aa_with[SCENARIO_NAME_MAX];  /* an A/A check against this scenario, or "" */
	char *source;                /* the replay file the commands came from, or NULL */
	struct scenario_lost lost;   /* of a replayed log */
};

struct scenario_list {
	struct scenario *v;
	size_t n;
};

/* Where built-in scenarios find their files: replays/NAME.jsonl and
 * policies/NAME.json. */
struct scenario_env {
	const char *replays;
	const char *policies;
};

/* Appends the scenarios a comma-separated spec names, in order:
 *   NAME             a built-in (scenario_catalogue) or a domain: Network
 *   Domain:{json}    Domain.enable with these params: Network:{"maxPostDataSize":1024}
 *   A+B+...          several domains enabled in that order: DOM+CSS
 * A name given a second time is an A/A repeat: "none#2", compared with "none".
 * 0, or -1 with a reason in err (the list is then left as it was). */
int scenario_parse_list(struct scenario_list *l, const char *spec,
			const struct scenario_env *env, char *err, size_t errlen);

/* Appends a scenario replaying the commands in file path (see replay_parse),
 * named after the file ("replay:rig"). 0, or -1 with a reason in err. */
int scenario_add_replay(struct scenario_list *l, const char *path, char *err, size_t errlen);

/* The built-in names with a line each, for --list. */
void scenario_catalogue(void (*emit)(const char *name, const char *about, void *arg), void *arg);

void scenario_list_free(struct scenario_list *l);

/* A body and the scenarios, by their names in the matrix ("none#2"), that run
 * with it: the default matrix is not every scenario with every body. */
struct scenario_cells {
	const char *body, *names;
};
/* Does cells (ended by a NULL body) run scenario name with body? A body it
 * does not list runs every scenario. */
int scenario_cells_has(const struct scenario_cells *cells, const char *body, const char *name);

/* The default and --quick matrices (before files are checked for). */
extern const char *const scenario_default_spec;
extern const struct scenario_cells scenario_default_cells[];
extern const char *const scenario_quick_spec;
extern const char *const scenario_full_spec;
/* `cdpbench --atlas`: every domain and the rigs' sequences; and its --quick. */
extern const char *const scenario_atlas_spec;
extern const char *const scenario_atlas_quick_spec;

#endif
