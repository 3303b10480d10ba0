/* cdp-echo: a fast fake Chrome for load work: discovery endpoints and
 * /devtools/ WebSockets that answer every command at once, with a result of
 * the size asked for, and flood events on request (Echo.flood). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "echo.h"
#include "util.h"

#define READ_CHUNK (256u * 1024)
#define IN_SOFT (1u << 20)     /* unhandled input that stops reading when busy */

static struct echo srv;

static void usage(FILE *out)
{
	fputs("usage: cdp-echo [options]\n"
	      "A fast fake Chrome: /json/version, /json/list and /devtools/* WebSockets that\n"
	      "answer each command at once. Commands:\n"
	      "  Echo.echo {size, pad}   result of `size` bytes (pad checked, see wire.h)\n"
	      "  Echo.flood {count, size} `count` events of `size` bytes, then the result\n"
	      "  anything else            result of --result-size bytes\n"
	      "id and sessionId are echoed.\n\n"
	      "  --listen HOST:PORT   (default 127.0.0.1:0: a free port, printed on stderr)\n"
	      "  --result-size SIZE   for commands that do not say (default 100)\n"
	      "  --max-message SIZE   largest command accepted (default 256MiB)\n"
	      "  -h, --help           this text\n"
	      "  -V, --version        the version\n", out);
}

/* Handles input and makes output while there is room, writes what the socket
 * takes, and arms the events for what is left. Returns -1 if c was freed. */
static int conn_pump(struct echo_conn *c)
{
	int round, busy = 0;

	for (round = 0; round < 8; round++) {
		size_t in_before = c->in_off, out_before = evbuffer_get_length(c->conn.out), pending;
		uint64_t seq_before = c->flood_seq;
		int rc = 0;

		if (c->flooding)
			echo_ws_flood(c);
		if (!c->upgraded && !c->closing)
			rc = echo_http(c);
		if (rc >= 0 && c->upgraded && !c->closing && !c->flooding)
			rc = echo_ws_process(c);
		if (rc < 0) {
			evserve_conn_free(&c->conn);
			return -1;
		}
		busy = c->in_off != in_before || c->flood_seq != seq_before ||
		       evbuffer_get_length(c->conn.out) != out_before;
		pending = evbuffer_get_length(c->conn.out);
		if (pending && evbuffer_write(c->conn.out, c->conn.fd) < 0 && errno != EAGAIN && errno != EINTR) {
			evserve_conn_free(&c->conn);
			return -1;
		}
		/* Drained output can unblock input held back while it was full: go
		 * round again unless the socket is full or nothing happened at all. */
		if (evbuffer_get_length(c->conn.out))
			break;
		busy |= pending != 0;
		if (!busy)
			break;
	}
	/* Still output, a flood, or more rounds' worth of work: come back when the
	 * socket can take more (at once, if it can now). */
	if (evbuffer_get_length(c->conn.out) || c->flooding || (busy && round == 8)) {
		event_add(c->conn.wr, NULL);
	} else {
		event_del(c->conn.wr);
		if (c->closing) {
			evserve_conn_free(&c->conn);
			return -1;
		}
	}
	if ((c->flooding || evbuffer_get_length(c->conn.out) >= ECHO_OUT_HIGH) &&
	    c->in_len - c->in_off >= IN_SOFT)
		event_del(c->conn.rd);  /* backpressure: the kernel's buffers fill next */
	else
		event_add(c->conn.rd, NULL);
	return 0;
}

static void on_read(struct evserve_conn *sc)
{
	struct echo_conn *c = (struct echo_conn *)sc;
	ssize_t n;

	echo_input_reserve(c, READ_CHUNK);
	n = read(sc->fd, c->in + c->in_len, c->in_cap - c->in_len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		evserve_conn_free(sc);
		return;
	}
	c->in_len += (size_t)n;
	conn_pump(c);
}

static void on_write(struct evserve_conn *sc)
{
	conn_pump((struct echo_conn *)sc);
}

static void on_open(struct evserve_conn *sc)
{
	struct echo_conn *c = (struct echo_conn *)sc;

	c->srv = sc->srv->arg;
	c->in_cap = READ_CHUNK * 2;
	c->in = xmalloc(c->in_cap);
	httpmsg_init(&c->http, 0);
}

static void on_free(struct evserve_conn *sc)
{
	struct echo_conn *c = (struct echo_conn *)sc;

	free(c->in);
	free(c->msg);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "result-size", required_argument, NULL, 'r' },
		{ "max-message", required_argument, NULL, 'm' },
		CLI_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	static const struct evserve_ops ops = {
		sizeof(struct echo_conn), on_open, on_read, on_write, on_free
	};
	char host[64] = "127.0.0.1", err[256];
	int port = 0, o;

	srv.result_size = 100;
	srv.max_message = 256u << 20;
	while ((o = getopt_long(argc, argv, CLI_SHORTOPTS, opts, NULL)) != -1) {
		switch (o) {
		case 'l':
			if (util_parse_hostport("--listen", optarg, host, sizeof host, &port, err,
						sizeof err) < 0)
				goto bad;
			break;
		case 'r':
		case 'm':
			if (util_parse_size(optarg, o == 'r' ? &srv.result_size : &srv.max_message,
					    err, sizeof err) < 0)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		case 'V':
			puts("cdp-echo " CDPPROXY_VERSION);
			return CLI_OK;
		default:
			cli_bad_option(o, argv, opts, err, sizeof err);
			goto bad;
		}
	}
	if (optind < argc) {
		snprintf(err, sizeof err, "unexpected argument '%s' (see --help)", argv[optind]);
		goto bad;
	}
	if (evserve_open(&srv.server, host, port, &ops, &srv, err, sizeof err) < 0) {
		fprintf(stderr, "cdp-echo: %s\n", err);
		return 1;
	}
	fprintf(stderr, "cdp-echo: listening on http://%s:%d\n", host, srv.server.port);
	evserve_run(&srv.server);
	fprintf(stderr, "cdp-echo: %" PRIu64 " commands, %" PRIu64 " events, %" PRIu64
		" bad commands\n", srv.commands, srv.events, srv.bad);
	evserve_close(&srv.server);
	return 0;
bad:
	fprintf(stderr, "cdp-echo: %s\n", err);
	return CLI_USAGE;
}
