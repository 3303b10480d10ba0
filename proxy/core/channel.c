/* channel: the BiDi mapper's CDP through the proxy: the channel's framing
 * (pure) and the core's part of it, hooked into route (channel.h). */
#include "channel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "leg.h"
#include "util.h"

int channel_expose_params(const char *buf, const struct scan_result *r, char *target,
			  char *binding)
{
	static const char *const keys[] = { "targetId", "bindingName" };
	struct scan_str v[2];
	long n;

	if (!r->params.present)
		return -1;
	scan_member_strs(buf, &r->params, keys, 2, v);
	n = scan_str_copy(buf, &v[0], target, CHANNEL_NAME);
	if (n <= 0 || n >= CHANNEL_NAME)
		return -1;
	if (!v[1].present) {
		strcpy(binding, "cdp");
		return 0;
	}
	n = scan_str_copy(buf, &v[1], binding, CHANNEL_NAME);
	return n <= 0 || n >= CHANNEL_NAME ? -1 : 0;
}

struct msg *channel_unwrap(const char *buf, const struct scan_result *r, const char *priv,
			   size_t max, const char **why)
{
	static const char *const keys[] = { "name", "payload" };
	struct scan_str v[2];
	struct msg *m;
	long n;

	*why = NULL;
	if (!r->params.present)
		return NULL;
	scan_member_strs(buf, &r->params, keys, 2, v);
	if (!scan_str_eq(buf, &v[0], priv))
		return NULL;
	if (!v[1].present) {
		*why = "no string payload";
		return NULL;
	}
	m = msg_new(v[1].len + 1);   /* decoded, it is no longer than its bytes */
	n = scan_str_copy(buf, &v[1], (char *)MSG_DATA(m), v[1].len + 1);
	m->len = n < 0 ? 0 : (size_t)n;
	if (m->len > max) {
		*why = "payload over --max-message";
		msg_free(m);
		return NULL;
	}
	return m;
}

/* '"' and '\\' are escaped with a backslash, control bytes as \u00XX;
 * each byte's escape's length less one (0: as it is). */
static unsigned char extra[256];

static void extra_init(void)
{
	if (extra['"'])
		return;
	for (int c = 0; c < 0x20; c++)
		extra[c] = 5;
	extra['"'] = extra['\\'] = 1;
}

/* Bytes p[0..n) as the inside of a JSON string, at out (room checked by
 * the caller with escaped_len); returns the bytes written. */
static size_t escape_into(char *out, const char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *o = out;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (!extra[c]) {
			*o++ = (char)c;
		} else if (extra[c] == 1) {
			*o++ = '\\';
			*o++ = (char)c;
		} else {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
		}
	}
	return (size_t)(o - out);
}

static size_t escaped_len(const char *p, size_t n)
{
	size_t len = n;

	for (size_t i = 0; i < n; i++)
		len += extra[(unsigned char)p[i]];
	return len;
}

struct msg *channel_carrier(int64_t id, const char *sid, const char *object_id, const char *m,
			    size_t n)
{
	static const char fn[] = "function(m){this.onmessage(m)}";
	char head[96];
	size_t hl, len, olen = strlen(object_id), slen = strlen(sid);
	struct msg *out;
	char *o;

	extra_init();
	hl = (size_t)snprintf(head, sizeof head, "{\"id\":%lld,\"method\":\"Runtime.callFunctionOn\","
			      "\"params\":{\"objectId\":\"", (long long)id);
	len = hl + escaped_len(object_id, olen) + sizeof "\",\"functionDeclaration\":\"" - 1 +
	      sizeof fn - 1 + sizeof "\",\"arguments\":[{\"value\":\"" - 1 + escaped_len(m, n) +
	      sizeof "\"}]},\"sessionId\":\"" - 1 + escaped_len(sid, slen) + 2;
	out = msg_new(len);
	o = (char *)MSG_DATA(out);
#define PUT(s, k) (memcpy(o, (s), (k)), o += (k))
	PUT(head, hl);
	o += escape_into(o, object_id, olen);
	PUT("\",\"functionDeclaration\":\"", sizeof "\",\"functionDeclaration\":\"" - 1);
	PUT(fn, sizeof fn - 1);
	PUT("\",\"arguments\":[{\"value\":\"", sizeof "\",\"arguments\":[{\"value\":\"" - 1);
	o += escape_into(o, m, n);
	PUT("\"}]},\"sessionId\":\"", sizeof "\"}]},\"sessionId\":\"" - 1);
	o += escape_into(o, sid, slen);
	PUT("\"}", 2);
#undef PUT
	out->len = (size_t)(o - (char *)MSG_DATA(out));
	return out;
}

