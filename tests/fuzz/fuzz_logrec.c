/* fuzz_logrec: libFuzzer driver for the log reader (tools/common/logrec.c,
 * logagg.c) and cdplog's views (summary, pairs, timeline, har): any bytes as
 * a log file. Oracles: every record accepted re-serialises to JSON that parses
 * back equal, with the fields read from it; a body's params are "" or "(params
 * cut ...)" or JSON; lines add up; each view's --json output is JSON (pairs:
 * one object a line); har's output is one JSON object with HAR 1.2's log,
 * entries and pages and each entry's required members; no crash, no leak,
 * under tight and loose bounds.
 * Input: byte 0 picks the options, the rest is the log. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdplog.h"
#include "logrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *s)
{
	fprintf(stderr, "fuzz_logrec: %s\n  got: %.4000s\n", what, s ? s : "");
	abort();
}

/* Each record as the reader hands it over. */
static void check_rec(const struct logrec *r, void *arg)
{
	char *s = json_dumps(r->obj, JSON_COMPACT | JSON_ENCODE_ANY);
	json_t *back, *hold = NULL;
	json_error_t jerr;
	char params[1 << 16];
	const char *msg;

	(void)arg;
	if (!s)
		fail("an accepted record does not serialise", NULL);
	back = json_loads(s, JSON_ALLOW_NUL, &jerr);
	if (!back || !json_equal(back, r->obj))
		fail("an accepted record does not re-serialise to the same JSON", s);
	if (!json_is_object(back) || !json_is_integer(json_object_get(back, "t")))
		fail("an accepted record has no numeric t", s);
	if ((json_integer_value(json_object_get(back, "t")) > 0 ?
	     (uint64_t)json_integer_value(json_object_get(back, "t")) : 0) != r->t)
		fail("t is not the record's", s);
	if (r->is_msg != json_is_string(json_object_get(back, "dir")) ||
	    (r->method && strcmp(r->method, json_string_value(json_object_get(back, "method")))) ||
	    r->has_id != json_is_integer(json_object_get(back, "id")))
		fail("dir, method or id is not the record's", s);
	logrec_params(r, params, sizeof params);
	if (params[0] && strncmp(params, "(params cut at ", 15)) {
		json_t *p = json_loads(params, JSON_ALLOW_NUL, &jerr);
		if (!json_is_object(p))
			fail("params are neither empty, cut nor a JSON object", params);
		json_decref(p);
	}
	msg = logrec_error_message(r, &hold);
	if (msg && !json_is_object(hold))
		fail("an error message from no body", s);
	json_decref(hold);
	json_decref(back);
	free(s);
}

/* out's text is one JSON document, or (one_a_line) one JSON object a line. */
static void check_json(const char *view, const char *out, size_t len, int one_a_line)
{
	json_error_t jerr;

	if (!one_a_line) {
		json_t *j = json_loadb(out, len, JSON_ALLOW_NUL, &jerr);
		if (!json_is_object(j))
			fail(view, out);
		json_decref(j);
		return;
	}
	for (const char *p = out, *end = out + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		json_t *j = json_loadb(p, n, JSON_ALLOW_NUL, &jerr);
		if (!json_is_object(j))
			fail(view, p);
		json_decref(j);
		p += n + 1;
	}
}

/* har's output: {"log":{"version":"1.2","entries":[...],"pages":[...]}},
 * each entry with its startedDateTime, time, request, response, timings. */
