/* log: JSON Lines records of every message and connection. Each message's
 * record is copied, as it is, into a buffer (a struct log_entry and its
 * strings: a few dozen instructions); log_flush formats what is buffered
 * (log_fmt.c, 40-130 ns a record) and writes it in one write(2). The event
 * loop calls it once a round, before the round's forwarded bytes are
 * written (proxy_run, conn_writeable): what the proxy forwarded is in the
 * kernel's hands before its peers can see it, so a SIGKILL loses none of
 * it. Nothing is dropped: what the file will not take (a full disk) is
 * counted lost and said on stderr. */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log_fmt.h"
#include "redact.h"
#include "util.h"

/* A buffer this full is written at once, in the middle of a round: the
 * memory a round's records take stays bounded. */
#define LOG_FLUSH_AT (256 * 1024)

struct log_buf {
	char *data;
	size_t len, cap;
};

struct log {
	int fd;
	size_t body_max;
	uint64_t gen;
	int secrets;
	struct log_buf cur;           /* entries since the last flush */
	struct log_buf text;          /* the same, formatted */
	struct log_fmt_clock clock;
	int cut_line;                 /* a failed write left part of a line in the file */
	uint64_t reported_us;         /* when the last write failure went to stderr */
	uint64_t lost_reported;
	uint64_t lost;                /* records that could not be written */
};

static void buf_init(struct log_buf *b)
{
	b->cap = 2 * LOG_FLUSH_AT;
	b->data = xmalloc(b->cap);
	b->len = 0;
}

/* Empties b, giving back what a large body grew it to. */
static void buf_reset(struct log_buf *b)
{
	b->len = 0;
	if (b->cap > 2 * LOG_FLUSH_AT) {
		free(b->data);
		buf_init(b);
	}
}

/* Says on stderr, once a second at most, that records are lost. */
static void report_lost(struct log *lg, int err)
{
	uint64_t now = util_mono_us();

	if (lg->reported_us && now - lg->reported_us < 1000000)
		return;
	fprintf(stderr, "cdpproxy: log write failed: %s: %llu records lost (%llu since the last report)\n",
		strerror(err), (unsigned long long)lg->lost, (unsigned long long)(lg->lost - lg->lost_reported));
	lg->reported_us = now;
	lg->lost_reported = lg->lost;
}

/* Counts the records of p[off..len) lost (one a line) after a failed write,
 * and takes a line the write cut (p[..off) ends mid-line) off the end of a
 * regular file, so the file stays one record a line; where that cannot be
 * done, the next write ends the cut line first. */
static void lose(struct log *lg, const char *p, size_t off, size_t len, int err)
{
	size_t lost = 0, part = 0;

	for (const char *q = p + off; (q = memchr(q, '\n', len - (size_t)(q - p))); q++)
		lost++;
	while (part < off && p[off - part - 1] != '\n')
		part++;
	if (part) {
		off_t end = lseek(lg->fd, 0, SEEK_END);
		if (end < 0 || ftruncate(lg->fd, end - (off_t)part) < 0)
			lg->cut_line = 1;
	}
	lg->lost += lost;
	report_lost(lg, err);
}

/* Writes len bytes of whole lines, one record each; what cannot be written
 * is lost (lose). */
static void write_text(struct log *lg, const char *p, size_t len)
{
	size_t off = 0;

	if (lg->cut_line) {   /* nothing goes after a cut line until it is ended */
		if (write(lg->fd, "\n", 1) != 1) {
			lose(lg, p, 0, len, errno);
			return;
		}
		lg->cut_line = 0;
	}
	while (off < len) {
		ssize_t n = write(lg->fd, p + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			lose(lg, p, off, len, n < 0 ? errno : ENOSPC);
			return;
		}
		off += (size_t)n;
	}
}

/* The file path names, opened for appending as the file itself: created
 * (mode 0600, and ours then) when it is missing, else opened without
 * following a symlink and without waiting for a FIFO's reader. -1 with
 * errno, ELOOP for a symlink. */
static int open_file(const char *path)
{
	for (int tries = 0; tries < 8; tries++) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)   /* gone in between: create it */
			return fd;
	}
	return -1;
}

static const char *type_name(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
	       S_ISBLK(m) ? "a block device" : "not a regular file";
}

