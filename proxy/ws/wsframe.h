/* wsframe: RFC 6455 frame headers, masking and the handshake (keys, the
 * client's request, the server's 101 answer): the part of WebSocket the proxy
 * does itself on its hot path (both legs; lws 4.1.6's parsers copy payload
 * one byte at a time), shared with the load peers in tools/. No I/O; the
 * key's SHA-1 and base64 are lws's. */
#ifndef CDPPROXY_WSFRAME_H
#define CDPPROXY_WSFRAME_H

#include <stddef.h>
#include <stdint.h>

enum wsframe_opcode {
	WSFRAME_CONT = 0, WSFRAME_TEXT = 1, WSFRAME_BINARY = 2,
	WSFRAME_CLOSE = 8, WSFRAME_PING = 9, WSFRAME_PONG = 10,
};

#define WSFRAME_HEADER_MAX 14     /* 2 + 8 length + 4 mask */

struct wsframe {
	int fin, opcode, masked;
	uint64_t len;
	unsigned char mask[4];
};

/* Writes a frame header to out (WSFRAME_HEADER_MAX bytes of room); mask NULL
 * for a server frame. Returns its length. */
size_t wsframe_header(unsigned char *out, int opcode, int fin, uint64_t len,
		      const unsigned char *mask);

/* Parses a frame header from p[0..n). Returns its length, 0 if more bytes are
 * needed, -1 if it is not a valid header (reserved bits, bad length or opcode,
 * a long or fragmented control frame). */
int wsframe_parse_header(const unsigned char *p, size_t n, struct wsframe *f);

/* dst[i] = src[i] ^ mask[(off + i) % 4]; dst may equal src. */
void wsframe_mask(unsigned char *dst, const unsigned char *src, size_t n,
		  const unsigned char mask[4], uint64_t off);

/* Sec-WebSocket-Accept for a Sec-WebSocket-Key (out: 29 bytes, NUL included). */
void wsframe_accept_key(const char *key, size_t keylen, char out[29]);

/* A fresh Sec-WebSocket-Key (out: 25 bytes, NUL included). */
void wsframe_new_key(char out[25]);

/* The client's upgrade request for path on host ("HOST:PORT") with key, into
 * out (outlen bytes, NUL-terminated). Returns its length, -1 if it does not fit. */
int wsframe_client_request(char *out, size_t outlen, const char *path, const char *host,
			   const char *key);

/* Does the answer head[0..len) (its status line and headers) switch to
 * WebSocket for a request that sent key: a 101 with the right accept key? */
int wsframe_answer_accepts(const char *head, size_t len, const char *key);

#define WSFRAME_ANSWER_MAX 160

/* The server's 101 answer to a request that sent key (keylen bytes), into out
 * (WSFRAME_ANSWER_MAX bytes, NUL-terminated). Returns its length. */
size_t wsframe_server_answer(char *out, const char *key, size_t keylen);

/* Four mask bytes from a fast generator (xorshift, seeded from the clock and
 * the address of the state): masking is not a secret, only not predictable
 * by the page that writes the payload. */
void wsframe_new_mask(unsigned char mask[4]);

#endif
