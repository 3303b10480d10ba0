/* wire: the message layouts shared by cdp-load and cdp-echo; the pattern
 * is pattern.c's, framing proxy/ws/wsframe.c's. */
#include "wire.h"

#include <string.h>

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

/* {"id":N,"method":"M"[,"sessionId":"S"],"params":{ with m the method
 * already quoted. */
static size_t put_command(char *out, uint64_t id, const char *m, size_t mlen,
			  const char *session, size_t slen)
{
	size_t n = PUT(out, "{\"id\":");

	n += put_u64(out + n, id);
	n += PUT(out + n, ",\"method\":");
	memcpy(out + n, m, mlen);
	n += mlen;
	n += put_session(out + n, session, slen);
	n += PUT(out + n, ",\"params\":{");
	return n;
}

size_t wire_command_prefix(char *out, uint64_t id, const char *session, size_t slen,
			   uint64_t result_size)
{
	size_t n = put_command(out, id, "\"Echo.echo\"", 11, session, slen);

	n += PUT(out + n, "\"size\":");
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
	size_t n = put_command(out, id, "\"Echo.flood\"", 12, session, slen);

	n += PUT(out + n, "\"count\":");
	n += put_u64(out + n, count);
	n += PUT(out + n, ",\"size\":");
	n += put_u64(out + n, size);
	n += PUT(out + n, "}}");
	return n;
}