char *channel_install_expression(const char *binding, const char *priv)
{
	json_t *bj = json_string(binding), *pj = json_string(priv);
	char *b = bj ? json_dumps(bj, JSON_ENCODE_ANY) : NULL;
	char *p = pj ? json_dumps(pj, JSON_ENCODE_ANY) : NULL;
	char *e;
	size_t n;

	json_decref(bj);
	json_decref(pj);
	if (!b || !p) {   /* not UTF-8: cannot be (channel_expose_params decoded them) */
		free(b);
		free(p);
		return xstrdup("undefined");
	}
	/* The binding is read once: the mapper's transport keeps send. */
	n = strlen(b) + strlen(p) + 128;
	e = xmalloc(n);
	snprintf(e, n, "(()=>{const p=window[%s];const t={send:(m)=>p(m),onmessage:null};"
		 "window[%s]=t;return t})()", p, b);
	free(b);
	free(p);
	return e;
}

int channel_answer_object(const char *buf, const struct scan_result *r, char *out,
			  const char **why)
{
	json_t *res, *obj;
	const char *id;
	int rc = -1;

	*why = "the install failed";
	if (!r->result.present)
		return -1;
	res = json_loadb(buf + r->result.off, r->result.len, 0, NULL);
	obj = json_object_get(res, "result");
	id = json_string_value(json_object_get(obj, "objectId"));
	if (json_object_get(res, "exceptionDetails"))
		*why = "the install threw";
	else if (!id)
		*why = "the install gave no object";
	else if (strlen(id) >= CHANNEL_NAME)
		*why = "the install's object id is too long";
	else {
		strcpy(out, id);
		*why = NULL;
		rc = 0;
	}
	json_decref(res);
	return rc;
}

/* A "channel" record of cc's: what happened (event) and why, with the
 * channel's names when there is one. */
static void note(struct core_conn *cc, const char *event, const char *why,
		 const struct channel *ch)
{
	json_t *j;

	if (!cc->core->log)
		return;
	j = json_pack("{s:s}", "event", event);
	if (why)
		json_object_set_new(j, "why", json_string(why));
	if (ch) {
		json_object_set_new(j, "session", util_json_str(ch->sid));
		json_object_set_new(j, "target", util_json_str(ch->target));
		json_object_set_new(j, "binding", util_json_str(ch->binding));
		if (ch->mapper)
			json_object_set_new(j, "mapper_conn", json_integer((json_int_t)ch->mapper->id));
		json_object_set_new(j, "to_mapper", json_integer((json_int_t)ch->down));
		json_object_set_new(j, "from_mapper", json_integer((json_int_t)ch->up));
	}
	log_event(cc->core->log, cc->id, "channel", j);
}

/* The session of cc attached to target, or NULL. */
static const struct session *session_of_target(struct core_conn *cc, const char *target)
{
	size_t i = 0;
	struct table_slot *ts;

	while ((ts = table_next(&cc->sessions.by_id, &i))) {
		const struct session *se = ts->val;
		if (*se->id && se->target_id && !strcmp(se->target_id, target))
			return se;
	}
	return NULL;
}

/* Closes the mapper's connection (its client side is gone: why). */
static void close_mapper(struct channel *ch, int code, const char *why)
{
	struct core_conn *m = ch->mapper;

	if (!m)
		return;
	ch->mapper = NULL;
	m->host = NULL;
	m->ops[UP]->gone(m, DOWN, code, why);
}

static int is(const char *method, size_t mlen, const char *lit)
{
	return method && mlen == strlen(lit) && !memcmp(method, lit, mlen);
}

int channel_command(struct core_conn *cc, const char *buf, const struct scan_result *r,
		    struct log_rec *rec)
{
	struct core *core = cc->core;
	struct channel ch0, *ch;
	const struct session *se;
	const char *why = NULL;
	char *expr;
	json_t *p;

