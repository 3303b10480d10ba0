/* pipeleg: one peer over a pair of pipe fds (Chromium's --remote-debugging-pipe
 * framing): bytes in, whole NUL-ended messages out; and the core's queue
 * for that peer written back as NUL-ended messages. */
#include "pipeleg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util.h"

#define READ_CHUNK (256 * 1024)   /* room made before each read */
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

/* Hands over every whole message in in[0, in_len), of which the bytes from
 * old_len on are new (the older ones hold no NUL), and keeps the rest, or
 * only its count when it is a refused message. */
static void split(struct pipeleg *l, size_t old_len)
{
	size_t start = 0, pos = old_len, rest;
	char *nul;

	while ((nul = memchr(l->in + pos, 0, l->in_len - pos))) {
		size_t len = (size_t)(nul - (l->in + start));
		if (l->discarding) {
			refuse(l, l->discarding + len);
			l->discarding = 0;
		} else if (len > l->max_message) {
			refuse(l, len);
		} else {
			l->msgs_in++;
			l->bytes_in += len;
			l->ops->deliver(l->ctx, l->side, l->in + start, len);
		}
		start = pos = (size_t)(nul - l->in) + 1;
	}
	rest = l->in_len - start;
	if (l->discarding || rest > l->max_message) {
		/* Counted, not kept: memory stays at max_message and a chunk. */
		l->discarding += rest;
		l->in_len = 0;
	} else {
		if (start)
			memmove(l->in, l->in + start, rest);
		l->in_len = rest;
	}
	/* After a big message, give its memory back. */
	if (l->in_len < READ_CHUNK && l->in_cap > 4 * READ_CHUNK) {
		l->in = xrealloc(l->in, READ_CHUNK * 2);
		l->in_cap = READ_CHUNK * 2;
	}
}

int pipeleg_read(struct pipeleg *l, char *err, size_t errlen)
{
	for (int reads = 0; reads < READS_PER_CALL; reads++) {
		size_t old = l->in_len;
		ssize_t n;

		if (l->in_cap - l->in_len < READ_CHUNK) {
			/* Saturated: a max_message near SIZE_MAX must not wrap the limit. */
			size_t cap = l->in_cap * 2, limit = l->max_message > SIZE_MAX - READ_CHUNK ?
				SIZE_MAX : (size_t)l->max_message + READ_CHUNK;
			if (cap < l->in_len + READ_CHUNK)
				cap = l->in_len + READ_CHUNK;
			if (cap > limit)
				cap = limit;
			if (cap > l->in_cap) {
				l->in = xrealloc(l->in, cap);
				l->in_cap = cap;
			}
		}
		n = read(l->rfd, l->in + l->in_len, l->in_cap - l->in_len);
		if (n > 0) {
			l->in_len += (size_t)n;
			split(l, old);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (n < 0) {
			snprintf(err, errlen, "read: %s", strerror(errno));
			return -1;
		}
		/* The end: what has no NUL yet never will. */
		if (l->in_len || l->discarding)
			refuse(l, l->discarding + l->in_len);
		l->in_len = 0;
		l->discarding = 0;
		return 0;
	}
	return 1;
}

int pipeleg_write(struct pipeleg *l, struct queue *q, char *err, size_t errlen)
{
	static const char nul;

	while (q->head) {
		struct iovec iov[2 * IOV_MSGS];
		struct msg *m = q->head;
		int n_iov = 0;
		ssize_t n;

		/* Only the head can be partly written: head_sent counts its
		 * bytes and then its NUL. */
		for (size_t sent = l->head_sent; m && n_iov + 2 <= 2 * IOV_MSGS; m = m->next, sent = 0) {
			if (sent < m->len) {
				iov[n_iov].iov_base = MSG_DATA(m) + sent;
				iov[n_iov++].iov_len = m->len - sent;
			}
			iov[n_iov].iov_base = (void *)&nul;
			iov[n_iov++].iov_len = 1;
		}
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
			size_t left = q->head->len + 1 - l->head_sent;
			if ((size_t)n < left) {
				l->head_sent += (size_t)n;
				break;
			}
			n -= (ssize_t)left;
			l->head_sent = 0;
			l->msgs_out++;
			l->ops->written(l->ctx, l->side);
		}
	}
	return 1;
}

void pipeleg_free(struct pipeleg *l)
{
	free(l->in);
	l->in = NULL;
	l->in_len = l->in_cap = 0;
}
