/* cdpproxy: a transparent, logging, Chrome DevTools Protocol proxy. */
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "datadir.h"
#include "launch.h"
#include "legs.h"
#include "proxy.h"
#include "record.h"
#include "util.h"

static volatile int stop, reload;
static struct proxy px;
static struct launch chrome;     /* --launch's browser */
static const char *check_path;   /* --check-policy */
static int strict;               /* --strict */

static void usage(FILE *out)
{
	fputs("usage: cdpproxy [options] [-- chromium flags]\n"
	      "A transparent Chrome DevTools Protocol proxy that logs every message.\n\n"
	      "  --listen HOST:PORT     where clients connect (default 127.0.0.1:9223; port 0\n"
	      "                         picks a free one): exactly that address, [::1]:PORT\n"
	      "                         for IPv6; a name binds each of its addresses\n"
	      "  --upstream HOST:PORT   Chrome's remote debugging address (default 127.0.0.1:9222)\n"
	      "  --launch[=PATH]        start headless Chromium (default /usr/bin/chromium) with a\n"
	      "                         fresh profile and proxy it; flags after -- go to it\n"
	      "  --log FILE             append a JSON line per message and connection to FILE\n"
	      "                         (created with mode 0600)\n"
	      "  --log-bodies[=N]       also log message bodies, cut to N bytes (default 65536)\n"
	      "  --record-bodies[=BUDGET]  fetch each response body (Network.getResponseBody\n"
	      "                         after loadingFinished), kept from the client and logged\n"
	      "                         whole, for cdplog har; BUDGET: bytes per connection\n"
	      "                         (default 64MiB); needs --log, turns on --log-bodies\n"
	      "  --max-message SIZE     largest message forwarded; a larger one closes its\n"
	      "                         connection with 1009 (default 256MiB)\n"
	      "  --queue-bytes SIZE     bytes queued per direction before the proxy stops\n"
	      "                         reading the faster side (default 16MiB)\n"
	      "  --policy FILE          filter CDP by this policy (policies/README.md); SIGHUP\n"
	      "                         reloads it, PUT /proxy/policy replaces it. A NAME\n"
	      "                         (no '/', no such file here) is NAME.json in the\n"
	      "                         --policy-dir folder, as PUT {\"name\":NAME} finds it\n"
	      "  --policy-dir DIR       where PUT /proxy/policy {\"name\":N} finds N.json\n"
	      "                         (default: the --policy file's directory, else the\n"
	      "                         source tree's policies/ next to build/, else the\n"
	      "                         installed ones, PREFIX/share/cdpproxy/policies)\n"
	      "  --check-policy FILE    check a policy (a FILE, or a NAME as --policy takes it)\n"
	      "                         and exit (0 valid, 2 not); names and parameters the\n"
	      "                         protocol lacks are warnings\n"
	      "  --strict               with --check-policy: a warning fails the check too\n"
	      "  --allow-host NAME      also accept this Host header name (IP addresses and\n"
	      "                         localhost always are); repeatable\n"
	      "  --allow-origin ORIGIN  accept requests from web pages of this Origin ('*': any);\n"
	      "                         requests without Origin (automation clients) always are\n"
	      "  --allow-remote         allow a --listen address that is not loopback (needs\n"
	      "                         a token)\n"
	      "  --token TOKEN          require Authorization: Bearer TOKEN (or ?token=TOKEN)\n"
	      "                         on every request (default: $CDPPROXY_TOKEN; empty is\n"
	      "                         refused, an empty $CDPPROXY_TOKEN is no token)\n"
	      "  --max-connections N    client WebSockets at once; more get 503 (default 256)\n"
	      "  --upstream-timeout S   seconds Chrome has to accept a connection and answer\n"
	      "                         (default 10); then the client gets 1011 or 502\n"
	      "  --log-secrets          log bodies with their auth headers and cookies (by\n"
	      "                         default --log-bodies redacts them)\n"
	      "  --log-required         stop (exit 1) when the log cannot be written\n"
	      "  --no-control-domain    pass CDPProxy.* commands on to Chrome instead of\n"
	      "                         answering them (getPolicy, setPolicy, getStats, mark)\n"
	      "  --no-bidi-channel      leave Target.exposeDevToolsProtocol to Chrome: the BiDi\n"
	      "                         mapper's CDP then does not cross the proxy\n"
	      "  --verbose              libwebsockets notices on stderr\n"
	      "  -h, --help             this text\n"
	      "  -V, --version          the version\n"
	      "SIZE is bytes, or with a suffix: 64KiB, 32MiB, 1GiB (k, M, G also work).\n"
	      "GET /proxy/stats on the listen port returns live statistics as JSON.\n", out);
}

