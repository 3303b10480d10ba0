/* core_test: the connection records a leg reports (leg.h: leg_report_*,
 * leg_too_large), in one schema whatever the leg: the same keys for a
 * WebSocket and a pipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "leg.h"
#include "tap.h"

/* The record's keys, sorted, joined by ','. */
static const char *keys_of(json_t *r, char *out, size_t n)
{
	const char *k[32];
	size_t m = 0, used = 0;
	const char *key;
	json_t *v;

	json_object_foreach(r, key, v)
		if (m < 32)
			k[m++] = key;
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && strcmp(k[j - 1], k[j]) > 0; j--) {
			const char *t = k[j];
			k[j] = k[j - 1];
			k[j - 1] = t;
		}
	out[0] = '\0';
	for (size_t i = 0; i < m; i++)
		used += (size_t)snprintf(out + used, used < n ? n - used : 0, "%s%s", i ? "," : "", k[i]);
	return out;
}

/* One leg's life as its reports: opened, a message too large, both sides
 * closed. */
static void one_leg(struct core *core, const char *leg, const char *upstream, const char *by,
		    int code, const char *reason)
{
	struct core_conn cc = { 0 };

	leg_conn_init(core, &cc, NULL, "/devtools/browser");   /* nothing here asks the leg */
	leg_report_open(&cc, leg, upstream);
	leg_too_large(&cc, DOWN, 300u << 20);
	leg_report_close(&cc, DOWN, by, code, reason);
	leg_report_close(&cc, UP, by, code, reason);
	leg_conn_free(&cc);
}

int main(void)
{
	char dir[] = "/tmp/core_test.XXXXXX", path[256], err[256], line[4096], keys[2][512];
	struct core core;
	struct log *lg;
	json_t *recs = json_array(), *r;
	FILE *f;
	size_t i;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	lg = log_open(path, 0, err, sizeof err);
	ok(lg != NULL, "log opened: %s", lg ? "" : err);
	core_init(&core, NULL, lg, 1 << 20);
	core.max_message = 256u << 20;
	one_leg(&core, "websocket", "127.0.0.1:9222", "client", 1000, "bye");
	one_leg(&core, "pipe", "/usr/bin/chromium", "upstream", 1000, "");
	core_free(&core);
	log_close(lg);

	f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		r = json_loads(line, 0, NULL);
		if (r && strcmp(json_string_value(json_object_get(r, "kind")), "policy"))
			json_array_append(recs, r);
		json_decref(r);
	}
	if (f)
		fclose(f);
	is_int(json_array_size(recs), 8, "four records a leg");
	for (i = 0; i < 4 && json_array_size(recs) == 8; i++) {
		json_t *ws = json_array_get(recs, i), *pipe = json_array_get(recs, 4 + i);
		is_str(keys_of(ws, keys[0], sizeof keys[0]), keys_of(pipe, keys[1], sizeof keys[1]),
		       "%s: the same keys on both legs", json_string_value(json_object_get(ws, "kind")));
	}
	if (json_array_size(recs) == 8) {
		is_str(keys_of(json_array_get(recs, 0), keys[0], sizeof keys[0]),
		       "client,conn,gen,kind,leg,path,t,upstream", "open's keys");
		is_str(json_string_value(json_object_get(json_array_get(recs, 4), "leg")), "pipe", "open: its leg");
		is_str(json_string_value(json_object_get(json_array_get(recs, 4), "path")), "/devtools/browser",
		       "open: the connection's path");
		is_str(keys_of(json_array_get(recs, 1), keys[0], sizeof keys[0]),
		       "bytes_at_least,conn,from,gen,kind,max,t", "too_large's keys");
		is_str(json_string_value(json_object_get(json_array_get(recs, 1), "from")), "client",
		       "too_large: from the client");
		is_str(keys_of(json_array_get(recs, 2), keys[0], sizeof keys[0]),
		       "by,code,conn,gen,kind,reason,side,t", "close's keys");
		is_str(json_string_value(json_object_get(json_array_get(recs, 3), "side")), "upstream",
		       "close: a record per side");
		is_str(json_string_value(json_object_get(json_array_get(recs, 6), "reason")), "",
		       "close: no reason is \"\"");
	}
	json_decref(recs);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
