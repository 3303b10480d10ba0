/* cdpproxy-chromium: started by a client as if it were Chromium, it starts the
 * real one and puts cdpproxy between them (README: "Under a test suite that
 * launches the browser"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wrapper.h"

int main(int argc, char **argv)
{
	struct wrapper w = { 0 };
	char err[1024];

	if (wrapper_configure(&w.cfg, argc, argv, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy-chromium: %s\n", err);
		return 1;
	}
	switch (w.cfg.mode) {
	case WRAPPER_EXEC:
		/* Nothing to proxy: be the browser, no process in between. */
		execv(w.cfg.chromium, w.cfg.argv);
		snprintf(err, sizeof err, "cannot run %s: %s", w.cfg.chromium, strerror(errno));
		break;
	case WRAPPER_PIPE:
		wrapper_run_pipe(&w, err, sizeof err);
		break;
	case WRAPPER_PORT:
		wrapper_run_port(&w, err, sizeof err);
		break;
	}
	fprintf(stderr, "cdpproxy-chromium: %s\n", err);
	wrapper_config_free(&w.cfg);
	return 1;
}
