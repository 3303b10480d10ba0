/* fuzz_redact: libFuzzer driver for the log's redaction, with two oracles.
 * (A) The input as a body: no crash; a JSON input gives JSON output of the
 * same skeleton (same members, same array lengths) with something replaced,
 * or NULL (nothing replaced); any other input gives NULL or "<redacted: not
 * JSON>".
 * (B) The input as choices: a message with a marker placed in one secret
 * shape of redact.h (header members, entries and lines with odd names and
 * spacing, base64 binary headers, cookies, cookie lines, passwords, wrapped
 * messages), nested at a fuzzed depth among fuzzed members; the marker must
 * not survive, and the output must parse with the input's skeleton.
 * (C) A JSON input's heads (jsoncut, which redact_body_head reads a long
 * body's head through) close into JSON that holds the head. A head jsoncut
 * will not close is withheld whole in the log (REDACTED_NOT_JSON). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsoncut.h"
#include "redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MARK "~K3Y~"   /* fuzzed text never holds '~': see text() */

static void fail(const char *what, const char *in, const char *out)
{
	fprintf(stderr, "fuzz_redact: %s\n  input: %.2000s\n  output: %.2000s\n", what, in ? in : "(null)",
		out ? out : "(null)");
	abort();
}

/* (A) Does out keep in's skeleton? A value may become "<redacted>". */
static int same_skeleton(json_t *in, json_t *out)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(out) && !strcmp(json_string_value(out), REDACTED))
		return 1;
	if (json_typeof(in) != json_typeof(out))
		return 0;
	if (json_is_object(in)) {
		if (json_object_size(in) != json_object_size(out))
			return 0;
		json_object_foreach(in, key, v)
			if (!json_object_get(out, key) || !same_skeleton(v, json_object_get(out, key)))
				return 0;
		return 1;
	}
	if (json_is_array(in)) {
		if (json_array_size(in) != json_array_size(out))
			return 0;
		json_array_foreach(in, i, v)
			if (!same_skeleton(v, json_array_get(out, i)))
				return 0;
		return 1;
	}
	return json_is_string(in) || json_equal(in, out);
}

