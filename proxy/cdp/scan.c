/* scan: finds the top-level CDP fields of one JSON message in one pass, without a tree. */
#include "scan.h"

#include <string.h>

/* jansson's JSON_PARSER_MAX_DEPTH: a value nested deeper than this (the top
 * level object is depth 1) is rejected, so we accept exactly what it accepts. */
#define SCAN_MAX_DEPTH 2048

enum field { F_NONE, F_ID, F_METHOD, F_SESSION, F_PARAMS, F_RESULT, F_ERROR, F_CODE };

struct scanner {
	const char *buf, *end;
	struct scan_result *r;
	/* Strings checked already, by offset (scan_message_streamed). */
	const struct scan_hint *hint, *hint_end;
};

#define IS_WS(c) ((c) == ' ' || (c) == '\n' || (c) == '\r' || (c) == '\t')
#define IS_DIGIT(c) ((unsigned char)((c) - '0') < 10)
/* Bytes that end a run of plain string content. */
#define IS_SPECIAL(c) ((c) == '"' || (c) == '\\' || (unsigned char)(c) < 0x20)

/* Records why and where the input is bad; returns -1 for scan_message. */
static int reject(struct scanner *s, const char *at, const char *why)
{
	s->r->why = why;
	s->r->error_at = (size_t)(at - s->buf);
	return -1;
}

/* The same, for helpers that return where they stopped. */
static const char *fail(struct scanner *s, const char *at, const char *why)
{
	reject(s, at, why);
	return NULL;
}

/* Skips whitespace up to the next token; NULL ("truncated") if there is none.
 * CDP peers send no whitespace: that case is tested first, inline. */
static const char *skip_ws(struct scanner *s, const char *p)
{
	while (p < s->end && IS_WS(*p))
		p++;
	return p < s->end ? p : fail(s, p, "truncated");
}

static inline const char *next_token(struct scanner *s, const char *p)
{
	return p < s->end && !IS_WS(*p) ? p : skip_ws(s, p);
}

static int hex_value(char c)
{
	if (IS_DIGIT(c))
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The code unit of the 4 hex digits at p (which must be readable), or -1. */
static long hex4(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		int h = hex_value(p[i]);
		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* Does any of the 8 bytes at p end plain string content? Exact, branch-free
 * "has zero byte" / "has byte < n" tests (n <= 128) on a 64-bit word. */
static int word_special(const char *p)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t v, q, b;

	memcpy(&v, p, 8);
	q = v ^ ones * '"';
	b = v ^ ones * '\\';
	return (((q - ones) & ~q) | ((b - ones) & ~b) | ((v - ones * 0x20) & ~v)) & highs ? 1 : 0;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* A mask of the bytes of p[0..16) that are '"', '\\' or below 0x20. */
static inline unsigned block_special(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
	__m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
	/* unsigned v < 0x20 exactly when max(v, 0x1f) == 0x1f */
	__m128i ctrl = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), ctrl));
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SCAN_AVX2 1

/* Whether this CPU has AVX2: set once at start-up (scan_set_avx2 for tests). */
static int use_avx2;

__attribute__((constructor)) static void scan_detect(void)
{
	use_avx2 = __builtin_cpu_supports("avx2");
}

/* AVX2, 64 bytes a step: the first byte of p[0..end) that ends plain string
 * content, or where fewer than 64 bytes are left. Compiled for AVX2 alone
 * and called only when the CPU has it. */
__attribute__((target("avx2"))) static const char *plain_run_avx2(const char *p, const char *end)
{
	const __m256i quote = _mm256_set1_epi8('"'), slash = _mm256_set1_epi8('\\');
	const __m256i c1f = _mm256_set1_epi8(0x1f);

	for (; end - p >= 64; p += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
		/* as block_special: quote, backslash, or unsigned below 0x20 */
		__m256i sa = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(a, quote),
			_mm256_cmpeq_epi8(a, slash)), _mm256_cmpeq_epi8(_mm256_max_epu8(a, c1f), c1f));
		__m256i sb = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(b, quote),
			_mm256_cmpeq_epi8(b, slash)), _mm256_cmpeq_epi8(_mm256_max_epu8(b, c1f), c1f));
		uint64_t m = (uint32_t)_mm256_movemask_epi8(sa) |
			     (uint64_t)(uint32_t)_mm256_movemask_epi8(sb) << 32;
		if (m)
			return p + __builtin_ctzll(m);
	}
	return p;
}
#endif

