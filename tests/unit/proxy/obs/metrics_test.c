/* metrics_test: the Prometheus text of hand-made stats: label escaping,
 * bounded labels (methods and domains outside the protocol share one),
 * histogram buckets mapped from the log2 ones, policy rules, /proc. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics.h"
#include "procstat.h"
#include "tap.h"

/* put_value's output for n bytes of s, in a static buffer. */
static const char *escaped(const char *s, size_t n)
{
	static char out[256];
	FILE *f = fmemopen(out, sizeof out, "w");

	metrics_put_value(f, s, n);
	fclose(f);
	return out;
}

/* metrics_write of m into a new string. */
static char *render(const struct metrics *m, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	metrics_write(m, f);
	fclose(f);
	return text;
}

static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

static size_t lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static void count(struct stats *st, const char *method, enum side to, size_t bytes)
{
	stats_count(st, method, strlen(method), to, bytes);
}

static void test_escape(void)
{
	is_str(escaped("plain", 5), "plain", "a plain value is as it is");
	is_str(escaped("a\\b\"c\nd", 7), "a\\\\b\\\"c\\nd", "\\, \" and newline are escaped");
	is_str(escaped("\xc3\xa9t\xc3\xa9", 6), "\xc3\xa9t\xc3\xa9", "UTF-8 is kept");
	is_str(escaped("a\xff" "b", 3), "a\xef\xbf\xbd" "b", "a byte that is not UTF-8 becomes U+FFFD");
	is_str(escaped("\xc3", 1), "\xef\xbf\xbd", "a cut sequence too");
}

static void test_labels(void)
{
	struct stats *st = stats_new();
	struct metrics m = { .stats = st };
	size_t len;
	char *text;

	for (int i = 0; i < 3; i++) {
		count(st, "Network.enable", UP, 40);
		count(st, "Network.enable", DOWN, 10);
	}
	count(st, "Network.requestWillBeSent", DOWN, 500);
	count(st, "Network.notInTheProtocol", UP, 7);
	count(st, "Made.up", UP, 5);
	count(st, "(looks internal)", UP, 1);
	count(st, "(unmatched)", DOWN, 3);
	stats_rtt(st, "Network.enable", 14, 100);        /* < 128 us */
	stats_rtt(st, "Network.enable", 14, 1000);       /* < 1024 us */
	stats_rtt(st, "Network.enable", 14, 100000000);  /* 100 s: past the last bound */
	text = render(&m, &len);
	ok(has_line(text, "cdpproxy_messages_total{domain=\"Network\",direction=\"up\"} 4"),
	   "Network's messages up: three enables and one method the protocol lacks");
	ok(has_line(text, "cdpproxy_messages_total{domain=\"Network\",direction=\"down\"} 4"),
	   "and down: three answers and an event");
	ok(has_line(text, "cdpproxy_message_bytes_total{domain=\"Network\",direction=\"down\"} 530"),
	   "Network's bytes down");
	ok(has_line(text, "cdpproxy_messages_total{domain=\"(other domains)\",direction=\"up\"} 2"),
	   "a domain the protocol lacks is (other domains)");
	ok(has_line(text, "cdpproxy_messages_total{domain=\"(unmatched)\",direction=\"down\"} 1"),
	   "an internal name is its own domain");
	ok(has_line(text, "cdpproxy_commands_total{method=\"Network.enable\"} 3"), "Network.enable: 3 commands");
	ok(has_line(text, "cdpproxy_commands_total{method=\"(other methods)\"} 3"),
	   "the methods outside the protocol under one label");
	ok(!strstr(text, "Made.up") && !strstr(text, "notInTheProtocol") && !strstr(text, "looks internal"),
	   "no name outside the protocol appears, not one in parentheses either");
	ok(!strstr(text, "method=\"Network.requestWillBeSent\""), "an event is no command");
	ok(has_line(text, "cdpproxy_command_round_trip_seconds_bucket{domain=\"Network\",le=\"0.000064\"} 0"),
	   "le 64 us: none");
	ok(has_line(text, "cdpproxy_command_round_trip_seconds_bucket{domain=\"Network\",le=\"0.000128\"} 1"),
	   "le 128 us: the 100 us one");
	ok(has_line(text, "cdpproxy_command_round_trip_seconds_bucket{domain=\"Network\",le=\"0.001024\"} 2"),
	   "le 1.024 ms: and the 1 ms one (cumulative)");
	ok(has_line(text, "cdpproxy_command_round_trip_seconds_bucket{domain=\"Network\",le=\"33.554432\"} 2"),
	   "le 33.6 s, the last bound: still 2");
	ok(has_line(text, "cdpproxy_command_round_trip_seconds_bucket{domain=\"Network\",le=\"+Inf\"} 3"),
	   "+Inf: all 3");
	ok(has_line(text, "cdpproxy_command_round_trip_seconds_sum{domain=\"Network\"} 100.001100"),
	   "_sum in seconds, exact");
	ok(has_line(text, "cdpproxy_command_round_trip_seconds_count{domain=\"Network\"} 3"), "_count");
	ok(!strstr(text, "round_trip_seconds_count{domain=\"(unmatched)\"}"),
	   "no histogram for a domain without round trips");
	ok(has_line(text, "# TYPE cdpproxy_command_round_trip_seconds histogram"), "TYPE histogram");
	ok(!strstr(text, "process_"), "no process metrics when /proc was not read");
	free(text);
	stats_free(st);
}

