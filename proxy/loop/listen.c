/* listen: the proxy's own listening sockets and accept loop (lws 4.1.6 binds
 * an "iface" that is an IP to [::] dual-stack, cannot bind a name's several
 * addresses, and spins on EMFILE). */
#define _GNU_SOURCE   /* accept4 */
#include "listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy.h"
#include "util.h"

#define LISTEN_FDS 8          /* addresses of one name, at most */
#define ACCEPT_BATCH 64       /* per wake-up: other sockets get their turn */

struct listen_state {
	struct lws *wsi[LISTEN_FDS];
	int n;
	int reserve_fd;           /* given up to accept-and-close when out of descriptors */
	unsigned open, max;
	uint64_t accepted, refused_busy, refused_fds;
	uint64_t noted_us;        /* last stderr line about refusals */
	struct http_conn *conns;
};

static int is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	return sa->sa_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

void listen_addr_text(const struct sockaddr *sa, char *buf, size_t buflen)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, a, sizeof a);
	else
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, a, sizeof a);
	snprintf(buf, buflen, sa->sa_family == AF_INET6 ? "[%s]" : "%s", a);
}

/* A listening socket on sa (port set), or -1 with errno. */
static int open_one(struct sockaddr *sa, socklen_t len)
{
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	/* [::1] means only [::1], never the IPv4 side of a dual-stack socket. */
	if (sa->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, sa, len) < 0 || listen(fd, SOMAXCONN) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void set_port(struct sockaddr *sa, int port)
{
	if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)sa)->sin_port = htons((uint16_t)port);
}

static unsigned http_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < LISTEN_HTTP_MAX)
		return rl.rlim_cur / 4 > 8 ? (unsigned)(rl.rlim_cur / 4) : 8;
	return LISTEN_HTTP_MAX;
}