int scan_set_avx2(int on)
{
#if defined(SCAN_AVX2)
	int was = use_avx2;
	use_avx2 = on && __builtin_cpu_supports("avx2");
	return was;
#else
	(void)on;
	return 0;
#endif
}

/* How a run of string content ended (string_run). */
enum run_end {
	RUN_QUOTE,   /* at the closing quote */
	RUN_MORE,    /* the input ended first: look again from here with more */
	RUN_BAD,     /* at a control byte or a bad escape (why says which) */
};

/* The string content from *pp (past its opening quote, or resumed inside
 * it) up to end, in a buffer that begins at base: sets *pp to where it
 * stopped and returns why. Sets *escaped if it passed a backslash escape.
 * An escape cut by the end stops at its backslash (RUN_MORE), so a caller
 * that gets the rest later (scan_stream_feed) resumes there. */
__attribute__((always_inline)) static inline enum run_end
string_run(const char *base, const char *end, const char **pp, int *escaped, const char **why)
{
	const char *p = *pp;

	for (;;) {
		/* The hot loop: base64 screenshots are tens of MB of plain bytes,
		 * and a flood of events is mostly string bytes too. */
#if defined(SCAN_AVX2)
		if (use_avx2 && end - p >= 64)
			p = plain_run_avx2(p, end);   /* at a special byte, or < 64 left */
#endif
#if defined(__SSE2__)
		while (end - p >= 32) {
			unsigned m = block_special(p) | block_special(p + 16) << 16;
			if (m) {
				p += __builtin_ctz(m);
				goto special;
			}
			p += 32;
		}
		if (end - p >= 16) {
			unsigned m = block_special(p);
			if (m) {
				p += __builtin_ctz(m);
				goto special;
			}
			p += 16;
		}
		/* The last 1-15 bytes in one look: the 16 that end the input,
		 * those before p shifted out. */
		if (p < end && end - base >= 16) {
			unsigned m = block_special(end - 16) >> (16 - (end - p));
			if (m) {
				p += __builtin_ctz(m);
				goto special;
			}
			p = end;
		}
#endif
		while (end - p >= 8 && !word_special(p))
			p += 8;
		while (p < end && !IS_SPECIAL(*p))
			p++;
		if (p == end)
			goto more;
#if defined(__SSE2__)
special:
#endif
		if (*p == '"') {
			*pp = p;
			return RUN_QUOTE;
		}
		if (*p != '\\') {
			*why = "control character in string";
			goto bad;
		}
		*escaped = 1;
		if (end - p < 2)
			goto more;
		switch (p[1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			p += 2;
			continue;
		case 'u':
			break;
		default:
			p++;
			*why = "bad escape";
			goto bad;
		}
		for (int i = 2; i < 6; i++) {
			if (p + i == end)
				goto more;
			if (hex_value(p[i]) < 0) {
				p += i;
				*why = "bad escape";
				goto bad;
			}
		}
		p += 6;
		/* Binary bytes in JSON are \u escapes back to back (a zeroed
		 * Uint8Array upload's postData is \u0000 after \u0000, 48 MiB of
		 * a rig's 117 MiB event): taken here, not one SIMD look each.
		 * One that is not whole and valid is left to the loop above.
		 * (hex4, which computes the value, ran this loop at 1.3 GB/s
		 * against 6.7 for the four tests: bench-scan, escapes 4 MiB.) */
		while (end - p >= 6 && p[0] == '\\' && p[1] == 'u' && hex_value(p[2]) >= 0 &&
		       hex_value(p[3]) >= 0 && hex_value(p[4]) >= 0 && hex_value(p[5]) >= 0)
			p += 6;
	}
more:
	*pp = p;
	return RUN_MORE;
bad:
	*pp = p;
	return RUN_BAD;
}

/* The general case of skip_string below: long strings and escapes, and
 * the strings a stream scan has checked already (scan_message_streamed). */
static const char *skip_string_slow(struct scanner *s, const char *p, int *escaped)
{
	const char *why = NULL;

	if (s->hint != s->hint_end) {
		size_t off = (size_t)(p - s->buf);
		while (s->hint != s->hint_end && s->hint->off < off)
			s->hint++;
		if (s->hint != s->hint_end && s->hint->off == off) {
			*escaped = s->hint->escaped;
			return s->buf + (s->hint++)->end;
		}
	}
	*escaped = 0;
	switch (string_run(s->buf, s->end, &p, escaped, &why)) {
	case RUN_QUOTE:
		return p;
	case RUN_MORE:
		return fail(s, s->end, "truncated");
	default:
		return fail(s, p, why);
	}
}

/* p is just past an opening quote. Returns the closing quote, or NULL on a
 * bad escape, a raw control byte or the end of input. Sets *escaped if the
 * string holds any backslash escape. Keys and most values are short and
 * plain: one 16-byte look finds their end, inline. */
static inline const char *skip_string(struct scanner *s, const char *p, int *escaped)
{
#if defined(__SSE2__)
	if (s->end - p >= 16) {
		unsigned m = block_special(p);
		if (m && p[__builtin_ctz(m)] == '"') {
			*escaped = 0;
			return p + __builtin_ctz(m);
		}
	}
#endif
	return skip_string_slow(s, p, escaped);
}

/* One or more digits at p. */
static const char *skip_digits(struct scanner *s, const char *p)
{
	if (p == s->end)
		return fail(s, p, "truncated");
	if (!IS_DIGIT(*p))
		return fail(s, p, "bad number");
	while (p < s->end && IS_DIGIT(*p))
		p++;
	return p;
}

/* JSON number grammar. Sets *is_int and *v when it has no fraction or
 * exponent and fits int64 (jansson makes the others reals). The integer
 * part is read as it is skipped: 19 digits cannot overflow uint64, and a
 * longer one (whose value wraps) cannot fit int64. */
static const char *skip_number(struct scanner *s, const char *p, int *is_int, int64_t *v)
{
	int neg = *p == '-';
	const char *end = s->end, *digits = p + neg;
	uint64_t mag = 0, limit = (uint64_t)INT64_MAX + (uint64_t)neg;

	for (p = digits; p < end && IS_DIGIT(*p); p++)
		mag = mag * 10 + (uint64_t)(*p - '0');
	if (p == digits)
		return fail(s, p, p == end ? "truncated" : "bad number");
	if (*digits == '0' && p - digits > 1)
		return fail(s, digits + 1, "leading zero");
	*is_int = p - digits <= 19 && mag <= limit;
	if (p < end && *p == '.') {
		if (!(p = skip_digits(s, p + 1)))
			return NULL;
		*is_int = 0;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		if (p + 1 < end && (p[1] == '+' || p[1] == '-'))
			p++;
		if (!(p = skip_digits(s, p + 1)))
			return NULL;
		*is_int = 0;
	}
	if (*is_int)
		*v = !neg ? (int64_t)mag : mag > INT64_MAX ? INT64_MIN : -(int64_t)mag;
	return p;
}

static const char *skip_literal(struct scanner *s, const char *p)
{
	const char *lit = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
	size_t n = strlen(lit), avail = (size_t)(s->end - p);

	for (size_t i = 0; i < n; i++) {
		if (i == avail)
			return fail(s, s->end, "truncated");
		if (p[i] != lit[i])
			return fail(s, p + i, "bad literal");
	}
	return p + n;
}

static size_t utf8_encode(unsigned long cp, char *u)
{
	static const unsigned char lead[] = { 0, 0x00, 0xC0, 0xE0, 0xF0 };
	size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;

	for (size_t i = n; i-- > 1; cp >>= 6)
		u[i] = (char)(0x80 | (cp & 0x3F));
	u[0] = (char)(lead[n] | cp);
	return n;
}

/* Decodes the next character of the string content at *pp (< end) into u
 * (1..4 bytes) and advances *pp. A surrogate pair becomes one 4-byte
 * character; a lone surrogate becomes U+FFFD. A malformed escape (never seen
 * on scanned input) is copied through as bytes. */
static size_t next_char(const char **pp, const char *end, char *u)
{
	const char *p = *pp;
	const char *esc = "b\bf\fn\nr\rt\t\"\"\\\\//", *e;
	long cp, lo;

	*pp = p + 1;
	u[0] = *p;
	if (*p != '\\' || end - p < 2)
		return 1;
	if (p[1] != 'u') {
		for (e = esc; *e && *e != p[1]; e += 2)
			;
		if (*e) {
			u[0] = e[1];
			*pp = p + 2;
		}
		return 1;
	}
	if (end - p < 6 || (cp = hex4(p + 2)) < 0)
		return 1;
	p += 6;
	if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
	    (lo = hex4(p + 2)) >= 0xDC00 && lo < 0xE000) {
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		p += 6;
	} else if (cp >= 0xD800 && cp < 0xE000) {
		cp = 0xFFFD;
	}
	*pp = p;
	return utf8_encode((unsigned long)cp, u);
}

