/* collect: one trial's sample from the sink's record of it: the page's and the
 * sink's view of every transfer, medians, byte totals, and whether they agree. */
#include "collect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "estimate.h"
#include "util.h"

#define FORM_OVERHEAD_MAX 65536  /* multipart boundaries and headers around a form's file */

static json_t *find_sink_transfer(json_t *sink, json_int_t i, const char *kind)
{
	json_t *x;
	size_t k;

	json_array_foreach(sink, k, x) {
		const char *xk = json_string_value(json_object_get(x, "kind"));
		if (json_integer_value(json_object_get(x, "i")) == i && xk && !strcmp(xk, kind))
			return x;
	}
	return NULL;
}

void collect_sample(const char *body, int measured, json_t *record,
		   struct bench_sample *out)
{
	json_t *result = json_object_get(record, "result"), *sink = json_object_get(record, "transfers");
	json_t *page = json_object_get(result, "transfers"), *t, *rows = json_array();
	const char *kind = !strcmp(body, "download") || !strcmp(body, "pageload") ? body : "upload";
	const char *perr = json_string_value(json_object_get(result, "error"));
	size_t cap = json_array_size(page) + 1;
	double *pm = xcalloc(cap, sizeof *pm), *sm = xcalloc(cap, sizeof *sm);
	size_t k, m = 0;

	out->page_bytes = out->sink_bytes = 0;
	json_array_foreach(page, k, t) {
		json_int_t i = json_integer_value(json_object_get(t, "i"));
		json_t *s = find_sink_transfer(sink, i, kind);
		uint64_t pb = (uint64_t)json_integer_value(json_object_get(t, "bytes"));
		uint64_t sb = s ? (uint64_t)json_integer_value(json_object_get(s, "bytes")) : 0;
		uint64_t first = s ? (uint64_t)json_integer_value(json_object_get(s, "first_us")) : 0;
		uint64_t last = s ? (uint64_t)json_integer_value(json_object_get(s, "last_us")) : 0;
		double ms = json_number_value(json_object_get(t, "ms"));
		int is_warm = json_is_true(json_object_get(t, "warmup"));
		int agree = !strcmp(body, "form") ? sb >= pb && sb - pb <= FORM_OVERHEAD_MAX : sb == pb;
		double page_mbps = ms > 0 ? (double)pb * 8 / (ms * 1000) : NAN;
		double sink_mbps = last > first ? (double)sb * 8 / (double)(last - first) : NAN;

		out->page_bytes += pb;
		out->sink_bytes += sb;
		json_array_append_new(rows, json_pack("{s:I,s:b,s:I,s:I,s:f,s:I}", "i", i,
			"warmup", is_warm, "page_bytes", (json_int_t)pb, "sink_bytes", (json_int_t)sb,
			"page_ms", ms, "sink_us", (json_int_t)(last > first ? last - first : 0)));
		if (!agree && !out->error[0])
			snprintf(out->error, sizeof out->error, "transfer %lld: the page moved %llu bytes, "
				 "the sink counted %llu", (long long)i, (unsigned long long)pb,
				 (unsigned long long)sb);
		if (!is_warm) {
			pm[m] = page_mbps;
			sm[m++] = sink_mbps;
		}
	}
	if (perr && !out->error[0])
		snprintf(out->error, sizeof out->error, "the page: %s", perr);
	else if (m < (size_t)measured && !out->error[0])
		snprintf(out->error, sizeof out->error, "the page reported %zu of %d measured transfers",
			 m, measured);
	out->page_mbps = estimate_median(pm, m);
	out->sink_mbps = estimate_median(sm, m);
	out->ok = !out->error[0] && !isnan(out->page_mbps);
	if (!out->detail)
		out->detail = json_object();
	json_object_set_new(out->detail, "transfers", rows);
	if (json_is_string(json_object_get(result, "userAgent")))
		json_object_set(out->detail, "user_agent", json_object_get(result, "userAgent"));
	free(pm);
	free(sm);
}
