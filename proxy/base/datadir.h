/* datadir: where the programs find their data files (policies, replays, the
 * bench page): the source tree they were built in, else the installed data
 * directory (CDPPROXY_DATADIR, `make install`). */
#ifndef CDPPROXY_DATADIR_H
#define CDPPROXY_DATADIR_H

/* The file whose presence marks a source tree (this one's own path in it). */
#define DATADIR_TREE_MARK "proxy/base/datadir.c"

#include <stddef.h>

/* The data, as the source tree and the data directory name it. */
#define DATADIR_REPLAYS_TREE "tools/cdpbench/scenario/replays"
#define DATADIR_REPLAYS "replays"
#define DATADIR_PAGE_TREE "tools/bench-page/bench.html"
#define DATADIR_PAGE "bench-page/bench.html"

/* The data file or folder known as TREE_REL in the source tree and as
 * INST_REL under the data directory, written into buf: the tree's, when
 * this program runs from a build folder of a source tree (build/NAME,
 * build/SUB/NAME) that has it, so an uninstalled build reads the files it
 * was built with, not an older install's; else the installed one when it
 * exists; else TREE_REL itself (relative to the current directory).
 * 0 when the file exists where buf says, -1 when it does not. */
int datadir_path(const char *tree_rel, const char *inst_rel, char *buf, size_t buflen);

/* Where a policy switched to by name (NAME.json) is looked for: beside the
 * policy file when one was given, else the policies folder datadir_path
 * finds. Written into buf, which is returned. */
const char *datadir_policies(const char *policy_path, char *buf, size_t buflen);

/* The file a policy given by the user (--policy, --check-policy,
 * CDPPROXY_POLICY) is loaded from, written into buf, which is returned:
 * arg itself when it is a path (it has a '/', or names a file here, or is
 * not a name: empty, or beginning with '.'); else the policy of that name
 * (arg, without a trailing .json) as PUT /proxy/policy {"name"} finds it,
 * dir/NAME.json, dir being policy_dir, or when NULL the policies folder
 * datadir_path finds (the source tree's, else the installed one). */
const char *datadir_policy_file(const char *arg, const char *policy_dir, char *buf, size_t buflen);
/* datadir_path's search, for the program at exe and the data directory
 * datadir (its tests give both). */
int datadir_find(const char *exe, const char *datadir, const char *tree_rel,
		 const char *inst_rel, char *buf, size_t buflen);

#endif