/* 100,000 distinct names outside the protocol cost what 300 do. */
static void test_bounded(void)
{
	struct stats *st = stats_new();
	struct metrics m = { .stats = st };
	char name[64];
	size_t len_small, len_big, lines_small;
	char *text;
	int i;

	count(st, "Page.navigate", UP, 100);
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "Flood%d.m%d", i, i);
		count(st, name, UP, 10);
	}
	text = render(&m, &len_small);
	lines_small = lines(text);
	free(text);
	for (; i < 100000; i++) {
		snprintf(name, sizeof name, "Flood%d.m%d", i, i);
		count(st, name, UP, 10);
	}
	text = render(&m, &len_big);
	is_int(lines(text), lines_small, "as many lines after 100,000 distinct names as after 300");
	ok(len_big <= len_small + 16, "and as many bytes, but for bigger numbers: %zu then %zu",
	   len_small, len_big);
	ok(has_line(text, "cdpproxy_commands_total{method=\"(other methods)\"} 100000"),
	   "every one counted under (other methods)");
	free(text);
	stats_free(st);
}

static void test_policy(void)
{
	const char *doc_text =
		"{\"name\":\"quo\\\"te\\nd\",\"rules\":["
		"{\"method\":\"Network.*\",\"action\":\"drop\"},"
		"{\"method\":\"a\\\"b\\\\\\\\c\",\"action\":\"stub\"}]}";
	json_t *doc = json_loads(doc_text, 0, NULL);
	char err[256] = "";
	struct policy *p = doc ? policy_parse(doc, "x", "test", err, sizeof err) : NULL;
	struct stats *st = stats_new();
	struct metrics m = { .stats = st, .policy = p, .policy_gen = 2 };
	size_t len;
	char *text;

	ok(p != NULL, "the policy parses %s", err);
	if (!p)
		return;
	p->rules[0].hits = 5;
	m.actions[ACT_DROP] = 5;
	text = render(&m, &len);
	ok(has_line(text, "cdpproxy_policy_generation{policy=\"quo\\\"te\\nd\"} 2"),
	   "the policy's name, escaped");
	ok(has_line(text, "cdpproxy_policy_rule_hits_total{policy=\"quo\\\"te\\nd\",rule=\"0\","
		    "method=\"Network.*\",action=\"drop\"} 5"), "rule 0's hits");
	ok(has_line(text, "cdpproxy_policy_rule_hits_total{policy=\"quo\\\"te\\nd\",rule=\"1\","
		    "method=\"a\\\"b\\\\\\\\c\",action=\"stub\"} 0"), "rule 1's method glob, escaped");
	ok(has_line(text, "cdpproxy_policy_actions_total{action=\"drop\"} 5"), "drops by action");
	ok(has_line(text, "cdpproxy_policy_actions_total{action=\"rewrite\"} 0"), "every action, 0 too");
	free(text);
	stats_free(st);
	policy_free(p);
	json_decref(doc);
}