int listen_start(struct proxy *px, const char *host, int port, int remote_ok, int *bound,
		 char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	struct listen_state *ls;
	struct sockaddr_storage done[LISTEN_FDS];
	char service[16], addr[INET6_ADDRSTRLEN + 2];
	int rc, fds[LISTEN_FDS], n = 0, got = 0;

	snprintf(service, sizeof service, "%d", port);
	if ((rc = getaddrinfo(host, service, &hints, &res))) {
		snprintf(err, errlen, "--listen %s: %s", host, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai && n < LISTEN_FDS; ai = ai->ai_next) {
		int dup = 0, fd;
		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		if (n)   /* port 0: the others on the port the first one got */
			set_port(ai->ai_addr, got);
		for (int i = 0; i < n; i++)
			dup |= !memcmp(&done[i], ai->ai_addr, ai->ai_addrlen);
		if (dup)
			continue;
		listen_addr_text(ai->ai_addr, addr, sizeof addr);
		if (!remote_ok && !is_loopback(ai->ai_addr)) {
			snprintf(err, errlen, "--listen %s resolves to %s, which is not loopback "
				 "(needs --allow-remote and a token)", host, addr);
			goto fail;
		}
		if ((fd = open_one(ai->ai_addr, ai->ai_addrlen)) < 0) {
			/* A name's address this host does not have (::1 without IPv6). */
			if ((errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT) && (n || ai->ai_next))
				continue;
			if (inet_pton(ai->ai_family, host, &(struct in6_addr){ 0 }) == 1)
				snprintf(err, errlen, "cannot listen on %s:%d: %s", addr, n ? got : port,
					 strerror(errno));
			else
				snprintf(err, errlen, "cannot listen on %s:%d (%s): %s", host,
					 n ? got : port, addr, strerror(errno));
			goto fail;
		}
		if (!n) {
			struct sockaddr_storage ss;
			socklen_t sl = sizeof ss;
			getsockname(fd, (struct sockaddr *)&ss, &sl);
			got = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						 : ((struct sockaddr_in *)&ss)->sin_port);
		}
		set_port(ai->ai_addr, got);
		memset(&done[n], 0, sizeof done[n]);
		memcpy(&done[n], ai->ai_addr, ai->ai_addrlen);
		fds[n++] = fd;
	}
	if (!n) {
		snprintf(err, errlen, "cannot listen on %s:%d: no address of this host", host, port);
		goto fail;
	}
	if (!(ls = px->listen)) {   /* the first listener; a second one joins it */
		ls = px->listen = xcalloc(1, sizeof *ls);
		ls->max = http_limit();
		ls->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	*bound = got;
	for (int i = 0; i < n && ls->n < LISTEN_FDS; i++) {
		lws_sock_file_fd_type d = { .filefd = fds[i] };
		if (!(ls->wsi[ls->n] = lws_adopt_descriptor_vhost(px->vhost, LWS_ADOPT_RAW_FILE_DESC, d,
								   "cdp-listen", NULL))) {
			snprintf(err, errlen, "cannot listen on %s:%d: the event loop refused the socket",
				 host, got);
			for (int j = i + 1; j < n; j++)
				close(fds[j]);
			freeaddrinfo(res);
			return -1;
		}
		ls->n++;
	}
	freeaddrinfo(res);
	return 0;
fail:
	for (int i = 0; i < n; i++)
		close(fds[i]);
	freeaddrinfo(res);
	return -1;
}

void listen_stop(struct proxy *px)
{
	struct listen_state *ls = px->listen;

	if (!ls)
		return;
	while (ls->conns)   /* only if the context was never destroyed */
		listen_forget(px, ls->conns->wsi);
	if (ls->reserve_fd >= 0)
		close(ls->reserve_fd);
	free(ls);
	px->listen = NULL;
}

/* One stderr line per second at most, whatever the flood. */
static void note(struct listen_state *ls, const char *what)
{
	uint64_t now = util_mono_us();

	if (now - ls->noted_us < 1000000)
		return;
	ls->noted_us = now;
	fprintf(stderr, "cdpproxy: %s (refused so far: %llu over the limit of %u HTTP "
		"connections, %llu for want of descriptors)\n", what,
		(unsigned long long)ls->refused_busy, ls->max, (unsigned long long)ls->refused_fds);
}

static void on_deadline(lws_sorted_usec_list_t *sul)
{
	struct http_conn *hc = lws_container_of(sul, struct http_conn, deadline);

	lws_set_timeout(hc->wsi, PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_ASYNC);
}

void listen_deadline(struct http_conn *hc, int on)
{
	if (on)
		lws_sul_schedule(lws_get_context(hc->wsi), 0, &hc->deadline, on_deadline,
				 (lws_usec_t)LISTEN_IDLE_SECS * LWS_US_PER_SEC);
	else
		lws_sul_cancel(&hc->deadline);
}

/* Out of descriptors: the reserve one makes room to accept the connection
 * at the head of the queue and close it, so that the listening socket
 * stops being readable instead of waking the loop forever. */
static int out_of_fds(struct listen_state *ls, int lfd)
{
	int fd;

	if (ls->reserve_fd >= 0)
		close(ls->reserve_fd);
	if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
		close(fd);
	ls->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ls->refused_fds += fd >= 0;
	note(ls, "out of file descriptors (ulimit -n): closing new connections");
	return fd >= 0 ? 0 : -1;
}

/* lws 4.1.6 cannot let go of a socket: closing a wsi would shut the
 * connection down. The socket gets a second descriptor, and the wsi's own
 * descriptor is pointed at a socket of no consequence (its peer already
 * gone), which lws then closes. */
int listen_take_socket(struct lws *wsi)
{
	int fd = (int)lws_get_socket_fd(wsi), own, stand_in[2];

	if (fd < 0 || (own = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, stand_in) < 0) {
		close(own);
		return -1;
	}
	close(stand_in[1]);
	if (dup2(stand_in[0], fd) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		close(stand_in[0]);
		close(own);
		return -1;
	}
	close(stand_in[0]);
	return own;
}

/* Bytes of a request line looked for: lws takes no longer one. */
#define HEAD_PEEK (8192 + 16)
#define HEAD_WAIT_MAX_MS 500

/* The watcher's pause is over: look again. */
static void head_retry(lws_sorted_usec_list_t *sul)
{
	struct http_conn *hc = lws_container_of(sul, struct http_conn, head_retry);

	lws_rx_flow_control(hc->wsi, 1);
}

/* The request line is there (or will never be): hands the connection to
 * lws's HTTP server. Returns -1: the watcher wsi is to close. */
static int head_done(struct http_conn *hc, struct lws *watcher)
{
	lws_adopt_desc_t ad;
	struct lws *wsi;

	memset(&ad, 0, sizeof ad);
	ad.vh = hc->px->vhost;
	ad.type = LWS_ADOPT_SOCKET | LWS_ADOPT_HTTP;
	if ((ad.fd.sockfd = listen_take_socket(watcher)) < 0)
		return -1;
	if (!(wsi = lws_adopt_descriptor_vhost_via_info(&ad))) {   /* lws closed the socket */
		hc->px->listen->refused_fds++;
		return -1;
	}
	lws_sul_cancel(&hc->head_retry);
	lws_set_opaque_user_data(watcher, NULL);
	hc->wsi = wsi;
	return -1;
}

/* May t[0..n) stand in the request line sent to Chrome? Not with a control
 * byte (a lone CR would start a line of the proxy's making). */
static int target_ok(const char *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x21 || t[i] == 0x7f)
			return 0;
	return n > 0;
}