/* Decodes n bytes of string content into out (up to outlen bytes, no NUL).
 * Returns the whole decoded length. */
static size_t decode(const char *p, size_t n, char *out, size_t outlen)
{
	const char *end = p + n;
	size_t total = 0;
	char u[4];

	while (p < end) {
		size_t k = next_char(&p, end, u);
		for (size_t i = 0; i < k; i++, total++)
			if (total < outlen)
				out[total] = u[i];
	}
	return total;
}

/* Which field a (decoded) key names; depth 2 keys only count as "code". */
static enum field key_field(const char *k, size_t n, int depth)
{
	if (depth == 2)
		return n == 4 && !memcmp(k, "code", 4) ? F_CODE : F_NONE;
	switch (n) {
	case 2:
		return !memcmp(k, "id", 2) ? F_ID : F_NONE;
	case 5:
		return !memcmp(k, "error", 5) ? F_ERROR : F_NONE;
	case 6:
		return !memcmp(k, "method", 6) ? F_METHOD : !memcmp(k, "params", 6) ? F_PARAMS :
		       !memcmp(k, "result", 6) ? F_RESULT : F_NONE;
	case 9:
		return !memcmp(k, "sessionId", 9) ? F_SESSION : F_NONE;
	default:
		return F_NONE;
	}
}

