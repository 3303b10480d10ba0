/* record_test: --record-bodies through the real core (route.c), the legs
 * replaced by recording queues: after Chrome's Network.loadingFinished the
 * proxy asks for the body on the request's own session, keeps the answer
 * from the client and logs it whole past --log-bodies' cut, counts it
 * against the connection's budget, and past the budget logs a
 * body_not_fetched record instead of asking; off, it asks for nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "route.h"
#include "tap.h"
#include "util.h"

static struct queue got[2];

/* The legs, as the core sees them: what it queued is taken at once (after
 * each call into route) and recorded; nothing is ever paused. */
static void take(struct core_conn *cc)
{
	struct msg *m;

	for (int s = DOWN; s <= UP; s++) {
		while ((m = queue_pop(&cc->out[s])))
			queue_push(&got[s], m);
		core_drained(cc, (enum side)s);
	}
}

static void feed(struct core_conn *cc, enum side from, const char *text)
{
	size_t n = strlen(text);
	struct msg *m = msg_new(n);

	memcpy(MSG_DATA(m), text, n);
	m->len = n;
	core_read_clock(cc->core, NULL);
	route_deliver(cc, from, m);
	take(cc);
}

/* The next message queued for side s, parsed (NULL: none). */
static json_t *next(enum side s)
{
	struct msg *m = queue_pop(&got[s]);
	json_t *j = m ? json_loadb((const char *)MSG_DATA(m), m->len, 0, NULL) : NULL;

	if (m)
		msg_free(m);
	return j;
}

static const char *str(json_t *j, const char *a, const char *b)
{
	json_t *v = json_object_get(j, a);

	return json_string_value(b ? json_object_get(v, b) : v);
}

#define FINISHED(rid, size) "{\"method\":\"Network.loadingFinished\",\"params\":{\"requestId\":\"" rid \
	"\",\"timestamp\":1.5,\"encodedDataLength\":" #size "},\"sessionId\":\"S1\"}"

int main(void)
{
	char dir[] = "/tmp/record_test.XXXXXX", path[256], err[256], answer[1024], line[4096], body[301];
	struct core core;
	struct core_conn cc = { 0 };
	struct log *lg;
	json_t *j, *whole = NULL, *skipped = NULL;
	json_int_t id;
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	lg = log_open(path, 64, err, sizeof err);   /* --log-bodies=64 */
	core_init(&core, NULL, lg, 1 << 20);
	core.record_budget = 200;
	core_conn_init(&core, &cc, NULL, "/devtools/browser/B");   /* route asks nothing of a leg */

	feed(&cc, UP, FINISHED("R1", 150));
	j = next(DOWN);
	is_str(str(j, "method", NULL), "Network.loadingFinished", "the event goes on to the client");
	json_decref(j);
	j = next(UP);
	is_str(str(j, "method", NULL), "Network.getResponseBody", "and the proxy asks Chrome for the body");
	is_str(str(j, "params", "requestId"), "R1", "of the request it finished");
	is_str(str(j, "sessionId", NULL), "S1", "on the request's own session");
	id = json_integer_value(json_object_get(j, "id"));
	ok(id >= PROXY_ID_BASE, "with an id of the proxy's own: %lld", (long long)id);
	json_decref(j);

	memset(body, 'x', 300);
	body[300] = '\0';
	snprintf(answer, sizeof answer, "{\"id\":%lld,\"result\":{\"body\":\"%s\",\"base64Encoded\":false},"
		 "\"sessionId\":\"S1\"}", (long long)id, body);
	feed(&cc, UP, answer);
	ok(!got[DOWN].head, "its answer is kept from the client");
	is_int((long long)cc.record_fetched, (long long)strlen(answer), "and counts against the budget");

	/* 300 of 200 bytes fetched: no more. */
	feed(&cc, UP, FINISHED("R2", 10));
	j = next(DOWN);
	is_str(str(j, "method", NULL), "Network.loadingFinished", "past the budget the event still goes on");
	json_decref(j);
	ok(!got[UP].head, "but no body is asked for");

	core.record_budget = 0;
	feed(&cc, UP, FINISHED("R3", 10));
	json_decref(next(DOWN));
	ok(!got[UP].head, "off: nothing is asked for");

	core_conn_free(&cc);
	core_free(&core);
	log_close(lg);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		json_t *r = json_loads(line, 0, NULL);
		const char *kind = str(r, "kind", NULL);
		if (kind && !strcmp(kind, "response") && str(r, "by", NULL) && !whole)
			whole = json_incref(r);
		if (kind && !strcmp(kind, "body_not_fetched") && !skipped)
			skipped = json_incref(r);
		json_decref(r);
	}
	if (f)
		fclose(f);
	ok(whole != NULL, "the answer is in the log, by the proxy");
	is_str(str(json_object_get(whole, "body"), "result", "body"), body,
	       "whole: 300 bytes of body past --log-bodies=64");
	ok(!json_object_get(whole, "truncated"), "not cut");
	is_str(str(whole, "method", NULL), "Network.getResponseBody", "under its command's method");
	ok(skipped != NULL, "the request past the budget has a body_not_fetched record");
	is_str(str(skipped, "requestId", NULL), "R2", "naming it");
	is_str(str(skipped, "session", NULL), "S1", "and its session");
	ok(json_integer_value(json_object_get(skipped, "budget")) == 200 &&
	   json_integer_value(json_object_get(skipped, "fetched")) == (json_int_t)strlen(answer),
	   "with the budget and what was fetched");
	json_decref(whole);
	json_decref(skipped);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