/* A look at what the client has sent, without taking it: the request
 * line's target once the line is whole. A line still coming is looked at
 * again after a pause that doubles (the bytes stay, so the descriptor
 * stays readable); the idle deadline bounds the wait. */
static int head_read(struct http_conn *hc, struct lws *watcher)
{
	char buf[HEAD_PEEK];
	long n = recv((int)lws_get_socket_fd(watcher), buf, HEAD_PEEK, MSG_PEEK | MSG_DONTWAIT);
	const char *eol = n > 0 ? memchr(buf, '\n', (size_t)n) : NULL;
	int rc = 0;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		rc = -1;   /* gone before a request: nothing for lws */
	} else if (eol || n == HEAD_PEEK) {
		/* METHOD SP target SP version: no space inside a target. */
		const char *sp = eol ? memchr(buf, ' ', (size_t)(eol - buf)) : NULL;
		const char *t = sp ? sp + 1 : NULL, *te = t ? memchr(t, ' ', (size_t)(eol - t)) : NULL;
		free(hc->target);
		hc->target = te && target_ok(t, (size_t)(te - t)) ? xstrndup(t, (size_t)(te - t)) : NULL;
		rc = head_done(hc, watcher);
	} else if (n > 0) {
		hc->head_wait_ms = hc->head_wait_ms ? hc->head_wait_ms * 2 : 5;
		if (hc->head_wait_ms > HEAD_WAIT_MAX_MS)
			hc->head_wait_ms = HEAD_WAIT_MAX_MS;
		lws_rx_flow_control(watcher, 0);
		lws_sul_schedule(lws_get_context(watcher), 0, &hc->head_retry, head_retry,
				 (lws_usec_t)hc->head_wait_ms * LWS_US_PER_MS);
	}
	return rc;
}

static void take(struct proxy *px, struct listen_state *ls, int fd)
{
	lws_sock_file_fd_type d = { .filefd = fd };
	struct http_conn *hc;
	struct lws *wsi;
	int one = 1;

	if (ls->open >= ls->max) {
		close(fd);
		ls->refused_busy++;
		note(ls, "too many HTTP connections not yet upgraded: closing new ones");
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	hc = xcalloc(1, sizeof *hc);
	/* Watched as a raw file first: lws reads nothing before head_read. */
	if (!(wsi = lws_adopt_descriptor_vhost(px->vhost, LWS_ADOPT_RAW_FILE_DESC, d, "cdp-listen", NULL))) {
		close(fd);
		free(hc);
		ls->refused_fds++;
		note(ls, "the event loop has no room for a new connection");
		return;
	}
	lws_set_opaque_user_data(wsi, hc);
	hc->wsi = wsi;
	hc->px = px;
	hc->next = ls->conns;
	if (ls->conns)
		ls->conns->prev = hc;
	ls->conns = hc;
	ls->open++;
	ls->accepted++;
	listen_deadline(hc, 1);
}

int listen_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		    void *in, size_t len)
{
	struct proxy *px = lws_context_user(lws_get_context(wsi));
	struct listen_state *ls = px->listen;
	int lfd = (int)lws_get_socket_fd(wsi);

	struct http_conn *hc = lws_get_opaque_user_data(wsi);

	(void)user, (void)in, (void)len;
	if (hc && reason == LWS_CALLBACK_RAW_RX_FILE)   /* an accepted connection's watcher */
		return head_read(hc, wsi);
	if (hc && reason == LWS_CALLBACK_RAW_CLOSE_FILE) {   /* closed before lws had it */
		lws_set_opaque_user_data(wsi, NULL);
		listen_forget(px, wsi);
		return 0;
	}
	if (hc || reason != LWS_CALLBACK_RAW_RX_FILE || !ls)
		return 0;
	for (int i = 0; i < ACCEPT_BATCH; i++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			take(px, ls, fd);
		} else if (errno == EMFILE || errno == ENFILE) {
			if (out_of_fds(ls, lfd) < 0)
				break;   /* not even the reserve helped: next wake-up */
		} else if (errno != EINTR && errno != ECONNABORTED) {
			break;   /* EAGAIN: nothing more waiting */
		}
	}
	return 0;
}

