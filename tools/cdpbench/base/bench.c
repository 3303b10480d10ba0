/* bench: what cdpbench's two programs (the matrix and audit) share: the
 * bodies, where the binaries and the source tree are, and Ctrl-C. */
#include "bench.h"

#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"

const char *const bench_bodies[] = { "u8", "ab", "blob", "form", "str", "xhr", "stream", "download" };
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
	char exe[BENCH_PATH_MAX], probe[BENCH_PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n <= 0)
		snprintf(exe, sizeof exe, "./cdpbench");
	else
		exe[n] = '\0';
	snprintf(cfg->bindir, sizeof cfg->bindir, "%s", dirname(exe));
	snprintf(probe, sizeof probe, "%s/../" SCENARIO_REPLAYS, cfg->bindir);
	if (access(probe, R_OK) == 0 && strlen(cfg->bindir) + 4 < sizeof cfg->root)
		snprintf(cfg->root, sizeof cfg->root, "%.*s/..", (int)sizeof cfg->root - 4, cfg->bindir);
	else if (!getcwd(cfg->root, sizeof cfg->root))
		snprintf(cfg->root, sizeof cfg->root, ".");
}
