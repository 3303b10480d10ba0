/* log: JSON Lines records of every message and connection. The proxy's
 * thread formats records into a buffer; full buffers go, in order, to a writer
 * thread that writes them to the file, so that neither the cost of the write
 * nor a slow disk holds up forwarding. A bounded number of buffers wait for
 * the writer; when all are taken the proxy waits too: nothing is dropped. */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "redact.h"
#include "util.h"

#define LOG_FLUSH_AT (64 * 1024)  /* a buffer this full goes to the writer */
#define LOG_BUFS_MAX 16           /* buffers waiting for the writer, at most */

/* A buffer handed to the writer, or written and kept for reuse. */
struct log_buf {
	char *data;
	size_t len, cap;
	struct log_buf *next;
};

struct log {
	int fd;
	size_t body_max;
	uint64_t gen;
	int secrets;
	struct log_buf *cur;          /* the buffer records are formatted into */
	uint64_t t_last;              /* the last record's time, and its digits */
	char t_digits[24];
	size_t t_len;
	/* Shared with the writer thread, under mu. */
	pthread_t writer;
	pthread_mutex_t mu;
	pthread_cond_t work, room;    /* the writer has work; a buffer came free */
	struct log_buf *head, *tail;  /* handed over, to be written in this order */
	struct log_buf *spare;        /* written, for reuse */
	unsigned handed;              /* handed over and not yet written */
	int stop;
};

static void log_destroy(struct log *lg);

static struct log_buf *log_buf_new(void)
{
	struct log_buf *b = xcalloc(1, sizeof *b);

	b->cap = 2 * LOG_FLUSH_AT;
	b->data = xmalloc(b->cap);
	return b;
}

static void write_all(int fd, const char *p, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, p + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "cdpproxy: log write failed: %s\n", strerror(errno));
			return;
		}
		off += (size_t)n;
	}
}

/* The writer thread: writes what is handed over until told to stop and all
 * is written. */
static void *log_writer(void *arg)
{
	struct log *lg = arg;

	pthread_mutex_lock(&lg->mu);
	for (;;) {
		struct log_buf *b = lg->head;
		if (!b) {
			if (lg->stop)
				break;
			pthread_cond_wait(&lg->work, &lg->mu);
			continue;
		}
		lg->head = b->next;
		if (!lg->head)
			lg->tail = NULL;
		pthread_mutex_unlock(&lg->mu);
		write_all(lg->fd, b->data, b->len);
		if (b->cap > 2 * LOG_FLUSH_AT) {   /* grown by a large body: not kept */
			free(b->data);
			b->cap = 2 * LOG_FLUSH_AT;
			b->data = xmalloc(b->cap);
		}
		pthread_mutex_lock(&lg->mu);
		b->len = 0;
		b->next = lg->spare;
		lg->spare = b;
		lg->handed--;
		pthread_cond_signal(&lg->room);
	}
	pthread_mutex_unlock(&lg->mu);
	return NULL;
}

/* Starts the writer with every signal blocked: they are the main thread's. */
static int start_writer(struct log *lg)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&lg->writer, NULL, log_writer, lg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