/* A loaded policy's warnings (policy_check.h), a line each on stderr. */
static void print_warnings(const struct policy *p)
{
	size_t i;
	json_t *w;

	json_array_foreach(p->warnings, i, w)
		fprintf(stderr, "cdpproxy: warning: %s\n", json_string_value(w));
}

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload = 1;
	else
		stop = 1;
	if (px.ctx && !px.ctx_gone)   /* a second signal while it stops */
		lws_cancel_service(px.ctx);
}

/* SIGHUP: load the --policy file again and switch to it; a bad file keeps
 * the running policy. */
static void on_wake(struct proxy *p)
{
	char err[512];
	struct policy *pol;

	if (!reload)
		return;
	reload = 0;
	if (!p->cfg.policy_path) {
		fprintf(stderr, "cdpproxy: SIGHUP: no --policy file to reload\n");
		return;
	}
	if (!(pol = policy_load(p->cfg.policy_path, err, sizeof err))) {
		fprintf(stderr, "cdpproxy: SIGHUP: %s; keeping policy %s\n", err, p->core.policy->name);
		return;
	}
	print_warnings(pol);
	proxy_set_policy(p, pol, "SIGHUP");
	fprintf(stderr, "cdpproxy: policy %s (generation %llu)\n", pol->name,
		(unsigned long long)p->core.policy_gen);
}

/* Every tick of the loop, with --launch: start a new browser if the last
 * one died, so the next client is served. */
static void browser_watch(struct proxy *p)
{
	char err[256];

	if (launch_alive(&chrome, err, sizeof err))
		return;
	fprintf(stderr, "cdpproxy: %s; starting a new one\n", err);
	if (p->core.log)
		log_event(p->core.log, 0, "browser_exit", json_pack("{s:o}", "why", util_json_str(err)));
	if (launch_start(&chrome, p->cfg.chromium, p->cfg.chromium_args, p->cfg.chromium_argc,
			 err, sizeof err) < 0)
		fprintf(stderr, "cdpproxy: %s\n", err);
	else
		proxy_set_upstream(p, "127.0.0.1", chrome.port);
}

/* Can a TCP connection be made to host:port? So that a wrong --upstream is an
 * error at start, not a surprise at the first client. */