struct http_conn *listen_conn(struct proxy *px, struct lws *wsi)
{
	/* A list walk, not the wsi's user data: lws hands some callbacks of
	 * other wsis (WSI_DESTROY, client ones) to this protocol too. */
	for (struct http_conn *hc = px->listen ? px->listen->conns : NULL; hc; hc = hc->next)
		if (hc->wsi == wsi)
			return hc;
	return NULL;
}

void listen_forget(struct proxy *px, struct lws *wsi)
{
	struct http_conn *hc = listen_conn(px, wsi);

	if (!hc)
		return;
	lws_sul_cancel(&hc->deadline);
	lws_sul_cancel(&hc->head_retry);
	free(hc->target);
	if (hc->prev)
		hc->prev->next = hc->next;
	else
		px->listen->conns = hc->next;
	if (hc->next)
		hc->next->prev = hc->prev;
	px->listen->open--;
	free(hc);
}

json_t *listen_json(struct proxy *px)
{
	struct listen_state *ls = px->listen;

	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "open", (json_int_t)ls->open,
			 "limit", (json_int_t)ls->max, "idle_timeout_s", (json_int_t)LISTEN_IDLE_SECS,
			 "accepted", (json_int_t)ls->accepted,
			 "refused_busy", (json_int_t)ls->refused_busy,
			 "refused_no_fds", (json_int_t)ls->refused_fds);
}

char *listen_header_dup(struct lws *wsi, enum lws_token_indexes tok)
{
	int n = lws_hdr_total_length(wsi, tok);
	char *s = xmalloc((size_t)(n > 0 ? n : 0) + 1);

	if (n <= 0 || lws_hdr_copy(wsi, s, n + 1, tok) < 0)
		*s = '\0';
	return s;
}

int listen_headers(struct lws *wsi, unsigned status, const char *type, lws_filepos_t len,
			  unsigned char **p, unsigned char *end)
{
	return lws_add_http_common_headers(wsi, status, type, len, p, end) ||
	       lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close", 5,
					    p, end);
}

int listen_refuse(struct lws *wsi, unsigned status, const char *why)
{
	/* Plain text: why may quote the request's own headers, which must not
	 * become markup in a browser (lws_return_http_status writes HTML). */
	unsigned char hdr[LWS_PRE + 512], *start = hdr + LWS_PRE, *p = start;
	unsigned char body[LWS_PRE + 1024];
	int n = snprintf((char *)body + LWS_PRE, sizeof body - LWS_PRE, "cdpproxy: %s\n", why);

	if (n < 0 || n >= (int)(sizeof body - LWS_PRE))
		n = (int)(sizeof body - LWS_PRE - 1);
	if (listen_headers(wsi, status, "text/plain; charset=utf-8", (lws_filepos_t)n,
			   &p, hdr + sizeof hdr - 1) ||
	    lws_finalize_write_http_header(wsi, start, &p, hdr + sizeof hdr - 1) ||
	    lws_write(wsi, body + LWS_PRE, (size_t)n, LWS_WRITE_HTTP_FINAL) < n)
		return -1;
	return 0;
}
