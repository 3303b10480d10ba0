/* bench: what cdpbench's two programs (the matrix and audit) share: the
 * bodies, where the binaries and the source tree are, and Ctrl-C. */
#include "bench.h"

#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "datadir.h"

const char *const bench_bodies[] = { "u8", "ab", "blob", "form", "str", "xhr", "stream", "download",
					"pageload" };
const size_t bench_nbodies = sizeof bench_bodies / sizeof bench_bodies[0];

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

volatile sig_atomic_t *bench_catch_signals(void)
{
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	return &interrupted;
}

void bench_find_dirs(struct bench_config *cfg)
{
	char exe[BENCH_PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n <= 0)
		snprintf(exe, sizeof exe, "./cdpbench");
	else
		exe[n] = '\0';
	snprintf(cfg->bindir, sizeof cfg->bindir, "%s", dirname(exe));
	datadir_path(DATADIR_REPLAYS_TREE, DATADIR_REPLAYS, cfg->replays, sizeof cfg->replays);
	datadir_policies(NULL, cfg->policies, sizeof cfg->policies);
	datadir_path(DATADIR_PAGE_TREE, DATADIR_PAGE, cfg->page, sizeof cfg->page);
}