static int probe(const char *host, int port, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char service[16];
	int rc, ok = 0;

	snprintf(service, sizeof service, "%d", port);
	if ((rc = getaddrinfo(host, service, &hints, &res))) {
		snprintf(err, errlen, "upstream %s:%d: %s", host, port, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai && !ok; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		ok = fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
		if (fd >= 0)
			close(fd);
	}
	freeaddrinfo(res);
	if (!ok)
		snprintf(err, errlen, "upstream %s:%d is not reachable (is Chrome running with "
			 "--remote-debugging-port=%d? or use --launch)", host, port, port);
	return ok ? 0 : -1;
}

enum { O_LISTEN = 1, O_UPSTREAM, O_LAUNCH, O_LOG, O_LOG_BODIES, O_RECORD_BODIES, O_MAX_MESSAGE,
       O_QUEUE_BYTES, O_POLICY, O_POLICY_DIR, O_CHECK_POLICY, O_ALLOW_HOST, O_ALLOW_ORIGIN,
       O_ALLOW_REMOTE, O_TOKEN, O_MAX_CONNECTIONS, O_UPSTREAM_TIMEOUT, O_LOG_SECRETS, O_LOG_REQUIRED, O_NO_CONTROL_DOMAIN, O_NO_BIDI_CHANNEL, O_VERBOSE, O_STRICT };

/* --check-policy: 0 when the file is a valid policy, 2 with the reason if
 * not. Warnings are printed; with --strict they fail the check too. */
static int check_policy(const char *path)
{
	char err[512];
	struct policy *p = policy_load(path, err, sizeof err);
	size_t n;

	if (!p) {
		fprintf(stderr, "cdpproxy: %s\n", err);
		return 2;
	}
	print_warnings(p);
	n = json_array_size(p->warnings);
	if (n && strict) {
		fprintf(stderr, "cdpproxy: %s: %zu warning%s, refused (--strict)\n", path, n,
			n == 1 ? "" : "s");
		policy_free(p);
		return 2;
	}
	printf("%s: policy %s, %zu rules, %zu injects: ok", path, p->name, p->n_rules, p->n_injects);
	if (n)
		printf(", %zu warning%s", n, n == 1 ? "" : "s");
	putchar('\n');
	policy_free(p);
	return 0;
}

static int parse_args(int argc, char **argv, struct proxy_config *cfg, int *verbose,
		      int *allow_remote, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "upstream", required_argument, NULL, O_UPSTREAM },
		{ "launch", optional_argument, NULL, O_LAUNCH },
		{ "log", required_argument, NULL, O_LOG },
		{ "log-bodies", optional_argument, NULL, O_LOG_BODIES },
		{ "record-bodies", optional_argument, NULL, O_RECORD_BODIES },
		{ "max-message", required_argument, NULL, O_MAX_MESSAGE },
		{ "queue-bytes", required_argument, NULL, O_QUEUE_BYTES },
		{ "policy", required_argument, NULL, O_POLICY },
		{ "policy-dir", required_argument, NULL, O_POLICY_DIR },
		{ "check-policy", required_argument, NULL, O_CHECK_POLICY },
		{ "allow-host", required_argument, NULL, O_ALLOW_HOST },
		{ "allow-origin", required_argument, NULL, O_ALLOW_ORIGIN },
		{ "allow-remote", no_argument, NULL, O_ALLOW_REMOTE },
		{ "token", required_argument, NULL, O_TOKEN },
		{ "max-connections", required_argument, NULL, O_MAX_CONNECTIONS },
		{ "upstream-timeout", required_argument, NULL, O_UPSTREAM_TIMEOUT },
		{ "log-secrets", no_argument, NULL, O_LOG_SECRETS },
		{ "no-control-domain", no_argument, NULL, O_NO_CONTROL_DOMAIN },
		{ "no-bidi-channel", no_argument, NULL, O_NO_BIDI_CHANNEL },
		{ "log-required", no_argument, NULL, O_LOG_REQUIRED },
		{ "verbose", no_argument, NULL, O_VERBOSE },
		{ "strict", no_argument, NULL, O_STRICT },
		CLI_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	static char policy_file[1024];   /* what --policy or --check-policy names */
	uint64_t size;
	int o, li = 0;

	while ((o = getopt_long(argc, argv, CLI_SHORTOPTS, opts, &li)) != -1) {
		/* The option as given, for messages ("--max-message"). */
		char flag[40];
		snprintf(flag, sizeof flag, "--%s", o == '?' ? "" : opts[li].name);
		switch (o) {
		case O_LISTEN:
			if (util_parse_hostport("--listen", optarg, cfg->listen_host, sizeof cfg->listen_host,
					   &cfg->listen_port, err, errlen))
				return -1;
			break;
		case O_UPSTREAM:
			if (util_parse_hostport("--upstream", optarg, cfg->upstream_host,
					   sizeof cfg->upstream_host, &cfg->upstream_port, err, errlen))
				return -1;
			break;
		case O_LAUNCH:
			cfg->chromium = optarg ? optarg : "/usr/bin/chromium";
			break;
		case O_LOG:
			cfg->log_path = optarg;
			break;
		case O_LOG_BODIES:
			size = 65536;
			if (optarg && util_parse_size(optarg, &size, err, errlen))
				return -1;
			cfg->log_bodies = size ? (size_t)size : 1;
			break;
		case O_RECORD_BODIES:
			size = RECORD_BUDGET_DEFAULT;
			if (optarg && util_parse_size(optarg, &size, err, errlen))
				return -1;
			if (!size) {
				snprintf(err, errlen, "%s wants a budget above 0 (leave the flag out for none)", flag);
				return -1;
			}
			cfg->record_bodies = size;
			break;
		case O_MAX_MESSAGE:
		case O_QUEUE_BYTES:
			if (util_parse_size(optarg, &size, err, errlen))
				return -1;
			if (!size) {
				snprintf(err, errlen, "%s must be more than 0", flag);
				return -1;
			}
			if (o == O_MAX_MESSAGE && size > UTIL_MAX_MESSAGE_LIMIT) {
				snprintf(err, errlen, "%s: '%s' is above " UTIL_MAX_MESSAGE_LIMIT_TEXT ", the most "
					 "it can be (Chrome sends at most 256MiB)", flag, optarg);
				return -1;
			}
			*(o == O_MAX_MESSAGE ? &cfg->max_message : &cfg->queue_bytes) = size;
			break;
		case O_POLICY:
			cfg->policy_path = optarg;
			break;
		case O_POLICY_DIR:
			cfg->policy_dir = optarg;
			break;
		case O_CHECK_POLICY:
			check_path = optarg;
			break;
		case O_STRICT:
			strict = 1;
			break;
		case O_ALLOW_HOST:
		case O_ALLOW_ORIGIN:
			if (access_add(o == O_ALLOW_HOST ? &cfg->allow_hosts : &cfg->allow_origins, optarg)) {
				snprintf(err, errlen, "%s given more than %d times", flag,
					 ACCESS_MAX_ALLOW);
				return -1;
			}
			break;
		case O_ALLOW_REMOTE:
			*allow_remote = 1;
			break;
		case O_TOKEN:
			if (!*optarg) {   /* --token "$UNSET": no key at all, not an empty one */
				snprintf(err, errlen, "--token is empty: give a token, or leave the flag out");
				return -1;
			}
			cfg->token = optarg;
			break;
		case O_MAX_CONNECTIONS:
		case O_UPSTREAM_TIMEOUT:
			if (util_parse_size(optarg, &size, err, errlen) || !size || size > 100000) {
				snprintf(err, errlen, "%s wants a number from 1 to 100000, not '%s'",
					 flag, optarg);
				return -1;
			}
			*(o == O_MAX_CONNECTIONS ? &cfg->max_connections : &cfg->upstream_timeout) =
				(unsigned)size;
			break;
		case O_LOG_SECRETS:
			cfg->log_secrets = 1;
			break;
		case O_LOG_REQUIRED:
			cfg->log_required = 1;
			break;
		case O_NO_CONTROL_DOMAIN:
			cfg->no_control_domain = 1;
			break;
		case O_NO_BIDI_CHANNEL:
			cfg->no_bidi_channel = 1;
			break;
		case O_VERBOSE:
			*verbose = 1;
			break;
		case 'h':
			usage(stdout);
			exit(CLI_OK);
		case 'V':
			puts("cdpproxy " CDPPROXY_VERSION);
			exit(CLI_OK);
		default:
			cli_bad_option(o, argv, opts, err, errlen);
			return -1;
		}
	}
	if (strict && !check_path) {
		snprintf(err, errlen, "--strict goes with --check-policy FILE");
		return -1;
	}
	if (check_path)
		exit(check_policy(datadir_policy_file(check_path, cfg->policy_dir, policy_file,
						      sizeof policy_file)));
	if (cfg->policy_path)
		cfg->policy_path = datadir_policy_file(cfg->policy_path, cfg->policy_dir, policy_file,
						       sizeof policy_file);
	if (optind < argc && !cfg->chromium) {
		snprintf(err, errlen, "unexpected argument '%s' (chromium flags go after -- with --launch)",
			 argv[optind]);
		return -1;
	}
	if (cfg->record_bodies && !cfg->log_path) {
		snprintf(err, errlen, "--record-bodies wants --log FILE: the bodies it fetches go there");
		return -1;
	}
	/* The HAR wants the events' headers and URLs too. */
	if (cfg->record_bodies && !cfg->log_bodies)
		cfg->log_bodies = 65536;
	cfg->allow_remote = *allow_remote;
	cfg->chromium_args = argv + optind;
	cfg->chromium_argc = argc - optind;
	if (!cfg->token && getenv("CDPPROXY_TOKEN") && *getenv("CDPPROXY_TOKEN"))
		cfg->token = getenv("CDPPROXY_TOKEN");
	/* CDP is full control of the browser: not for the network without a key. */
	if (!access_is_loopback(cfg->listen_host) && (!*allow_remote || !cfg->token)) {
		snprintf(err, errlen, "listening on %s (not loopback) needs --allow-remote and a token "
			 "(--token or CDPPROXY_TOKEN): CDP is full control of the browser",
			 cfg->listen_host);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct proxy_config cfg = {
		.legs = legs_all,
		.listen_host = "127.0.0.1", .listen_port = 9223,
		.upstream_host = "127.0.0.1", .upstream_port = 9222,
		.max_message = 256ull << 20, .queue_bytes = 16ull << 20, .max_connections = 256,
		.upstream_timeout = 10,
	};
	struct policy *policy = NULL;
	char err[512], policy_dir[1024];
	int verbose = 0, allow_remote = 0;

	if (parse_args(argc, argv, &cfg, &verbose, &allow_remote, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy: %s\n", err);
		return 2;
	}
	/* A bad policy is refused before anything starts. */
	if (cfg.policy_path && !(policy = policy_load(cfg.policy_path, err, sizeof err))) {
		fprintf(stderr, "cdpproxy: %s\n", err);
		return 2;
	}
	if (policy)
		print_warnings(policy);
	if (!cfg.policy_dir)
		cfg.policy_dir = datadir_policies(cfg.policy_path, policy_dir, sizeof policy_dir);
	/* lws's own lines only with --verbose: a stranger's bad request must not
	 * write to our stderr (lws logs each header overflow as an error). */
	lws_set_log_level(verbose ? LLL_ERR | LLL_WARN | LLL_NOTICE : 0, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* A log past the file size limit (ulimit -f) is lost records, said
	 * and counted, not the proxy killed. */
	signal(SIGXFSZ, SIG_IGN);
	if (cfg.chromium) {
		if (launch_start(&chrome, cfg.chromium, cfg.chromium_args, cfg.chromium_argc,
				 err, sizeof err) < 0) {
			fprintf(stderr, "cdpproxy: %s\n", err);
			policy_free(policy);
			return 1;
		}
		snprintf(cfg.upstream_host, sizeof cfg.upstream_host, "127.0.0.1");
		cfg.upstream_port = chrome.port;
	} else if (probe(cfg.upstream_host, cfg.upstream_port, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy: %s\n", err);
		policy_free(policy);
		return 1;
	}
	if (proxy_start(&px, &cfg, policy, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy: %s\n", err);
		launch_stop(&chrome);
		return 1;
	}
	px.on_wake = on_wake;
	if (cfg.chromium)
		px.on_tick = browser_watch;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	fprintf(stderr, "cdpproxy: listening on http://%s%s%s:%d (upstream %s%s, policy %s)\n",
		strchr(cfg.listen_host, ':') ? "[" : "", cfg.listen_host,
		strchr(cfg.listen_host, ':') ? "]" : "", px.port, px.upstream, cfg.chromium ? ", launched chromium" : "",
		px.core.policy->name);
	proxy_run(&px, &stop);
	fprintf(stderr, "cdpproxy: shutting down\n");
	stats_print(px.core.stats, stderr);
	proxy_stop(&px);
	if (cfg.chromium)
		launch_stop(&chrome);
	/* Records lost (or --log-required stopping): not a clean run. */
	return px.log_lost || px.failed ? 1 : 0;
}
