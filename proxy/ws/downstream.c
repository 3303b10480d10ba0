/* downstream: the WebSocket leg's endpoint to the client. lws's HTTP
 * server reads a client's upgrade request (and serves every other
 * request); once the upgrade is allowed (the HTTP leg hands it over:
 * proxy_upgrade), the proxy takes the socket over as an lws raw socket and
 * answers the upgrade itself, so that the client's frames are read by
 * wsleg.c like Chrome's, not by lws's WebSocket server (see wsleg.c for
 * why); then the pair is opened and Chrome's endpoint started. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "conn.h"
#include "listen.h"
#include "util.h"

/* Does the comma-separated header value list the token (case aside)? */
static int has_token(const char *value, const char *token)
{
	size_t n = strlen(token);

	for (const char *p = value; *p; p += strcspn(p, ",")) {
		p += strspn(p, ", \t");
		if (!strncasecmp(p, token, n) && strchr(", \t", p[n]))
			return 1;
	}
	return 0;
}

/* What is wrong with the upgrade request (RFC 6455 4.2.1), or NULL. */
static const char *upgrade_refused(struct lws *wsi, char *key, size_t keylen)
{
	char version[8] = "", connection[256] = "";

	if (lws_hdr_copy(wsi, connection, sizeof connection, WSI_TOKEN_CONNECTION) <= 0 ||
	    !has_token(connection, "upgrade"))
		return "a WebSocket upgrade needs Connection: Upgrade";
	if (lws_hdr_copy(wsi, key, (int)keylen, WSI_TOKEN_KEY) != 24)
		return "a WebSocket upgrade needs a Sec-WebSocket-Key of 16 bytes in base64";
	if (lws_hdr_copy(wsi, version, sizeof version, WSI_TOKEN_VERSION) <= 0 || strcmp(version, "13"))
		return "a WebSocket upgrade needs Sec-WebSocket-Version: 13";
	if (lws_hdr_total_length(wsi, WSI_TOKEN_PROTOCOL) > 0)
		return "CDP has no WebSocket subprotocol: leave out Sec-WebSocket-Protocol";
	return NULL;
}

/* Who sent the upgrade on wsi: its User-Agent, address and library. */
static void client_of(struct lws *wsi, struct client_id *c)
{
	char *ua = listen_header_dup(wsi, WSI_TOKEN_HTTP_USER_AGENT);
	char *origin = listen_header_dup(wsi, WSI_TOKEN_ORIGIN);
	char *host = listen_header_dup(wsi, WSI_TOKEN_HOST);
	struct client_hello h = {
		.user_agent = ua, .origin = origin, .host = host,
		.extensions = lws_hdr_total_length(wsi, WSI_TOKEN_EXTENSIONS) > 0,
		.pragma = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_PRAGMA) > 0,
	};
	struct sockaddr_storage sa;
	socklen_t salen = sizeof sa;
	char addr[64];

	memset(c, 0, sizeof *c);
	c->library = client_library(&h, &c->by);
	c->user_agent = *ua ? ua : NULL;
	if (!getpeername((int)lws_get_socket_fd(wsi), (struct sockaddr *)&sa, &salen) &&
	    (sa.ss_family == AF_INET || sa.ss_family == AF_INET6)) {
		listen_addr_text((struct sockaddr *)&sa, addr, sizeof addr);
		snprintf(c->remote, sizeof c->remote, "%s:%u", addr, ntohs(sa.ss_family == AF_INET ?
			 ((struct sockaddr_in *)&sa)->sin_port : ((struct sockaddr_in6 *)&sa)->sin6_port));
	}
	if (!c->user_agent)
		free(ua);
	free(origin);
	free(host);
}

/* Takes the allowed upgrade's socket over as a raw socket for path. */
static int take_over(struct proxy *px, struct lws *wsi, const char *key, const char *path)
{
	struct client_id client;
	char resp[WSFRAME_ANSWER_MAX];
	lws_adopt_desc_t ad;
	struct lws *down;
	struct conn *c;
	int n;

	client_of(wsi, &client);
	memset(&ad, 0, sizeof ad);
	ad.vh = px->vhost;
	ad.type = LWS_ADOPT_SOCKET;   /* raw */
	ad.vh_prot_name = "cdp-down";
	if ((ad.fd.sockfd = listen_take_socket(wsi)) < 0 ||
	    !(down = lws_adopt_descriptor_vhost_via_info(&ad))) {   /* lws closed the socket */
		free(client.user_agent);
		return -1;
	}
	/* A client sends nothing before this answer (RFC 6455 4.1), so lws
	 * has read nothing past the request (what one sent with its request
	 * regardless would be lost: lws 4.1.6 has no way to hand it over). */
	n = (int)wsframe_server_answer(resp, key, strlen(key));
	/* The first bytes on the socket since the request: it takes them all. */
	if (util_send_some(lws_get_socket_fd(down), resp, (size_t)n) < n) {
		lws_set_timeout(down, PENDING_TIMEOUT_KILLED_BY_PROXY_CLIENT_CLOSE, LWS_TO_KILL_ASYNC);
		free(client.user_agent);
		return -1;
	}
	c = conn_open(px, down, path, &client);
	if (upstream_open(c) == 0)
		leg_conn_ready(&c->cc);
	return -1;   /* lws lets its wsi go, on the stand-in */
}

int downstream_take(struct proxy *px, struct lws *wsi)
{
	char key[64] = "", *path;
	const char *why;
	int rc;

	if ((why = upgrade_refused(wsi, key, sizeof key))) {
		listen_refuse(wsi, HTTP_STATUS_BAD_REQUEST, why);
		return 1;
	}
	/* As the client wrote it, as Chrome would have read it. */
	if (!(path = proxy_request_target(px, wsi))) {
		listen_refuse(wsi, HTTP_STATUS_BAD_REQUEST, PROXY_TARGET_REFUSED);
		return 1;
	}
	rc = take_over(px, wsi, key, path);
	free(path);
	return rc;
}

int downstream_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
			void *in, size_t len)
{
	struct conn *c = lws_get_opaque_user_data(wsi);

	(void)user;
	if (!c)
		return 0;
	switch (reason) {
	case LWS_CALLBACK_RAW_RX:
		leg_read(&c->px->core, wsi);
		return wsleg_read(&c->leg[DOWN], in, len);
	case LWS_CALLBACK_RAW_WRITEABLE:
		return leg_writable(&c->cc, DOWN);
	case LWS_CALLBACK_RAW_CLOSE:
		lws_set_opaque_user_data(wsi, NULL);
		conn_side_gone(c, DOWN, LWS_CLOSE_STATUS_GOINGAWAY, "client went away without a close");
		return 0;
	default:
		return 0;
	}
}
