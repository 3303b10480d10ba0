/* pipeleg: one peer over a pair of pipe fds (Chromium's --remote-debugging-pipe
 * framing): bytes in, whole NUL-ended messages out, a large one cut through
 * as it comes; and the core's queue for that peer written back as
 * NUL-ended messages. */
#include "pipeleg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util.h"

#define READS_PER_CALL 16         /* then the other fds get their turn */
#define IOV_MSGS 32               /* messages (and their NULs) offered to one writev */

static void set_fd_flags(int fd)
{
	if (fd < 0)
		return;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
}

void pipeleg_init(struct pipeleg *l, int side, int rfd, int wfd, uint64_t max_message,
		  const struct pipeleg_ops *ops, void *ctx)
{
	memset(l, 0, sizeof *l);
	l->side = side;
	l->rfd = rfd;
	l->wfd = wfd;
	l->ops = ops;
	l->ctx = ctx;
	l->max_message = max_message;
	set_fd_flags(rfd);
	set_fd_flags(wfd);
}

static void refuse(struct pipeleg *l, uint64_t bytes)
{
	l->refused++;
	l->refused_bytes += bytes;
	if (l->ops->refused)
		l->ops->refused(l->ctx, l->side, bytes);
}

/* The room a buffer of len bytes grows to for a read: doubled, at least a
 * read's room, at most max_message and a read's room (saturated: a
 * max_message near SIZE_MAX must not wrap the limit). */
static size_t room_for(const struct pipeleg *l, size_t cap, size_t len)
{
	size_t limit = l->max_message > SIZE_MAX - PIPELEG_READ_CHUNK ? SIZE_MAX :
		       (size_t)l->max_message + PIPELEG_READ_CHUNK;

	cap *= 2;
	if (cap < len + PIPELEG_READ_CHUNK)
		cap = len + PIPELEG_READ_CHUNK;
	return cap > limit ? limit : cap;
}

/* Hands over every whole message in in[0, in_len), of which the bytes from
 * old_len on are new (the older ones hold no NUL), and keeps the rest, or
 * only its count when it is a refused message. */
static void split(struct pipeleg *l, size_t old_len)
{
	size_t start = 0, pos = old_len, rest;
	char *nul;

	while ((nul = memchr(l->in + pos, 0, l->in_len - pos))) {
		size_t len = (size_t)(nul - (l->in + start));
		if (l->dropping) {
			l->dropping = 0;
		} else if (l->discarding) {
			refuse(l, l->discarding + len);
			l->discarding = 0;
		} else if (len > l->max_message) {
			refuse(l, len);
		} else {
			struct msg *m = msg_new(len);
			memcpy(MSG_DATA(m), l->in + start, len);
			m->len = len;
			l->msgs_in++;
			l->bytes_in += len;
			l->ops->deliver(l->ctx, l->side, m);
		}
		l->rx_asked = 0;
		start = pos = (size_t)(nul - l->in) + 1;
	}
	rest = l->in_len - start;
	if (l->dropping) {
		l->in_len = 0;
	} else if (l->discarding || rest > l->max_message) {
		/* Counted, not kept: memory stays at max_message and a chunk. */
		l->discarding += rest;
		l->in_len = 0;
	} else {
		if (start)
			memmove(l->in, l->in + start, rest);
		l->in_len = rest;
	}
	/* After a big message, give its memory back. */
	if (l->in_len < PIPELEG_READ_CHUNK && l->in_cap > 4 * PIPELEG_READ_CHUNK) {
		l->in = xrealloc(l->in, PIPELEG_READ_CHUNK * 2);
		l->in_cap = PIPELEG_READ_CHUNK * 2;
	}
}

/* The message coming in in[0, in_len), over cut_min and no NUL yet, is
 * offered to begin once: taken, it moves into a buffer of its own, which
 * the leg reads into from now on (read_rx). */
static void offer(struct pipeleg *l)
{
	struct msg *m;
	int rc;

	if (!l->ops->begin || !l->cut_min || l->rx_asked || l->discarding || l->dropping ||
	    l->in_len <= l->cut_min)
		return;
	m = msg_new(room_for(l, l->in_len, l->in_len));
	memcpy(MSG_DATA(m), l->in, l->in_len);
	m->len = l->in_len;
	if ((rc = l->ops->begin(l->ctx, l->side, m, 0)) <= 0) {
		msg_free(m);
		l->rx_asked = rc == 0;
		return;
	}
	l->rx = m;
	l->in_len = 0;
	if (l->in_cap > 4 * PIPELEG_READ_CHUNK) {
		l->in = xrealloc(l->in, PIPELEG_READ_CHUNK * 2);
		l->in_cap = PIPELEG_READ_CHUNK * 2;
	}
}

/* The cut-through message m is cut (over max_message, or its sender's
 * end): the leg lets go of it and its writer is told. */
static void rx_cut(struct pipeleg *l, struct msg *m, size_t old_cost)
{
	l->rx = NULL;
	m->cut = 1;
	l->ops->grew(l->ctx, l->side, m, old_cost);
}

/* One read into the cut-through message's own buffer: its bytes are
 * reported as they come; at its NUL it is whole, and what follows the NUL
 * goes to in, to be split as any read. Returns what read returned. */
