/* bidi: WebDriver BiDi read out of the CDP messages that carry it, and the
 * BiDi commands awaiting their answer (bidi.h). */
#include "bidi.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util.h"

const char *const bidi_type_name[] = { "none", "command", "success", "error", "event", "invalid" };

/* What a driver evaluates to hand the mapper a command, up to its argument. */
static const char *const prefixes[] = { "onBidiMessage(", "window.onBidiMessage(" };

static size_t max_bytes = BIDI_MAX_BYTES;

size_t bidi_set_max_bytes(size_t n)
{
	size_t was = max_bytes;

	max_bytes = n;
	return was;
}

static enum bidi_type invalid(struct bidi_msg *m, const char *why)
{
	m->type = BIDI_INVALID;
	m->why = why;
	return BIDI_INVALID;
}

/* Why jansson or the scanner refused a text, in the log's words. */
static const char *why_of(int cut, const char *text)
{
	if (cut)
		return "cut";
	if (strstr(text, "escape") || strstr(text, "Unicode"))
		return "bad escape";
	if (strstr(text, "UTF-8"))
		return "bad UTF-8";
	return "not JSON";
}

/* The JSON string literal p[0..n) (its quotes included), decoded: a new
 * reference, or NULL with *why. */
static json_t *string_of(const char *p, size_t n, const char **why)
{
	json_error_t e;
	json_t *j = json_loadb(p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);

	if (!j) {
		*why = why_of(json_error_code(&e) == json_error_premature_end_of_input, e.text);
		return NULL;
	}
	if (!json_is_string(j)) {
		json_decref(j);
		*why = "not a string";
		return NULL;
	}
	return j;
}

/* s of buf decoded into out (outlen bytes), cut at a character's start;
 * returns its length. */
static size_t copy_str(const char *buf, const struct scan_str *s, char *out, size_t outlen)
{
	out[0] = '\0';
	if (scan_str_copy(buf, s, out, outlen) < 0)
		return 0;
	return strlen(out);
}

/* Reads the BiDi message text js[0..n) into m: a command when it came in a
 * command, else an answer or an event, by its "type" (or, before
 * chromium-bidi had one, by its members). The text is scanned, not parsed
 * into a tree. */
static enum bidi_type read_bidi(const char *js, size_t n, struct bidi_msg *m)
{
	static const char *const keys[] = { "type", "goog:channel", "channel", "error", "message" };
	struct scan_str v[5];
	struct scan_span all = { 0, n, 1 };
	struct scan_result r;
	char type[16];

	m->bytes = n;
	if (scan_message(js, n, &r) < 0)
		return invalid(m, strcmp(r.why, "top level is not an object") ?
			       why_of(!strcmp(r.why, "truncated"), r.why) : "not an object");
	scan_member_strs(js, &all, keys, 5, v);
	m->has_id = r.has_id && r.id_is_int;
	m->id = m->has_id ? r.id : 0;
	m->method_len = copy_str(js, &r.method, m->method, sizeof m->method);
	m->has_channel = v[1].present || v[2].present;
	copy_str(js, v[1].present ? &v[1] : &v[2], m->channel, sizeof m->channel);
	if (m->in_command)
		return m->type = BIDI_COMMAND;
	copy_str(js, &v[0], type, sizeof type);
	if (!strcmp(type, "error") || (!*type && v[3].present))
		m->type = BIDI_ERROR;
	else if (!strcmp(type, "event") || (!*type && r.method.present && !r.has_id))
		m->type = BIDI_EVENT;
	else
		m->type = BIDI_SUCCESS;
	if (m->type == BIDI_ERROR) {
		copy_str(js, &v[3], m->error, sizeof m->error);
		copy_str(js, &v[4], m->message, sizeof m->message);
	}
	return m->type;
}

/* The JSON string at s of buf (a carrier's expression or payload, bytes as
 * sent), decoded: a new reference, or NULL with m marked invalid. */
static json_t *carrier_string(const char *buf, const struct scan_str *s, struct bidi_msg *m)
{
	const char *why;
	json_t *j;

	m->bytes = s->len;
	if (s->len > max_bytes) {
		invalid(m, "too large");
		return NULL;
	}
	/* The scanner found its quotes: the bytes around s are they. */
	if (!(j = string_of(buf + s->off - 1, s->len + 2, &why)))
		invalid(m, why);
	return j;
}