static void check_body(const char *in, size_t n)
{
	size_t outlen = (size_t)-1;
	char *out = redact_body(in, n, &outlen);
	json_t *jin = json_loadb(in, n, JSON_ALLOW_NUL, NULL), *jout;
	char *text = strndup(in, n);

	if (out && outlen != strlen(out))
		fail("*outlen is not the output's length", text, out);
	if (!jin) {
		if (out && strcmp(out, "<redacted: not JSON>"))
			fail("not JSON in, something other than the withheld mark out", text, out);
	} else if (!out) {
		/* Nothing replaced: (B) checks that a secret placed is never left. */
	} else {
		char *before = json_dumps(jin, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (before && !strcmp(before, out))
			fail("a copy with nothing replaced (should be NULL: not redacted)", text, out);
		free(before);
		if (!(jout = json_loadb(out, outlen, JSON_ALLOW_NUL, NULL)))
			fail("JSON in, not JSON out", text, out);
		if (!same_skeleton(jin, jout))
			fail("the output lost or gained members", text, out);
		json_decref(jout);
	}
	json_decref(jin);
	free(out);
	free(text);
}

/* (C) Only of JSON texts: a NUL byte is in none (RFC 8259 escapes it in
 * strings and has it nowhere else), though jansson 2.14 loads a document
 * with one right after a number or literal ({"a":true\0}: its lexer gives
 * back the byte after the token, then reads past a NUL it has given back). */
static void check_heads(const char *in, size_t n)
{
	json_t *jin = memchr(in, '\0', n) ? NULL : json_loadb(in, n, JSON_ALLOW_NUL, NULL);
	size_t first = 0;
	char *text;

	if (!json_is_object(jin) && !json_is_array(jin)) {
		json_decref(jin);
		return;
	}
	json_decref(jin);
	text = strndup(in, n);
	while (first < n && strchr(" \t\n\r", in[first]))
		first++;
	for (size_t k = first + 1; k <= n; k += 1 + n / 16) {
		size_t used = 0, len = 0;
		char *out = jsoncut_close(in, k, &used, &len);
		json_t *j = out ? json_loadb(out, len, JSON_ALLOW_NUL, NULL) : NULL;

		if (!out && n <= JSONCUT_MAX_DEPTH)
			fail("a head of a JSON document not closed", text, NULL);
		if (out && (!j || used > k || memcmp(out, in, used)))
			fail("a closed head is not JSON, or not the head", text, out);
		json_decref(j);
		free(out);
	}
	free(text);
}

/* (B) The fuzz input read as choices; past its end, zeros. */
struct src {
	const uint8_t *p;
	size_t n, at;
};

static unsigned byte(struct src *s)
{
	return s->at < s->n ? s->p[s->at++] : 0;
}

static unsigned pick(struct src *s, unsigned k)
{
	return byte(s) % k;
}

/* Fuzzed ASCII of up to max bytes, none of the bytes in banned, never NUL
 * (a C string) and never '~' (the marker's). */
static void text(struct src *s, char *out, size_t max, const char *banned)
{
	size_t len = pick(s, (unsigned)max + 1), j = 0;

	for (size_t i = 0; i < len; i++) {
		char c = (char)(byte(s) & 0x7f);
		if (!c || c == '~' || strchr(banned, c))
			c = '.';
		out[j++] = c;
	}
	out[j] = '\0';
}

static void cred_name(struct src *s, char *out, const char *banned);

/* A secret header's name with case flipped and spaces or tabs around it:
 * the four everywhere, or one named like a credential (in headers), listed
 * or made of a credential's word among fuzzed bytes. */
static void header_name(struct src *s, char *out)
{
	static const char *const names[] = {
		"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Custom-Token",
		"X-Auth-User", "x-session-id", "Secret", "X-CSRF-TOKEN", "WWW-Authenticate", "apikey",
	};
	const char *name = names[pick(s, 12)];

	if (!pick(s, 3)) {
		cred_name(s, out, ":\r\n");
		return;
	}
	unsigned flips = byte(s), pad = byte(s);
	size_t j = 0;

	for (unsigned i = 0; i < (pad & 3); i++)
		out[j++] = pad & 16 ? '\t' : ' ';
	for (size_t i = 0; name[i]; i++)
		out[j++] = (char)((flips >> (i % 8)) & 1 ? name[i] ^ 0x20 * (name[i] >= 'A') : name[i]);
	for (unsigned i = 0; i < (pad >> 2 & 3); i++)
		out[j++] = pad & 32 ? '\t' : ' ';
	out[j] = '\0';
}

/* A value holding the marker: "pre" MARK "post", fuzzed, no line ends or
 * the banned bytes. */
static void secret_value(struct src *s, char *out, const char *banned)
{
	char pre[16], post[16];

	text(s, pre, 8, banned);
	text(s, post, 8, banned);
	snprintf(out, 64, "%s" MARK "%s", pre, post);
}

static const char *const eols[] = { "\r\n", "\n", "\r", "", "\r\n\t" };

/* Raw header text into out: fuzzed lines, the secret line, more fuzzed
 * lines; binary: lines end at NUL (Fetch's binaryResponseHeaders). Returns
 * its length (NULs included). */
static size_t header_text(struct src *s, char *out, int binary)
{
	char before[40], after[40], name[40], value[64];
	const char *eol = binary ? "" : eols[pick(s, 3)], *end = binary ? "" : eols[pick(s, 5)];
	size_t len = 0;

	text(s, before, 32, "");
	text(s, after, 32, "");
	header_name(s, name);
	secret_value(s, value, "\r\n");
#define CAT(t, n) (memcpy(out + len, (t), (n)), len += (n))
	CAT(before, strlen(before));
	CAT(binary ? "" : eol, binary ? 1 : strlen(eol));   /* binary: the NUL itself */
	CAT(name, strlen(name));
	if (pick(s, 2))
		CAT(": ", 2);
	else
		CAT(":", 1);
	CAT(value, strlen(value));
	CAT(binary ? "" : end, binary ? 1 : strlen(end));
	CAT(after, strlen(after));
#undef CAT
	out[len] = '\0';
	return len;
}

static char *b64(const char *s, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *o = malloc(n / 3 * 4 + 8), *p = o;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)s[i] << 16 | (i + 1 < n ? (unsigned char)s[i + 1] << 8 : 0) |
			     (i + 2 < n ? (unsigned char)s[i + 2] : 0);
		*p++ = t[v >> 18 & 63];
		*p++ = t[v >> 12 & 63];
		*p++ = i + 1 < n ? t[v >> 6 & 63] : '=';
		*p++ = i + 2 < n ? t[v & 63] : '=';
	}
	*p = '\0';
	return o;
}