static void check_har(const char *out, size_t len)
{
	json_error_t jerr;
	json_t *j = json_loadb(out, len, 0, &jerr), *log = json_object_get(j, "log"), *e;
	size_t i;

	if (!json_is_object(log) || strcmp(json_string_value(json_object_get(log, "version")) ?
					   json_string_value(json_object_get(log, "version")) : "", "1.2") ||
	    !json_is_array(json_object_get(log, "entries")) || !json_is_array(json_object_get(log, "pages")))
		fail("har's output is not a HAR log", out);
	json_array_foreach(json_object_get(log, "entries"), i, e) {
		json_t *req = json_object_get(e, "request"), *resp = json_object_get(e, "response");
		json_t *t = json_object_get(e, "timings");
		if (!json_is_string(json_object_get(e, "startedDateTime")) || !json_is_number(json_object_get(e, "time")) ||
		    json_number_value(json_object_get(e, "time")) < 0 || !json_is_string(json_object_get(req, "url")) ||
		    !json_is_string(json_object_get(req, "method")) || !json_is_array(json_object_get(req, "headers")) ||
		    !json_is_integer(json_object_get(resp, "status")) ||
		    !json_is_object(json_object_get(resp, "content")) || !json_is_number(json_object_get(t, "send")) ||
		    !json_is_number(json_object_get(t, "wait")) || !json_is_number(json_object_get(t, "receive")))
			fail("a HAR entry lacks a required member", out);
	}
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sessions[4] = { NULL, "-", "S", "" };
	static const char *const methods[4] = { NULL, "Runtime.*", "Network", "Page.enable" };
	static const char *const times[4] = { NULL, "0.5", "1700000000000000", "2026-12-04T10:00:00Z" };
	struct logrec_opts o = { .top = 30, .pending_max = 100000, .sessions_max = 10000 };
	struct logrec_input in = { 0 };
	char err[300];
	const char *log;
	size_t n;
	uint8_t sel;
	static FILE *quiet, *loud;

	if (size < 2)   /* fmemopen wants a byte */
		return 0;
	if (!quiet) {
		quiet = fopen("/dev/null", "w");
		loud = stderr;
	}
	sel = data[0];
	log = (const char *)data + 1;
	n = size - 1;
	/* Tight bounds: evictions of commands and sessions on every few records. */
	if (sel & 1) {
		o.pending_max = 1 + (sel >> 1 & 3);
		o.sessions_max = 1 + (sel >> 3 & 1);
		o.top = sel >> 4 & 3;
	}
	o.session = sessions[sel >> 2 & 3];
	o.method = methods[sel >> 4 & 3];
	o.since = times[sel >> 6 & 3];
	o.until = sel & 0x80 ? NULL : times[sel >> 5 & 3];
	o.has_conn = sel >> 5 & 1;
	o.conn = 1;

	{
		FILE *f = fmemopen((void *)log, n, "r");
		if (logrec_read(f, check_rec, NULL, &in, err, sizeof err) < 0)
			fail("reading from memory failed", err);
		fclose(f);
		if (in.records + in.bad > in.lines)
			fail("more records and bad lines than lines", NULL);
	}
	for (int view = 0; view < 3; view++) {
		for (int json = 0; json < 2; json++) {
			FILE *f = fmemopen((void *)log, n, "r"), *out;
			char *text = NULL;
			size_t len = 0;
			int rc;

			out = open_memstream(&text, &len);
			o.json = json;
			/* pairs --json notes bad lines on stderr: not into the fuzzer's
			 * log (the FILE only: sanitizers write to fd 2 themselves) */
			stderr = quiet;
			rc = view == 0 ? cdplog_summary(f, "fuzz", &o, out, err, sizeof err) :
			     view == 1 ? cdplog_pairs(f, "fuzz", &o, out, err, sizeof err) :
					 cdplog_timeline(f, "fuzz", &o, out, err, sizeof err);
			stderr = loud;
			fclose(out);
			fclose(f);
			/* pairs refuses a --since/--until it cannot read (none here are) */
			if (rc < 0)
				fail("a view failed on input from memory", err);
			if (json)
				check_json(view == 0 ? "summary --json is not one JSON object" :
					   view == 1 ? "pairs --json is not one JSON object a line" :
						       "timeline --json is not one JSON object", text, len, view == 1);
			free(text);
		}
	}
	for (int tight = 0; tight < 2; tight++) {
		struct har_opts ho = { .out = "-", .max_requests = tight ? 1 + (sel >> 1 & 1) : 1000 };
		FILE *f = fmemopen((void *)log, n, "r"), *out, *save = stdout;
		char *text = NULL;
		size_t len = 0;
		int rc;

		out = open_memstream(&text, &len);
		stdout = out;   /* har writes "-" there */
		stderr = quiet;
		rc = cdplog_har(f, "fuzz", &o, &ho, err, sizeof err);
		stderr = loud;
		stdout = save;
		fclose(out);
		fclose(f);
		if (rc < 0)
			fail("har failed on input from memory", err);
		check_har(text, len);
		free(text);
	}
	return 0;
}
