/* redact: takes secrets (auth headers, cookies) out of message bodies before
 * they are logged. Pure. */
#include "redact.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "util.h"

static const char *const secret_headers[] = {
	"authorization", "proxy-authorization", "cookie", "set-cookie",
};
#define N_SECRET (sizeof secret_headers / sizeof secret_headers[0])

static int is_secret_header(const char *name)
{
	for (size_t i = 0; i < N_SECRET; i++)
		if (!strcasecmp(name, secret_headers[i]))
			return 1;
	return 0;
}

/* Does body mention "cookie" or "authorization" in any case? A cheap test so
 * that most bodies are logged without a parse. */
static int mentions_secret(const char *body, size_t len)
{
	for (size_t i = 0; i + 6 <= len; i++) {
		char c = body[i] | 0x20;
		if ((c == 'c' && i + 6 <= len && !strncasecmp(body + i, "cookie", 6)) ||
		    (c == 'a' && i + 13 <= len && !strncasecmp(body + i, "authorization", 13)))
			return 1;
	}
	return 0;
}

/* Rewrites the values of secret header lines ("Name: value\r\n") in raw
 * header text such as Network.*ExtraInfo's headersText. */
static json_t *redact_header_text(const char *text)
{
	size_t n = strlen(text), cap = n + 64, len = 0;
	char *out = xmalloc(cap);
	const char *line = text;
	json_t *j;

	while (*line) {
		const char *eol = line + strcspn(line, "\n");
		const char *colon = memchr(line, ':', (size_t)(eol - line));
		size_t keep = (size_t)(eol - line);
		char name[64];
		if (colon && (size_t)(colon - line) < sizeof name) {
			memcpy(name, line, (size_t)(colon - line));
			name[colon - line] = '\0';
			if (is_secret_header(name))
				keep = (size_t)(colon - line) + 1;
		}
		if (len + keep + sizeof REDACTED + 3 > cap)
			out = xrealloc(out, cap = 2 * (cap + keep + sizeof REDACTED + 3));
		memcpy(out + len, line, keep);
		len += keep;
		if (keep < (size_t)(eol - line)) {
			memcpy(out + len, " " REDACTED, sizeof REDACTED);
			len += sizeof REDACTED;
			if (eol > line && eol[-1] == '\r')
				out[len++] = '\r';
		}
		if (*eol)
			out[len++] = '\n';
		line = *eol ? eol + 1 : eol;
	}
	j = json_stringn(out, len);
	free(out);
	return j ? j : json_string(REDACTED);
}

/* Walks v, replacing secrets in place. in_cookies: v is an element of a
 * "cookies" array, whose "value" is the secret. */
static void redact_walk(json_t *v, int in_cookies)
{
	const char *key, *name;
	json_t *child;
	size_t i;

	if (json_is_array(v)) {
		json_array_foreach(v, i, child)
			redact_walk(child, in_cookies);
		return;
	}
	if (!json_is_object(v))
		return;
	/* A header entry {"name": "Cookie", "value": ...} (Fetch.continueRequest). */
	name = json_string_value(json_object_get(v, "name"));
	if ((in_cookies || (name && is_secret_header(name))) &&
	    json_is_string(json_object_get(v, "value")))
		json_object_set_new(v, "value", json_string(REDACTED));
	json_object_foreach(v, key, child) {
		if (json_is_string(child) && is_secret_header(key))
			json_object_set_new(v, key, json_string(REDACTED));
		else if (json_is_string(child) && !strcmp(key, "headersText"))
			json_object_set_new(v, key, redact_header_text(json_string_value(child)));
		else
			redact_walk(child, !strcmp(key, "cookies"));
	}
}

char *redact_body(const char *body, size_t len, size_t *outlen)
{
	json_t *j;
	char *out;

	if (!mentions_secret(body, len))
		return NULL;
	j = json_loadb(body, len, 0, NULL);
	if (!j) {
		out = xstrdup("<redacted: not JSON>");
		*outlen = strlen(out);
		return out;
	}
	redact_walk(j, 0);
	/* Network.setCookie and the like carry the cookie in their params. */
	if (json_string_value(json_object_get(j, "method")) &&
	    strstr(json_string_value(json_object_get(j, "method")), "Cookie"))
		redact_walk(json_object_get(j, "params"), 1);
	out = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	*outlen = strlen(out);
	return out;
}