/* Bytes of a base64 string (invalid: NULL). */
static char *unb64(const char *s, size_t *len)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s);
	char *o = malloc(n + 1);
	unsigned acc = 0, bits = 0;

	*len = 0;
	while (n && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		const char *c = strchr(t, s[i]);
		if (!c || !s[i]) {
			free(o);
			return NULL;
		}
		acc = acc << 6 | (unsigned)(c - t);
		if ((bits += 6) >= 8)
			o[(*len)++] = (char)(acc >> (bits -= 8));
	}
	return o;
}

static int has_mark(const char *p, size_t n)
{
	for (size_t i = 0; i + strlen(MARK) <= n; i++)
		if (!memcmp(p + i, MARK, strlen(MARK)))
			return 1;
	return 0;
}

static json_t *cookie_object(struct src *s)
{
	static const char *const ckeys[] = { "domain", "path", "url", "expires", "httpOnly", "secure", "sameSite" };
	char name[16], value[64];
	json_t *o = json_object();

	text(s, name, 8, "");
	secret_value(s, value, "");
	json_object_set_new(o, "name", json_string(name));
	json_object_set_new(o, "value", json_string(value));
	json_object_set_new(o, ckeys[pick(s, 7)], json_string("x"));
	return o;
}

/* A one-element array of v. */
static json_t *one(json_t *v)
{
	json_t *a = json_array();

	json_array_append_new(a, v);
	return a;
}

/* A credential's name as bodies and forms have them: fuzzed text (none of
 * banned) around a word of redact.c's list, its case flipped. */
static void cred_name(struct src *s, char *out, const char *banned)
{
	static const char *const words[] = {
		"password", "passwd", "pwd", "secret", "token", "api_key", "apiKey", "auth", "credentials",
		"session", "PHPSESSID", "csrf", "jwt", "xsrf", "signature", "cookie", "key", "sid",
	};
	char pre[8], post[8], w[16];
	unsigned flips = byte(s), k = pick(s, 18);

	snprintf(w, sizeof w, "%s", words[k]);
	for (size_t i = 0; w[i]; i++)
		if ((flips >> (i % 8)) & 1 && ((w[i] | 0x20) >= 'a' && (w[i] | 0x20) <= 'z'))
			w[i] ^= 0x20;
	if (k == 17) {   /* "sid" counts only alone */
		snprintf(out, 40, "%s", w);
		return;
	}
	text(s, pre, 4, banned);
	text(s, post, 4, banned);
	snprintf(out, 40, "%s%s%s", pre, w, post);
}

/* s[0..n) %XX-encoded into out, every byte. */
static void percent_all(char *out, const char *s)
{
	for (; *s; s++, out += 3)
		snprintf(out, 4, "%%%02X", (unsigned char)*s);
	*out = '\0';
}

/* A body with the marker in a credential field, shaped as servers read
 * them (issue 46): a form split at '&', ';' or CRLF (text/plain), a
 * NUL in it or not; a multipart body with CRLF or LF line ends, a preamble
 * or a leading newline, the part named name=, name*= (%XX) or in RFC 2231
 * pieces; JSON, after a byte order mark or not, itself in a JSON string
 * or not. Returns its length (NULs included). */
