/* record: --record-bodies: which finished requests' bodies the proxy fetches
 * itself, within the connection's budget, and the record of each it does
 * not (record.h). */
#include "record.h"

#include <string.h>

#include "sessions.h"
#include "util.h"

static const char FETCH[] = "Network.getResponseBody";

json_t *record_event(struct core_conn *cc, const char *buf, const struct scan_result *r,
		     const char *sid)
{
	struct core *core = cc->core;
	json_t *p, *rid, *out = NULL;
	uint64_t budget = core->record_budget, left, size;

	if (!scan_str_eq(buf, &r->method, "Network.loadingFinished"))
		return NULL;
	p = sessions_object_at(buf, &r->params);
	rid = json_object_get(p, "requestId");
	if (!json_is_string(rid))
		goto out;
	/* What Chrome read for it (headers and body as sent, compressed or
	 * not): the body's size to within that, before it is asked for. 0 for
	 * one from the memory cache, which then counts once fetched. */
	size = json_is_integer(json_object_get(p, "encodedDataLength")) &&
	       json_integer_value(json_object_get(p, "encodedDataLength")) > 0 ?
	       (uint64_t)json_integer_value(json_object_get(p, "encodedDataLength")) : 0;
	left = budget > cc->record_fetched ? budget - cc->record_fetched : 0;
	if (left && size <= left) {
		out = json_pack("{s:O}", "requestId", rid);
		goto out;
	}
	if (core->log) {
		json_t *f = json_pack("{s:O,s:I,s:I,s:I,s:s}", "requestId", rid,
				      "encodedDataLength", (json_int_t)size,
				      "fetched", (json_int_t)cc->record_fetched, "budget", (json_int_t)budget,
				      "why", "over the --record-bodies budget");
		if (*sid)
			json_object_set_new(f, "session", util_json_str(sid));
		log_event_at(core->log, core->read_wall_us, cc->id, "body_not_fetched", f);
	}
out:
	json_decref(p);
	return out;
}

int record_answer(struct core_conn *cc, const char *method, size_t len, size_t bytes)
{
	if (!cc->core->record_budget || len != sizeof FETCH - 1 || memcmp(method, FETCH, len))
		return 0;
	cc->record_fetched += bytes;
	return 1;
}
