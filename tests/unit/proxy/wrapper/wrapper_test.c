/* wrapper_test: cdpproxy-chromium's reading of a client's argv and of the
 * CDPPROXY_* environment, without starting anything. */
#include <stdlib.h>
#include <unistd.h>
#include "wrapper.h"

#include <stdarg.h>

#include "switches.h"

#include "tap.h"

static int configure(struct wrapper_config *c, char *err, size_t errlen, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = "cdpproxy-chromium";
	va_start(ap, errlen);
	for (char *a; (a = va_arg(ap, char *)) && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	return wrapper_configure(c, argc, argv, err, errlen);
}

static void clear_env(void)
{
	static const char *const vars[] = { "CDPPROXY_CHROMIUM", "CDPPROXY_POLICY", "CDPPROXY_LOG",
		"CDPPROXY_LOG_BODIES", "CDPPROXY_MAX_MESSAGE", "CDPPROXY_CONTROL" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		unsetenv(vars[i]);
}

static void test_modes(void)
{
	struct wrapper_config c;
	char err[512];

	clear_env();
	is_int(configure(&c, err, sizeof err, "--headless", "--remote-debugging-pipe", "--user-data-dir=/p", NULL), 0, "pipe: accepted");
	is_int(c.mode, WRAPPER_PIPE, "pipe: mode");
	is_str(c.argv[0], "/usr/bin/chromium", "the real browser by default");
	is_str(c.argv[2], "--remote-debugging-pipe", "the pipe flag goes on to Chromium");
	ok(c.argv[4] == NULL, "argv ends with NULL");
	is_str(c.user_data_dir, "/p", "the client's --user-data-dir is known");
	wrapper_config_free(&c);

	setenv("CDPPROXY_CHROMIUM", "/opt/chrome", 1);
	is_int(configure(&c, err, sizeof err, "--remote-debugging-port=9333", "about:blank", NULL), 0, "port: accepted");
	is_int(c.mode, WRAPPER_PORT, "port: mode");
	is_int(c.client_port, 9333, "port: the client's port is the proxy's");
	is_str(c.argv[1], "--remote-debugging-port=0", "port: Chromium gets a free one of its own");
	is_str(c.argv[0], "/opt/chrome", "CDPPROXY_CHROMIUM names the real browser");
	wrapper_config_free(&c);

	is_int(configure(&c, err, sizeof err, "--version", NULL), 0, "neither: accepted");
	is_int(c.mode, WRAPPER_EXEC, "neither: exec the browser");
	wrapper_config_free(&c);

	is_int(configure(&c, err, sizeof err, "--remote-debugging-pipe=cbor", NULL), -1, "cbor: refused");
	ok(strstr(err, "cbor is not supported") != NULL, "cbor: says why (%s)", err);
	is_int(configure(&c, err, sizeof err, "--remote-debugging-pipe", "--remote-debugging-port=0", NULL), -1,
	       "pipe and port: refused");
	is_int(configure(&c, err, sizeof err, "--remote-debugging-port=70000", NULL), -1, "a port past 65535: refused");
	is_int(configure(&c, err, sizeof err, "--remote-debugging-pipes", NULL), 0, "a longer flag is not the pipe flag");
	is_int(c.mode, WRAPPER_EXEC, "... and passes through");
	wrapper_config_free(&c);
	clear_env();
}

/* Is arg anywhere in Chromium's argv? */
static int in_argv(const struct wrapper_config *c, const char *arg)
{
	for (int i = 0; c->argv[i]; i++)
		if (!strcmp(c->argv[i], arg))
			return 1;
	return 0;
}

/* Issue 27 #1: switches as Chromium reads them (-x, --x, =v, the last one
 * wins, nothing after "--", case matters). */
static void test_switches(void)
{
	struct wrapper_config c;
	struct switch_arg s;
	const char *v;
	char err[512];

	clear_env();
	ok(switches_parse("-remote-debugging-port=9", &s) && switches_is(&s, "remote-debugging-port") &&
	   !strcmp(s.value, "9"), "parse: -x=v");
	ok(switches_parse("--x", &s) && switches_is(&s, "x") && !s.value, "parse: --x has no value");
	ok(switches_parse("---x=", &s) && switches_is(&s, "-x") && !strcmp(s.value, ""), "parse: ---x= is -x, empty");
	ok(!switches_parse("-", &s) && !switches_parse("--", &s) && !switches_parse("x=-y", &s),
	   "parse: -, -- and x are no switches");
	{
		char *argv[] = { "w", "--a=1", "-a=2", "--", "--a=3", NULL };
		ok(switches_find(5, argv, "a", &v) && !strcmp(v, "2"), "find: the last before -- wins");
	}

	is_int(configure(&c, err, sizeof err, "--remote-debugging-pipe", "-remote-debugging-port=9333", NULL), -1,
	       "pipe and a single-dash port: refused");
	ok(strstr(err, "both") != NULL, "... as both (%s)", err);
	is_int(configure(&c, err, sizeof err, "-remote-debugging-port=9334", NULL), 0, "a single-dash port: accepted");
	is_int(c.mode, WRAPPER_PORT, "... proxied (port mode)");
	is_int(c.client_port, 9334, "... on the client's port");
	ok(!in_argv(&c, "-remote-debugging-port=9334"), "... which Chromium does not get");
	wrapper_config_free(&c);
	is_int(configure(&c, err, sizeof err, "-remote-debugging-pipe", NULL), 0, "a single-dash pipe: accepted");
	is_int(c.mode, WRAPPER_PIPE, "... pipe mode");
	wrapper_config_free(&c);
	is_int(configure(&c, err, sizeof err, "--remote-debugging-port=1", "-remote-debugging-port=2",
			 "--remote-debugging-address=0.0.0.0", "--remote-allow-origins=http://a, http://b",
			 "-user-data-dir=/q", NULL), 0, "two ports, an address, origins: accepted");
	is_int(c.client_port, 2, "the last port wins");
	ok(in_argv(&c, "--remote-debugging-address=127.0.0.1") && !in_argv(&c, "--remote-debugging-address=0.0.0.0"),
	   "Chromium's address is loopback, not the client's");
	ok(!in_argv(&c, "--remote-debugging-port=1") && !in_argv(&c, "-remote-debugging-port=2"),
	   "no port of the client's reaches Chromium");
	ok(c.allow_origins.n == 2 && !strcmp(c.allow_origins.name[0], "http://a") &&
	   !strcmp(c.allow_origins.name[1], "http://b"), "--remote-allow-origins: the proxy's allowed Origins");
	ok(!in_argv(&c, "--remote-allow-origins=http://a, http://b"), "... not Chromium's");
	is_str(c.user_data_dir, "/q", "-user-data-dir: the profile");
	wrapper_config_free(&c);
	is_int(configure(&c, err, sizeof err, "--headless", "--", "--remote-debugging-port=9335", NULL), -1,
	       "a port after --: refused (Debian's launcher drops the --)");
	is_int(configure(&c, err, sizeof err, "--headless", "--", "-x", "about:blank", NULL), 0,
	       "other arguments after --: accepted");
	is_int(c.mode, WRAPPER_EXEC, "... exec");
	wrapper_config_free(&c);
	is_int(configure(&c, err, sizeof err, "--Remote-Debugging-Port=1", NULL), 0, "case matters on Linux");
	is_int(c.mode, WRAPPER_EXEC, "... no port");
	wrapper_config_free(&c);
	clear_env();
}

static void test_env(void)
{
	struct wrapper_config c;
	char err[512], want[256];

	clear_env();
	setenv("CDPPROXY_LOG", "/tmp/x-%p.jsonl", 1);
	setenv("CDPPROXY_LOG_BODIES", "1", 1);
	setenv("CDPPROXY_MAX_MESSAGE", "1MiB", 1);
	setenv("CDPPROXY_CONTROL", "127.0.0.1:9400", 1);
	is_int(configure(&c, err, sizeof err, "--remote-debugging-pipe", NULL), 0, "environment: accepted");
	snprintf(want, sizeof want, "/tmp/x-%ld.jsonl", (long)getpid());
	is_str(c.log_path, want, "CDPPROXY_LOG: %%p is the PID");
	is_int(c.log_bodies, 65536, "CDPPROXY_LOG_BODIES=1: 64 KiB of body");
	is_int(c.max_message, 1 << 20, "CDPPROXY_MAX_MESSAGE");
	is_str(c.admin_host, "127.0.0.1", "CDPPROXY_CONTROL: host");
	is_int(c.admin_port, 9400, "CDPPROXY_CONTROL: port");
	wrapper_config_free(&c);

	setenv("CDPPROXY_LOG", "/tmp", 1);
	is_int(configure(&c, err, sizeof err, NULL), 0, "a log directory: accepted");
	snprintf(want, sizeof want, "/tmp/cdpproxy-chromium-%ld.jsonl", (long)getpid());
	is_str(c.log_path, want, "CDPPROXY_LOG=DIR: a file per wrapper in it");
	wrapper_config_free(&c);

	setenv("CDPPROXY_CONTROL", "10.0.0.1:9400", 1);
	is_int(configure(&c, err, sizeof err, NULL), -1, "a control address off loopback: refused");
	setenv("CDPPROXY_CONTROL", "127.0.0.1", 1);
	is_int(configure(&c, err, sizeof err, NULL), -1, "a control address without a port: refused");
	unsetenv("CDPPROXY_CONTROL");
	setenv("CDPPROXY_MAX_MESSAGE", "0", 1);
	is_int(configure(&c, err, sizeof err, NULL), -1, "CDPPROXY_MAX_MESSAGE=0: refused");
	setenv("CDPPROXY_MAX_MESSAGE", "18446744073709551615", 1);
	is_int(configure(&c, err, sizeof err, NULL), -1, "CDPPROXY_MAX_MESSAGE=2^64-1: refused (issue 27 #9)");
	ok(strstr(err, "CDPPROXY_MAX_MESSAGE: '18446744073709551615' is above 4GiB") != NULL, "... saying why (%s)", err);
	setenv("CDPPROXY_MAX_MESSAGE", "4GiB", 1);
	is_int(configure(&c, err, sizeof err, NULL), 0, "CDPPROXY_MAX_MESSAGE=4GiB: the most, accepted");
	wrapper_config_free(&c);
	unsetenv("CDPPROXY_MAX_MESSAGE");
	setenv("CDPPROXY_POLICY", "/nonexistent/policy.json", 1);
	is_int(configure(&c, err, sizeof err, NULL), -1, "a policy that does not load: refused");
	ok(strstr(err, "/nonexistent/policy.json") != NULL, "... naming it (%s)", err);
	clear_env();
}

int main(void)
{
	test_modes();
	test_switches();
	test_env();
	return tap_done();
}
