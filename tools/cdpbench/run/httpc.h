/* httpc: a blocking HTTP/1.1 client for loopback peers: small requests to the
 * sink and DevTools, and the native upload and download baseline. */
#ifndef CDPBENCH_HTTPC_H
#define CDPBENCH_HTTPC_H

#include <stddef.h>
#include <stdint.h>

struct httpc {
	int fd;                     /* -1 when not connected */
	char host[64];
	int port;
	int timeout_ms;             /* per read or write */
	int one_shot;               /* ask the server to close after the answer */
};

/* Connects to host:port (an IPv4 address). 0, or -1 with a reason in err. */
int httpc_connect(struct httpc *h, const char *host, int port, int timeout_ms,
		  char *err, size_t errlen);
void httpc_close(struct httpc *h);

/* A response: status, the first keep_max body bytes (NUL-terminated), and how
 * many body bytes there were in all. */
struct httpc_resp {
	int status;
	char *body;
	size_t body_len;
	uint64_t body_bytes;
	int closes;                 /* the server will close the connection */
};

void httpc_resp_free(struct httpc_resp *r);

/* One request on a connection kept alive: body_len bytes of body (or, with
 * body NULL, body_len bytes of a fixed pattern). 0, or -1 with a reason in err. */
int httpc_exchange(struct httpc *h, const char *method, const char *path,
		   const void *body, uint64_t body_len, size_t keep_max,
		   struct httpc_resp *resp, char *err, size_t errlen);

/* A fresh connection for one request; the body (NUL-terminated) in *out.
 * 0, or -1 with a reason in err. */
int httpc_get(const char *host, int port, const char *method, const char *path,
	      int timeout_ms, int *status, char **out, char *err, size_t errlen);

#endif
