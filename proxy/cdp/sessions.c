/* sessions: per-connection CDP session tracking: targets, enabled domains, and
 * commands in flight (for round-trip times). Pure: bytes and structs only. */
#include "sessions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "util.h"

static void session_free(void *p)
{
	struct session *se = p;

	free(se->id);
	free(se->target_id);
	free(se->type);
	free(se->url);
	json_decref(se->enabled);
	json_decref(se->client_enabled);
	json_decref(se->proxy_enabled);
	free(se);
}

/* Commands in flight come and go with every message: their records are kept
 * for reuse rather than freed (a record's first word links the spares). */
#define PENDING_SPARE_MAX 4096
static void *pending_spare;
static unsigned pending_spares;

static struct pending *pending_new(void)
{
	struct pending *pe = pending_spare;

	if (!pe)
		return xcalloc(1, sizeof *pe);
	memcpy(&pending_spare, pe, sizeof pending_spare);
	pending_spares--;
	memset(pe, 0, sizeof *pe);
	return pe;
}

static void pending_free(void *p)
{
	struct pending *pe = p;

	if (!pe)
		return;
	json_decref(pe->params);
	json_decref(pe->client_params);
	if (pending_spares == PENDING_SPARE_MAX) {
		free(pe);
		return;
	}
	memcpy(pe, &pending_spare, sizeof pending_spare);
	pending_spare = pe;
	pending_spares++;
}

/* pe joins the pending commands under key (in pe->key), newest. */
static void pending_link(struct sessions *s, struct pending *pe)
{
	pe->older = s->newest;
	pe->newer = NULL;
	if (s->newest)
		s->newest->newer = pe;
	else
		s->oldest = pe;
	s->newest = pe;
}

/* Takes pe out of the order of pending commands; returns it. */
static struct pending *pending_unlink(struct sessions *s, struct pending *pe)
{
	if (pe->older)
		pe->older->newer = pe->newer;
	else
		s->oldest = pe->newer;
	if (pe->newer)
		pe->newer->older = pe->older;
	else
		s->newest = pe->older;
	return pe;
}

/* Takes the pending command with this key out of the table and the order;
 * returns it, or NULL. */
static struct pending *pending_take(struct sessions *s, const char *key, size_t klen)
{
	struct pending *pe = table_del(&s->pending, key, klen);

	return pe ? pending_unlink(s, pe) : NULL;
}

static struct session *session_get_or_add(struct sessions *s, const char *id, size_t idlen)
{
	void **slot = table_put(&s->by_id, id, idlen);

	if (!*slot) {
		struct session *se = xcalloc(1, sizeof *se);
		se->id = xstrndup(id, idlen);
		se->enabled = json_object();
		se->client_enabled = json_object();
		se->proxy_enabled = json_object();
		*slot = se;
	}
	return *slot;
}

static void set_str(char **dst, const char *v)
{
	if (!v)
		return;
	free(*dst);
	*dst = xstrdup(v);
}

/* A session's URL goes to the log and to /proxy/ pages: without userinfo. */
static void set_url(char **dst, const char *v)
{
	if (!v)
		return;
	free(*dst);
	*dst = redact_url(v);
}

void sessions_init(struct sessions *s, const char *path)
{
	static const struct { const char *prefix, *type; } kinds[] = {
		{ "/devtools/page/", "page" },
		{ "/devtools/browser", "browser" },
	};
	struct session *own;

	table_init(&s->by_id);
	table_init(&s->pending);
	own = session_get_or_add(s, "", 0);
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		size_t n = strlen(kinds[i].prefix);
		if (strncmp(path, kinds[i].prefix, n))
			continue;
		set_str(&own->type, kinds[i].type);
		if (path[n] == '/')
			n++;
		if (path[n])
			own->target_id = xstrndup(path + n, strcspn(path + n, "?"));
	}
}

void sessions_free(struct sessions *s)
{
	table_free(&s->by_id, session_free);
	table_free(&s->pending, pending_free);
}

struct session *sessions_get(const struct sessions *s, const char *id)
{
	void **slot = table_get(&s->by_id, id, strlen(id));

	return slot ? *slot : NULL;
}

/* The pending-table key of (sessionId, id): the session id, a NUL, then
 * the id's bytes. Returns its length (key: SESSIONS_NAME + 8 bytes). */
static size_t pending_key(const struct sessions_msg *msg, char *key)
{
	size_t n = msg->sid_len < SESSIONS_NAME ? msg->sid_len : SESSIONS_NAME - 1;

	memcpy(key, msg->sid, n);
	key[n] = '\0';
	memcpy(key + n + 1, &msg->r->id, sizeof msg->r->id);
	return n + 1 + sizeof msg->r->id;
}

/* Copies a name of len bytes into out (SESSIONS_NAME), as the caller cut it. */
static size_t name_copy(char *out, const char *name, size_t len)
{
	size_t n = len < SESSIONS_NAME ? len : SESSIONS_NAME - 1;

	memcpy(out, name, n);
	out[n] = '\0';
	return n;
}

