/* log: JSON Lines records of every message and connection. The proxy's
 * thread copies each message's record, as it is, into a buffer (a struct
 * log_entry and its strings: a few dozen instructions); full buffers go, in
 * order, to a writer thread that formats the records and writes them to the
 * file, so that neither formatting, nor the write, nor a slow disk holds up
 * forwarding. A bounded number of buffers wait for the writer; when all are
 * taken the proxy waits too: nothing is dropped. */
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

/* A buffer this full goes to the writer. Each hand-over may wake the writer,
 * and a wake-up costs it 20-25 us of CPU on a 2-vCPU VM: 64 KiB buffers (one
 * per 200-240 answers) took a quarter of its CPU in a pipelined run. */
#define LOG_FLUSH_AT (256 * 1024)
#define LOG_BUFS_MAX 4            /* buffers waiting for the writer, at most (1 MiB) */

/* A buffer handed to the writer, or written and kept for reuse. */
struct log_buf {
	char *data;
	size_t len, cap;
	struct log_buf *next;
};

/* A record as the proxy's thread hands it over, followed by its method,
 * session and body bytes (or, for text_len > 0, a line formatted already). */
struct log_entry {
	uint32_t size;                /* of the entry, bytes included; a multiple of 8 */
	uint32_t text_len;
	uint64_t t, gen, conn, bytes, rtt_us;
	int64_t id, error;
	const char *dir, *kind, *action;   /* static strings */
	uint32_t method_len, session_len, body_len;
	uint8_t has_id, has_rtt, has_error, by_proxy, has_method, has_session;
	uint8_t has_body, body_cut, redacted;
};

#define ENTRY_ALIGN(n) (((n) + 7) & ~(size_t)7)

