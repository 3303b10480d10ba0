/* bidilog: the WebDriver BiDi inside routed CDP messages, logged and
 * counted (bidilog.h). */
#include "bidilog.h"

#include <stdlib.h>
#include <string.h>

#include "bidi.h"
#include "redact.h"
#include "util.h"

/* The record's fields: what the BiDi message is, which CDP session carried
 * it (the record's conn says which connection), its round trip. */
static json_t *fields(const struct bidi_msg *m, const struct log_rec *rec, int has_rtt, uint64_t rtt)
{
	json_t *j = json_pack("{s:s}", "type", bidi_type_name[m->type]);

	if (rec->session)
		json_object_set_new(j, "session", util_json_bytes(rec->session, rec->session_len));
	if (m->in_command && rec->has_id)
		json_object_set_new(j, "cdp_id", json_integer((json_int_t)rec->id));
	if (m->has_id)
		json_object_set_new(j, "id", json_integer((json_int_t)m->id));
	if (m->method_len)
		json_object_set_new(j, "method", util_json_bytes(m->method, m->method_len));
	if (m->has_channel)
		json_object_set_new(j, "channel", util_json_bytes(m->channel, strlen(m->channel)));
	json_object_set_new(j, "bytes", json_integer((json_int_t)m->bytes));
	if (has_rtt)
		json_object_set_new(j, "rtt_us", json_integer((json_int_t)rtt));
	if (m->type == BIDI_ERROR) {
		/* A message may quote what the client sent: URL userinfo is taken
		 * out, as from the session records (redact.h). */
		char *msg = redact_url(m->message);
		json_object_set_new(j, "error", util_json_bytes(m->error, strlen(m->error)));
		json_object_set_new(j, "message", util_json_bytes(msg, strlen(msg)));
		free(msg);
	}
	if (m->type == BIDI_INVALID) {   /* which way it went: its carrier says */
		json_object_set_new(j, "why", json_string(m->why));
		json_object_set_new(j, "carrier", json_string(m->in_command ? "Runtime.evaluate" :
							      "Runtime.bindingCalled"));
	}
	return j;
}

void bidilog_message(struct core_conn *cc, const char *buf, const struct scan_result *r,
		     const struct log_rec *rec)
{
	struct core *core = cc->core;
	const char *sid = rec->session ? rec->session : "", *name;
	size_t sidlen = rec->session ? rec->session_len : 0, nlen;
	struct stats *bs;
	struct bidi_msg m;
	uint64_t rtt = 0;
	int has_rtt = 0;

	if (bidi_decode(buf, r, rec->method, rec->method_len, &m) == BIDI_NONE)
		return;
	if (!cc->bidi) {
		cc->bidi = xmalloc(sizeof *cc->bidi);
		bidi_track_init(cc->bidi);
	}
	if (m.type == BIDI_COMMAND && m.has_id)
		bidi_track_command(cc->bidi, sid, sidlen, &m, core->read_mono_us);
	else if ((m.type == BIDI_SUCCESS || m.type == BIDI_ERROR) && m.has_id)
		has_rtt = bidi_track_answer(cc->bidi, sid, sidlen, &m, core->read_mono_us, &rtt) == 0;
	bs = stats_bidi(core->stats);
	if (cc->bidi->evicted) {
		stats_add_evicted(bs, cc->bidi->evicted);
		cc->bidi->evicted = 0;
	}
	/* Filed as CDP's messages are: by method, else by what it is. */
	name = m.method_len ? m.method : m.type == BIDI_INVALID ? "(invalid)" :
	       m.in_command ? "(other)" : "(unmatched)";
	nlen = m.method_len ? m.method_len : strlen(name);
	stats_count(bs, name, nlen, rec->to, m.bytes);
	if (has_rtt)
		stats_rtt(bs, name, nlen, rtt);
	if (m.type == BIDI_ERROR)
		stats_error(bs, name, nlen, m.error);
	if (core->log)
		log_event_at(core->log, rec->t, cc->id, "bidi", fields(&m, rec, has_rtt, rtt));
}