static void test_process(void)
{
	struct metrics_process p;
	struct stats *st = stats_new();
	struct metrics m = { .stats = st };
	double now = (double)time(NULL);
	size_t len;
	char *text;

	procstat_read(&p);
	ok(p.ok, "/proc/self is read");
	ok(p.resident_bytes > 1024 * 1024, "RSS: %llu bytes", (unsigned long long)p.resident_bytes);
	ok(p.open_fds >= 3 && p.open_fds < 1000, "open fds: %llu", (unsigned long long)p.open_fds);
	ok(p.start_time_seconds > now - 600 && p.start_time_seconds <= now + 1,
	   "started within the last minutes: %.2f (now %.0f)", p.start_time_seconds, now);
	ok(p.cpu_seconds >= 0 && p.cpu_seconds < 600, "CPU seconds: %.2f", p.cpu_seconds);
	m.proc = p;
	text = render(&m, &len);
	ok(strstr(text, "\nprocess_resident_memory_bytes ") && strstr(text, "\nprocess_cpu_seconds_total ") &&
	   strstr(text, "\nprocess_open_fds ") && strstr(text, "\nprocess_start_time_seconds "),
	   "the process_* samples are written");
	free(text);
	stats_free(st);
}

/* The BiDi table: its own families, by module and method, bounded as
 * CDP's, and error answers by code. */
static void test_bidi(void)
{
	struct stats *st = stats_new(), *b = stats_bidi(st);
	struct metrics m = { .stats = st };
	size_t len;
	char *text;

	count(b, "script.evaluate", UP, 300);
	count(b, "script.evaluate", DOWN, 200);
	stats_rtt(b, "script.evaluate", 15, 1500);
	count(b, "nosuch.command", UP, 76);
	count(b, "nosuch.command", DOWN, 125);
	stats_error(b, "nosuch.command", 14, "unknown command");
	stats_error(b, "nosuch.command", 14, "made up");
	count(st, "Runtime.evaluate", UP, 400);
	text = render(&m, &len);
	ok(has_line(text, "cdpproxy_bidi_messages_total{module=\"script\",direction=\"up\"} 1"), "messages by module");
	ok(has_line(text, "cdpproxy_bidi_message_bytes_total{module=\"script\",direction=\"down\"} 200"), "bytes by module");
	ok(has_line(text, "cdpproxy_bidi_commands_total{method=\"script.evaluate\"} 1"), "a BiDi method by name");
	ok(has_line(text, "cdpproxy_bidi_commands_total{method=\"(other methods)\"} 1"), "one BiDi does not define: pooled");
	ok(has_line(text, "cdpproxy_bidi_messages_total{module=\"(other domains)\",direction=\"up\"} 1"),
	   "so is its module");
	ok(has_line(text, "cdpproxy_bidi_command_round_trip_seconds_count{module=\"script\"} 1"), "round trips by module");
	ok(has_line(text, "cdpproxy_bidi_errors_total{error=\"unknown command\"} 1"), "errors by code");
	ok(has_line(text, "cdpproxy_bidi_errors_total{error=\"(other errors)\"} 1"), "a code BiDi does not define");
	ok(has_line(text, "cdpproxy_commands_total{method=\"Runtime.evaluate\"} 1") &&
	   !strstr(text, "cdpproxy_commands_total{method=\"script.evaluate\"}"), "CDP's families have none of it");
	free(text);
	stats_free(st);
}

int main(void)
{
	test_escape();
	test_labels();
	test_bounded();
	test_policy();
	test_process();
	test_bidi();
	return tap_done();
}
