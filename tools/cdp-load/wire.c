/* wire: RFC 6455 framing, masking, handshake key, pattern and message layouts
 * shared by cdp-load and cdp-echo (cdp-echo compiles this file too). */
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

size_t wire_header(unsigned char *out, int opcode, int fin, uint64_t len,
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

int wire_parse_header(const unsigned char *p, size_t n, struct wire_frame *f)
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

void wire_mask(unsigned char *dst, const unsigned char *src, size_t n,
	       const unsigned char mask[4], uint64_t off)
{
	unsigned char m[8];
	uint64_t m64, v;
	size_t i = 0;

	for (int k = 0; k < 8; k++)
		m[k] = mask[(off + (uint64_t)k) & 3];
	memcpy(&m64, m, 8);
	/* Eight bytes at a time: the rotated key repeats every 4 bytes. */
	for (; i + 8 <= n; i += 8) {
		memcpy(&v, src + i, 8);
		v ^= m64;
		memcpy(dst + i, &v, 8);
	}
	for (; i < n; i++)
		dst[i] = src[i] ^ m[i & 7];
}

#define PATTERN_RESERVE ((size_t)1 << 30)

const char *wire_pattern(size_t n)
{
	static char *pat;
	static size_t filled;

	if (!pat) {
		/* Reserved once, filled on demand: references into it stay valid. */
		void *p = mmap(NULL, PATTERN_RESERVE + 64, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			abort();
		}
		pat = p;
	}
	if (n > PATTERN_RESERVE) {
		fprintf(stderr, "wire: pattern of %zu bytes is over 1 GiB\n", n);
		abort();
	}
	for (; filled < n + WIRE_PERIOD; filled++)
		pat[filled] = (char)('a' + filled % WIRE_PERIOD);
	return pat;
}

/* SHA-1 (FIPS 180-1), only for the 60-byte handshake string. */
static uint32_t rol(uint32_t x, int k) { return x << k | x >> (32 - k); }

static void sha1_block(uint32_t h[5], const unsigned char *b)
{
	uint32_t w[80], a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
		       (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k, t;
		if (i < 20) {
			f = (bb & c) | (~bb & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = bb ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (bb & c) | (bb & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = bb ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol(bb, 30);
		bb = a;
		a = t;
	}
	h[0] += a;
	h[1] += bb;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

static void sha1(const unsigned char *msg, size_t n, unsigned char out[20])
{
	uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	unsigned char tail[128] = { 0 };
	size_t full = n / 64 * 64, rest = n - full, tlen = rest < 56 ? 64 : 128;

	for (size_t i = 0; i < full; i += 64)
		sha1_block(h, msg + i);
	memcpy(tail, msg + full, rest);
	tail[rest] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[tlen - 1 - i] = (unsigned char)((uint64_t)n * 8 >> (8 * i));
	for (size_t i = 0; i < tlen; i += 64)
		sha1_block(h, tail + i);
	for (int i = 0; i < 20; i++)
		out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}

size_t wire_base64(const unsigned char *in, size_t n, char *out)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *o = out;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? b64[v & 63] : '=';
	}
	*o = '\0';
	return (size_t)(o - out);
}

void wire_accept_key(const char *key, size_t keylen, char out[29])
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	unsigned char buf[128], d[20];
	size_t n = keylen < 64 ? keylen : 64;

	memcpy(buf, key, n);
	memcpy(buf + n, guid, sizeof guid - 1);
	sha1(buf, n + sizeof guid - 1, d);
	wire_base64(d, 20, out);
}

/* Appends s (a literal) at o; returns the bytes written. */
#define PUT(o, s) (memcpy((o), (s), sizeof(s) - 1), sizeof(s) - 1)

static size_t put_u64(char *o, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		o[i] = tmp[n - 1 - i];
	return n;
}

static size_t put_i64(char *o, int64_t v)
{
	if (v >= 0)
		return put_u64(o, (uint64_t)v);
	*o = '-';
	return 1 + put_u64(o + 1, (uint64_t)0 - (uint64_t)v);
}

/* ,"sessionId":"S" when there is a session. */
static size_t put_session(char *o, const char *session, size_t slen)
{
	size_t n;

	if (!slen)
		return 0;
	if (slen > WIRE_SESSION_MAX)
		slen = WIRE_SESSION_MAX;
	n = PUT(o, ",\"sessionId\":\"");
	memcpy(o + n, session, slen);
	o[n + slen] = '"';
	return n + slen + 1;
}

size_t wire_command_prefix(char *out, uint64_t id, const char *session, size_t slen,
			   uint64_t result_size)
{
	size_t n = PUT(out, "{\"id\":");

	n += put_u64(out + n, id);
	n += PUT(out + n, ",\"method\":\"Echo.echo\"");
	n += put_session(out + n, session, slen);
	n += PUT(out + n, ",\"params\":{\"size\":");
	n += put_u64(out + n, result_size);
	n += PUT(out + n, ",\"pad\":\"");
	return n;
}

size_t wire_response_prefix(char *out, int64_t id, const char *session, size_t slen)
{
	size_t n = PUT(out, "{\"id\":");

	n += put_i64(out + n, id);
	n += put_session(out + n, session, slen);
	n += PUT(out + n, ",\"result\":{\"data\":\"");
	return n;
}

size_t wire_event_prefix(char *out, const char *session, size_t slen, int64_t flood,
			 uint64_t seq)
{
	size_t n = PUT(out, "{\"method\":\"Echo.event\"");

	n += put_session(out + n, session, slen);
	n += PUT(out + n, ",\"params\":{\"flood\":");
	n += put_i64(out + n, flood);
	n += PUT(out + n, ",\"seq\":");
	n += put_u64(out + n, seq);
	n += PUT(out + n, ",\"data\":\"");
	return n;
}

size_t wire_flood_command(char *out, uint64_t id, const char *session, size_t slen,
			  uint64_t count, uint64_t size)
{
	size_t n = PUT(out, "{\"id\":");

	n += put_u64(out + n, id);
	n += PUT(out + n, ",\"method\":\"Echo.flood\"");
	n += put_session(out + n, session, slen);
	n += PUT(out + n, ",\"params\":{\"count\":");
	n += put_u64(out + n, count);
	n += PUT(out + n, ",\"size\":");
	n += put_u64(out + n, size);
	n += PUT(out + n, "}}");
	return n;
}