	if (!is(rec->method, rec->method_len, "Target.exposeDevToolsProtocol"))
		return 0;
	memset(&ch0, 0, sizeof ch0);
	if (!core->channel_open)
		why = core->channel_off ? core->channel_off : "the channel is off";
	else if (cc->host)
		why = "a mapper's own connection";
	else if (cc->chan)
		why = "this connection has a channel already";
	else if (channel_expose_params(buf, r, ch0.target, ch0.binding) < 0)
		why = "no targetId, or a name over 127 bytes";
	else if (!(se = session_of_target(cc, ch0.target)))
		why = "no session of this connection is attached to the target";
	else if (strlen(se->id) >= CHANNEL_NAME)
		why = "the target's session id is over 127 bytes";
	else if (strncmp(cc->path, "/devtools/browser/", 18))
		why = "not a browser connection";
	if (why) {
		note(cc, "forwarded", why, NULL);
		return 0;
	}
	strcpy(ch0.sid, se->id);
	snprintf(ch0.priv, sizeof ch0.priv, "cdpproxy_%s", ch0.binding);
	if (!(ch0.mapper = core->channel_open(core, cc))) {
		note(cc, "forwarded", "cannot open a connection to Chrome", NULL);
		return 0;
	}
	cc->chan = ch = xmalloc(sizeof *ch);
	*ch = ch0;
	ch->mapper->host = cc;
	rec->action = "channel";
	emit_count_and_log(cc, DOWN, rec, 1);
	/* On S, before anything the client sends there after this command:
	 * one session's commands run in order. */
	p = json_pack("{s:s}", "name", ch->priv);
	emit_command(cc, ch->sid, "Runtime.addBinding", p, DOWN);
	json_decref(p);
	expr = channel_install_expression(ch->binding, ch->priv);
	p = json_pack("{s:s}", "expression", expr);
	ch->install_id = emit_command(cc, ch->sid, "Runtime.evaluate", p, DOWN);
	json_decref(p);
	free(expr);
	emit_reply(cc, r, buf, rec->method, json_object(), 0, NULL, "channel");
	note(cc, "open", NULL, ch);
	return 1;
}

/* The carriers the string argument was measured against (README.md,
 * Costs), by CDPPROXY_CHANNEL_CARRIER, a measurement knob: "object", the
 * message as an object argument, JSON.stringify'd in the page; "evaluate",
 * a Runtime.evaluate of window[B].onmessage("<the message>"). */
static struct msg *carrier_alt(const char *how, int64_t id, const struct channel *ch,
			       const char *p, size_t n)
{
	size_t room = 2 * strlen(ch->sid) + strlen(ch->object_id) + strlen(ch->binding) + 256;
	struct msg *c;
	char *o;
	int k;

	extra_init();
	room += n;
	for (size_t i = 0; i < n && strcmp(how, "object"); i++)   /* escaped twice */
		room += extra[(unsigned char)p[i]] == 5 ? 6 : extra[(unsigned char)p[i]] ? 3 : 0;
	c = msg_new(room);
	o = (char *)MSG_DATA(c);
	if (!strcmp(how, "object")) {
		k = snprintf(o, room, "{\"id\":%lld,\"method\":\"Runtime.callFunctionOn\",\"params\":{\"objectId\":\"%s\","
			     "\"functionDeclaration\":\"function(m){this.onmessage(JSON.stringify(m))}\","
			     "\"arguments\":[{\"value\":", (long long)id, ch->object_id);
		memcpy(o + k, p, n);
		o += k + n;
	} else {
		k = snprintf(o, room, "{\"id\":%lld,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":"
			     "\"window[\\\"%s\\\"].onmessage(\\\"", (long long)id, ch->binding);
		o += k;
		/* escaped twice: a JS string literal inside a JSON string */
		for (size_t i = 0; i < n; i++) {
			char one[8];
			size_t e = escape_into(one, p + i, 1);
			o += escape_into(o, one, e);
		}
		memcpy(o, "\\\")\"", 4);
		o += 4;
	}
	o += sprintf(o, "%s},\"sessionId\":\"%s\"}", !strcmp(how, "object") ? "}]" : "", ch->sid);
	c->len = (size_t)(o - (char *)MSG_DATA(c));
	return c;
}

