/* wsframe: RFC 6455 frame headers, masking and the handshake (the key's
 * SHA-1 and base64 from lws). */
#include "wsframe.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <time.h>

#include <libwebsockets.h>   /* lws_SHA1 and lws_b64_encode_string only */

size_t wsframe_header(unsigned char *out, int opcode, int fin, uint64_t len,
		   const unsigned char *mask)
{
	size_t n = 2;

	out[0] = (unsigned char)((fin ? 0x80 : 0) | (opcode & 0x0f));
	if (len < 126) {
		out[1] = (unsigned char)len;
	} else if (len < 65536) {
		out[1] = 126;
		out[2] = (unsigned char)(len >> 8);
		out[3] = (unsigned char)len;
		n = 4;
	} else {
		out[1] = 127;
		for (int i = 0; i < 8; i++)
			out[2 + i] = (unsigned char)(len >> (56 - 8 * i));
		n = 10;
	}
	if (mask) {
		out[1] |= 0x80;
		memcpy(out + n, mask, 4);
		n += 4;
	}
	return n;
}

int wsframe_parse_header(const unsigned char *p, size_t n, struct wsframe *f)
{
	size_t need = 2;
	unsigned len7;

	if (n < 2)
		return 0;
	if (p[0] & 0x70)
		return -1;  /* no extension is negotiated: RSV bits must be 0 */
	f->fin = !!(p[0] & 0x80);
	f->opcode = p[0] & 0x0f;
	f->masked = !!(p[1] & 0x80);
	len7 = p[1] & 0x7f;
	need += len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
	need += f->masked ? 4 : 0;
	if (n < need)
		return 0;
	if (len7 == 126) {
		f->len = (uint64_t)p[2] << 8 | p[3];
	} else if (len7 == 127) {
		f->len = 0;
		for (int i = 0; i < 8; i++)
			f->len = f->len << 8 | p[2 + i];
		if (f->len >> 63)
			return -1;
	} else {
		f->len = len7;
	}
	if (f->masked)
		memcpy(f->mask, p + need - 4, 4);
	if (f->opcode >= 8 && (f->len > 125 || !f->fin))
		return -1;
	if ((f->opcode > 2 && f->opcode < 8) || f->opcode > 10)
		return -1;
	return (int)need;
}

void wsframe_mask(unsigned char *dst, const unsigned char *src, size_t n,
		  const unsigned char mask[4], uint64_t off)
{
	/* The key three times over: from byte off & 3 on, it is the key as it
	 * falls from byte off of the payload on, for 8 bytes. */
	unsigned char thrice[12];
	const unsigned char *r = thrice + (off & 3);
	uint32_t m32, v32;
	uint64_t m64, v;
	size_t i = 0;

	memcpy(thrice, mask, 4);
	memcpy(thrice + 4, mask, 4);
	memcpy(thrice + 8, mask, 4);
	memcpy(&m32, r, 4);
	memcpy(&m64, r, 8);
#if defined(__SSE2__)
	{
		__m128i m128 = _mm_set1_epi32((int)m32);
		for (; i + 16 <= n; i += 16) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
			_mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_xor_si128(x, m128));
		}
	}
#endif
	for (; i + 8 <= n; i += 8) {
		memcpy(&v, src + i, 8);
		v ^= m64;
		memcpy(dst + i, &v, 8);
	}
	if (i + 4 <= n) {
		memcpy(&v32, src + i, 4);
		v32 ^= m32;
		memcpy(dst + i, &v32, 4);
		i += 4;
	}
	for (; i < n; i++)   /* i is a multiple of 4 here: r[i & 3] is the key's byte */
		dst[i] = src[i] ^ r[i & 3];
}

/* Base64 of n (at most 30) bytes into out (outlen: the text and its NUL):
 * lws_b64_encode_string wants a byte more room than that, so it writes to
 * a scratch buffer first. */
static void b64(const unsigned char *in, int n, char *out, int outlen)
{
	char tmp[48];
	int len = lws_b64_encode_string((const char *)in, n, tmp, sizeof tmp);

	if (len < 0 || len >= outlen)
		len = 0;
	memcpy(out, tmp, (size_t)len);
	out[len] = '\0';
}

void wsframe_accept_key(const char *key, size_t keylen, char out[29])
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	unsigned char buf[128], d[20];
	size_t n = keylen < 64 ? keylen : 64;

	memcpy(buf, key, n);
	memcpy(buf + n, guid, sizeof guid - 1);
	lws_SHA1(buf, n + sizeof guid - 1, d);
	b64(d, 20, out, 29);
}

int wsframe_client_request(char *out, size_t outlen, const char *path, const char *host,
			   const char *key)
{
	int n = snprintf(out, outlen, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
			 "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
			 "Sec-WebSocket-Version: 13\r\n\r\n", path, host, key);

	return n < 0 || (size_t)n >= outlen ? -1 : n;
}

int wsframe_answer_accepts(const char *head, size_t len, const char *key)
{
	static const char name[] = "\r\nsec-websocket-accept:";
	size_t nl = sizeof name - 1, wl;
	char want[29];

	if (len < 12 || memcmp(head, "HTTP/1.1 101", 12))
		return 0;
	wsframe_accept_key(key, strlen(key), want);
	wl = strlen(want);
	for (size_t i = 0; i + nl <= len; i++) {
		const char *v = head + i + nl, *end = head + len;
		if (strncasecmp(head + i, name, nl))
			continue;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		return (size_t)(end - v) >= wl && !memcmp(v, want, wl) &&
		       (v + wl == end || v[wl] == '\r' || v[wl] == ' ' || v[wl] == '\t');
	}
	return 0;
}

size_t wsframe_server_answer(char *out, const char *key, size_t keylen)
{
	char accept[29];

	wsframe_accept_key(key, keylen, accept);
	return (size_t)snprintf(out, WSFRAME_ANSWER_MAX, "HTTP/1.1 101 Switching Protocols\r\n"
				"Upgrade: websocket\r\nConnection: Upgrade\r\n"
				"Sec-WebSocket-Accept: %s\r\n\r\n", accept);
}

static uint64_t next_random(void)
{
	static uint64_t s;

	if (!s) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&s ^
		    (uint64_t)ts.tv_sec;
		s |= 1;
	}
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

void wsframe_new_key(char out[25])
{
	unsigned char raw[16];
	uint64_t a = next_random(), b = next_random();

	memcpy(raw, &a, 8);
	memcpy(raw + 8, &b, 8);
	b64(raw, 16, out, 25);
}

void wsframe_new_mask(unsigned char mask[4])
{
	uint64_t r = next_random();

	memcpy(mask, &r, 4);
}