static size_t body(struct src *s, char *out, size_t cap)
{
	/* Lines of a text/plain form end in CRLF (the HTML standard); a body
	 * of LF lines is not read as one (a script's "x = token" would be). */
	static const char *const seps[] = { "&", ";", "\r\n", "&" };
	char name[40], value[64], junk[16], junk2[16], bound[24], pre[24], named[160];
	json_t *j, *holder;
	char *t;
	size_t len;

	switch (pick(s, 3)) {
	case 0: {  /* application/x-www-form-urlencoded, text/plain, or text read as one */
		const char *sep = seps[pick(s, 4)];
		text(s, junk, 8, "&;=\r\n");
		text(s, junk2, 8, "&;\r\n");
		cred_name(s, name, "&;=%\r\n");   /* %XX could eat the word's first letter */
		secret_value(s, value, "&;\r\n");
		len = (size_t)snprintf(out, cap, "%s=%s%s%s=%s", junk, junk2, sep, name, value);
		switch (pick(s, 4)) {
		case 0:   /* a NUL after the value, and another field */
			len += (size_t)snprintf(out + len, cap - len, "%c%sx=1", '\0', sep);
			break;
		case 1:
			len += (size_t)snprintf(out + len, cap - len, "%sx=1", sep);
			break;
		case 2:
			out[len++] = '\0';
			break;
		default:
			break;
		}
		return len;
	}
	case 1: {  /* multipart/form-data */
		unsigned form = pick(s, 4), how = byte(s);
		const char *eol = how & 1 ? "\n" : "\r\n";
		text(s, bound, 16, "\r\n");
		text(s, junk, 8, "\r\n\"");
		text(s, pre, 16, "");
		cred_name(s, name, form ? "\r\n\"; \t%'" : "\r\n\"");
		secret_value(s, value, "\n");
		if (form == 1) {          /* name*=UTF-8''%XX... */
			char enc[120];
			percent_all(enc, name);
			snprintf(named, sizeof named, "name*=UTF-8''%s", enc);
		} else if (form == 2) {   /* name*0="...", name*1="..." */
			size_t cut = strlen(name) / 2;
			snprintf(named, sizeof named, "name*0=\"%.*s\"; name*1=\"%s\"", (int)cut, name, name + cut);
		} else if (form == 3) {   /* unquoted, spaced */
			snprintf(named, sizeof named, "name = %s", name);
		} else {
			snprintf(named, sizeof named, "name=\"%s\"", name);
		}
		snprintf(out, cap,
			 "%s%s--%s%sContent-Disposition: form-data; name=\"%s\"%s%sann%s--%s%s"
			 "Content-Disposition: form-data; %s%s%s%s%s%s--%s--%s",
			 how & 2 ? pre : "", how & 2 ? eol : how & 4 ? "\n" : "",
			 bound, eol, junk, eol, eol, eol, bound, eol,
			 named, pick(s, 2) ? "" : "; filename=\"f\"", eol, eol, value, eol, bound, eol);
		return strlen(out);
	}
	default:  /* JSON */
		j = json_object();
		holder = j;
		for (unsigned d = pick(s, 3); d; d--) {
			json_t *next = json_object();
			text(s, junk, 8, "");
			json_object_set_new(holder, junk[0] ? junk : "x", pick(s, 2) ? one(next) : next);
			holder = next;
		}
		text(s, junk, 8, "");
		json_object_set_new(holder, junk, json_string("before"));
		cred_name(s, name, "");
		secret_value(s, value, "");
		json_object_set_new(holder, name, pick(s, 4) ? json_string(value) : one(json_string(value)));
		t = json_dumps(j, JSON_COMPACT);
		json_decref(j);
		for (unsigned d = pick(s, 3); d; d--) {   /* JSON in a JSON string in... */
			text(s, junk, 8, "");
			j = json_object();
			json_object_set_new(j, junk, json_string(t));
			free(t);
			t = json_dumps(j, JSON_COMPACT);
			json_decref(j);
		}
		len = (size_t)snprintf(out, cap, "%s%s", pick(s, 2) ? "" : "\xef\xbb\xbf", t);
		free(t);
		return len < cap ? len : cap - 1;
	}
}

/* A string with a URL whose userinfo holds the marker, among fuzzed text. */
static void url_with_userinfo(struct src *s, char *out, size_t cap)
{
	static const char *const schemes[] = { "http", "https", "ws", "wss", "ftp", "chrome-extension" };
	static const char *const ends[] = { "", "/", "/p?q=1", "#f", "?x", ":8080/a@b" };
	char pre[16], user[16], post[16], host[16];

	text(s, pre, 8, "");
	/* Nothing that ends an authority or is its '@'; no controls (text gives
	 * none but NUL... and \x01 to \x1f, banned here too). */
	text(s, user, 8, "/\\?#\"'<>`@ \t\r\n\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15"
			 "\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f");
	text(s, host, 8, "/\\?#\"'<>`@ \t\r\n");
	text(s, post, 8, "");
	snprintf(out, cap, "%s%s://%s%s" MARK "@%s%s%s", pre, schemes[pick(s, 6)], user, pick(s, 2) ? ":" : "", host,
		 ends[pick(s, 6)], post);
}

/* One secret shape with the marker in it, to be placed under the member
 * *key (set here). */