struct log *log_open(const char *path, size_t body_max, char *err, size_t errlen)
{
	int fd = open_file(path);
	const char *why = NULL;
	struct log *lg;
	struct stat st;

	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot open log %s: %s", path,
			 e == ELOOP ? "a symbolic link (not followed: name the file itself)" :
			 e == ENXIO ? "a FIFO or socket, not a regular file" : strerror(e));
		return NULL;
	}
	/* Only a regular file, or a character device (/dev/null): a FIFO would
	 * hold every round, a block device is no log. Nothing is chmod-ed: a
	 * file made here is 0600 already; an existing one (or a device) is not
	 * ours to change. */
	if (fstat(fd, &st) < 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
		why = type_name(st.st_mode);
	else if (fcntl(fd, F_SETFL, O_APPEND) < 0)   /* writes wait again */
		why = strerror(errno);
	if (why) {
		snprintf(err, errlen, "cannot open log %s: %s", path, why);
		close(fd);
		return NULL;
	}
	lg = xcalloc(1, sizeof *lg);
	lg->fd = fd;
	lg->body_max = body_max;
	buf_init(&lg->cur);
	buf_init(&lg->text);
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

/* Room at the end of lg->cur for an entry of n bytes in all (header
 * included), zeroed header; returns it. */
static struct log_entry *entry_new(struct log *lg, size_t n)
{
	struct log_entry *e;

	n = LOG_ENTRY_ALIGN(n);
	reserve(&lg->cur, n);
	e = (struct log_entry *)(void *)(lg->cur.data + lg->cur.len);
	memset(e, 0, sizeof *e);
	e->size = (uint32_t)n;
	lg->cur.len += n;
	return e;
}

void log_message(struct log *lg, const struct log_rec *r)
{
	size_t blen = 0, n = 0;
	int json = 0;
	char *clean = NULL, *o;
	const char *body = NULL;
	struct log_entry *e;

	if (lg->body_max && r->body) {
		/* An entry's body is at most UINT32_MAX bytes (a message's are at most 4 GiB). */
		size_t len = r->body_len, keep = r->body_whole ? UINT32_MAX : lg->body_max;
		clean = lg->secrets ? NULL : redact_body_head(r->body, r->body_len, keep, &len);
		body = clean ? clean : r->body;
		blen = log_fmt_utf8_cut(body, len, keep);
		/* A long body was redacted by its head: it still had all its bytes. */
		n = r->body_len > REDACT_HEAD_SPAN(keep) ? r->body_len : len;
		/* Whole and JSON: a message the scanner took (its kind says so), or
		 * jansson's redacted copy of one. */
		json = blen && blen == n && strcmp(r->kind, "invalid") && strcmp(r->kind, "binary") &&
		       !(clean && !strcmp(clean, REDACTED_NOT_JSON));
	}
	e = entry_new(lg, sizeof *e + r->method_len + r->session_len + blen);
	e->t = r->t ? r->t : util_now_us();
	e->gen = lg->gen;
	e->conn = r->conn;
	e->dir = side_dir[r->to];
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
		memcpy(o, r->method, r->method_len);
		o += r->method_len;
	}
	if (r->session) {
		e->has_session = 1;
		e->session_len = (uint32_t)r->session_len;
		memcpy(o, r->session, r->session_len);
		o += r->session_len;
	}
	if (body) {
		e->has_body = 1;
		e->body_len = (uint32_t)blen;
		e->body_cut = blen < n;
		e->body_bytes = n;
		e->body_json = (uint8_t)json;
		e->redacted = clean != NULL;
		memcpy(o, body, blen);
		free(clean);
	}
	if (lg->cur.len >= LOG_FLUSH_AT)
		log_flush(lg);
}

void log_event(struct log *lg, uint64_t conn, const char *kind, json_t *fields)
{
	log_event_at(lg, util_now_us(), conn, kind, fields);
}

void log_event_at(struct log *lg, uint64_t t_us, uint64_t conn, const char *kind, json_t *fields)
{
	size_t n;
	char *line = log_fmt_event(t_us, lg->gen, conn, kind, fields, &n);
	struct log_entry *e = entry_new(lg, sizeof *e + n);

	e->text_len = (uint32_t)n;
	memcpy(e + 1, line, n);
	free(line);
	json_decref(fields);
	if (lg->cur.len >= LOG_FLUSH_AT)
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

/* Formats what is buffered and writes it, in one write unless it is
 * large (LOG_FLUSH_AT); nothing at all when nothing is buffered. */
void log_flush(struct log *lg)
{
	struct log_buf *b = &lg->cur, *t = &lg->text;

	if (!b->len)
		return;
	for (size_t off = 0; off < b->len; off += ((const struct log_entry *)(const void *)(b->data + off))->size) {
		const struct log_entry *e = (const void *)(b->data + off);
		reserve(t, log_fmt_room(e));
		t->len = (size_t)(log_fmt_entry(t->data + t->len, e, &lg->clock) - t->data);
		if (t->len >= LOG_FLUSH_AT) {
			write_text(lg, t->data, t->len);
			t->len = 0;
		}
	}
	if (t->len)
		write_text(lg, t->data, t->len);
	buf_reset(t);
	buf_reset(b);
}

uint64_t log_lost(const struct log *lg)
{
	return lg ? lg->lost : 0;
}

int log_failed(const struct log *lg)
{
	return log_lost(lg) > 0;
}

uint64_t log_close(struct log *lg)
{
	uint64_t lost;

	if (!lg)
		return 0;
	log_flush(lg);
	lost = lg->lost;
	if (lost)
		fprintf(stderr, "cdpproxy: log write failed: %llu records lost in all\n",
			(unsigned long long)lost);
	free(lg->cur.data);
	free(lg->text.data);
	close(lg->fd);
	free(lg);
	return lost;
}
