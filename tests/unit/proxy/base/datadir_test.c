/* datadir_test: where the programs find their data: the source tree they
 * were built in (build/NAME, build/SUB/NAME) when it has the file, else the
 * installed data directory, else the path relative to the current directory;
 * and the policy folder beside a given policy file; a policy given by name. */
#define _XOPEN_SOURCE 700   /* nftw */
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"
#include "tap.h"

static char tmp[64];

/* Makes tmp/REL, a folder, or a file when REL ends in a name with a dot. */
static void make(const char *rel)
{
	char path[256], *p;

	snprintf(path, sizeof path, "%s/%s", tmp, rel);
	for (p = path + strlen(tmp) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	if (strchr(strrchr(path, '/'), '.')) {
		FILE *f = fopen(path, "w");
		if (f)
			fclose(f);
	} else {
		mkdir(path, 0700);
	}
}

static void test_find(void)
{
	char exe[256], data[256], want[512], buf[512];

	/* tree/: a source tree (it has the mark); other/: policies, no mark. */
	make("tree/" DATADIR_TREE_MARK);
	make("tree/build/asan");
	make("tree/policies");
	make("tree/" DATADIR_PAGE_TREE);
	make("other/policies");
	make("other/bin");
	make("share/cdpproxy/policies");
	make("share/cdpproxy/" DATADIR_REPLAYS);
	snprintf(data, sizeof data, "%s/share/cdpproxy", tmp);

	snprintf(exe, sizeof exe, "%s/tree/build/cdpproxy", tmp);
	snprintf(want, sizeof want, "%s/tree/build/../policies", tmp);
	is_int(datadir_find(exe, data, "policies", "policies", buf, sizeof buf), 0, "build/NAME: found");
	is_str(buf, want, "build/NAME: the tree's, though the data directory has it too");

	snprintf(exe, sizeof exe, "%s/tree/build/asan/cdpproxy", tmp);
	snprintf(want, sizeof want, "%s/tree/build/asan/../../" DATADIR_PAGE_TREE, tmp);
	datadir_find(exe, data, DATADIR_PAGE_TREE, DATADIR_PAGE, buf, sizeof buf);
	is_str(buf, want, "build/SUB/NAME: the tree two up");

	snprintf(exe, sizeof exe, "%s/tree/build/cdpbench", tmp);
	snprintf(want, sizeof want, "%s/" DATADIR_REPLAYS, data);
	is_int(datadir_find(exe, data, DATADIR_REPLAYS_TREE, DATADIR_REPLAYS, buf, sizeof buf), 0,
	       "a file the tree lacks: found");
	is_str(buf, want, "a file the tree lacks: the data directory's");

	snprintf(exe, sizeof exe, "%s/other/bin/cdpproxy", tmp);
	snprintf(want, sizeof want, "%s/policies", data);
	datadir_find(exe, data, "policies", "policies", buf, sizeof buf);
	is_str(buf, want, "installed, a policies/ above bin/ but no source tree: the data directory's");

	/* The current directory is the source tree (build/t/datadir_test). */
	snprintf(exe, sizeof exe, "%s/nowhere/bin/uploadsink", tmp);
	is_int(datadir_find(exe, data, DATADIR_PAGE_TREE, DATADIR_PAGE, buf, sizeof buf), 0,
	       "neither beside the program nor installed: found from the current directory");
	is_str(buf, DATADIR_PAGE_TREE, "neither: the tree's path, relative");
	is_int(datadir_find(exe, data, "no/such.json", "no/such.json", buf, sizeof buf), -1,
	       "found nowhere: -1");
	is_str(buf, "no/such.json", "found nowhere: the tree's path, for the message");

	is_int(datadir_find("", data, "policies", "policies", buf, sizeof buf), 0,
	       "no path for the program (readlink failed): the data directory still");
}

static void test_policies(void)
{
	char buf[512], here[PATH_MAX], real[PATH_MAX];

	is_str(datadir_policies("/etc/rigs/p.json", buf, sizeof buf), "/etc/rigs",
	       "a policy file's folder");
	is_str(datadir_policies("p.json", buf, sizeof buf), ".", "a bare file name: the current folder");
	/* This test runs from the source tree, as build/t/datadir_test (found
	 * two up) or build/asan/t/datadir_test (from the current directory). */
	datadir_policies(NULL, buf, sizeof buf);
	ok(realpath(buf, real) && realpath("policies", here) && !strcmp(real, here),
	   "no policy file: this build's tree's policies/ (%s)", buf);
	is_int(datadir_path(DATADIR_REPLAYS_TREE, DATADIR_REPLAYS, buf, sizeof buf), 0, "the replays: found");
	ok(realpath(buf, real) && realpath(DATADIR_REPLAYS_TREE, here) && !strcmp(real, here),
	   "the replays: the tree's (%s)", buf);
}

/* A policy the user gives: a path stays one; a name is NAME.json in the
 * policy folder (given, or this tree's). Run from the source tree, where
 * "Makefile" is a file here and "policies.json" is not. */
static void test_policy_file(void)
{
	char buf[512], dflt[512], want[600];

	is_str(datadir_policy_file("a/b", "/d", buf, sizeof buf), "a/b", "a path (a '/') stays a path");
	is_str(datadir_policy_file("Makefile", "/d", buf, sizeof buf), "Makefile", "a file here stays a file");
	is_str(datadir_policy_file(".hidden", "/d", buf, sizeof buf), ".hidden", "a dot file is no name");
	is_str(datadir_policy_file("", "/d", buf, sizeof buf), "", "nor is nothing");
	is_str(datadir_policy_file("no-network", "/d", buf, sizeof buf), "/d/no-network.json",
	       "a name: NAME.json in the policy folder");
	is_str(datadir_policy_file("no-network.json", "/d", buf, sizeof buf), "/d/no-network.json",
	       "a name with .json, no such file here: the same");
	is_str(datadir_policy_file(".json", "/d", buf, sizeof buf), ".json", ".json alone is no name");
	datadir_policies(NULL, dflt, sizeof dflt);
	snprintf(want, sizeof want, "%s/no-network.json", dflt);
	is_str(datadir_policy_file("no-network", NULL, buf, sizeof buf), want,
	       "no folder given: the policies folder the programs find");
}

static int unlink_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(void)
{
	int rc;

	snprintf(tmp, sizeof tmp, "/tmp/datadir-test-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	test_find();
	test_policies();
	test_policy_file();
	rc = tap_done();
	/* FTW_PHYS: never through a symlink. */
	if (nftw(tmp, unlink_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		rc = 1;
	return rc;
}
