/* http1: a small HTTP/1.1 server on libevent that streams request bodies to its
 * handler (so a 1 GiB upload is counted, not buffered) and times their bytes. */
#ifndef UPLOADSINK_HTTP1_H
#define UPLOADSINK_HTTP1_H

#include <stddef.h>
#include <stdint.h>


struct http1_conn;

/* One request. Times are monotonic microseconds (util_mono_us). */
struct http1_req {
	struct http1_conn *conn;
	char method[16];
	char path[2048];             /* without the query */
	char query[2048];            /* after '?', or "" */
	int keep_alive;
	uint64_t head_us;            /* the request head was complete */
	uint64_t first_body_us;      /* the read that brought the first body byte */
	uint64_t last_body_us;       /* the read that brought the last body byte */
	uint64_t body_bytes;         /* decoded body bytes seen so far */
	size_t keep_max;             /* on_head: keep up to this many body bytes (0: count only) */
	char *body;                  /* the kept bytes, NUL-terminated; NULL if none were kept */
	size_t body_len;
	int body_too_large;          /* more arrived than keep_max */
	void *user;                  /* the handler's */
};

struct http1_handler {
	/* The head is parsed; set r->keep_max to keep the body. */
	void (*on_head)(struct http1_req *r, void *arg);
	/* The whole body is in (or there was none): answer with http1_respond*. */
	void (*on_done)(struct http1_req *r, void *arg);
	void *arg;
};

struct http1_server;

/* Listens on host:port (0: any free port; the chosen one in *bound_port).
 * NULL with a reason in err. */
struct http1_server *http1_listen(const char *host, int port, const struct http1_handler *h,
				  int *bound_port, char *err, size_t errlen);
/* Serves until SIGINT or SIGTERM. */
void http1_run(struct http1_server *s);
void http1_close(struct http1_server *s);

/* Answers r with a body of len bytes (copied). */
void http1_respond(struct http1_req *r, int status, const char *content_type,
		   const void *body, size_t len);

/* Answers r with `bytes` bytes of a fixed pattern, written as fast as the
 * peer reads; done(r, arg) runs when the last byte was handed to the kernel. */
void http1_respond_pattern(struct http1_req *r, int status, const char *content_type,
			   uint64_t bytes, void (*done)(struct http1_req *r, void *arg),
			   void *arg);

/* Finds name's value in a query string ("a=1&b=2"), copied (not decoded) into
 * out. 0 when found, -1 when absent. */
int http1_query(const char *query, const char *name, char *out, size_t outlen);

#endif
