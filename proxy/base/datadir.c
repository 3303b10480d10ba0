/* datadir: finds the data files (policies, replays, the bench page) in the
 * source tree a program was built in, else in the installed data directory. */
#include "datadir.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The Makefile passes DATADIR; builds outside it (fuzz drivers, a compiler
 * run by hand) get make's default. */
#ifndef CDPPROXY_DATADIR
#define CDPPROXY_DATADIR "/usr/local/share/cdpproxy"
#endif

/* What only a cdpproxy source tree has: this file. */

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* datadir_path for a program at exe with the data directory datadir. */
int datadir_find(const char *exe, const char *datadir, const char *tree_rel,
		const char *inst_rel, char *buf, size_t buflen)
{
	char dir[4096], mark[4200];
	const char *slash = strrchr(exe, '/');

	if (!buf || !buflen)
		return -1;
	if (slash && (size_t)(slash - exe) < sizeof dir) {
		/* build/NAME: the tree is one up; build/asan/NAME, build/t/NAME: two. */
		for (int up = 1; up <= 2; up++) {
			snprintf(dir, sizeof dir, "%.*s%s", (int)(slash - exe), exe,
				 up == 1 ? "/.." : "/../..");
			snprintf(mark, sizeof mark, "%s/" DATADIR_TREE_MARK, dir);
			snprintf(buf, buflen, "%s/%s", dir, tree_rel);
			if (exists(mark) && exists(buf))
				return 0;
		}
	}
	snprintf(buf, buflen, "%s/%s", datadir, inst_rel);
	if (exists(buf))
		return 0;
	snprintf(buf, buflen, "%s", tree_rel);
	return exists(buf) ? 0 : -1;
}

int datadir_path(const char *tree_rel, const char *inst_rel, char *buf, size_t buflen)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	exe[n > 0 ? n : 0] = '\0';
	return datadir_find(exe, CDPPROXY_DATADIR, tree_rel, inst_rel, buf, buflen);
}

const char *datadir_policy_file(const char *arg, const char *policy_dir, char *buf, size_t buflen)
{
	size_t n = strlen(arg);
	char dir[1024];

	if (!*arg || *arg == '.' || strchr(arg, '/') || exists(arg)) {
		snprintf(buf, buflen, "%s", arg);
		return buf;
	}
	if (n > 5 && !strcmp(arg + n - 5, ".json"))
		n -= 5;
	if (!policy_dir) {
		datadir_path("policies", "policies", dir, sizeof dir);
		policy_dir = dir;
	}
	snprintf(buf, buflen, "%s/%.*s.json", policy_dir, (int)n, arg);
	return buf;
}

const char *datadir_policies(const char *policy_path, char *buf, size_t buflen)
{
	const char *slash = policy_path ? strrchr(policy_path, '/') : NULL;

	if (slash)
		snprintf(buf, buflen, "%.*s", (int)(slash - policy_path), policy_path);
	else if (policy_path)
		snprintf(buf, buflen, ".");
	else
		datadir_path("policies", "policies", buf, buflen);
	return buf;
}
