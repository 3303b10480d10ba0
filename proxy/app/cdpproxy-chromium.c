/* cdpproxy-chromium: started by a client as if it were Chromium, it starts the
 * real one and puts cdpproxy between them (README: "Under a test suite that
 * launches the browser"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "wrapper.h"

/* lws's errors, one line each as ours; its notices (the banner) never: our
 * stderr is the browser's, and clients parse it. */
static void lws_say(int level, const char *line)
{
	(void)level;
	fprintf(stderr, "cdpproxy-chromium: lws: %.*s\n", (int)strcspn(line, "\n"), line);
}

int main(int argc, char **argv)
{
	struct wrapper w = { 0 };
	char err[1024];
	int status;

	lws_set_log_level(LLL_ERR, lws_say);
	if (wrapper_configure(&w.cfg, argc, argv, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy-chromium: %s\n", err);
		return 1;
	}
	/* Before anything starts: the one line a client shows its user. */
	if ((status = wrapper_check_browser(w.cfg.chromium, err, sizeof err))) {
		fprintf(stderr, "cdpproxy-chromium: %s\n", err);
		wrapper_config_free(&w.cfg);
		return status;
	}
	status = 1;
	w.cleaner_fd = -1;
	/* Forked now, while there is one thread: it removes the browser's
	 * TMPDIR even when the wrapper is SIGKILLed (ChromeDriver's quit). */
	if (w.cfg.mode != WRAPPER_EXEC && wrapper_cleaner_start(&w, argc, argv, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy-chromium: %s\n", err);
		wrapper_config_free(&w.cfg);
		return 1;
	}
	switch (w.cfg.mode) {
	case WRAPPER_EXEC:
		/* Nothing to proxy: be the browser, no process in between. */
		execv(w.cfg.chromium, w.cfg.argv);
		w.exec_errno = errno;
		break;
	case WRAPPER_PIPE:
		wrapper_run_pipe(&w, err, sizeof err);
		break;
	case WRAPPER_PORT:
		wrapper_run_port(&w, err, sizeof err);
		break;
	}
	if (w.exec_errno)
		status = wrapper_exec_failed(w.cfg.chromium, w.exec_errno, err, sizeof err);
	fprintf(stderr, "cdpproxy-chromium: %s\n", err);
	wrapper_config_free(&w.cfg);
	return status;
}
