/* listen: the proxy's own listening sockets, bound to exactly the --listen
 * addresses, and the accept loop that hands connections to lws's HTTP
 * server within a connection limit, an idle deadline and the descriptors
 * the process has. */
#ifndef CDPPROXY_LISTEN_H
#define CDPPROXY_LISTEN_H

#include <jansson.h>
#include <libwebsockets.h>

struct proxy;
struct sockaddr;
struct http_reply;

/* Seconds an accepted connection has for its whole request (headers and
 * body) from its accept; then it is closed. */
#define LISTEN_IDLE_SECS 10
/* HTTP connections not yet upgraded, at most (fewer with a low ulimit -n:
 * a quarter of the descriptors); more are accepted and closed at once. */
#define LISTEN_HTTP_MAX 128

/* One accepted HTTP connection, from accept to the end of its wsi (the
 * only per-connection state of the HTTP callbacks: lws's per-session
 * buffer does not exist yet for a connection that ends before a request). */
struct http_conn {
	struct lws *wsi;                     /* lws's HTTP wsi; until then the head watcher */
	char *target;                        /* the request target as sent (listen_callback) */
	unsigned head_wait_ms;               /* between looks at a request line still coming */
	lws_sorted_usec_list_t head_retry;
	struct proxy *px;
	struct http_reply *reply;            /* the request in hand, or NULL */
	lws_sorted_usec_list_t deadline;     /* LISTEN_IDLE_SECS */
	struct http_conn *prev, *next;
};

/* Binds and listens on every address host resolves to (a literal is one
 * address; a name may give several, each bound on the same port; one that
 * is not an address of this host is skipped if another one binds), all
 * loopback unless remote_ok; adopts them into px->vhost, and says the port
 * in *bound. Called again, it adds a listener served the same way (the
 * wrapper's admin listener, CDPPROXY_CONTROL). 0, or -1 with a one-line reason in err. */
int listen_start(struct proxy *px, const char *host, int port, int remote_ok, int *bound,
		 char *err, size_t errlen);
/* Frees what listen_start made (after lws_context_destroy). */
void listen_stop(struct proxy *px);
/* The "cdp-listen" protocol: accepts what is waiting; and, for each
 * accepted connection, waits for its request line and reads its target as
 * the client wrote it (lws keeps only a decoded copy: %XX, '+', ';' and
 * '=' lost) before handing the connection to lws's HTTP server. One
 * request a connection: every answer closes it (http.c), so each request
 * is the first, whose line is peeked. */
int listen_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
		    void *in, size_t len);
/* Takes wsi's socket from lws, which may then close wsi without touching
 * the connection: returns a new descriptor for it, or -1. */
int listen_take_socket(struct lws *wsi);
/* The accepted connection wsi is, or NULL (not one of ours, or gone). */
struct http_conn *listen_conn(struct proxy *px, struct lws *wsi);
/* Starts (on) or stops the idle deadline of hc. */
void listen_deadline(struct http_conn *hc, int on);
/* wsi is being destroyed: forget its http_conn, if it has one (whose
 * reply the caller has already let go of). */
void listen_forget(struct proxy *px, struct lws *wsi);
/* An IPv4 address as 127.0.0.1, an IPv6 one as [::1]. */
void listen_addr_text(const struct sockaddr *sa, char *buf, size_t buflen);
/* The whole value of a request header, however long (lws_hdr_copy joins
 * repeated ones with ','); "" when absent. Free it. */
char *listen_header_dup(struct lws *wsi, enum lws_token_indexes tok);
/* Adds the headers every answer has to a header block being built. Each
 * answer closes its connection: one request a connection, so that each is
 * the first, whose target listen_callback read as the client wrote it. */
int listen_headers(struct lws *wsi, unsigned status, const char *type, lws_filepos_t len,
		   unsigned char **p, unsigned char *end);
/* Answers status with why as a plain text body, at once. 0, or -1. */
int listen_refuse(struct lws *wsi, unsigned status, const char *why);
/* Counters for /proxy/stats: open, limit, refused (busy, no descriptors). */
json_t *listen_json(struct proxy *px);

#endif