struct log {
	int fd;
	size_t body_max;
	uint64_t gen;
	int secrets;
	struct log_buf *cur;          /* the buffer entries are copied into */
	/* The writer thread's own. */
	struct log_buf *text;         /* records formatted, to be written */
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
static void write_entries(struct log *lg, const struct log_buf *b);

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
		write_entries(lg, b);
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
	lg->text = log_buf_new();
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

/* Room for n more bytes in b. */
static void reserve(struct log_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	while (b->len + n > b->cap)
		b->cap *= 2;
	b->data = xrealloc(b->data, b->cap);
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

/* Room at the end of lg->cur for an entry of n bytes in all (header
 * included), zeroed header; returns it. */
static struct log_entry *entry_new(struct log *lg, size_t n)
{
	struct log_entry *e;

	n = ENTRY_ALIGN(n);
	reserve(lg->cur, n);
	e = (struct log_entry *)(void *)(lg->cur->data + lg->cur->len);
	memset(e, 0, sizeof *e);
	e->size = (uint32_t)n;
	lg->cur->len += n;
	return e;
}

void log_message(struct log *lg, const struct log_rec *r)
{
	size_t blen = 0, n = 0;
	char *clean = NULL, *o;
	const char *body = NULL;
	struct log_entry *e;

	if (lg->body_max && r->body) {
		size_t len = r->body_len;
		clean = lg->secrets ? NULL : redact_body(r->body, r->body_len, &len);
		body = clean ? clean : r->body;
		blen = utf8_cut(body, len, lg->body_max);
		n = len;
	}
	e = entry_new(lg, sizeof *e + r->method_len + r->session_len + blen);
	e->t = r->t ? r->t : util_now_us();
	e->gen = lg->gen;
	e->conn = r->conn;
	e->dir = r->dir;
	e->kind = r->kind;
	e->action = r->action;
	e->has_id = (uint8_t)!!r->has_id;
	e->id = r->id;
	e->bytes = r->bytes;
	e->has_rtt = (uint8_t)!!r->has_rtt;
	e->rtt_us = r->rtt_us;
	e->has_error = (uint8_t)!!r->has_error;
	e->error = r->error;
	e->by_proxy = (uint8_t)!!r->by_proxy;
	o = (char *)(e + 1);
	if (r->method) {
		e->has_method = 1;
		e->method_len = (uint32_t)r->method_len;
		o = at_bytes(o, r->method, r->method_len);
	}
	if (r->session) {
		e->has_session = 1;
		e->session_len = (uint32_t)r->session_len;
		o = at_bytes(o, r->session, r->session_len);
	}
	if (body) {
		e->has_body = 1;
		e->body_len = (uint32_t)blen;
		e->body_cut = blen < n;
		e->redacted = clean != NULL;
		at_bytes(o, body, blen);
		free(clean);
	}
	if (lg->cur->len >= LOG_FLUSH_AT)
		log_flush(lg);
}

/* The writer: formats entry e at the end of lg->text. */
static void format_entry(struct log *lg, const struct log_entry *e)
{
	const char *method = (const char *)(e + 1), *session = method + e->method_len;
	const char *body = session + e->session_len;
	char *o;

	if (e->text_len) {
		reserve(lg->text, e->text_len);
		memcpy(lg->text->data + lg->text->len, method, e->text_len);
		lg->text->len += e->text_len;
		return;
	}
	/* Records read together share their time: its digits are kept. */
	if (e->t != lg->t_last) {
		char *d = digits_before(lg->t_digits + sizeof lg->t_digits, e->t);
		lg->t_len = (size_t)(lg->t_digits + sizeof lg->t_digits - d);
		memmove(lg->t_digits, d, lg->t_len);
		lg->t_last = e->t;
	}
	/* The fixed keys (under 150 bytes), three short names (48), six numbers
	 * (120), t_digits copied whole (24), the strings, and the end. */
	reserve(lg->text, 342 + JSON_STR_ROOM(e->method_len) + JSON_STR_ROOM(e->session_len) +
		(e->has_body ? 64 + JSON_STR_ROOM(e->body_len) : 0));
	o = lg->text->data + lg->text->len;
	o = AT_LIT(o, "{\"t\":");
	memcpy(o, lg->t_digits, sizeof lg->t_digits);
	o += lg->t_len;
	o = at_uint(AT_LIT(o, ",\"gen\":"), e->gen);
	o = at_uint(AT_LIT(o, ",\"conn\":"), e->conn);
	o = at_name(AT_LIT(o, ",\"dir\":\""), e->dir);
	o = at_name(AT_LIT(o, "\",\"kind\":\""), e->kind);
	*o++ = '"';
	if (e->has_id)
		o = at_int(AT_LIT(o, ",\"id\":"), e->id);
	if (e->has_method)
		o = at_json_str(AT_LIT(o, ",\"method\":"), method, e->method_len);
	if (e->has_session)
		o = at_json_str(AT_LIT(o, ",\"session\":"), session, e->session_len);
	o = at_uint(AT_LIT(o, ",\"bytes\":"), e->bytes);
	if (e->has_rtt)
		o = at_uint(AT_LIT(o, ",\"rtt_us\":"), e->rtt_us);
	if (e->has_error)
		o = at_int(AT_LIT(o, ",\"error\":"), e->error);
	if (e->action) {
		o = at_name(AT_LIT(o, ",\"action\":\""), e->action);
		*o++ = '"';
	}
	if (e->by_proxy)
		o = AT_LIT(o, ",\"by\":\"proxy\"");
	if (e->has_body) {
		o = at_json_str(AT_LIT(o, ",\"body\":"), body, e->body_len);
		if (e->body_cut)
			o = AT_LIT(o, ",\"truncated\":true");
		if (e->redacted)
			o = AT_LIT(o, ",\"redacted\":true");
	}
	o = AT_LIT(o, "}\n");
	lg->text->len = (size_t)(o - lg->text->data);
}

/* The writer: formats the entries of b and writes them, LOG_FLUSH_AT or
 * more bytes a write. */
static void write_entries(struct log *lg, const struct log_buf *b)
{
	for (size_t off = 0; off < b->len; off += ((const struct log_entry *)(const void *)(b->data + off))->size) {
		format_entry(lg, (const struct log_entry *)(const void *)(b->data + off));
		if (lg->text->len >= LOG_FLUSH_AT) {
			write_all(lg->fd, lg->text->data, lg->text->len);
			lg->text->len = 0;
		}
	}
	if (lg->text->len)
		write_all(lg->fd, lg->text->data, lg->text->len);
	lg->text->len = 0;
	if (lg->text->cap > 2 * LOG_FLUSH_AT) {   /* grown by a large body: not kept */
		free(lg->text->data);
		lg->text->cap = 2 * LOG_FLUSH_AT;
		lg->text->data = xmalloc(lg->text->cap);
	}
}

void log_event(struct log *lg, uint64_t conn, const char *kind, json_t *fields)
{
	json_t *rec = json_pack("{s:I, s:I, s:I, s:s}", "t", (json_int_t)util_now_us(),
				"gen", (json_int_t)lg->gen, "conn", (json_int_t)conn, "kind", kind);
	char *line;
	size_t n;
	struct log_entry *e;

	json_object_update(rec, fields);
	json_decref(fields);
	line = json_dumps(rec, JSON_COMPACT);
	n = strlen(line);
	e = entry_new(lg, sizeof *e + n + 1);
	e->text_len = (uint32_t)(n + 1);
	memcpy(e + 1, line, n);
	((char *)(e + 1))[n] = '\n';
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
	lg->text->next = lg->cur;
	lg->spare = lg->text;
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