/* A key the scanner reads (at depth 1, or "code" in the top-level error
 * object) is about to get a value: 0, or -1 when the object had it already.
 * Chromium refuses such a message (-32700, "duplicate map key"), and the
 * cut-through path judges a command by its first "method" where the whole
 * message's scan would see its last: refused here, both paths judge it the
 * same, as invalid. seen: the fields the object has had. */
static inline int take_field(struct scan_result *r, unsigned *seen, enum field f)
{
	if (f == F_NONE)
		return 0;
	if (*seen & 1u << f)
		return -1;
	*seen |= 1u << f;
	if (f == F_ID)
		r->has_id = 1;
	return 0;
}

/* The field a key names at depth (1, or 2 in the error object); an escaped
 * key is matched on its decoded form. */
static enum field field_of(const char *k, size_t n, int escaped, int depth)
{
	char d[16];

	/* Keys we look for are short: a longer decoded key matches none. */
	if (!escaped)
		return key_field(k, n, depth);
	if ((n = decode(k, n, d, sizeof d)) < sizeof d)
		return key_field(d, n, depth);
	return F_NONE;
}

/* The top-level keys CDP peers send, each with its quotes and a ':' right
 * after it, as the bytes they are: such a key needs no string skip, no
 * decoding and no whitespace test. */
#define KEY8(a, b, c, d, e, f, g, h) \
	((uint64_t)(unsigned char)(a) | (uint64_t)(unsigned char)(b) << 8 | \
	 (uint64_t)(unsigned char)(c) << 16 | (uint64_t)(unsigned char)(d) << 24 | \
	 (uint64_t)(unsigned char)(e) << 32 | (uint64_t)(unsigned char)(f) << 40 | \
	 (uint64_t)(unsigned char)(g) << 48 | (uint64_t)(unsigned char)(h) << 56)

/* If the 12 readable bytes at p (a '"') begin with one of those keys and
 * its ':', sets *f and returns the byte after the ':'; else NULL. */
