/* wire: what cdp-load and cdp-echo share beyond proxy/ws/wsframe.h: the exact
 * byte layout of their messages, padded with the test pattern. */
#ifndef CDP_WIRE_H
#define CDP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "pattern.h"
#include "wsframe.h"   /* frame headers, masking, handshake keys */

#define WIRE_PREFIX_MAX 512       /* room for any message prefix below */
#define WIRE_SESSION_MAX 200      /* longest sessionId echoed */
/* The largest message or result the peers make: a pattern's worth past any prefix. */
#define WIRE_SIZE_MAX (PATTERN_MAX - WIRE_PREFIX_MAX)

/* Message layouts. Every padded message is prefix + pattern + WIRE_SUFFIX and
 * exactly wire_total(prefix length, wanted size) bytes long; the pattern's
 * phase is the id (responses, commands) or flood id + seq (events) mod 26.
 *   command  {"id":N,"method":"Echo.echo"[,"sessionId":"S"],"params":{"size":R,"pad":"...."}}
 *   response {"id":N[,"sessionId":"S"],"result":{"data":"...."}}
 *   event    {"method":"Echo.event"[,"sessionId":"S"],"params":{"flood":F,"seq":K,"data":"...."}}
 *   flood    {"id":N,"method":"Echo.flood"[,"sessionId":"S"],"params":{"count":C,"size":Z}}
 * A session is given as its raw JSON string bytes (len 0: none). */
#define WIRE_SUFFIX "\"}}"
#define WIRE_SUFFIX_LEN 3

size_t wire_command_prefix(char *out, uint64_t id, const char *session, size_t slen,
			   uint64_t result_size);
size_t wire_response_prefix(char *out, int64_t id, const char *session, size_t slen);
size_t wire_event_prefix(char *out, const char *session, size_t slen, int64_t flood,
			 uint64_t seq);
size_t wire_flood_command(char *out, uint64_t id, const char *session, size_t slen,
			  uint64_t count, uint64_t size);

static inline uint64_t wire_total(size_t prefix_len, uint64_t want)
{
	return want > prefix_len + WIRE_SUFFIX_LEN ? want : prefix_len + WIRE_SUFFIX_LEN;
}

static inline unsigned wire_phase(uint64_t x)
{
	return (unsigned)(x % PATTERN_PERIOD);
}

#endif
