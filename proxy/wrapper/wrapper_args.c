/* wrapper_args: what a client's argv asks of Chromium's debugging endpoint,
 * read as Chromium reads it (switches.c), and the argv the wrapper gives
 * Chromium so that every way in goes through the proxy. No I/O. */
#include "wrapper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "switches.h"
#include "util.h"

#define SW_PIPE "remote-debugging-pipe"
#define SW_PORT "remote-debugging-port"
#define SW_ADDRESS "remote-debugging-address"
#define SW_ORIGINS "remote-allow-origins"
#define SW_DIR "user-data-dir"

/* Chromium's own endpoint in port mode: any free port, on loopback only
 * (its own --remote-debugging-address would be honoured by old headless). */
static char chrome_port[] = "--" SW_PORT "=0";
static char chrome_address[] = "--" SW_ADDRESS "=127.0.0.1";

/* The switches that open or widen a way to Chromium's DevTools. */
static int is_endpoint(const struct switch_arg *s)
{
	return switches_is(s, SW_PIPE) || switches_is(s, SW_PORT) || switches_is(s, SW_ADDRESS) ||
	       switches_is(s, SW_ORIGINS);
}

/* --remote-allow-origins=A,B: the proxy's allowed Origins (Chromium's own
 * port is the proxy's alone). Spaces around each are not part of it. */
static int take_origins(struct wrapper_config *c, const char *v, char *err, size_t errlen)
{
	char *save = NULL;

	c->origins = xstrdup(v);
	for (char *o = strtok_r(c->origins, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		char *end = o + strlen(o);
		while (*o == ' ' || *o == '\t')
			o++;
		while (end > o && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*o && access_add(&c->allow_origins, o) < 0) {
			snprintf(err, errlen, "--" SW_ORIGINS ": more than %d origins", ACCESS_MAX_ALLOW);
			return -1;
		}
	}
	return 0;
}

int wrapper_args(struct wrapper_config *c, int argc, char **argv, char *err, size_t errlen)
{
	const char *pipe_arg = NULL, *pipe_val = NULL, *port_arg = NULL, *port_val = NULL;
	const char *origins = NULL;
	struct switch_arg s;
	int n = 0, ended = 0;

	for (int i = 1; i < argc; i++) {
		if (!ended && switches_is_end(argv[i])) {
			ended = 1;
		} else if (!switches_parse(argv[i], &s)) {
			continue;
		} else if (ended) {
			/* Chromium reads no switch after "--", but a launcher may
			 * drop it (Debian's /usr/bin/chromium does when only
			 * switches come before it): then this would be a way in. */
			if (is_endpoint(&s)) {
				snprintf(err, errlen, "%s after '--': a launcher may read it as a switch "
					 "(give it before '--')", argv[i]);
				return -1;
			}
		} else if (switches_is(&s, SW_PIPE)) {   /* the last one wins, as in Chromium */
			pipe_arg = argv[i];
			pipe_val = s.value ? s.value : "";
		} else if (switches_is(&s, SW_PORT)) {
			port_arg = argv[i];
			port_val = s.value ? s.value : "";
		} else if (switches_is(&s, SW_ORIGINS)) {
			origins = s.value ? s.value : "";
		} else if (switches_is(&s, SW_DIR)) {
			c->user_data_dir = s.value ? s.value : "";
		}
	}
	/* CBOR: no Playwright, Puppeteer or chrome-launcher client sends it;
	 * the core reads JSON. */
	if (pipe_arg && *pipe_val && strcasecmp(pipe_val, "json")) {
		snprintf(err, errlen, "%s is not supported: only JSON pipes (--" SW_PIPE ") can be proxied",
			 pipe_arg);
		return -1;
	}
	if (port_arg) {
		char *end;
		long p = strtol(port_val, &end, 10);
		if (*end || end == port_val || p < 0 || p > 65535) {
			snprintf(err, errlen, "%s: not a port number", port_arg);
			return -1;
		}
		c->client_port = (int)p;
	}
	if (pipe_arg && port_arg) {
		/* The port would be a way around the proxy. */
		snprintf(err, errlen, "both --" SW_PIPE " and --" SW_PORT ": give one, so every client "
			 "goes through the proxy");
		return -1;
	}
	c->mode = pipe_arg ? WRAPPER_PIPE : port_arg ? WRAPPER_PORT : WRAPPER_EXEC;
	if (c->mode == WRAPPER_PORT && origins && take_origins(c, origins, err, errlen) < 0)
		return -1;

	/* Chromium's argv: the client's, less its port, address and allowed
	 * origins (the proxy's now), with Chromium's own port first. */
	c->argv = xcalloc((size_t)argc + 3, sizeof *c->argv);
	c->argv[n++] = (char *)c->chromium;
	if (c->mode == WRAPPER_PORT) {
		c->argv[n++] = chrome_port;
		c->argv[n++] = chrome_address;
	}
	ended = 0;
	for (int i = 1; i < argc; i++) {
		ended |= switches_is_end(argv[i]);
		if (!ended && switches_parse(argv[i], &s) && is_endpoint(&s) && !switches_is(&s, SW_PIPE))
			continue;
		c->argv[n++] = argv[i];
	}
	return 0;
}

void wrapper_args_free(struct wrapper_config *c)
{
	free(c->argv);
	c->argv = NULL;
	free(c->origins);
	c->origins = NULL;
	c->allow_origins.n = 0;
}
