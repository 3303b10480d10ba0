/* queue: the byte-counted FIFOs messages wait in. Pure. */
#include "queue.h"

void queue_push(struct queue *q, struct msg *m)
{
	m->next = NULL;
	if (q->tail)
		q->tail->next = m;
	else
		q->head = m;
	q->tail = m;
	q->bytes += msg_cost(m);
	q->n++;
}

struct msg *queue_pop(struct queue *q)
{
	struct msg *m = q->head;

	if (!m)
		return NULL;
	q->head = m->next;
	if (!q->head)
		q->tail = NULL;
	q->bytes -= msg_cost(m);
	q->n--;
	return m;
}

void queue_free_head(struct queue *q)
{
	msg_free(queue_pop(q));
}

void queue_clear(struct queue *q)
{
	struct msg *m;

	while ((m = queue_pop(q)))
		msg_free(m);
}