static ssize_t read_rx(struct pipeleg *l)
{
	struct msg *m = l->rx;
	size_t old_cost = msg_cost(m), k, rest;
	unsigned char *at;
	char *nul;
	ssize_t n;

	if (m->cap - m->len < PIPELEG_READ_CHUNK) {
		size_t cap = room_for(l, m->cap, m->len);
		if (cap > m->cap)
			msg_grow(m, cap);
	}
	at = MSG_DATA(m) + m->len;
	if ((n = read(l->rfd, at, m->cap - m->len)) <= 0) {
		if (msg_cost(m) != old_cost)   /* its buffer grew all the same */
			l->ops->grew(l->ctx, l->side, m, old_cost);
		return n;
	}
	if (!(nul = memchr(at, 0, (size_t)n))) {
		m->len += (size_t)n;
		if (m->len > l->max_message) {   /* its rest is counted, not kept */
			l->discarding = m->len;
			rx_cut(l, m, old_cost);
		} else {
			l->ops->grew(l->ctx, l->side, m, old_cost);
		}
		return n;
	}
	k = (size_t)(nul - (char *)at);
	rest = (size_t)n - k - 1;
	m->len += k;
	if (m->len > l->max_message) {
		refuse(l, m->len);
		rx_cut(l, m, old_cost);
	} else {
		l->rx = NULL;
		l->msgs_in++;
		l->bytes_in += m->len;
		m->want = m->len;
		l->ops->grew(l->ctx, l->side, m, old_cost);
		l->ops->deliver(l->ctx, l->side, m);
	}
	if (l->in_cap < rest) {
		l->in = xrealloc(l->in, rest);
		l->in_cap = rest;
	}
	memcpy(l->in, nul + 1, rest);
	l->in_len = rest;
	split(l, 0);
	offer(l);
	return n;
}

int pipeleg_read(struct pipeleg *l, char *err, size_t errlen)
{
	for (int reads = 0; reads < READS_PER_CALL && !l->hold; reads++) {
		ssize_t n;

		if (l->rx) {
			n = read_rx(l);
		} else {
			size_t old = l->in_len;
			if (l->in_cap - l->in_len < PIPELEG_READ_CHUNK) {
				size_t cap = room_for(l, l->in_cap, l->in_len);
				if (cap > l->in_cap) {
					l->in = xrealloc(l->in, cap);
					l->in_cap = cap;
				}
			}
			n = read(l->rfd, l->in + l->in_len, l->in_cap - l->in_len);
			if (n > 0) {
				l->in_len += (size_t)n;
				split(l, old);
				offer(l);
			}
		}
		if (n > 0)
			continue;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (n < 0) {
			snprintf(err, errlen, "read: %s", strerror(errno));
			return -1;
		}
		/* The end: what has no NUL yet never will. */
		if (l->rx) {
			refuse(l, l->rx->len);
			rx_cut(l, l->rx, msg_cost(l->rx));
		} else if ((l->in_len || l->discarding) && !l->dropping) {
			refuse(l, l->discarding + l->in_len);
		}
		l->in_len = 0;
		l->discarding = 0;
		l->dropping = 0;
		l->rx_asked = 0;
		return 0;
	}
	return 1;
}

struct msg *pipeleg_rx_release(struct pipeleg *l)
{
	struct msg *m = l->rx;

	if (!m)
		return NULL;
	l->rx = NULL;
	l->dropping = 1;   /* its rest, up to its NUL, goes nowhere */
	return m;
}

int pipeleg_write(struct pipeleg *l, struct queue *q, char *err, size_t errlen)
{
	static const char nul;

	while (q->head) {
		struct iovec iov[2 * IOV_MSGS];
		struct msg *m = q->head;
		int n_iov = 0;
		ssize_t n;

		/* A cut-through message whose sender went: dropped if none of
		 * it went, else its reader cannot be given a whole one. */
		if (!msg_whole(m) && m->cut) {
			if (l->head_sent) {
				snprintf(err, errlen, "a message was cut short after %zu bytes of it went",
					 l->head_sent);
				return -1;
			}
			queue_free_head(q);
			continue;
		}
		if (!msg_whole(m) && l->head_sent == m->len)
			return 2;   /* all of it that came is written */
		/* Only the head can be partly written: head_sent counts its
		 * bytes and then its NUL. A cut-through one goes as far as its
		 * bytes have come, and nothing after it. */
		for (size_t sent = l->head_sent; m && n_iov + 2 <= 2 * IOV_MSGS; m = m->next, sent = 0) {
			if (sent < m->len) {
				iov[n_iov].iov_base = MSG_DATA(m) + sent;
				iov[n_iov++].iov_len = m->len - sent;
			}
			if (!msg_whole(m))
				break;
			iov[n_iov].iov_base = (void *)&nul;
			iov[n_iov++].iov_len = 1;
		}
		if (!n_iov)
			return 2;   /* the head is written, a cut-through one after it has no bytes yet */
		n = writev(l->wfd, iov, n_iov);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0) {
			snprintf(err, errlen, "write: %s", strerror(errno));
			return -1;
		}
		l->bytes_out += (size_t)n;
		while (n > 0) {
			int whole = msg_whole(q->head);
			size_t left = q->head->len + (size_t)whole - l->head_sent;
			if ((size_t)n < left || !whole) {
				l->head_sent += (size_t)n;
				break;
			}
			n -= (ssize_t)left;
			l->head_sent = 0;
			l->msgs_out++;
			queue_free_head(q);
		}
	}
	return 1;
}

void pipeleg_free(struct pipeleg *l)
{
	free(l->in);
	l->in = NULL;
	l->in_len = l->in_cap = 0;
	l->rx = NULL;   /* a cut-through one is its queue's */
}