json_t *sessions_object_at(const char *buf, const struct scan_span *sp)
{
	json_t *p = sp->present ? json_loadb(buf + sp->off, sp->len, JSON_DECODE_ANY, NULL) : NULL;

	if (!json_is_object(p)) {
		json_decref(p);
		p = json_object();
	}
	return p;
}

/* Is the method Domain + suffix, suffix being its only dot onwards? */
static int is_domain_and(const char *s, size_t n, const char *suffix, size_t slen)
{
	return n > slen && !memcmp(s + n - slen, suffix, slen) && memchr(s, '.', n) == s + n - slen;
}

/* X.enable, X.disable, Target.attachToTarget: told by the name's end, as
 * every command passes here. */
enum pending_effect sessions_method_effect(const char *method, size_t n)
{
	if (is_domain_and(method, n, ".enable", 7))
		return EFFECT_ENABLE;
	if (is_domain_and(method, n, ".disable", 8))
		return EFFECT_DISABLE;
	return n == 21 && !memcmp(method, "Target.attachToTarget", 21) ? EFFECT_ATTACH : EFFECT_NONE;
}

void sessions_on_command(struct sessions *s, const struct sessions_msg *msg,
			 uint64_t now_us, int by_proxy, json_t *client_params)
{
	char key[SESSIONS_NAME + 8];
	size_t klen;
	struct pending *pe;
	void **slot;

	if (!msg->r->has_id || !msg->r->id_is_int)
		return;
	klen = pending_key(msg, key);
	if (s->pending_max && s->pending.n >= s->pending_max) {   /* full: room first */
		pending_free(pending_take(s, key, klen));
		while (s->pending.n >= s->pending_max) {
			pending_free(pending_take(s, s->oldest->key, s->oldest->klen));
			s->evicted++;
		}
	}
	/* One lookup: a key already there is a reused id, whose older command
	 * will never be matched. */
	slot = table_put(&s->pending, key, klen);
	if (*slot)
		pending_free(pending_unlink(s, *slot));
	pe = pending_new();
	memcpy(pe->key, key, klen);
	pe->klen = klen;
	pending_link(s, pe);
	pe->method_len = name_copy(pe->method, msg->method, msg->method_len);
	pe->sent_us = now_us;
	pe->by_proxy = by_proxy;
	pe->effect = sessions_method_effect(pe->method, pe->method_len);
	if (pe->effect == EFFECT_ENABLE || pe->effect == EFFECT_ATTACH)
		pe->params = sessions_object_at(msg->buf, &msg->r->params);
	if (!by_proxy && pe->params)
		pe->client_params = client_params ? json_incref(client_params) : json_incref(pe->params);
	*slot = pe;
}

/* A set holds SESSIONS_DOMAINS_MAX domains at most: a policy that stubs
 * "*.enable" must not let a client grow it with made-up domains. */
void sessions_set_enabled(json_t *set, const char *method, enum pending_effect effect,
			  json_t *params)
{
	size_t dlen = strcspn(method, ".");

	if (effect == EFFECT_ENABLE && json_object_size(set) >= SESSIONS_DOMAINS_MAX &&
	    !json_object_getn(set, method, dlen))
		return;
	if (effect == EFFECT_ENABLE)
		json_object_setn_new(set, method, dlen, params ? json_incref(params) : json_object());
	else if (effect == EFFECT_DISABLE)
		json_object_deln(set, method, dlen);
}

/* Applies a successful response's effect on the sessions. */
static void apply_response(struct sessions *s, const char *sid, const struct pending *pe,
			   const char *buf, const struct scan_result *r)
{
	struct session *se;

	if (pe->effect == EFFECT_NONE)
		return;
	if (pe->effect == EFFECT_ATTACH) {
		json_t *res = sessions_object_at(buf, &r->result);
		const char *nsid = json_string_value(json_object_get(res, "sessionId"));
		if (nsid) {
			se = session_get_or_add(s, nsid, strlen(nsid));
			set_str(&se->target_id, json_string_value(json_object_get(pe->params, "targetId")));
		}
		json_decref(res);
		return;
	}
	se = session_get_or_add(s, sid, strlen(sid));
	sessions_set_enabled(se->enabled, pe->method, pe->effect, pe->params);
	sessions_set_enabled(pe->by_proxy ? se->proxy_enabled : se->client_enabled, pe->method,
			     pe->effect, pe->by_proxy ? pe->params : pe->client_params);
}

void sessions_on_stub(struct sessions *s, const char *sid, const char *method, json_t *params)
{
	/* Only a session Chrome told of: the id is the client's word. */
	struct session *se = sessions_get(s, sid);

	if (se)
		sessions_set_enabled(se->client_enabled, method, sessions_method_effect(method, strlen(method)),
				     params);
}

int sessions_on_response(struct sessions *s, const struct sessions_msg *msg,
			 uint64_t now_us, struct sessions_match *m)
{
	char key[SESSIONS_NAME + 8];
	size_t klen;
	struct pending *pe;

	if (!msg->r->has_id || !msg->r->id_is_int)
		return -1;
	klen = pending_key(msg, key);
	pe = pending_take(s, key, klen);
	if (!pe)
		return -1;
	m->method_len = name_copy(m->method, pe->method, pe->method_len);
	m->rtt_us = now_us - pe->sent_us;
	m->by_proxy = pe->by_proxy;
	if (!msg->r->error.present)
		apply_response(s, key, pe, msg->buf, msg->r);
	pending_free(pe);
	return 0;
}