/* A Runtime.evaluate of prefix + "<JSON string>" + ")": the string decoded
 * is the command. */
static enum bidi_type from_evaluate(const char *buf, const struct scan_result *r, struct bidi_msg *m)
{
	static const char *const keys[] = { "expression" };
	size_t plen = 0, i, n, at, left;
	const char *e, *end;
	struct scan_str x;
	json_t *expr, *arg;
	const char *why;

	/* Only the expression's first bytes are read before its prefix is
	 * known: a 50 MiB script is not walked again. */
	if (scan_member_at(buf, &r->params, "expression", &at) < 0 || buf[at] != '"')
		return BIDI_NONE;
	left = r->params.off + r->params.len - at - 1;
	for (i = 0; i < sizeof prefixes / sizeof prefixes[0] && !plen; i++)
		if (left >= strlen(prefixes[i]) && !memcmp(buf + at + 1, prefixes[i], strlen(prefixes[i])))
			plen = strlen(prefixes[i]);
	if (!plen || !scan_member_strs(buf, &r->params, keys, 1, &x) || x.off != at + 1)
		return BIDI_NONE;
	m->in_command = 1;
	if (!(expr = carrier_string(buf, &x, m)))
		return m->type;
	/* The prefix has no escapes, so the decoded text starts with it too. */
	e = json_string_value(expr) + plen;
	end = json_string_value(expr) + json_string_length(expr);
	while (end > e && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\t' || end[-1] == ';'))
		end--;
	if (end == e || end[-1] != ')') {
		json_decref(expr);
		return invalid(m, "cut");
	}
	n = (size_t)(end - 1 - e);
	arg = string_of(e, n, &why);
	json_decref(expr);
	if (!arg)
		return invalid(m, why);
	read_bidi(json_string_value(arg), json_string_length(arg), m);
	json_decref(arg);
	return m->type;
}

/* A Runtime.bindingCalled of sendBidiResponse: its payload is the answer
 * or event. */
static enum bidi_type from_binding(const char *buf, const struct scan_result *r, struct bidi_msg *m)
{
	static const char *const keys[] = { "name", "payload" };
	static const char want[] = "sendBidiResponse\"";
	struct scan_str v[2];
	json_t *payload;
	size_t at, left;

