/* cdp-echo: a fast fake Chrome for load work: discovery endpoints and
 * /devtools/ WebSockets that answer every command at once, with a result of
 * the size asked for, and flood events on request (Echo.flood). */
#include <errno.h>
#include <event2/listener.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

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
	      "  --max-message SIZE   largest command accepted (default 256MiB)\n", out);
}

void echo_in_reserve(struct echo_conn *c, size_t n)
{
	if (c->in_off && c->in_off == c->in_len)
		c->in_off = c->in_len = 0;
	if (c->in_len + n <= c->in_cap)
		return;
	if (c->in_off) {  /* slide the unhandled bytes to the front first */
		memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
		c->in_len -= c->in_off;
		c->in_off = 0;
	}
	if (c->in_len + n > c->in_cap) {
		while (c->in_len + n > c->in_cap)
			c->in_cap *= 2;
		c->in = xrealloc(c->in, c->in_cap);
	}
}

static void conn_free(struct echo_conn *c)
{
	*(c->prev ? &c->prev->next : &c->srv->conns) = c->next;
	if (c->next)
		c->next->prev = c->prev;
	event_free(c->rd);
	event_free(c->wr);
	evbuffer_free(c->out);
	close(c->fd);
	free(c->in);
	free(c->msg);
	free(c);
}

/* Handles input and makes output while there is room, writes what the socket
 * takes, and arms the events for what is left. Returns -1 if c was freed. */
static int conn_pump(struct echo_conn *c)
{
	int round, busy = 0;

	for (round = 0; round < 8; round++) {
		size_t in_before = c->in_off, out_before = evbuffer_get_length(c->out), pending;
		uint64_t seq_before = c->flood_seq;
		int rc = 0;

		if (c->flooding)
			echo_ws_flood(c);
		if (!c->upgraded && !c->closing)
			rc = echo_http(c);
		if (rc >= 0 && c->upgraded && !c->closing && !c->flooding)
			rc = echo_ws_process(c);
		if (rc < 0) {
			conn_free(c);
			return -1;
		}
		busy = c->in_off != in_before || c->flood_seq != seq_before ||
		       evbuffer_get_length(c->out) != out_before;
		pending = evbuffer_get_length(c->out);
		if (pending && evbuffer_write(c->out, c->fd) < 0 && errno != EAGAIN && errno != EINTR) {
			conn_free(c);
			return -1;
		}
		/* Drained output can unblock input held back while it was full: go
		 * round again unless the socket is full or nothing happened at all. */
		if (evbuffer_get_length(c->out))
			break;
		busy |= pending != 0;
		if (!busy)
			break;
	}
	/* Still output, a flood, or more rounds' worth of work: come back when the
	 * socket can take more (at once, if it can now). */
	if (evbuffer_get_length(c->out) || c->flooding || (busy && round == 8)) {
		event_add(c->wr, NULL);
	} else {
		event_del(c->wr);
		if (c->closing) {
			conn_free(c);
			return -1;
		}
	}
	if ((c->flooding || evbuffer_get_length(c->out) >= ECHO_OUT_HIGH) &&
	    c->in_len - c->in_off >= IN_SOFT)
		event_del(c->rd);  /* backpressure: the kernel's buffers fill next */
	else
		event_add(c->rd, NULL);
	return 0;
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
	struct echo_conn *c = arg;
	ssize_t n;

	(void)what;
	echo_in_reserve(c, READ_CHUNK);
	n = read(fd, c->in + c->in_len, c->in_cap - c->in_len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_free(c);
		return;
	}
	c->in_len += (size_t)n;
	conn_pump(c);
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_pump(arg);
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
		      int salen, void *arg)
{
	struct echo_conn *c = xcalloc(1, sizeof *c);
	int one = 1;

	(void)l;
	(void)sa;
	(void)salen;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	c->srv = arg;
	c->fd = fd;
	c->in_cap = READ_CHUNK * 2;
	c->in = xmalloc(c->in_cap);
	c->out = evbuffer_new();
	c->rd = event_new(c->srv->base, fd, EV_READ | EV_PERSIST, on_read, c);
	c->wr = event_new(c->srv->base, fd, EV_WRITE | EV_PERSIST, on_write, c);
	c->next = c->srv->conns;
	if (c->next)
		c->next->prev = c;
	c->srv->conns = c;
	event_add(c->rd, NULL);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	event_base_loopbreak(arg);
}

static int parse_listen(const char *s, struct sockaddr_in *sin, char *err, size_t errlen)
{
	char host[64];
	int port;

	if (util_parse_hostport("--listen", s, host, sizeof host, &port, err, errlen) < 0)
		return -1;
	memset(sin, 0, sizeof *sin);
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1) {
		snprintf(err, errlen, "--listen: '%s' is not IPv4-ADDRESS:PORT", s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "result-size", required_argument, NULL, 'r' },
		{ "max-message", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct sockaddr_in sin;
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof ss;
	struct evconnlistener *lis;
	struct event *sigs[2];
	char err[256];
	int o;

	srv.result_size = 100;
	srv.max_message = 256u << 20;
	parse_listen("127.0.0.1:0", &sin, err, sizeof err);
	opterr = 0;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'l':
			if (parse_listen(optarg, &sin, err, sizeof err) < 0)
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
			return 0;
		default:
			snprintf(err, sizeof err, "unknown or incomplete option '%s' (see --help)",
				 argv[optind - 1]);
			goto bad;
		}
	}
	if (optind < argc) {
		snprintf(err, sizeof err, "unexpected argument '%s'", argv[optind]);
		goto bad;
	}
	signal(SIGPIPE, SIG_IGN);
	srv.base = event_base_new();
	lis = evconnlistener_new_bind(srv.base, on_accept, &srv,
				      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
				      511, (struct sockaddr *)&sin, sizeof sin);
	if (!lis) {
		fprintf(stderr, "cdp-echo: cannot listen: %s\n", strerror(errno));
		return 1;
	}
	getsockname(evconnlistener_get_fd(lis), (struct sockaddr *)&ss, &sslen);
	srv.port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	sigs[0] = evsignal_new(srv.base, SIGTERM, on_signal, srv.base);
	sigs[1] = evsignal_new(srv.base, SIGINT, on_signal, srv.base);
	event_add(sigs[0], NULL);
	event_add(sigs[1], NULL);
	inet_ntop(AF_INET, &sin.sin_addr, err, sizeof err);
	fprintf(stderr, "cdp-echo: listening on http://%s:%d\n", err, srv.port);
	event_base_dispatch(srv.base);
	fprintf(stderr, "cdp-echo: %" PRIu64 " commands, %" PRIu64 " events, %" PRIu64
		" bad commands\n", srv.commands, srv.events, srv.bad);
	while (srv.conns)
		conn_free(srv.conns);
	event_free(sigs[0]);
	event_free(sigs[1]);
	evconnlistener_free(lis);
	event_base_free(srv.base);
	return 0;
bad:
	fprintf(stderr, "cdp-echo: %s\n", err);
	return 2;
}
