/* queue: the byte-counted FIFOs messages wait in. Pure. */
#ifndef CDPPROXY_QUEUE_H
#define CDPPROXY_QUEUE_H

#include <stddef.h>

#include "msg.h"

struct queue {
	struct msg *head, *tail;
	size_t bytes;                 /* the messages' costs (msg_cost): memory, not lengths */
	size_t n;
};

void queue_push(struct queue *q, struct msg *m);
/* Takes the head off q and returns it (NULL when empty). */
struct msg *queue_pop(struct queue *q);
/* Takes the head off q and frees it: a leg wrote it. */
void queue_free_head(struct queue *q);
void queue_clear(struct queue *q);

#endif
