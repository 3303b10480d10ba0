/* cdpproxy: a transparent, logging, Chrome DevTools Protocol proxy. */
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy.h"
#include "util.h"

#define CDPPROXY_VERSION "0.1.0"

static volatile int stop;
static struct proxy px;

static void usage(FILE *out)
{
	fputs("usage: cdpproxy [options] [-- chromium flags]\n"
	      "A transparent Chrome DevTools Protocol proxy that logs every message.\n\n"
	      "  --listen HOST:PORT     where clients connect (default 127.0.0.1:9223; port 0\n"
	      "                         picks a free one)\n"
	      "  --upstream HOST:PORT   Chrome's remote debugging address (default 127.0.0.1:9222)\n"
	      "  --launch[=PATH]        start headless Chromium (default /usr/bin/chromium) with a\n"
	      "                         fresh profile and proxy it; flags after -- go to it\n"
	      "  --log FILE             append a JSON line per message and connection to FILE\n"
	      "                         (created with mode 0600)\n"
	      "  --log-bodies[=N]       also log message bodies, cut to N bytes (default 65536)\n"
	      "  --max-message SIZE     largest message forwarded; a larger one closes its\n"
	      "                         connection with 1009 (default 256MiB)\n"
	      "  --queue-bytes SIZE     bytes queued per direction before the proxy stops\n"
	      "                         reading the faster side (default 16MiB)\n"
	      "  --verbose              libwebsockets notices on stderr\n"
	      "  --help                 this text\n"
	      "  --version              the version\n"
	      "SIZE is bytes, or with a suffix: 64KiB, 32MiB, 1GiB (k, M, G also work).\n"
	      "GET /proxy/stats on the listen port returns live statistics as JSON.\n", out);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
	if (px.ctx)
		lws_cancel_service(px.ctx);
}

/* Splits HOST:PORT. Returns 0, or -1 with a reason. */
static int parse_hostport(const char *flag, const char *s, char *host, size_t hostlen, int *port,
			  char *err, size_t errlen)
{
	const char *colon = strrchr(s, ':');
	char *end;
	long p;

	if (!colon || colon == s || (size_t)(colon - s) >= hostlen) {
		snprintf(err, errlen, "%s wants HOST:PORT, not '%s'", flag, s);
		return -1;
	}
	p = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || p < 0 || p > 65535) {
		snprintf(err, errlen, "%s: '%s' is not a port number", flag, colon + 1);
		return -1;
	}
	snprintf(host, hostlen, "%.*s", (int)(colon - s), s);
	*port = (int)p;
	return 0;
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

enum { O_LISTEN = 1, O_UPSTREAM, O_LAUNCH, O_LOG, O_LOG_BODIES, O_MAX_MESSAGE,
       O_QUEUE_BYTES, O_VERBOSE, O_HELP, O_VERSION };

static int parse_args(int argc, char **argv, struct proxy_config *cfg, int *verbose,
		      char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "upstream", required_argument, NULL, O_UPSTREAM },
		{ "launch", optional_argument, NULL, O_LAUNCH },
		{ "log", required_argument, NULL, O_LOG },
		{ "log-bodies", optional_argument, NULL, O_LOG_BODIES },
		{ "max-message", required_argument, NULL, O_MAX_MESSAGE },
		{ "queue-bytes", required_argument, NULL, O_QUEUE_BYTES },
		{ "verbose", no_argument, NULL, O_VERBOSE },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t size;
	int o;

	opterr = 0;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case O_LISTEN:
			if (parse_hostport("--listen", optarg, cfg->listen_host, sizeof cfg->listen_host,
					   &cfg->listen_port, err, errlen))
				return -1;
			break;
		case O_UPSTREAM:
			if (parse_hostport("--upstream", optarg, cfg->upstream_host,
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
		case O_MAX_MESSAGE:
		case O_QUEUE_BYTES:
			if (util_parse_size(optarg, &size, err, errlen))
				return -1;
			if (!size) {
				snprintf(err, errlen, "%s must be more than 0", argv[optind - 1]);
				return -1;
			}
			*(o == O_MAX_MESSAGE ? &cfg->max_message : &cfg->queue_bytes) = size;
			break;
		case O_VERBOSE:
			*verbose = 1;
			break;
		case O_HELP:
			usage(stdout);
			exit(0);
		case O_VERSION:
			puts("cdpproxy " CDPPROXY_VERSION);
			exit(0);
		default:
			snprintf(err, errlen, "unknown or incomplete option '%s' (see --help)",
				 argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc && !cfg->chromium) {
		snprintf(err, errlen, "unexpected argument '%s' (chromium flags go after -- with --launch)",
			 argv[optind]);
		return -1;
	}
	cfg->chromium_args = argv + optind;
	cfg->chromium_argc = argc - optind;
	return 0;
}

int main(int argc, char **argv)
{
	struct proxy_config cfg = {
		.listen_host = "127.0.0.1", .listen_port = 9223,
		.upstream_host = "127.0.0.1", .upstream_port = 9222,
		.max_message = 256ull << 20, .queue_bytes = 16ull << 20,
	};
	struct launch chrome = { 0 };
	char err[512];
	int verbose = 0;

	if (parse_args(argc, argv, &cfg, &verbose, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy: %s\n", err);
		return 2;
	}
	lws_set_log_level(verbose ? LLL_ERR | LLL_WARN | LLL_NOTICE : LLL_ERR, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (cfg.chromium) {
		if (launch_start(&chrome, cfg.chromium, cfg.chromium_args, cfg.chromium_argc,
				 err, sizeof err) < 0) {
			fprintf(stderr, "cdpproxy: %s\n", err);
			return 1;
		}
		snprintf(cfg.upstream_host, sizeof cfg.upstream_host, "127.0.0.1");
		cfg.upstream_port = chrome.port;
	} else if (probe(cfg.upstream_host, cfg.upstream_port, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy: %s\n", err);
		return 1;
	}
	if (proxy_start(&px, &cfg, err, sizeof err) < 0) {
		fprintf(stderr, "cdpproxy: %s\n", err);
		launch_stop(&chrome);
		return 1;
	}
	px.chrome = chrome;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "cdpproxy: listening on http://%s:%d (upstream %s%s)\n",
		cfg.listen_host, px.port, px.upstream, cfg.chromium ? ", launched chromium" : "");
	proxy_run(&px, &stop);
	fprintf(stderr, "cdpproxy: shutting down\n");
	stats_print(px.stats, stderr);
	proxy_stop(&px);
	return 0;
}
