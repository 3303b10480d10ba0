/* uploadsink: an HTTP sink for upload benchmarks: serves the bench page, counts
 * and times uploads, serves downloads, and keeps what each page reports. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "datadir.h"
#include "http1.h"
#include "sink.h"
#include "util.h"

static void usage(FILE *out)
{
	fputs("usage: uploadsink [--listen HOST:PORT] [--page FILE] [--quiet]\n"
	      "An HTTP sink for upload benchmarks.\n\n"
	      "  --listen HOST:PORT  where to listen (default 127.0.0.1:8090; port 0 picks a\n"
	      "                      free one); the address is printed on stderr\n"
	      "  --page FILE         the bench page (default " DATADIR_PAGE_TREE " in\n"
	      "                      the source tree next to the binary, else the installed\n"
	      "                      " DATADIR_PAGE ")\n"
	      "  --quiet             no line per transfer on stdout\n"
	      "  -h, --help          this text\n"
	      "  -V, --version       the version\n\n"
	      "Routes: GET /bench.html?trial=T&body=u8&bytes=N&n=3 (the page), POST /upload\n"
	      "(counted, then dropped), GET /download?bytes=N, GET /site?trial=T&i=I&n=200 (a\n"
	      "page of N small resources at /site/r?...), POST /result?trial=T (the page's\n"
	      "numbers), GET /trial?id=T[&forget=1], GET /trials.\n", out);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "page", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		CLI_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	char host[128] = "127.0.0.1", page_path[4200] = "", err[512], *page;
	int port = 8090, quiet = 0, c, bound;
	size_t page_len;
	struct sink *sink;
	struct http1_server *srv;
	struct http1_handler h;

	while ((c = getopt_long(argc, argv, CLI_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (util_parse_hostport("--listen", optarg, host, sizeof host, &port,
						err, sizeof err) < 0) {
				fprintf(stderr, "uploadsink: %s\n", err);
				return 2;
			}
			break;
		case 'p':
			snprintf(page_path, sizeof page_path, "%s", optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		case 'V':
			puts("uploadsink " CDPPROXY_VERSION);
			return CLI_OK;
		default:
			cli_bad_option(c, argv, opts, err, sizeof err);
			fprintf(stderr, "uploadsink: %s\n", err);
			return CLI_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "uploadsink: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (!*page_path)
		datadir_path(DATADIR_PAGE_TREE, DATADIR_PAGE, page_path, sizeof page_path);
	if (!(page = util_read_file(page_path, &page_len, err, sizeof err))) {
		fprintf(stderr, "uploadsink: %s (use --page FILE)\n", err);
		return 1;
	}
	sink = sink_new(page, page_len, quiet);
	free(page);
	h = sink_handler(sink);
	if (!(srv = http1_listen(host, port, &h, &bound, err, sizeof err))) {
		fprintf(stderr, "uploadsink: %s\n", err);
		return 1;
	}
	fprintf(stderr, "uploadsink: listening on http://%s:%d/\n", host, bound);
	fflush(stderr);
	http1_run(srv);
	http1_close(srv);
	sink_free(sink);
	return 0;
}