static json_t *shape(struct src *s, const char **key, const char **method)
{
	static char ukey[16];   /* a fuzzed key: *key outlives this call */
	char buf[1024], name[40], value[64], cname[16], attrs[32];
	json_t *o = json_object();
	size_t n;
	char *enc;

	switch (pick(s, 15)) {
	case 9:   /* Network.Request.postData; a getRequestPostData result */
		n = body(s, buf, sizeof buf);
		if (pick(s, 2)) {
			json_decref(o);
			*key = "postData";
			return json_stringn(buf, n);
		}
		enc = b64(buf, n);
		json_object_set_new(o, "postData", json_string(enc));
		json_object_set_new(o, "base64Encoded", json_true());
		free(enc);
		*key = "result";
		return o;
	case 10:  /* postDataEntries[].bytes */
		n = body(s, buf, sizeof buf);
		enc = b64(buf, n);
		json_object_set_new(o, "bytes", json_string(enc));
		free(enc);
		*key = "postDataEntries";
		return one(o);
	case 11:  /* Fetch.continueRequest postData, Fetch.fulfillRequest body (base64) */
		json_decref(o);
		n = body(s, buf, sizeof buf);
		enc = b64(buf, n);
		o = json_string(enc);
		free(enc);
		if (pick(s, 2)) {
			*method = "Fetch.continueRequest";
			*key = "postData";
		} else {
			*method = "Fetch.fulfillRequest";
			*key = "body";
		}
		return o;
	case 12:  /* getResponseBody, IO.read results; WebSocket frames */
		n = body(s, buf, sizeof buf);
		switch (pick(s, 3)) {
		case 0:
			json_object_set_new(o, "body", json_stringn(buf, n));
			json_object_set_new(o, "base64Encoded", json_false());
			break;
		case 1:
			enc = b64(buf, n);
			json_object_set_new(o, "data", json_string(enc));
			json_object_set_new(o, "base64Encoded", json_true());
			free(enc);
			break;
		default:
			json_object_set_new(o, "opcode", json_integer(1));
			json_object_set_new(o, "mask", json_false());
			json_object_set_new(o, "payloadData", json_stringn(buf, n));
		}
		*key = pick(s, 2) ? "result" : "response";
		return o;
	case 13:  /* URL userinfo in any string, alone or in an array */
	case 14:
		json_decref(o);
		url_with_userinfo(s, buf, sizeof buf);
		text(s, ukey, 8, "");
		*key = ukey[0] ? ukey : "url";
		return pick(s, 2) ? json_string(buf) : one(json_string(buf));
	case 0:   /* Network.Headers */
		header_name(s, name);
		secret_value(s, value, "");
		json_object_set_new(o, name, json_string(value));
		*key = "headers";
		return o;
	case 1:   /* Fetch.HeaderEntry, CacheStorage.Header */
		header_name(s, name);
		secret_value(s, value, "");
		json_object_set_new(o, "name", json_string(name));
		json_object_set_new(o, "value", json_string(value));
		*key = pick(s, 2) ? "responseHeaders" : "requestHeaders";
		return one(o);
	case 2:   /* raw header text */
		json_decref(o);
		header_text(s, buf, 0);
		*key = pick(s, 2) ? "headersText" : "requestHeadersText";
		return json_string(buf);
	case 3:   /* Fetch's binaryResponseHeaders */
		json_decref(o);
		n = header_text(s, buf, 1);
		enc = b64(buf, n);
		o = json_string(enc);
		free(enc);
		*key = "binaryResponseHeaders";
		return o;
	case 4:   /* cookie objects: in a cookies array, under cookie, or alone */
		json_decref(o);
		switch (pick(s, 3)) {
		case 0:
			*key = "cookies";
			return one(cookie_object(s));
		case 1:
			o = json_object();
			json_object_set_new(o, "cookie", cookie_object(s));
			*key = "associatedCookies";
			return one(o);
		default:   /* Blocked/ExemptedSetCookieWithReason.cookie */
			*key = "cookie";
			return cookie_object(s);
		}
	case 5:   /* cookie lines */
		json_decref(o);
		text(s, cname, 8, "=;:\r\n");
		secret_value(s, value, ";\r\n");
		text(s, attrs, 24, "");
		snprintf(buf, sizeof buf, "%s=%s; Path=/%s", cname, value, pick(s, 2) ? "" : attrs);
		*key = pick(s, 2) ? "cookieLine" : "rawCookieLine";
		return json_string(buf);
	case 6:   /* AuthChallengeResponse */
		secret_value(s, value, "");
		json_object_set_new(o, "response", json_string("ProvideCredentials"));
		json_object_set_new(o, "password", json_string(value));
		*key = "authChallengeResponse";
		return o;
	case 7:   /* Preload.PrerenderMismatchedHeaders */
		header_name(s, name);
		secret_value(s, value, "");
		json_object_set_new(o, "headerName", json_string(name));
		json_object_set_new(o, pick(s, 2) ? "initialValue" : "activationValue", json_string(value));
		*key = "mismatchedHeaders";
		return one(o);
	default:  /* a header member that is not a string */
		header_name(s, name);
		secret_value(s, value, "");
		json_object_set_new(o, name, one(json_string(value)));
		*key = "headers";
		return o;
	}
}