static inline const char *known_key(const char *p, enum field *f)
{
	uint64_t w;
	unsigned char b[8];

	memcpy(b, p, 8);   /* bytes, so that the test reads the same on any host */
	w = KEY8(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
	if ((w & 0xffffffffffull) == (KEY8('"', 'i', 'd', '"', ':', 0, 0, 0))) {
		*f = F_ID;
		return p + 5;
	}
	if (w == KEY8('"', 'e', 'r', 'r', 'o', 'r', '"', ':')) {
		*f = F_ERROR;
		return p + 8;
	}
	if (p[8] == ':') {
		*f = w == KEY8('"', 'm', 'e', 't', 'h', 'o', 'd', '"') ? F_METHOD :
		     w == KEY8('"', 'p', 'a', 'r', 'a', 'm', 's', '"') ? F_PARAMS :
		     w == KEY8('"', 'r', 'e', 's', 'u', 'l', 't', '"') ? F_RESULT : F_NONE;
		return *f != F_NONE ? p + 9 : NULL;
	}
	if (w == KEY8('"', 's', 'e', 's', 's', 'i', 'o', 'n') && !memcmp(p + 8, "Id\":", 4)) {
		*f = F_SESSION;
		return p + 12;
	}
	return NULL;
}

/* Skips the value at p (or whitespace before it) inside `base` open
 * containers, and the containers it opens: below the top level's own
 * members (and the error object's) nothing is looked at, only checked. */
static const char *skip_value(struct scanner *s, const char *p, int base)
{
	unsigned char is_obj[SCAN_MAX_DEPTH + 1];  /* per open container */
	int depth = base, escaped, is_int;
	int64_t num;
	const char *q;

value:
	if (!(p = next_token(s, p)))
		return NULL;
	if (depth >= SCAN_MAX_DEPTH)
		return fail(s, p, "nested too deeply");
	switch (*p) {
	case '{': case '[':
		is_obj[++depth] = *p == '{';
		if (!(p = next_token(s, p + 1)))
			return NULL;
		if (*p == (is_obj[depth] ? '}' : ']')) {
			depth--;
			p++;
			goto after;
		}
		if (is_obj[depth])
			goto key;
		goto value;
	case '"':
		if (!(q = skip_string(s, p + 1, &escaped)))
			return NULL;
		p = q + 1;
		goto after;
	case 't': case 'f': case 'n':
		if (!(p = skip_literal(s, p)))
			return NULL;
		goto after;
	default:
		if (*p != '-' && !IS_DIGIT(*p))
			return fail(s, p, "expected a value");
		if (!(p = skip_number(s, p, &is_int, &num)))
			return NULL;
		goto after;
	}

after:	/* a value ended at p; depth containers are still open */
	if (depth == base)
		return p;
	if (!(p = next_token(s, p)))
		return NULL;
	if (*p == ',') {
		p++;
		if (is_obj[depth])
			goto key;
		goto value;
	}
	if (*p != (is_obj[depth] ? '}' : ']'))
		return fail(s, p, is_obj[depth] ? "expected ',' or '}'" : "expected ',' or ']'");
	depth--;
	p++;
	goto after;

key:	/* p is at (or before whitespace before) a member's key */
	if (!(p = next_token(s, p)))
		return NULL;
	if (*p != '"')
		return fail(s, p, "expected a string key");
	if (!(q = skip_string(s, p + 1, &escaped)))
		return NULL;
	if (!(p = next_token(s, q + 1)))
		return NULL;
	if (*p != ':')
		return fail(s, p, "expected ':'");
	p++;
	goto value;
}

/* The members of an object whose '{' is at p, at depth (1: the top level,
 * 2: the top-level error object), looked at for the fields of r. Returns
 * the byte after its '}'. */
static const char *scan_members(struct scanner *s, const char *p, int depth)
{
	struct scan_result *r = s->r;
	const char *q, *v;
	int escaped, is_int;
	unsigned seen = 0;
	int64_t num;

	if (!(p = next_token(s, p + 1)))
		return NULL;
	if (*p == '}')
		return p + 1;
	for (;;) {
		enum field f;
		const char *colon_end;
		if (*p != '"')
			return fail(s, p, "expected a string key");
		if (depth == 1 && s->end - p >= 12 && (colon_end = known_key(p, &f))) {
			if (take_field(r, &seen, f) < 0)
				return fail(s, p, "duplicate key");
		} else {
			if (!(q = skip_string(s, p + 1, &escaped)))
				return NULL;
			f = field_of(p + 1, (size_t)(q - p - 1), escaped, depth);
			if (take_field(r, &seen, f) < 0)
				return fail(s, p, "duplicate key");
			if (!(p = next_token(s, q + 1)))
				return NULL;
			if (*p != ':')
				return fail(s, p, "expected ':'");
			colon_end = p + 1;
		}
		if (!(v = next_token(s, colon_end)))
			return NULL;
		switch (*v) {
		case '"':
			if (!(q = skip_string(s, v + 1, &escaped)))
				return NULL;
			if (f == F_METHOD || f == F_SESSION) {
				struct scan_str *str = f == F_METHOD ? &r->method : &r->session;
				str->off = (size_t)(v + 1 - s->buf);
				str->len = (size_t)(q - v - 1);
				str->present = 1;
				str->escaped = escaped;
			}
			p = q + 1;
			break;
		case '{':
			p = f == F_ERROR ? scan_members(s, v, 2) : skip_value(s, v, depth);
			break;
		case '-': case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			if ((p = skip_number(s, v, &is_int, &num)) && is_int) {
				if (f == F_ID) {
					r->id_is_int = 1;
					r->id = num;
				} else if (f == F_CODE) {
					r->has_error_code = 1;
					r->error_code = num;
				}
			}
			break;
		default:
			p = skip_value(s, v, depth);
			break;
		}
		if (!p)
			return NULL;
		if (f >= F_PARAMS && f <= F_ERROR) {
			struct scan_span *sp = f == F_PARAMS ? &r->params :
					       f == F_RESULT ? &r->result : &r->error;
			sp->off = (size_t)(v - s->buf);
			sp->len = (size_t)(p - v);
			sp->present = 1;
		}
		if (!(p = next_token(s, p)))
			return NULL;
		if (*p == '}')
			return p + 1;
		if (*p != ',')
			return fail(s, p, "expected ',' or '}'");
		if (!(p = next_token(s, p + 1)))
			return NULL;
	}
}

__attribute__((always_inline)) static inline int
scan_with(const char *buf, size_t len, const struct scan_stream *st, struct scan_result *r)
{
	struct scanner sc = { buf, buf + len, r, NULL, NULL }, *s = &sc;
	const char *p, *end = buf + len;

	if (st && st->n) {
		sc.hint = st->hint;
		sc.hint_end = st->hint + st->n;
	}
	memset(r, 0, sizeof *r);
	if (!(p = next_token(s, buf)))
		return -1;
	if (*p != '{')
		return reject(s, p, "top level is not an object");
	if (!(p = scan_members(s, p, 1)))
		return -1;
	while (p < end && IS_WS(*p))
		p++;
	if (p != end)
		return reject(s, p, "trailing data");
	r->kind = r->has_id ? (r->method.present ? SCAN_COMMAND : SCAN_RESPONSE) :
		  r->method.present ? SCAN_EVENT : SCAN_OTHER;
	return 0;
}

int scan_message(const char *buf, size_t len, struct scan_result *r)
{
	return scan_with(buf, len, NULL, r);
}

int scan_message_streamed(const char *buf, size_t len, struct scan_stream *st,
			  struct scan_result *r)
{
	scan_stream_feed(st, buf, len);
	return scan_with(buf, len, st, r);
}

void scan_stream_init(struct scan_stream *st, size_t min)
{
	memset(st, 0, sizeof *st);
	st->min = min ? min : 1;
}

/* Outside strings only a quote matters: in JSON that scan_message takes,
 * every quote outside a string opens one, so strings found this way are
 * the strings it finds, up to the first byte it refuses (after which no
 * hint is looked at). */
void scan_stream_feed(struct scan_stream *st, const char *buf, size_t len)
{
	const char *p = buf + st->at, *end = buf + len, *why;

	while (!st->stopped && p < end) {
		if (!st->in_str) {
			const char *q = memchr(p, '"', (size_t)(end - p));
			if (!q) {
				p = end;
				break;
			}
			p = q + 1;
			st->in_str = 1;
			st->escaped = 0;
			st->str_off = (size_t)(p - buf);
			continue;
		}
		enum run_end e = string_run(buf, end, &p, &st->escaped, &why);
		if (e == RUN_MORE)   /* p: where to look again once more has come */
			break;
		if (e == RUN_BAD) {
			st->stopped = 1;
			break;
		}
		if ((size_t)(p - buf) - st->str_off >= st->min && st->n < SCAN_HINTS)
			st->hint[st->n++] = (struct scan_hint){ st->str_off, (size_t)(p - buf), st->escaped };
		st->in_str = 0;
		p++;
	}
	st->at = (size_t)(p - buf);
}

/* p past whitespace, or end. */
static const char *first_ws(const char *p, const char *end)
{
	while (p < end && IS_WS(*p))
		p++;
	return p;
}

/* p past a plain string's content (its opening quote behind it), at its
 * closing quote; end when it is not all there; NULL on an escape or a
 * control byte. */
static const char *first_str(const char *p, const char *end)
{
	while (p < end && !IS_SPECIAL(*p))
		p++;
	return p < end && *p != '"' ? NULL : p;
}

/* The member of an object whose key begins at p or after it (after '{' or
 * ','), up to end: scan_first's and scan_next's. */
static enum scan_first_kind first_member(const char *buf, const char *p, const char *end,
					 struct scan_first *f)
{
	const char *key, *q;
	size_t klen;

	memset(f, 0, sizeof *f);
	if ((p = first_ws(p, end)) == end)
		return SCAN_FIRST_MORE;
	if (*p != '"')
		return SCAN_FIRST_OTHER;
	key = ++p;
	if (!(p = first_str(p, end)))
		return SCAN_FIRST_OTHER;
	if (p == end)
		return SCAN_FIRST_MORE;
	klen = (size_t)(p - key);
	if ((p = first_ws(p + 1, end)) == end)
		return SCAN_FIRST_MORE;
	if (*p != ':')
		return SCAN_FIRST_OTHER;
	if ((p = first_ws(p + 1, end)) == end)
		return SCAN_FIRST_MORE;
	if (klen == 6 && !memcmp(key, "method", 6)) {
		if (*p != '"')
			return SCAN_FIRST_OTHER;
		q = ++p;
		if (!(p = first_str(p, end)))
			return SCAN_FIRST_OTHER;
		if (p == end)
			return SCAN_FIRST_MORE;
		f->method.off = (size_t)(q - buf);
		f->method.len = (size_t)(p - q);
		f->method.present = 1;
		f->end = (size_t)(p + 1 - buf);
		return SCAN_FIRST_METHOD;
	}
	if (klen == 2 && !memcmp(key, "id", 2)) {
		int neg = *p == '-';
		uint64_t v = 0;
		p += neg;
		for (q = p; p < end && IS_DIGIT(*p) && p - q < 18; p++)
			v = v * 10 + (uint64_t)(*p - '0');
		if (p == end)
			return SCAN_FIRST_MORE;
		if (p == q || (*p != ',' && *p != '}' && !IS_WS(*p)))
			return SCAN_FIRST_OTHER;
		f->id = neg ? -(int64_t)v : (int64_t)v;
		f->end = (size_t)(p - buf);
		return SCAN_FIRST_ID;
	}
	return SCAN_FIRST_OTHER;
}

enum scan_first_kind scan_first(const char *buf, size_t len, struct scan_first *f)
{
	const char *end = buf + len, *p = first_ws(buf, end);

	memset(f, 0, sizeof *f);
	if (p == end)
		return SCAN_FIRST_MORE;
	if (*p != '{')
		return SCAN_FIRST_OTHER;
	return first_member(buf, p + 1, end, f);
}

enum scan_first_kind scan_next(const char *buf, size_t len, struct scan_first *f)
{
	const char *end = buf + len, *p = first_ws(buf + f->end, end);

	if (p == end)
		return SCAN_FIRST_MORE;
	if (*p != ',')
		return SCAN_FIRST_OTHER;
	return first_member(buf, p + 1, end, f);
}

/* Is the key k[0..n) (escaped: decode it first) the NUL-terminated want? */
static int key_is(const char *k, size_t n, int escaped, const char *want)
{
	size_t wlen = strlen(want);
	char d[64];

	if (!escaped)
		return n == wlen && !memcmp(k, want, n);
	return wlen < sizeof d && decode(k, n, d, sizeof d) == wlen && !memcmp(d, want, wlen);
}

size_t scan_member_strs(const char *buf, const struct scan_span *sp, const char *const *keys,
			size_t n, struct scan_str *out)
{
	struct scan_result ignored;
	struct scanner sc = { buf, buf + sp->off + sp->len, &ignored, NULL, NULL }, *s = &sc;
	const char *p = buf + sp->off, *q, *k;
	size_t found = 0;
	int escaped;

	memset(out, 0, n * sizeof *out);
	if (!sp->present || !sp->len || *p != '{' || !(p = next_token(s, p + 1)) || *p == '}')
		return 0;
	for (;;) {
		size_t i = n;
		if (*p != '"' || !(q = skip_string(s, p + 1, &escaped)))
			return found;
		k = p + 1;
		for (size_t j = 0; j < n && i == n; j++)
			if (key_is(k, (size_t)(q - k), escaped, keys[j]))
				i = j;
		if (!(p = next_token(s, q + 1)) || *p != ':' || !(p = next_token(s, p + 1)))
			return found;
		if (*p == '"') {
			if (!(q = skip_string(s, p + 1, &escaped)))
				return found;
			if (i < n) {
				found += !out[i].present;
				out[i] = (struct scan_str){ (size_t)(p + 1 - buf), (size_t)(q - p - 1), 1, escaped };
			}
			p = q + 1;
		} else {
			if (i < n && out[i].present) {   /* a later one that is no string wins */
				out[i].present = 0;
				found--;
			}
			if (!(p = skip_value(s, p, 1)))
				return found;
		}
		if (!(p = next_token(s, p)) || *p != ',' || !(p = next_token(s, p + 1)))
			return found;
	}
}

int scan_member_at(const char *buf, const struct scan_span *sp, const char *key, size_t *at)
{
	struct scan_result ignored;
	struct scanner sc = { buf, buf + sp->off + sp->len, &ignored, NULL, NULL }, *s = &sc;
	const char *p = buf + sp->off, *q;
	int escaped;

	if (!sp->present || !sp->len || *p != '{' || !(p = next_token(s, p + 1)) || *p == '}')
		return -1;
	for (;;) {
		if (*p != '"' || !(q = skip_string(s, p + 1, &escaped)))
			return -1;
		int match = key_is(p + 1, (size_t)(q - p - 1), escaped, key);
		if (!(p = next_token(s, q + 1)) || *p != ':' || !(p = next_token(s, p + 1)))
			return -1;
		if (match) {
			*at = (size_t)(p - buf);
			return 0;
		}
		if (!(p = skip_value(s, p, 1)) || !(p = next_token(s, p)) || *p != ',' ||
		    !(p = next_token(s, p + 1)))
			return -1;
	}
}

long scan_str_copy(const char *buf, const struct scan_str *s, char *out, size_t outlen)
{
	size_t n, k;

	if (!s->present)
		return -1;
	n = s->escaped ? decode(buf + s->off, s->len, out, outlen) : s->len;
	if (!s->escaped)
		memcpy(out, buf + s->off, n < outlen ? n : outlen);
	if (!outlen)
		return (long)n;
	k = n < outlen - 1 ? n : outlen - 1;
	/* out[k] is the first byte left out: if it continues a character, leave
	 * out the whole character so out stays UTF-8. */
	for (int i = 0; i < 3 && k > 0 && k < n && ((unsigned char)out[k] & 0xC0) == 0x80; i++)
		k--;
	out[k] = '\0';
	return (long)n;
}

int scan_str_eq(const char *buf, const struct scan_str *s, const char *lit)
{
	const char *p, *end;
	size_t n = strlen(lit), at = 0;
	char u[4];

	if (!s->present)
		return 0;
	p = buf + s->off;
	end = p + s->len;
	if (!s->escaped)
		return s->len == n && memcmp(p, lit, n) == 0;
	while (p < end) {
		size_t k = next_char(&p, end, u);
		if (k > n - at || memcmp(u, lit + at, k) != 0)
			return 0;
		at += k;
	}
	return at == n;
}
