/* redact_text: what the redactors of redact.c and redact_body.c share (the
 * words that make a name a credential's, URL userinfo, base64, a growing
 * output buffer). Internal to redact; pure. */
#ifndef CDPPROXY_REDACT_TEXT_H
#define CDPPROXY_REDACT_TEXT_H

#include <stddef.h>
#include <string.h>

#include <jansson.h>

/* A growing output buffer: p[0..len) of cap bytes, one always spare. */
struct redact_text_out {
	char *p;
	size_t len, cap;
};

void redact_text_put(struct redact_text_out *o, const char *s, size_t n);
#define REDACT_TEXT_LIT(o, lit) redact_text_put((o), (lit), sizeof(lit) - 1)

/* Is s[0..n) a credential's name: a credential word in it (redact.h lists
 * them), or "sid"? */
int redact_text_is_cred_name(const char *s, size_t n);

/* Is a credential's word (or "sid" between non-letters) in s[0..n), as it
 * is or once JSON's \uXXXX escapes (behind any number of backslashes: JSON
 * in JSON strings) and %XX are decoded? For text that cannot be read field
 * by field: it is withheld when this says so. */
int redact_text_mentions_cred(const char *s, size_t n);

/* %XX-decodes s[0..n) into d (n bytes at most; d may be s), '+' to a
 * space if plus; returns the length. */
size_t redact_text_percent_decode(char *d, const char *s, size_t n, int plus);

/* Appends s[0..n) to o with the userinfo of each URL in it replaced by
 * "<redacted>"; returns whether any was. */
int redact_text_userinfo(struct redact_text_out *o, const char *s, size_t n);

/* A JSON string of s[0..n) with URL userinfo redacted, or NULL if it has none. */
json_t *redact_text_userinfo_json(const char *s, size_t n);

/* Decodes base64 s[0..n) (padded or not) into a new buffer; NULL if it is
 * not base64. */
char *redact_text_b64_decode(const char *s, size_t n, size_t *outlen);

/* A JSON string of s[0..n) in base64. */
json_t *redact_text_b64_encode(const char *s, size_t n);

/* Inline: redact.c's mentions_secret asks them of every byte it scans. */
/* Can a URL's userinfo be at s[i] (a ':' of "://", or of ":\/\/" in JSON
 * text)? Returns the index past the "//", or 0. */
static inline size_t redact_text_url_authority(const char *s, size_t n, size_t i)
{
	if (s[i] != ':')
		return 0;
	if (n - i >= 3 && s[i + 1] == '/' && s[i + 2] == '/')
		return i + 3;
	if (n - i >= 5 && !memcmp(s + i + 1, "\\/\\/", 4))
		return i + 5;
	return 0;
}

/* Does c end a URL's authority (or is it one that a userinfo cannot hold
 * unescaped)? '\\' too: WHATWG URLs read it as '/' in http(s). */
static inline int redact_text_ends_authority(char c)
{
	return c == '/' || c == '\\' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '<' ||
	       c == '>' || c == '`' || (unsigned char)c <= ' ';
}

#endif