static const char *const methods[] = {
	"Network.requestWillBeSentExtraInfo", "Network.responseReceivedExtraInfo", "Fetch.continueRequest",
	"Audits.issueAdded", "Network.getCookies", "Network.setCookie", "Runtime.evaluate",
};

/* A message with one secret shape, nested among fuzzed members. */
static json_t *message(struct src *s)
{
	json_t *msg = json_object(), *params = json_object(), *holder = params, *v;
	unsigned depth = pick(s, 4);
	const char *key;
	char junk[16];

	const char *method = NULL;

	json_object_set_new(msg, "params", params);
	v = shape(s, &key, &method);
	/* Fetch's bodies are base64 as the params of their command. */
	json_object_set_new(msg, "method", json_string(method ? method : methods[pick(s, 7)]));
	if (method)
		depth = 0;
	for (unsigned d = 0; d < depth; d++) {
		json_t *next = json_object();
		text(s, junk, 8, "");
		json_object_set_new(holder, junk, json_string("before"));
		text(s, junk, 8, "");
		json_object_set_new(holder, junk[0] ? junk : "x", pick(s, 2) ? one(next) : next);
		holder = next;
	}
	text(s, junk, 8, "");
	json_object_set_new(holder, junk, json_string("after"));
	json_object_set_new(holder, key, v);
	return msg;
}

/* Does the marker survive in v, as text or inside base64? */
static int marker_in(json_t *v)
{
	const char *key;
	json_t *c;
	size_t i;

	if (json_is_string(v)) {
		size_t n;
		char *raw;
		json_t *inner;
		int hit = has_mark(json_string_value(v), json_string_length(v));
		if (!hit && json_string_value(v)[0] == '{' &&
		    (inner = json_loads(json_string_value(v), JSON_ALLOW_NUL, NULL))) {
			hit = marker_in(inner);   /* a wrapped message */
			json_decref(inner);
		}
		if (!hit && (raw = unb64(json_string_value(v), &n))) {
			hit = has_mark(raw, n);
			free(raw);
		}
		return hit;
	}
	json_object_foreach(v, key, c)
		if (has_mark(key, strlen(key)) || marker_in(c))
			return 1;
	json_array_foreach(v, i, c)
		if (marker_in(c))
			return 1;
	return 0;
}

static void check_shapes(const uint8_t *data, size_t size)
{
	struct src s = { data, size, 0 };
	json_t *msg, *jin, *jout;
	char *in, *out;
	size_t outlen;

	if (pick(&s, 8) == 0) {   /* wrapped in Target.sendMessageToTarget */
		json_t *inner = message(&s), *params = json_object();
		char *t = json_dumps(inner, JSON_COMPACT);
		json_decref(inner);
		msg = json_object();
		json_object_set_new(msg, "method", json_string(pick(&s, 2) ? "Target.sendMessageToTarget" :
							      "Target.receivedMessageFromTarget"));
		json_object_set_new(params, "sessionId", json_string("S"));
		json_object_set_new(params, "message", json_string(t));
		json_object_set_new(msg, "params", params);
		free(t);
	} else {
		msg = message(&s);
	}
	in = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	out = redact_body(in, strlen(in), &outlen);
	if (!out)
		fail("a marker in a secret shape, and nothing redacted", in, NULL);
	if (!(jout = json_loadb(out, outlen, JSON_ALLOW_NUL, NULL)))
		fail("a JSON message in, not JSON out", in, out);
	jin = json_loads(in, JSON_ALLOW_NUL, NULL);
	if (marker_in(jout))
		fail("a secret survived", in, out);
	if (!same_skeleton(jin, jout))
		fail("the output lost or gained members", in, out);
	json_decref(jin);
	json_decref(jout);
	free(in);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_body((const char *)data, size);
	check_heads((const char *)data, size);
	check_shapes(data, size);
	return 0;
}