static void update_target(struct session *se, json_t *info)
{
	set_str(&se->target_id, json_string_value(json_object_get(info, "targetId")));
	set_str(&se->type, json_string_value(json_object_get(info, "type")));
	set_url(&se->url, json_string_value(json_object_get(info, "url")));
}

/* Forgets a detached session and the commands it will never answer. */
static void session_detach(struct sessions *s, const char *sid)
{
	size_t n = strlen(sid), i = 0;
	struct table_slot *ts;
	struct session *se;

	if (!n)
		return;
	se = table_del(&s->by_id, sid, n);
	if (se)
		session_free(se);
	while ((ts = table_next(&s->pending, &i))) {
		if (ts->klen == n + 1 + sizeof(int64_t) && !memcmp(ts->key, sid, n + 1)) {
			pending_free(pending_take(s, ts->key, ts->klen));
			i = 0;    /* deletion shifts entries: start over */
		}
	}
}

/* A session record for the log: the session as it now is. */
static json_t *session_record(const char *event, const struct session *se, json_t *info)
{
	json_t *j = json_object();
	const char *opener = json_string_value(json_object_get(info, "openerId"));
	const char *context = json_string_value(json_object_get(info, "browserContextId"));

	json_object_set_new(j, "event", json_string(event));
	json_object_set_new(j, "session", json_string(se->id));
	if (se->target_id)
		json_object_set_new(j, "targetId", json_string(se->target_id));
	if (se->type)
		json_object_set_new(j, "type", json_string(se->type));
	if (se->url)
		json_object_set_new(j, "url", json_string(se->url));
	if (opener)
		json_object_set_new(j, "openerId", json_string(opener));
	if (context)
		json_object_set_new(j, "browserContextId", json_string(context));
	return j;
}

/* Sets se's URL to url; a change adds a "url" record to *out. */
static void url_follow(struct session *se, const char *url, json_t **out)
{
	char *clean;

	if (!url)
		return;
	clean = redact_url(url);
	if (se->url && !strcmp(se->url, clean)) {
		free(clean);
		return;
	}
	free(se->url);
	se->url = clean;
	if (!*out)
		*out = json_array();
	json_array_append_new(*out, session_record("url", se, NULL));
}

json_t *sessions_on_event(struct sessions *s, const char *buf, const struct scan_result *r)
{
	json_t *out = NULL;
	static const char *const followed[] = {
		"Target.attachedToTarget", "Target.detachedFromTarget", "Target.targetInfoChanged",
		"Page.frameNavigated",
	};
	size_t which = 0;
	json_t *params, *info;
	const char *sid;

	while (which < 4 && !scan_str_eq(buf, &r->method, followed[which]))
		which++;
	if (which == 4)
		return NULL;
	params = sessions_object_at(buf, &r->params);
	info = json_object_get(params, "targetInfo");
	sid = json_string_value(json_object_get(params, "sessionId"));
	if (which == 0 && sid) {
		struct session *se = session_get_or_add(s, sid, strlen(sid));
		update_target(se, info);
		out = json_array();
		json_array_append_new(out, session_record("attached", se, info));
	} else if (which == 1 && sid) {
		session_detach(s, sid);
	} else if (which == 3) {
		/* The main frame navigated: the session's URL follows, for clients
		 * that never ask for Target.targetInfoChanged (Playwright). */
		json_t *frame = json_object_get(params, "frame");
		char sid_here[128] = "";
		struct session *se;
		if (r->session.present)
			scan_str_copy(buf, &r->session, sid_here, sizeof sid_here);
		se = sessions_get(s, sid_here);
		if (se && !json_object_get(frame, "parentId"))
			url_follow(se, json_string_value(json_object_get(frame, "url")), &out);
	} else if (which == 2) {
		const char *tid = json_string_value(json_object_get(info, "targetId"));
		size_t i = 0;
		struct table_slot *ts;
		while (tid && (ts = table_next(&s->by_id, &i))) {
			struct session *se = ts->val;
			if (se->target_id && !strcmp(se->target_id, tid)) {
				url_follow(se, json_string_value(json_object_get(info, "url")), &out);
				update_target(se, info);
			}
		}
	}
	json_decref(params);
	return out;
}

json_t *sessions_json(const struct sessions *s)
{
	json_t *arr = json_array();
	size_t i = 0;
	struct table_slot *ts;

	while ((ts = table_next(&s->by_id, &i))) {
		struct session *se = ts->val;
		json_array_append_new(arr, json_pack("{s:s, s:s?, s:s?, s:s?, s:O, s:O, s:O}",
			"sessionId", se->id, "targetId", se->target_id, "type", se->type,
			"url", se->url, "enabled", se->enabled, "client_enabled", se->client_enabled,
			"proxy_enabled", se->proxy_enabled));
	}
	return arr;
}
