/* cdpproxy-chromium: started by a client as if it were Chromium, it starts the
 * real one and puts cdpproxy between them (README: "Under a test suite that
 * launches the browser"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "cli.h"
#include "switches.h"
#include "wrapper.h"

static void usage(void)
{
	fputs("usage: cdpproxy-chromium [chromium switches and arguments]\n"
	      "Started by a client as if it were Chromium: starts the real browser with the\n"
	      "same arguments and puts cdpproxy between them. --help and --version are\n"
	      "Chromium's; the wrapper's own switches are:\n\n"
	      "  --cdpproxy-help      this text\n"
	      "  --cdpproxy-version   the wrapper's version\n\n"
	      "Chromium's switches it reads (as Chromium does: one dash or two, the last\n"
	      "wins, none after a bare --):\n"
	      "  --remote-debugging-pipe   pipe mode: the proxy relays fds 3 and 4 (JSON only)\n"
	      "  --remote-debugging-port=N port mode: the proxy listens on 127.0.0.1:N (0: a\n"
	      "                            free one); Chromium gets a free port of its own\n"
	      "  --remote-debugging-address  dropped: Chromium gets 127.0.0.1\n"
	      "  --remote-allow-origins=A,B  the proxy's allowed Origins, not Chromium's\n"
	      "  --user-data-dir=DIR       port mode: DevToolsActivePort in DIR names the proxy\n"
	      "Neither debugging switch: the wrapper becomes the browser (exec).\n\n"
	      "Environment: CDPPROXY_CHROMIUM (the browser, default /usr/bin/chromium),\n"
	      "CDPPROXY_POLICY, CDPPROXY_LOG (a file, a directory, or a name with %p),\n"
	      "CDPPROXY_LOG_BODIES, CDPPROXY_RECORD_BODIES (1 or a budget: the proxy fetches\n"
	      "each response body for cdplog har), CDPPROXY_MAX_MESSAGE, CDPPROXY_CONTROL\n"
	      "(HOST:PORT), CDPPROXY_PUSHGATEWAY (a URL: the metrics are pushed there at exit) with\n"
	      "CDPPROXY_PUSHGATEWAY_JOB and CDPPROXY_PUSHGATEWAY_INSTANCE.\n", stdout);
}

/* The wrapper's own switches, --cdpproxy-help and --cdpproxy-version (read
 * as Chromium reads switches, before a bare "--"): every other argument is
 * Chromium's, --help and --version included. The exit status when one was
 * given (a --cdpproxy-* switch it does not know: 2), else -1. */
static int own_switches(int argc, char **argv)
{
	struct switch_arg s;

	for (int i = 1; i < argc && !switches_is_end(argv[i]); i++) {
		if (!switches_parse(argv[i], &s) || s.name_len < 9 || strncmp(s.name, "cdpproxy-", 9))
			continue;
		if (s.value) {
			fprintf(stderr, "cdpproxy-chromium: '%.*s' takes no argument (see --cdpproxy-help)\n",
				(int)strcspn(argv[i], "="), argv[i]);
			return CLI_USAGE;
		}
		if (switches_is(&s, "cdpproxy-help")) {
			usage();
			return CLI_OK;
		}
		if (switches_is(&s, "cdpproxy-version")) {
			puts("cdpproxy-chromium " CDPPROXY_VERSION);
			return CLI_OK;
		}
		fprintf(stderr, "cdpproxy-chromium: unknown option '%s' (see --cdpproxy-help)\n", argv[i]);
		return CLI_USAGE;
	}
	return -1;
}

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

	if ((status = own_switches(argc, argv)) >= 0)
		return status;
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
