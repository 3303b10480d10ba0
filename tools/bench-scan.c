/* bench-scan: what the hand-written top-level key scanner (proxy/cdp/scan.c)
 * saves over parsing each message with jansson, on the messages the proxy
 * sees most: small commands, responses and events, and one large result.
 * Prints ns per message and MB/s for both, interleaved, medians of rounds. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "estimate.h"
#include "scan.h"
#include "util.h"

#define LARGE (4 * 1024 * 1024)

struct sample {
	const char *name;
	char *text;
	size_t len;
	long reps;
};

/* prefix, then unit repeated to n bytes (whole units), then suffix. */
static char *pad_with(const char *prefix, const char *unit, size_t n, const char *suffix)
{
	size_t a = strlen(prefix), b = strlen(suffix), u = strlen(unit);
	char *s;

	n -= n % u;
	s = xmalloc(a + n + b + 1);
	memcpy(s, prefix, a);
	for (size_t i = 0; i < n; i += u)
		memcpy(s + a + i, unit, u);
	memcpy(s + a + n, suffix, b + 1);
	return s;
}

static char *pad(const char *prefix, size_t n, const char *suffix)
{
	return pad_with(prefix, "x", n, suffix);
}

static void usage(void)
{
	fputs("usage: bench-scan [ROUNDS]\n"
	      "What cdpproxy's top-level key scanner saves over parsing each message with\n"
	      "jansson: ns per message and MB/s for both, interleaved, medians of ROUNDS\n"
	      "rounds (default 7).\n\n"
	      "  -h, --help      this text\n"
	      "  -V, --version   the version\n", stdout);
}

/* ns per message for one round of s->reps messages. */
static double round_ns(const struct sample *s, int with_jansson)
{
	uint64_t t0 = util_mono_us();
	long sink = 0;

	for (long i = 0; i < s->reps; i++) {
		if (with_jansson) {
			json_t *j = json_loadb(s->text, s->len, 0, NULL);
			sink += json_object_size(j);
			json_decref(j);
		} else {
			struct scan_result r;
			sink += scan_message(s->text, s->len, &r) + (long)r.kind;
		}
	}
	if (sink == -12345)   /* keeps the loop */
		puts("");
	return (double)(util_mono_us() - t0) * 1000.0 / (double)s->reps;
}

/* The messages timed, made after the options are read (nothing to free on
 * -h or a bad flag). */
#define SAMPLES 5
static size_t samples_make(struct sample *out)
{
	const struct sample samples[SAMPLES] = {
		{ "command 150 B", pad("{\"id\":123456,\"method\":\"Runtime.evaluate\",\"params\":"
				       "{\"expression\":\"", 70, "\",\"returnByValue\":true}}"), 0, 400000 },
		{ "response 150 B", pad("{\"id\":123456,\"result\":{\"result\":{\"type\":\"string\","
					"\"value\":\"", 70, "\"}},\"sessionId\":\"9A1F3C2B7D4E5F60718293A4B5C6D7E8\"}"),
		  0, 400000 },
		{ "event 1 KiB", pad("{\"method\":\"Network.requestWillBeSent\",\"params\":{\"requestId\":"
				     "\"1000.1\",\"request\":{\"url\":\"https://example.com/", 900,
				     "\",\"method\":\"GET\",\"headers\":{\"Accept\":\"*/*\"}},\"timestamp\":"
				     "12345.678,\"type\":\"Fetch\"},\"sessionId\":\"9A1F3C2B7D4E5F60\"}"),
		  0, 100000 },
		{ "result 4 MiB", pad("{\"id\":7,\"result\":{\"data\":\"", LARGE, "\"}}"), 0, 40 },
		/* A zeroed Uint8Array upload as Chrome sends it under Network.enable:
		 * its postData is \u0000 after \u0000 (the rigs' 117 MiB events). */
		{ "escapes 4 MiB", pad_with("{\"method\":\"Network.requestWillBeSent\",\"params\":"
					    "{\"request\":{\"postData\":\"", "\\u0000", LARGE,
					    "\"}},\"sessionId\":\"9A1F3C2B7D4E5F60\"}"), 0, 20 },
	};
	size_t n = sizeof samples / sizeof samples[0];

	memcpy(out, samples, sizeof samples);
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { CLI_LONGOPTS, { NULL, 0, NULL, 0 } };
	char err[256];
	long rounds = 7;
	int c;

	while ((c = getopt_long(argc, argv, CLI_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage();
			return CLI_OK;
		case 'V':
			puts("bench-scan " CDPPROXY_VERSION);
			return CLI_OK;
		default:
			cli_bad_option(c, argv, opts, err, sizeof err);
			fprintf(stderr, "bench-scan: %s\n", err);
			return CLI_USAGE;
		}
	}
	if (argc - optind > 1 ||
	    (optind < argc && util_parse_long("ROUNDS", argv[optind], 1, 10000, &rounds, err, sizeof err) < 0)) {
		fprintf(stderr, "bench-scan: %s (see --help)\n", argc - optind > 1 ? "one ROUNDS at most" : err);
		return CLI_USAGE;
	}

	struct sample samples[SAMPLES];
	size_t n = samples_make(samples);

	printf("bench-scan: %ld rounds, medians; scan = proxy/cdp/scan.c, jansson = json_loadb\n", rounds);
	printf("%-16s %12s %12s %10s %10s %8s\n", "message", "scan ns", "jansson ns", "scan MB/s",
	       "jans MB/s", "ratio");
	for (size_t i = 0; i < n; i++) {
		struct sample *s = &samples[i];
		double *a = xmalloc(sizeof(double) * (size_t)rounds), *b = xmalloc(sizeof(double) * (size_t)rounds);
		struct scan_result r;

		s->len = strlen(s->text);
		if (scan_message(s->text, s->len, &r) < 0) {
			fprintf(stderr, "bench-scan: sample %s does not scan\n", s->name);
			return 1;
		}
		for (int k = 0; k < rounds; k++) {   /* interleaved */
			a[k] = round_ns(s, 0);
			b[k] = round_ns(s, 1);
		}
		double ma = estimate_median(a, (size_t)rounds), mb = estimate_median(b, (size_t)rounds);
		printf("%-16s %12.1f %12.1f %10.0f %10.0f %7.1fx\n", s->name, ma, mb,
		       (double)s->len * 1000.0 / ma, (double)s->len * 1000.0 / mb, mb / ma);
		free(a);
		free(b);
		free(s->text);
	}
	return 0;
}
