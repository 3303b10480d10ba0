/* replay: the command sequence a real client sent to a page, read from a replay
 * file or straight from a cdpproxy --log, and written back as a replay file. */
#ifndef CDPBENCH_REPLAY_H
#define CDPBENCH_REPLAY_H

#include <stddef.h>

#include "scenario.h"

/* Parses a replay: either one {"method","params"} object per line (blank lines
 * and lines starting with # are skipped), or a cdpproxy --log file, from which
 * it takes the commands sent up on the page session that sent Page.enable and
 * the most commands (params need --log-bodies: without them, or when a body
 * was truncated, a command is replayed with {}, counted in *lost). Commands
 * that would navigate or close the page are left out, and the page's target
 * id becomes SCENARIO_TARGET. origin names the input in errors. 0, or -1 with
 * "origin:line: reason" in err. */
int replay_parse(const char *text, size_t len, const char *origin,
		 struct scenario_cmd **cmds, size_t *ncmds, struct scenario_lost *lost,
		 char *err, size_t errlen);

/* Reads and parses the file at path (see replay_parse). */
int replay_load(const char *path, struct scenario_cmd **cmds, size_t *ncmds,
		struct scenario_lost *lost, char *err, size_t errlen);
/* What lost means, with the remedy: "3 commands replay with {} params: the log's
 * bodies were cut at 4096 bytes (rerun cdpproxy with a larger --log-bodies=N)";
 * "" when nothing was lost. */
void replay_lost_text(const struct scenario_lost *lost, char *buf, size_t len);
/* Says on stderr what replay_lost_text says, when something was lost. */
void replay_warn_lossy(const char *path, const struct scenario_lost *lost);

void replay_free(struct scenario_cmd *cmds, size_t n);

/* cmds in the replay format, one {"method","params"} line each. */
char *replay_format(const struct scenario_cmd *cmds, size_t n);

/* params with every "$TARGET_ID" string replaced by target_id (a new string). */
char *replay_bind_target(const char *params, const char *target_id);

#endif
