/* collect_test: a trial's sample from the sink's record: medians of the measured
 * transfers (page and sink clocks), byte totals, and the agreement checks. */
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "collect.h"
#include "tap.h"

#define MIB 1048576

/* A record for body with transfers (page ms, sink bytes, sink µs) for i = 0..n-1;
 * transfer 0 is the warm-up. */
static json_t *record(const char *body, const double *ms, const json_int_t *sink_bytes,
		      const json_int_t *sink_us, int n, const char *error)
{
	json_t *page = json_array(), *sink = json_array();

	for (int i = 0; i < n; i++) {
		json_array_append_new(page, json_pack("{s:i,s:b,s:I,s:f}", "i", i, "warmup", i == 0,
						      "bytes", (json_int_t)MIB, "ms", ms[i]));
		json_array_append_new(sink, json_pack("{s:i,s:s,s:I,s:I,s:I}", "i", i, "kind",
			strcmp(body, "download") ? "upload" : "download", "bytes", sink_bytes[i],
			"first_us", (json_int_t)1000, "last_us", (json_int_t)1000 + sink_us[i]));
	}
	return json_pack("{s:s,s:{s:o,s:o,s:s},s:o}", "id", "t", "result", "transfers", page,
			 "error", error ? json_string(error) : json_null(), "userAgent", "UA",
			 "transfers", sink);
}

static void sample(const char *body, int measured, json_t *rec, struct bench_sample *s)
{
	memset(s, 0, sizeof *s);
	collect_sample(body, measured, rec, s);
	json_decref(rec);
}

int main(void)
{
	double ms[] = { 500, 100, 200, 400 };
	json_int_t same[] = { MIB, MIB, MIB, MIB }, us[] = { 1000, 2000, 4000, 8000 };
	json_int_t short_by_one[] = { MIB, MIB - 1, MIB, MIB }, form_ok[] = { MIB + 200, MIB + 180, MIB + 190, 0 };
	json_int_t form_bad[] = { MIB + 200, MIB + 100000, MIB + 190, 0 };
	struct bench_sample s;

	/* 1 MiB in 100 ms = 8388608 bits / 100000 µs = 83.886 Mbps; in 200 ms 41.943. */
	sample("u8", 2, record("u8", ms, same, us, 3, NULL), &s);
	ok(s.ok && !s.error[0], "a good trial is usable (%s)", s.error);
	ok(fabs(s.page_mbps - (83.88608 + 41.94304) / 2) < 1e-6,
	   "page Mbps: the median of the measured transfers, warm-up left out (%g)", s.page_mbps);
	ok(fabs(s.sink_mbps - (8388608.0 / 2000 + 8388608.0 / 4000) / 2) < 1e-6,
	   "sink Mbps: bytes over first-to-last byte, same transfers (%g)", s.sink_mbps);
	ok(s.page_bytes == 3 * MIB && s.sink_bytes == 3 * MIB, "byte totals include the warm-up");
	ok(json_array_size(json_object_get(s.detail, "transfers")) == 3 &&
	   !strcmp(json_string_value(json_object_get(s.detail, "user_agent")), "UA"),
	   "every transfer and the user agent are kept");
	json_decref(s.detail);

	sample("u8", 3, record("u8", ms, same, us, 4, NULL), &s);
	ok(s.ok && fabs(s.page_mbps - 41.94304) < 1e-6, "three measured: the middle one");
	json_decref(s.detail);

	sample("u8", 2, record("u8", ms, short_by_one, us, 3, NULL), &s);
	ok(!s.ok && strstr(s.error, "transfer 1: the page moved 1048576 bytes, the sink counted 1048575"),
	   "bytes that disagree make the sample unusable: %s", s.error);
	json_decref(s.detail);

	sample("form", 2, record("form", ms, form_ok, us, 3, NULL), &s);
	ok(s.ok, "a form's multipart overhead is allowed (%s)", s.error);
	ok(s.sink_bytes == 3 * MIB + 570, "and counted at the sink");
	json_decref(s.detail);
	sample("form", 2, record("form", ms, form_bad, us, 3, NULL), &s);
	ok(!s.ok && strstr(s.error, "transfer 1"), "but not 100000 bytes of it: %s", s.error);
	json_decref(s.detail);

	sample("u8", 2, record("u8", ms, same, us, 1, "Failed to fetch"), &s);
	ok(!s.ok && !strcmp(s.error, "the page: Failed to fetch"), "the page's error: %s", s.error);
	json_decref(s.detail);

	sample("u8", 2, record("u8", ms, same, us, 2, NULL), &s);
	ok(!s.ok && strstr(s.error, "reported 1 of 2 measured transfers"), "missing transfers: %s",
	   s.error);
	json_decref(s.detail);

	sample("download", 2, record("download", ms, same, us, 3, NULL), &s);
	ok(s.ok && s.sink_bytes == 3 * MIB, "a download matches the sink's download records");
	json_decref(s.detail);

	sample("u8", 2, record("download", ms, same, us, 3, NULL), &s);
	ok(!s.ok && strstr(s.error, "the sink counted 0"), "an upload with no upload at the sink: %s",
	   s.error);
	json_decref(s.detail);
	return tap_done();
}
