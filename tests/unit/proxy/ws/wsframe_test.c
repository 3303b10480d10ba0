/* wsframe_test: frame headers, masking and handshake keys against RFC 6455. */
#include <string.h>

#include "tap.h"
#include "wsframe.h"

int main(void)
{
	static const uint64_t lens[] = { 0, 1, 125, 126, 65535, 65536, 1ull << 32, (1ull << 63) - 1 };
	unsigned char h[WSFRAME_HEADER_MAX], buf[64], copy[64];
	const unsigned char mask[4] = { 0x37, 0xfa, 0x21, 0x3d };
	struct wsframe f;
	char accept[29], key[25], key2[25];

	/* RFC 6455 section 1.3 */
	wsframe_accept_key("dGhlIHNhbXBsZSBub25jZQ==", 24, accept);
	is_str(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "the RFC's accept key");
	wsframe_new_key(key);
	wsframe_new_key(key2);
	is_int(strlen(key), 24, "a new key is 24 characters of base64");
	ok(strcmp(key, key2) != 0, "two new keys differ");

	/* The handshake's texts: the request, the 101 answer, and its check. */
	{
		char req[300], answer[WSFRAME_ANSWER_MAX];
		size_t n = wsframe_server_answer(answer, "dGhlIHNhbXBsZSBub25jZQ==", 24);
		const char *refused = "HTTP/1.1 403 Forbidden\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n";

		is_str(answer, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
		       "Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
		       "the 101 answer to the RFC's key");
		ok(wsframe_answer_accepts(answer, n - 2, "dGhlIHNhbXBsZSBub25jZQ=="), "a client accepts it");
		ok(!wsframe_answer_accepts(answer, n - 2, key), "not for another key");
		ok(!wsframe_answer_accepts(refused, strlen(refused), "dGhlIHNhbXBsZSBub25jZQ=="),
		   "a 403 with the right accept header is no upgrade");
		is_int(wsframe_client_request(req, sizeof req, "/devtools/page/X", "127.0.0.1:9222", key),
		       (long long)strlen(req), "the request's length");
		ok(strstr(req, "GET /devtools/page/X HTTP/1.1\r\nHost: 127.0.0.1:9222\r\n") == req &&
		   strstr(req, key) && strstr(req, "Sec-WebSocket-Version: 13\r\n\r\n"), "the request's text");
		is_int(wsframe_client_request(req, 20, "/devtools/page/X", "127.0.0.1:9222", key), -1,
		       "a request that does not fit");
	}

	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		size_t n = wsframe_header(h, WSFRAME_TEXT, 1, lens[i], i & 1 ? mask : NULL);
		int got = wsframe_parse_header(h, n, &f);
		is_int(got, (long long)n, "header of length %llu parses back to its size", (unsigned long long)lens[i]);
		ok(f.len == lens[i] && f.fin && f.opcode == WSFRAME_TEXT && f.masked == (int)(i & 1),
		   "length %llu, fin, opcode and mask bit round-trip", (unsigned long long)lens[i]);
		is_int(wsframe_parse_header(h, n - 1, &f), 0, "one byte short: more is needed");
	}
	/* RFC 6455 section 5.7: a single-frame masked text message "Hello" */
	{
		const unsigned char hello[] = { 0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58 };
		is_int(wsframe_parse_header(hello, sizeof hello, &f), 6, "the RFC's masked Hello: 6 header bytes");
		wsframe_mask(buf, hello + 6, 5, f.mask, 0);
		ok(!memcmp(buf, "Hello", 5), "unmasks to Hello");
	}
	memcpy(buf, "abcdefghijklmnopqrstuvwxyz0123456789", 36);
	memcpy(copy, buf, 36);
	wsframe_mask(buf, buf, 36, mask, 0);
	wsframe_mask(buf, buf, 10, mask, 0);
	wsframe_mask(buf + 10, buf + 10, 26, mask, 10);
	ok(!memcmp(buf, copy, 36), "masking twice (the second time in two pieces, offset kept) restores it");
	{
		/* Every length to past two 16-byte steps, every offset: the same
		 * as the byte-by-byte definition, into another buffer and in place. */
		unsigned char src[80], out[80], in_place[80];
		int same = 1;
		for (size_t n = 0; n <= 70; n++)
			for (uint64_t o = 0; o < 8; o++) {
				for (size_t k = 0; k < n; k++)
					src[k] = in_place[k] = (unsigned char)(k * 7 + o);
				wsframe_mask(out, src, n, mask, o);
				wsframe_mask(in_place, in_place, n, mask, o);
				for (size_t k = 0; k < n; k++)
					if (out[k] != (src[k] ^ mask[(o + k) % 4]) || in_place[k] != out[k])
						same = 0;
			}
		ok(same, "lengths 0..70 at offsets 0..7: dst[i] = src[i] ^ mask[(off + i) %% 4]");
	}
	h[0] = 0x81 | 0x40;
	h[1] = 0;
	is_int(wsframe_parse_header(h, 2, &f), -1, "a reserved bit is refused");
	h[0] = 0x89;   /* ping */
	h[1] = 126;
	is_int(wsframe_parse_header(h, 4, &f), -1, "a control frame over 125 bytes is refused");
	h[0] = 0x09;
	h[1] = 0;
	is_int(wsframe_parse_header(h, 2, &f), -1, "a fragmented control frame is refused");
	h[0] = 0x83;
	is_int(wsframe_parse_header(h, 2, &f), -1, "an unknown opcode is refused");
	return tap_done();
}
