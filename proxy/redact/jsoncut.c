/* jsoncut: the head of a long JSON text made a whole document (jsoncut.h). */
#include "jsoncut.h"

#include <string.h>

#include "util.h"

enum want {
	WANT_KEY_OR_END,    /* just after '{' */
	WANT_KEY,           /* after ',' in an object */
	WANT_COLON,
	WANT_VALUE_OR_END,  /* just after '[' */
	WANT_VALUE,         /* after ':', or ',' in an array */
	WANT_COMMA_OR_END,
};

struct cut {
	char stack[JSONCUT_MAX_DEPTH];
	size_t depth;
	enum want want;
	size_t good, good_depth;   /* the last point the head can be closed at */
};

/* A value ended at p[at): the container wants a comma or its end. */
static void value_done(struct cut *c, size_t at)
{
	c->want = WANT_COMMA_OR_END;
	c->good = at;
	c->good_depth = c->depth;
}

static int wants_value(const struct cut *c)
{
	return c->want == WANT_VALUE || c->want == WANT_VALUE_OR_END;
}

/* How far a string cut at p[n) keeps whole characters: not into an escape
 * that began at esc (or SIZE_MAX), nor into a UTF-8 sequence. from: the
 * string's first byte. */
static size_t string_end(const char *p, size_t n, size_t from, size_t esc)
{
	size_t t = esc != SIZE_MAX ? esc : n, k = t, need;
	unsigned char lead;

	while (k > from && t - k < 3 && ((unsigned char)p[k - 1] & 0xc0) == 0x80)
		k--;
	if (k == from)
		return t;
	lead = (unsigned char)p[k - 1];
	need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
	return t - (k - 1) < need ? k - 1 : t;
}

/* The document: p[0..keep), then a quote if quote, then the closers of the
 * depth containers on the stack. */
static char *emit(const struct cut *c, const char *p, size_t keep, int quote, size_t depth,
		  size_t *outlen)
{
	char *o = xmalloc(keep + 1 + depth + 1), *w = o + keep;

	memcpy(o, p, keep);
	if (quote)
		*w++ = '"';
	while (depth)
		*w++ = c->stack[--depth] == '{' ? '}' : ']';
	*w = '\0';
	*outlen = (size_t)(w - o);
	return o;
}

char *jsoncut_close(const char *p, size_t n, size_t *used, size_t *outlen)
{
	struct cut c = { .want = WANT_VALUE };
	size_t i = 0, str = 0, esc = SIZE_MAX, esc_left = 0, bare = SIZE_MAX;
	int in_str = 0, in_key = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i == n || (p[i] != '{' && p[i] != '['))
		return NULL;
	for (; i < n; i++) {
		char ch = p[i];

		if (in_str) {
			if (esc_left) {
				if (esc_left == 5 && ch != 'u')
					esc_left = 1;   /* a one-letter escape: this is its letter */
				if (--esc_left == 0)
					esc = SIZE_MAX;
			} else if (ch == '\\') {
				esc = i;
				esc_left = 5;   /* 'u' and four digits, or one letter */
			} else if (ch == '"') {
				in_str = 0;
				if (in_key)
					c.want = WANT_COLON;
				else
					value_done(&c, i + 1);
			}
			continue;
		}
		if (bare != SIZE_MAX) {
			if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || ch == '-' || ch == '+' ||
			    ch == '.' || ch == 'E')
				continue;
			bare = SIZE_MAX;
			value_done(&c, i);
		}
		switch (ch) {
		case ' ': case '\t': case '\n': case '\r':
			break;
		case '{': case '[':
			if (!wants_value(&c) || c.depth == JSONCUT_MAX_DEPTH)
				return NULL;
			c.stack[c.depth++] = ch;
			c.want = ch == '{' ? WANT_KEY_OR_END : WANT_VALUE_OR_END;
			c.good = i + 1;
			c.good_depth = c.depth;
			break;
		case '}': case ']':
			if (!c.depth || c.stack[c.depth - 1] != (ch == '}' ? '{' : '[') ||
			    !(c.want == WANT_COMMA_OR_END ||
			      c.want == (ch == '}' ? WANT_KEY_OR_END : WANT_VALUE_OR_END)))
				return NULL;
			c.depth--;
			value_done(&c, i + 1);
			if (!c.depth) {   /* the whole document was in the head */
				*used = i + 1;
				return emit(&c, p, i + 1, 0, 0, outlen);
			}
			break;
		case ':':
			if (c.want != WANT_COLON)
				return NULL;
			c.want = WANT_VALUE;
			break;
		case ',':
			if (c.want != WANT_COMMA_OR_END)
				return NULL;
			c.want = c.stack[c.depth - 1] == '{' ? WANT_KEY : WANT_VALUE;
			break;
		case '"':
			in_key = c.want == WANT_KEY || c.want == WANT_KEY_OR_END;
			if (!in_key && !wants_value(&c))
				return NULL;
			in_str = 1;
			str = i + 1;
			break;
		default:
			if (!wants_value(&c) || !((ch >= '0' && ch <= '9') || ch == '-' || ch == 't' ||
						  ch == 'f' || ch == 'n'))
				return NULL;
			bare = i;
			break;
		}
	}
	if (in_str && !in_key) {
		*used = string_end(p, n, str, esc);
		return emit(&c, p, *used, 1, c.depth, outlen);
	}
	*used = c.good;
	return emit(&c, p, c.good, 0, c.good_depth, outlen);
}