struct log *log_open(const char *path, size_t body_max, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	struct log *lg;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open log %s: %s", path, strerror(errno));
		return NULL;
	}
	/* An existing file keeps its mode on open: records may hold secrets. */
	if (fchmod(fd, 0600) < 0) {
		snprintf(err, errlen, "cannot make log %s private: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	lg = xcalloc(1, sizeof *lg);
	lg->fd = fd;
	lg->body_max = body_max;
	lg->cur = log_buf_new();
	pthread_mutex_init(&lg->mu, NULL);
	pthread_cond_init(&lg->work, NULL);
	pthread_cond_init(&lg->room, NULL);
	if ((errno = start_writer(lg)) != 0) {
		snprintf(err, errlen, "cannot start the log writer for %s: %s", path, strerror(errno));
		log_destroy(lg);
		return NULL;
	}
	return lg;
}

static void reserve(struct log *lg, size_t n)
{
	if (lg->cur->len + n <= lg->cur->cap)
		return;
	while (lg->cur->len + n > lg->cur->cap)
		lg->cur->cap *= 2;
	lg->cur->data = xrealloc(lg->cur->data, lg->cur->cap);
}

static void put(struct log *lg, const char *s, size_t n)
{
	reserve(lg, n);
	memcpy(lg->cur->data + lg->cur->len, s, n);
	lg->cur->len += n;
}

/* A record is written at a cursor o, into room reserved for all of it
 * beforehand: one bounds check per record, not one per field. */
static inline char *at_bytes(char *o, const void *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}

#define AT_LIT(o, lit) at_bytes((o), (lit), sizeof(lit) - 1)

/* Writes v's decimal digits ending just before end; returns where they start.
 * By hand, two digits at a time: printf's parsing showed up in the profile
 * of a logged flood. */
static inline char *digits_before(char *end, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";

	while (v >= 100) {
		end -= 2;
		memcpy(end, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* How many decimal digits v has. */
static inline size_t dec_len(uint64_t v)
{
	size_t n = 1;

	for (uint64_t p = 10; n < 20 && v >= p; p *= 10)
		n++;
	return n;
}

/* The digits go where they belong at once: no copy through a small buffer
 * (a libc call per number, 3% of a logged run's profile). */
static inline char *at_uint(char *o, uint64_t v)
{
	size_t n = dec_len(v);

	digits_before(o + n, v);
	return o + n;
}

/* A short NUL-terminated name (dir, kind, action), byte by byte: shorter than
 * a strlen and a memcpy call for 2 to 8 bytes. */
static inline char *at_name(char *o, const char *s)
{
	while (*s)
		*o++ = *s++;
	return o;
}

static inline char *at_int(char *o, int64_t v)
{
	if (v < 0)
		*o++ = '-';
	return at_uint(o, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* The length of the valid UTF-8 sequence at s[0..n) (n > 0), or 0 for a bad
 * one: overlong forms, surrogates and code points past U+10FFFF are bad, as
 * they are to JSON parsers. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* A mask of the bytes of p[0..16) that a JSON string cannot hold as they
 * are: '"', '\\', below 0x20, or 0x80 and up (checked as UTF-8). The signed
 * compare takes the last two at once. */
static inline unsigned block_unplain(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i m = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
				 _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
					      _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));

	return (unsigned)_mm_movemask_epi8(m);
}
#endif

/* Copies r (< 16) bytes from s to t with at most two overlapping loads. */
static inline void copy_short(char *t, const char *s, size_t r)
{
	if (r >= 8) {
		memcpy(t, s, 8);
		memcpy(t + r - 8, s + r - 8, 8);
	} else if (r >= 4) {
		memcpy(t, s, 4);
		memcpy(t + r - 4, s + r - 4, 4);
	} else {
		for (size_t j = 0; j < r; j++)
			t[j] = s[j];
	}
}

/* Room at_json_str needs for n bytes: 2 + 6 n written at most, and its
 * 16-byte stores may reach 16 bytes past the end of what is written. */
#define JSON_STR_ROOM(n) (2 + 6 * (size_t)(n) + 16)

/* Writes s as a JSON string, escaping quotes, backslashes and control bytes
 * (see JSON_STR_ROOM). Bytes off the wire need not be UTF-8 (binary frames,
 * raw bytes inside a string): each byte of a bad sequence becomes U+FFFD so
 * the line stays JSON. */
static char *at_json_str(char *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c;
#if defined(__SSE2__)
		/* Plain runs (method names, session ids, most of a body) are
		 * copied 16 bytes at a time. */
		while (n - i >= 16) {
			unsigned m = block_unplain(s + i);
			size_t k = m ? (size_t)__builtin_ctz(m) : 16;
			memcpy(o, s + i, 16);
			o += k;
			i += k;
			if (m)
				break;
		}
		/* A shorter rest (a method name is one) in one look too, from a
		 * zero-padded copy: the bytes after s + n may not be readable. At
		 * a byte needing care it takes nothing: that is done below. */
		if (i < n && n - i < 16) {
			char t[16] = { 0 };
			size_t r = n - i, k;
			unsigned m;
			copy_short(t, s + i, r);
			m = block_unplain(t) & ((1u << r) - 1);
			k = m ? (size_t)__builtin_ctz(m) : r;
			memcpy(o, t, 16);
			o += k;
			i += k;
		}
		if (i == n)
			break;
#endif
		c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20) {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
		} else if (c < 0x80) {
			*o++ = (char)c;
		} else {
			size_t k = utf8_seq((const unsigned char *)s + i, n - i);
			if (k) {
				memcpy(o, s + i, k);
				o += k;
				i += k - 1;
			} else {
				memcpy(o, "\\ufffd", 6);
				o += 6;
			}
		}
	}
	*o++ = '"';
	return o;
}

/* The longest prefix of s no longer than max that does not split a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t n, size_t max)
{
	/* A sequence is at most 4 bytes: back up at most 3, so a binary body of
	 * stray continuation bytes is not cut to nothing. */
	if (n <= max)
		return n;
	for (int k = 0; k < 3 && max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80; k++)
		max--;
	return max;
}

void log_message(struct log *lg, const struct log_rec *r)
{
	uint64_t t = r->t ? r->t : util_now_us();
	char *o;

	/* Messages read together share their time: its digits are kept. */
	if (t != lg->t_last) {
		char *d = digits_before(lg->t_digits + sizeof lg->t_digits, t);
		lg->t_len = (size_t)(lg->t_digits + sizeof lg->t_digits - d);
		memmove(lg->t_digits, d, lg->t_len);
		lg->t_last = t;
	}
	/* The fixed keys (under 150 bytes), three short names (48), six numbers
	 * (120), t_digits copied whole (24), and the two strings. */
	reserve(lg, 342 + JSON_STR_ROOM(r->method_len) + JSON_STR_ROOM(r->session_len));
	o = lg->cur->data + lg->cur->len;
	o = AT_LIT(o, "{\"t\":");
	memcpy(o, lg->t_digits, sizeof lg->t_digits);
	o += lg->t_len;
	o = at_uint(AT_LIT(o, ",\"gen\":"), lg->gen);
	o = at_uint(AT_LIT(o, ",\"conn\":"), r->conn);
	o = at_name(AT_LIT(o, ",\"dir\":\""), r->dir);
	o = at_name(AT_LIT(o, "\",\"kind\":\""), r->kind);
	*o++ = '"';
	if (r->has_id)
		o = at_int(AT_LIT(o, ",\"id\":"), r->id);
	if (r->method)
		o = at_json_str(AT_LIT(o, ",\"method\":"), r->method, r->method_len);
	if (r->session)
		o = at_json_str(AT_LIT(o, ",\"session\":"), r->session, r->session_len);
	o = at_uint(AT_LIT(o, ",\"bytes\":"), r->bytes);
	if (r->has_rtt)
		o = at_uint(AT_LIT(o, ",\"rtt_us\":"), r->rtt_us);
	if (r->has_error)
		o = at_int(AT_LIT(o, ",\"error\":"), r->error);
	if (r->action) {
		o = at_name(AT_LIT(o, ",\"action\":\""), r->action);
		*o++ = '"';
	}
	if (r->by_proxy)
		o = AT_LIT(o, ",\"by\":\"proxy\"");
	lg->cur->len = (size_t)(o - lg->cur->data);
	if (lg->body_max && r->body) {
		size_t len = r->body_len, n;
		char *clean = lg->secrets ? NULL : redact_body(r->body, r->body_len, &len);
		const char *body = clean ? clean : r->body;
		n = utf8_cut(body, len, lg->body_max);
		reserve(lg, 64 + JSON_STR_ROOM(n));
		o = lg->cur->data + lg->cur->len;
		o = at_json_str(AT_LIT(o, ",\"body\":"), body, n);
		if (n < len)
			o = AT_LIT(o, ",\"truncated\":true");
		if (clean)
			o = AT_LIT(o, ",\"redacted\":true");
		lg->cur->len = (size_t)(o - lg->cur->data);
		free(clean);
	}
	put(lg, "}\n", 2);
	if (lg->cur->len >= LOG_FLUSH_AT)
		log_flush(lg);
}

void log_event(struct log *lg, uint64_t conn, const char *kind, json_t *fields)
{
	json_t *rec = json_pack("{s:I, s:I, s:I, s:s}", "t", (json_int_t)util_now_us(),
				"gen", (json_int_t)lg->gen, "conn", (json_int_t)conn, "kind", kind);
	char *line;

	json_object_update(rec, fields);
	json_decref(fields);
	line = json_dumps(rec, JSON_COMPACT);
	put(lg, line, strlen(line));
	put(lg, "\n", 1);
	free(line);
	json_decref(rec);
	if (lg->cur->len >= LOG_FLUSH_AT)
		log_flush(lg);
}

void log_show_secrets(struct log *lg)
{
	lg->secrets = 1;
}

void log_set_gen(struct log *lg, uint64_t gen)
{
	lg->gen = gen;
}

/* Hands the buffer to the writer and goes on in a written one (or a new
 * one); waits while LOG_BUFS_MAX are still to be written. */
void log_flush(struct log *lg)
{
	struct log_buf *b;

	if (!lg->cur->len)
		return;
	pthread_mutex_lock(&lg->mu);
	while (lg->handed >= LOG_BUFS_MAX)
		pthread_cond_wait(&lg->room, &lg->mu);
	lg->cur->next = NULL;
	if (lg->tail)
		lg->tail->next = lg->cur;
	else
		lg->head = lg->cur;
	lg->tail = lg->cur;
	lg->handed++;
	pthread_cond_signal(&lg->work);
	if ((b = lg->spare))
		lg->spare = b->next;
	pthread_mutex_unlock(&lg->mu);
	lg->cur = b ? b : log_buf_new();
}

/* Frees lg and its buffers; the writer is not running. */
static void log_destroy(struct log *lg)
{
	lg->cur->next = lg->spare;   /* freed with the spares */
	lg->spare = lg->cur;
	while (lg->spare) {
		struct log_buf *b = lg->spare;
		lg->spare = b->next;
		free(b->data);
		free(b);
	}
	pthread_cond_destroy(&lg->room);
	pthread_cond_destroy(&lg->work);
	pthread_mutex_destroy(&lg->mu);
	close(lg->fd);
	free(lg);
}

void log_close(struct log *lg)
{
	if (!lg)
		return;
	log_flush(lg);
	pthread_mutex_lock(&lg->mu);
	lg->stop = 1;
	pthread_cond_signal(&lg->work);
	pthread_mutex_unlock(&lg->mu);
	pthread_join(lg->writer, NULL);
	log_destroy(lg);
}