	/* Chrome writes the name first: another binding's payload (Puppeteer's,
	 * Playwright's) is not walked, unless the name has an escape to decode. */
	if (scan_member_at(buf, &r->params, "name", &at) < 0 || buf[at] != '"')
		return BIDI_NONE;
	left = r->params.off + r->params.len - at - 1;
	if ((left < sizeof want - 1 || memcmp(buf + at + 1, want, sizeof want - 1)) &&
	    !memchr(buf + at + 1, '\\', left < sizeof want ? left : sizeof want))
		return BIDI_NONE;
	scan_member_strs(buf, &r->params, keys, 2, v);
	if (!scan_str_eq(buf, &v[0], "sendBidiResponse"))
		return BIDI_NONE;
	if (!v[1].present)
		return invalid(m, "no payload");
	if (!(payload = carrier_string(buf, &v[1], m)))
		return m->type;
	read_bidi(json_string_value(payload), json_string_length(payload), m);
	json_decref(payload);
	return m->type;
}

enum bidi_type bidi_decode(const char *buf, const struct scan_result *r, const char *method,
			   size_t mlen, struct bidi_msg *m)
{
	m->type = BIDI_NONE;
	if (r->kind == SCAN_COMMAND && mlen == 16 && !memcmp(method, "Runtime.evaluate", 16)) {
		memset(m, 0, sizeof *m);
		return from_evaluate(buf, r, m);
	}
	if (r->kind == SCAN_EVENT && mlen == 21 && !memcmp(method, "Runtime.bindingCalled", 21)) {
		memset(m, 0, sizeof *m);
		return from_binding(buf, r, m);
	}
	return BIDI_NONE;
}

/* The methods and events of the WebDriver BiDi specs (the core one and
 * those of Bluetooth, permissions, prefetch, client hints, digital
 * credentials) and of chromium-bidi's CDP extension (goog:cdp, and cdp
 * before it), as chromium-bidi 2026-07 has them; sorted by their bytes. */
static const char *const methods[] = {
	"bluetooth.characteristicEventGenerated", "bluetooth.descriptorEventGenerated",
	"bluetooth.disableSimulation", "bluetooth.gattConnectionAttempted",
	"bluetooth.handleRequestDevicePrompt", "bluetooth.requestDevicePromptUpdated",
	"bluetooth.simulateAdapter", "bluetooth.simulateAdvertisement",
	"bluetooth.simulateCharacteristic", "bluetooth.simulateCharacteristicResponse",
	"bluetooth.simulateDescriptor", "bluetooth.simulateDescriptorResponse",
	"bluetooth.simulateGattConnectionResponse", "bluetooth.simulateGattDisconnection",
	"bluetooth.simulatePreconnectedPeripheral", "bluetooth.simulateService",
	"browser.close", "browser.createUserContext", "browser.getClientWindows",
	"browser.getUserContexts", "browser.removeUserContext", "browser.setClientWindowState",
	"browser.setDownloadBehavior", "browsingContext.activate",
	"browsingContext.captureScreenshot", "browsingContext.close",
	"browsingContext.contextCreated", "browsingContext.contextDestroyed",
	"browsingContext.create", "browsingContext.domContentLoaded",
	"browsingContext.downloadEnd", "browsingContext.downloadWillBegin",
	"browsingContext.fragmentNavigated", "browsingContext.getTree",
	"browsingContext.handleUserPrompt", "browsingContext.historyUpdated",
	"browsingContext.load", "browsingContext.locateNodes", "browsingContext.navigate",
	"browsingContext.navigationAborted", "browsingContext.navigationCommitted",
	"browsingContext.navigationFailed", "browsingContext.navigationStarted",
	"browsingContext.print", "browsingContext.reload", "browsingContext.setBypassCSP",
	"browsingContext.setViewport", "browsingContext.startScreencast",
	"browsingContext.stopScreencast", "browsingContext.traverseHistory",
	"browsingContext.userPromptClosed", "browsingContext.userPromptOpened",
	"cdp.eventReceived", "cdp.getSession", "cdp.resolveRealm", "cdp.sendCommand",
	"digitalCredentials.setVirtualWalletBehavior",
	"emulation.setForcedColorsModeThemeOverride", "emulation.setGeolocationOverride",
	"emulation.setLocaleOverride", "emulation.setNetworkConditions",
	"emulation.setScreenOrientationOverride", "emulation.setScreenSettingsOverride",
	"emulation.setScriptingEnabled", "emulation.setScrollbarTypeOverride",
	"emulation.setTimezoneOverride", "emulation.setTouchOverride",
	"emulation.setUserAgentOverride", "goog:cdp.getSession", "goog:cdp.resolveRealm",
	"goog:cdp.sendCommand", "input.fileDialogOpened", "input.performActions",
	"input.releaseActions", "input.setFiles", "log.entryAdded", "network.addDataCollector",
	"network.addIntercept", "network.authRequired", "network.beforeRequestSent",
	"network.continueRequest", "network.continueResponse", "network.continueWithAuth",
	"network.disownData", "network.failRequest", "network.fetchError", "network.getData",
	"network.provideResponse", "network.removeDataCollector", "network.removeIntercept",
	"network.responseCompleted", "network.responseStarted", "network.setCacheBehavior",
	"network.setExtraHeaders", "permissions.setPermission", "script.addPreloadScript",
	"script.callFunction", "script.disown", "script.evaluate", "script.getRealms",
	"script.message", "script.realmCreated", "script.realmDestroyed",
	"script.removePreloadScript", "session.end", "session.new", "session.status",
	"session.subscribe", "session.unsubscribe", "speculation.prefetchStatusUpdated",
	"storage.deleteCookies", "storage.getCookies", "storage.setCookie",
	"userAgentClientHints.setClientHintsOverride", "webExtension.install",
	"webExtension.uninstall",
};

/* The error codes of WebDriver BiDi, sorted. */
const char *const bidi_error_codes[BIDI_ERROR_CODES] = {
	"invalid argument", "invalid selector", "invalid session id", "invalid web extension",
	"move target out of bounds", "no such alert", "no such element", "no such frame",
	"no such handle", "no such history entry", "no such intercept",
	"no such network collector", "no such network data", "no such node", "no such request",
	"no such screencast", "no such script", "no such storage partition",
	"no such user context", "no such web extension", "session not created",
	"unable to capture screen", "unable to close browser", "unable to set cookie",
	"unable to set file input", "unavailable network data",
	"underspecified storage partition", "unknown command", "unknown error",
	"unsupported operation",
};

static int name_cmp(const void *key, const void *elem)
{
	const struct { const char *p; size_t n; } *k = key;
	const char *e = *(const char *const *)elem;
	size_t en = strlen(e);
	int c = memcmp(k->p, e, k->n < en ? k->n : en);

	return c ? c : (k->n > en) - (k->n < en);
}

int bidi_method_known(const char *name, size_t len)
{
	struct { const char *p; size_t n; } k = { name, len };

	return bsearch(&k, methods, sizeof methods / sizeof methods[0], sizeof methods[0], name_cmp) != NULL;
}

int bidi_module_known(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
		if (!strncmp(methods[i], name, len) && methods[i][len] == '.')
			return 1;
	return 0;
}

size_t bidi_error_index(const char *code)
{
	struct { const char *p; size_t n; } k = { code, strlen(code) };
	const char *const *at = bsearch(&k, bidi_error_codes, BIDI_ERROR_CODES, sizeof bidi_error_codes[0],
					name_cmp);

	return at ? (size_t)(at - bidi_error_codes) : BIDI_ERROR_CODES;
}

/* A command awaiting its answer. */
struct bidi_pending {
	struct bidi_pending *older, *newer;
	uint64_t sent_us;
	size_t method_len, klen;
	char method[BIDI_NAME];
	char key[];
};

/* The key of (session, channel, id): the session id, a NUL, the channel,
 * a NUL, the id's bytes. key has room for 2 * BIDI_NAME + 10. */
static size_t track_key(char *key, const char *sid, size_t sidlen, const struct bidi_msg *m)
{
	size_t n = sidlen < BIDI_NAME ? sidlen : BIDI_NAME, c = strlen(m->channel);

	memcpy(key, sid, n);
	key[n++] = '\0';
	memcpy(key + n, m->channel, c);
	n += c;
	key[n++] = '\0';
	memcpy(key + n, &m->id, sizeof m->id);
	return n + sizeof m->id;
}

static void unlink_pending(struct bidi_track *t, struct bidi_pending *p)
{
	*(p->older ? &p->older->newer : &t->oldest) = p->newer;
	*(p->newer ? &p->newer->older : &t->newest) = p->older;
}

void bidi_track_init(struct bidi_track *t)
{
	memset(t, 0, sizeof *t);
	table_init(&t->pending);
}

void bidi_track_free(struct bidi_track *t)
{
	table_free(&t->pending, free);
	t->oldest = t->newest = NULL;
}

void bidi_track_command(struct bidi_track *t, const char *sid, size_t sidlen,
			const struct bidi_msg *m, uint64_t now_us)
{
	char key[2 * BIDI_NAME + 10];
	size_t klen = track_key(key, sid, sidlen, m), max = t->max ? t->max : BIDI_PENDING_MAX;
	struct bidi_pending *p = table_del(&t->pending, key, klen);

	if (p) {   /* the same id again on the channel: the newer one waits */
		unlink_pending(t, p);
		free(p);
	}
	while (t->pending.n >= max) {
		p = t->oldest;
		unlink_pending(t, p);
		table_del(&t->pending, p->key, p->klen);
		free(p);
		t->evicted++;
	}
	p = xcalloc(1, sizeof *p + klen);
	p->sent_us = now_us;
	p->method_len = m->method_len;
	memcpy(p->method, m->method, m->method_len + 1);
	p->klen = klen;
	memcpy(p->key, key, klen);
	p->older = t->newest;
	*(t->newest ? &t->newest->newer : &t->oldest) = p;
	t->newest = p;
	*table_put(&t->pending, key, klen) = p;
}

int bidi_track_answer(struct bidi_track *t, const char *sid, size_t sidlen, struct bidi_msg *m,
		      uint64_t now_us, uint64_t *rtt_us)
{
	char key[2 * BIDI_NAME + 10];
	size_t klen = track_key(key, sid, sidlen, m);
	struct bidi_pending *p = table_del(&t->pending, key, klen);

	if (!p)
		return -1;
	unlink_pending(t, p);
	memcpy(m->method, p->method, p->method_len + 1);
	m->method_len = p->method_len;
	*rtt_us = now_us > p->sent_us ? now_us - p->sent_us : 0;
	free(p);
	return 0;
}