/* Sends message p (n bytes) to the mapper, inside the proxy's own command. */
static void carry(struct core_conn *host, struct channel *ch, const char *p, size_t n)
{
	static const char *how;
	struct msg *c;

	if (!how)
		how = getenv("CDPPROXY_CHANNEL_CARRIER") ? getenv("CDPPROXY_CHANNEL_CARRIER") : "string";
	c = strcmp(how, "object") && strcmp(how, "evaluate") ?
	    channel_carrier(host->next_proxy_id++, ch->sid, ch->object_id, p, n) :
	    carrier_alt(how, host->next_proxy_id++, ch, p, n);

	ch->down++;
	emit_msg(host, UP, c, NULL, "channel", NOBODY);
}

int channel_event(struct core_conn *cc, const char *buf, const struct scan_result *r,
		  struct log_rec *rec, struct msg **out)
{
	struct channel *ch = cc->chan;
	const char *why;
	struct msg *m;

	*out = NULL;
	if (!ch)
		return 0;
	if (is(rec->method, rec->method_len, "Target.detachedFromTarget")) {
		/* S's, on the session it was attached through. */
		static const char *const keys[] = { "sessionId" };
		struct scan_str v;
		scan_member_strs(buf, &r->params, keys, 1, &v);
		if (ch->mapper && scan_str_eq(buf, &v, ch->sid)) {
			note(cc, "closed", "the mapper's tab detached", ch);
			close_mapper(ch, 1000, "the mapper's tab detached");
		}
		return 0;
	}
	if (!rec->session || rec->session_len != strlen(ch->sid) ||
	    memcmp(rec->session, ch->sid, rec->session_len))
		return 0;
	if (!is(rec->method, rec->method_len, "Runtime.bindingCalled"))
		return 0;
	m = channel_unwrap(buf, r, ch->priv, cc->core->max_message, &why);
	if (!m && !why)
		return 0;
	rec->action = "channel";
	emit_count_and_log(cc, UP, rec, 1);
	if (m && !ch->mapper) {
		why = "the mapper's connection is closed";
		msg_free(m);
		m = NULL;
	}
	if (!m) {
		note(cc, "dropped", why, ch);
		return 1;
	}
	ch->up++;
	*out = m;
	return 1;
}

void channel_answer(struct core_conn *cc, const char *buf, const struct scan_result *r, int64_t id)
{
	struct channel *ch = cc->chan;
	const char *why;
	struct msg *m;

	if (!ch || !ch->install_id || id != ch->install_id)
		return;
	ch->install_id = 0;
	if (channel_answer_object(buf, r, ch->object_id, &why) < 0) {
		note(cc, "closed", why, ch);
		close_mapper(ch, 1011, why);
		queue_clear(&ch->pending);
		return;
	}
	while ((m = queue_pop(&ch->pending))) {
		carry(cc, ch, (const char *)MSG_DATA(m), m->len);
		msg_free(m);
	}
}

int channel_may_cut(const struct core_conn *cc, const char *method, size_t mlen)
{
	return !cc->chan || !is(method, mlen, "Runtime.bindingCalled");
}

void channel_up(struct core_conn *host, const struct msg *m)
{
	struct channel *ch = host->chan;
	struct msg *copy;

	if (!ch)
		return;
	if (*ch->object_id) {
		carry(host, ch, (const char *)MSG_DATA(m), m->len);
		return;
	}
	if (!ch->install_id)   /* the install failed: the mapper is gone */
		return;
	copy = msg_new(m->len);
	memcpy(MSG_DATA(copy), MSG_DATA(m), m->len);
	copy->len = m->len;
	queue_push(&ch->pending, copy);
}

void channel_gone(struct core_conn *mapper)
{
	struct core_conn *host = mapper->host;

	mapper->host = NULL;
	if (!host || !host->chan || host->chan->mapper != mapper)
		return;
	note(host, "closed", "the mapper's connection closed", host->chan);
	host->chan->mapper = NULL;
}

void channel_conn_free(struct core_conn *cc)
{
	struct channel *ch = cc->chan;

	if (cc->host)
		channel_gone(cc);
	if (!ch)
		return;
	close_mapper(ch, 1001, "the host connection closed");
	queue_clear(&ch->pending);
	free(ch);
	cc->chan = NULL;
}
