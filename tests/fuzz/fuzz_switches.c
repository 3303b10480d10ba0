/* fuzz_switches: libFuzzer driver for the wrapper's reading of a client's
 * argv (switches.c, wrapper_args.c) against a restatement of Chromium's
 * base::CommandLine, and for the property that matters: whatever the
 * client passes, Chromium's argv opens no debugging endpoint but the
 * wrapper's own (read even past a "--", which a launcher may drop). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "switches.h"
#include "wrapper.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_switches: %s: '%s'\n", what, detail);
	abort();
}

/* base::CommandLine's IsSwitch and AppendSwitchNative on POSIX, as written
 * there: the prefix "--" or "-" ("--" tried first), not the whole string;
 * the switch string is up to the first '=' of the whole argument; the key
 * is that less its prefix. */
static size_t ref_prefix(const char *s)
{
	static const char *const prefixes[] = { "--", "-" };
	for (size_t i = 0; i < 2; i++)
		if (!strncmp(s, prefixes[i], strlen(prefixes[i])))
			return strlen(prefixes[i]);
	return 0;
}

static int ref_switch(const char *arg, char *key, size_t keylen, const char **value)
{
	size_t prefix = ref_prefix(arg), eq, n;

	if (!prefix || prefix == strlen(arg))
		return 0;
	eq = strcspn(arg, "=");
	*value = arg[eq] ? arg + eq + 1 : NULL;
	n = eq - ref_prefix(arg);
	if (n >= keylen)
		n = keylen - 1;
	memcpy(key, arg + prefix, n);
	key[n] = '\0';
	return 1;
}

/* The last value of switch name in argv[1..argc), as Chromium reads it
 * (stopping at "--") or, with past_end, as a launcher that drops the "--"
 * might make it. NULL when absent; "" for a switch without '='. */
static const char *ref_last(int argc, char **argv, const char *name, int past_end)
{
	char key[4096];
	const char *v, *last = NULL;

	for (int i = 1; i < argc; i++) {
		if (!past_end && !strcmp(argv[i], "--"))
			break;
		if (ref_switch(argv[i], key, sizeof key, &v) && !strcmp(key, name))
			last = v ? v : "";
	}
	return last;
}

static int ref_port_ok(const char *v)
{
	char *end;
	long p = strtol(v, &end, 10);
	return end != v && !*end && p >= 0 && p <= 65535;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const endpoint[] = { "remote-debugging-pipe", "remote-debugging-port",
		"remote-debugging-address", "remote-allow-origins" };
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 1], err[512] = "", key[4096];
	int argc = 0, rc, after_end = 0;
	const char *pipe, *port, *v;
	struct wrapper_config c;
	struct switch_arg s;

	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "cdpproxy-chromium";
	for (char *p = buf; argc < MAX_ARGS;) {
		char *nl = strchr(p, '\n');
		argv[argc++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	argv[argc] = NULL;

	/* (A) One argument: the parser against the restatement. */
	for (int i = 1; i < argc; i++) {
		int want = ref_switch(argv[i], key, sizeof key, &v);
		if (switches_parse(argv[i], &s) != want)
			fail("switches_parse disagrees on being a switch", argv[i]);
		if (want && (strlen(key) != s.name_len || memcmp(key, s.name, s.name_len) ||
			     (v == NULL) != (s.value == NULL) || (v && strcmp(v, s.value))))
			fail("switches_parse disagrees on the name or value", argv[i]);
	}
	for (size_t k = 0; k < 4; k++) {
		const char *mine = NULL, *ref = ref_last(argc, argv, endpoint[k], 0);
		if (switches_find(argc, argv, endpoint[k], &mine) != (ref != NULL) ||
		    (ref && strcmp(ref, mine)))
			fail("switches_find disagrees on the last value", endpoint[k]);
	}

	/* (B) The wrapper's decision and the argv it gives Chromium. */
	memset(&c, 0, sizeof c);
	c.chromium = "/usr/bin/chromium";
	rc = wrapper_args(&c, argc, argv, err, sizeof err);
	pipe = ref_last(argc, argv, "remote-debugging-pipe", 0);
	port = ref_last(argc, argv, "remote-debugging-port", 0);
	for (int i = 1; i < argc; i++) {
		after_end |= !strcmp(argv[i], "--");
		for (size_t k = 0; after_end && k < 4; k++)
			if (strcmp(argv[i], "--") && ref_switch(argv[i], key, sizeof key, &v) &&
			    !strcmp(key, endpoint[k]))
				after_end = 2;
		if (after_end == 2)
			break;
	}
	if (rc < 0) {
		if (!*err)
			fail("refused without a reason", buf);
		if (!(pipe && port) && !(port && !ref_port_ok(port)) && after_end != 2 &&
		    !(pipe && *pipe && strcasecmp(pipe, "json")) && !strstr(err, "more than 16 origins"))
			fail("refused for no reason the reference sees", err);
		wrapper_args_free(&c);
		free(buf);
		return 0;
	}
	if (pipe && port)
		fail("accepted both a pipe and a port", buf);
	if (after_end == 2)
		fail("accepted a debugging switch after '--'", buf);
	if ((c.mode == WRAPPER_PIPE) != (pipe != NULL) || (c.mode == WRAPPER_PORT) != (port != NULL))
		fail("the mode is not what Chromium would open", buf);
	if (port && (!ref_port_ok(port) || c.client_port != atoi(port)))
		fail("the client's port is not the one Chromium would read", port);
	v = ref_last(argc, argv, "user-data-dir", 0);
	if ((v == NULL) != (c.user_data_dir == NULL) || (v && strcmp(v, c.user_data_dir)))
		fail("the profile is not the one Chromium would use", buf);
	/* Chromium's argv, read even past "--": only the wrapper's endpoint. */
	for (int i = 1; c.argv[i]; i++) {
		if (!ref_switch(c.argv[i], key, sizeof key, &v))
			continue;
		if (!strcmp(key, "remote-debugging-port") &&
		    (c.mode != WRAPPER_PORT || strcmp(c.argv[i], "--remote-debugging-port=0")))
			fail("Chromium gets a port of the client's", c.argv[i]);
		if (!strcmp(key, "remote-debugging-address") &&
		    (c.mode != WRAPPER_PORT || strcmp(c.argv[i], "--remote-debugging-address=127.0.0.1")))
			fail("Chromium gets an address of the client's", c.argv[i]);
		if (!strcmp(key, "remote-allow-origins"))
			fail("Chromium gets the client's allowed origins", c.argv[i]);
		if (!strcmp(key, "remote-debugging-pipe") && c.mode != WRAPPER_PIPE)
			fail("Chromium gets a pipe outside pipe mode", c.argv[i]);
	}
	{
		int n = 0;
		while (c.argv[n])
			n++;
		const char *cp = ref_last(n, c.argv, "remote-debugging-port", 0);
		if (c.mode == WRAPPER_PORT && (!cp || strcmp(cp, "0")))
			fail("Chromium does not read the wrapper's port", buf);
		if (c.mode != WRAPPER_PORT && ref_last(n, c.argv, "remote-debugging-port", 1))
			fail("Chromium has a port outside port mode", buf);
	}
	wrapper_args_free(&c);
	free(buf);
	return 0;
}
