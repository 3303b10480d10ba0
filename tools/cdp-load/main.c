/* cdp-load: a CDP load client: C connections with W commands in flight each,
 * sizes from a mix, for a duration or a count; reports rate, MB/s and a
 * round-trip histogram, and fails unless every answer came once, in order,
 * byte for byte as expected. */
#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "load.h"
#include "util.h"

static struct load ld;

/* --rate: how far below the target the achieved rate may fall. */
#define RATE_TOLERANCE 0.03
#define PACE_TICK_US 1000

static void usage(FILE *out)
{
	fputs("usage: cdp-load [options] ws://HOST:PORT/PATH\n"
	      "Sends CDP commands to cdp-echo (or, with --method, to any CDP peer such as\n"
	      "Chrome) and checks that every answer arrives exactly once, in order, and\n"
	      "(cdp-echo) byte for byte. Exits 1 on the first problem.\n\n"
	      "  --connections N     connections (default 1)\n"
	      "  --in-flight N       commands in flight per connection (default 1)\n"
	      "  --count N           commands per connection, then stop\n"
	      "  --duration SEC      or send for SEC seconds (default 5)\n"
	      "  --cmd-size MIX      command sizes in bytes (default 150)\n"
	      "  --result-size MIX   result sizes asked for (default 150)\n"
	      "                      MIX: SIZE or SIZE:WEIGHT,... e.g. 100:90,64KiB:9,1MiB:1\n"
	      "  --session ID        put \"sessionId\":ID in every command (echoed back)\n"
	      "  --flood N           each command asks cdp-echo for N events, then answers\n"
	      "  --event-size SIZE   size of each flood event (default 1KiB)\n"
	      "  --method M          send {\"id\":N,\"method\":M,\"params\":P} instead; answers\n"
	      "  --params JSON       are checked for id and order only (default {})\n"
	      "  --rate N            paced: N messages/s overall (answers; with --flood,\n"
	      "                      events), spread evenly over the connections and\n"
	      "                      over time (a 1 ms tick). --in-flight caps what each\n"
	      "                      connection has outstanding, so sending falls behind\n"
	      "                      when answers do: fails if the rate sent at is more\n"
	      "                      than 3% below N\n"
	      "  --baseline URL      paired round trips: commands alternate, one at a time,\n"
	      "                      between URL (say, Chrome direct) and the main URL (say,\n"
	      "                      through a proxy); reports the main's added round trip\n"
	      "                      as quantiles of adjacent differences, which the two\n"
	      "                      share any drift of the peer's speed (needs\n"
	      "                      --connections 1 --in-flight 1)\n"
	      "  --seed N            for the size mix and masks (default 1)\n"
	      "  --timeout SEC       fail if nothing arrives for SEC seconds (default 30)\n"
	      "  --json FILE         also write the results as JSON (- for stdout)\n"
	      "  --quiet             no histogram\n"
	      "  -h, --help          this text\n"
	      "  -V, --version       the version\n", out);
}

static void fail(struct load *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct load *l, const char *fmt, ...)
{
	va_list ap;

	if (!l->failed) {
		va_start(ap, fmt);
		vsnprintf(l->first_error, sizeof l->first_error, fmt, ap);
		va_end(ap);
	}
	l->failed = 1;
	event_base_loopbreak(l->base);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	load_conn_stop_sending(arg);
}

/* Every second: fail if nothing arrived for --timeout seconds (a lost answer
 * or a stuck peer), or if connecting takes over 10 s. */
static void on_watch(evutil_socket_t fd, short what, void *arg)
{
	struct load *l = arg;
	uint64_t now = util_mono_ns(), missing = 0;
	double idle = (double)(now - l->progress_ns) / 1e9;

	(void)fd;
	(void)what;
	if (l->running ? idle < l->cfg.timeout : idle < 10)
		return;
	for (int i = 0; i < l->cfg.connections; i++)
		missing += l->conns[i].ring_n;
	fail(l, "timed out: nothing for %.0f s; %d of %d connections %s, %" PRIu64
		  " answers missing", idle, l->cfg.connections - l->finished, l->cfg.connections,
		  l->running ? "not finished" : "not connected", missing);
}

static void on_pace(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	load_conn_pace(arg);
}

static void on_signal(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	fail(arg, "interrupted");
}

/* A connection finished its handshake: once all have, the run starts. */
static void on_connected(struct load_conn *c)
{
	struct load *l = c->ld;
	struct timeval tv;

	if (++l->connected < l->cfg.connections)
		return;
	l->running = 1;
	l->start_ns = l->last_ns = l->progress_ns = util_mono_ns();
	if (!l->cfg.count) {
		tv.tv_sec = (time_t)l->cfg.duration;
		tv.tv_usec = (suseconds_t)((l->cfg.duration - (double)tv.tv_sec) * 1e6);
		l->deadline = evtimer_new(l->base, on_deadline, l);
		evtimer_add(l->deadline, &tv);
	}
	if (l->cfg.rate > 0) {
		tv.tv_sec = 0;
		tv.tv_usec = PACE_TICK_US;
		l->pace = event_new(l->base, -1, EV_PERSIST, on_pace, l);
		evtimer_add(l->pace, &tv);
	}
	for (int i = 0; i < l->cfg.connections; i++)
		load_conn_go(&l->conns[i]);
}

static void on_finished(struct load_conn *c)
{
	if (++c->ld->finished == c->ld->cfg.connections)
		event_base_loopbreak(c->ld->base);
}

static void on_fail(struct load *l, const char *why)
{
	fail(l, "%s", why);
}

static const struct load_conn_ops conn_ops = { on_connected, on_finished, on_fail };

static int parse_mix(const char *s, struct size_mix *m, char *err, size_t errlen)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof buf, "%s", s);
	memset(m, 0, sizeof *m);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		uint64_t w = 1;
		if (m->n == MIX_MAX) {
			snprintf(err, errlen, "at most %d sizes in '%s'", MIX_MAX, s);
			return -1;
		}
		if (colon) {
			*colon = '\0';
			if (util_parse_size(colon + 1, &w, err, errlen) < 0 || !w)
				return -1;
		}
		if (util_parse_size(tok, &m->size[m->n], err, errlen) < 0)
			return -1;
		m->weight[m->n++] = w;
		m->total += w;
	}
	if (!m->n) {
		snprintf(err, errlen, "no sizes in '%s'", s);
		return -1;
	}
	return 0;
}

static int parse_url(const char *url, struct target *cfg, char *err, size_t errlen)
{
	const char *hp = url + 5, *slash;
	struct in_addr a;

	if (strncmp(url, "ws://", 5) || !(slash = strchr(hp, '/')) ||
	    (size_t)(slash - hp) >= sizeof cfg->hostport) {
		snprintf(err, errlen, "'%s' is not ws://HOST:PORT/PATH", url);
		return -1;
	}
	snprintf(cfg->hostport, sizeof cfg->hostport, "%.*s", (int)(slash - hp), hp);
	snprintf(cfg->path, sizeof cfg->path, "%s", slash);
	if (util_parse_hostport("the URL", cfg->hostport, cfg->host, sizeof cfg->host, &cfg->port,
				err, errlen) < 0)
		return -1;
	if (!strcmp(cfg->host, "localhost"))
		snprintf(cfg->host, sizeof cfg->host, "127.0.0.1");
	/* It connects to an IPv4 address: a name would be connected to as 0.0.0.0. */
	if (inet_pton(AF_INET, cfg->host, &a) != 1) {
		snprintf(err, errlen, "'%s': HOST must be an IPv4 address or localhost", url);
		return -1;
	}
	if (cfg->port == 0) {
		snprintf(err, errlen, "'%s': bad port", url);
		return -1;
	}
	return 0;
}

static uint64_t mix_max(const struct size_mix *m)
{
	uint64_t max = 0;

	for (int i = 0; i < m->n; i++)
		max = m->size[i] > max ? m->size[i] : max;
	return max;
}

/* The whole-number options: a bad number is refused with its flag, not read as 0. */
static int parse_count(int o, const char *arg, struct load_cfg *cfg, char *err, size_t errlen)
{
	static const struct { int o; const char *flag; long lo; } f[] = {
		{ 'c', "--connections", 1 }, { 'w', "--in-flight", 1 }, { 'n', "--count", 0 },
		{ 'S', "--seed", 0 }, { 'f', "--flood", 0 },
	};
	long v;

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		if (f[i].o != o)
			continue;
		if (util_parse_long(f[i].flag, arg, f[i].lo, o == 'c' || o == 'w' ? INT_MAX : LONG_MAX,
				    &v, err, errlen) < 0)
			return -1;
		if (o == 'c')
			cfg->connections = (int)v;
		else if (o == 'w')
			cfg->in_flight = (int)v;
		else if (o == 'n')
			cfg->count = (uint64_t)v;
		else if (o == 'S')
			cfg->seed = (uint64_t)v;
		else
			cfg->flood = (uint64_t)v;
		return 0;
	}
	return -1;
}

static int parse_args(int argc, char **argv, struct load_cfg *cfg, const char **json,
		      int *quiet, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "connections", required_argument, NULL, 'c' },
		{ "in-flight", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cmd-size", required_argument, NULL, 'C' },
		{ "result-size", required_argument, NULL, 'R' },
		{ "session", required_argument, NULL, 's' },
		{ "flood", required_argument, NULL, 'f' },
		{ "event-size", required_argument, NULL, 'e' },
		{ "method", required_argument, NULL, 'm' },
		{ "params", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 'S' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "rate", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		CLI_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	int o;

	while ((o = getopt_long(argc, argv, CLI_SHORTOPTS, opts, NULL)) != -1) {
		switch (o) {
		case 'c':
		case 'w':
		case 'n':
		case 'S':
		case 'f':
			if (parse_count(o, optarg, cfg, err, errlen) < 0)
				return -1;
			break;
		case 'd': cfg->duration = atof(optarg); break;
		case 't': cfg->timeout = atof(optarg); break;
		case 'r': cfg->rate = atof(optarg); break;
		case 'm': cfg->method = optarg; break;
		case 'p': cfg->params = optarg; break;
		case 'j': *json = optarg; break;
		case 'b':
			if (parse_url(optarg, &cfg->base, err, errlen) < 0)
				return -1;
			cfg->paired = 1;
			break;
		case 'q': *quiet = 1; break;
		case 's':
			cfg->session = optarg;
			cfg->session_len = strlen(optarg);
			break;
		case 'C':
		case 'R':
			if (parse_mix(optarg, o == 'C' ? &cfg->cmd : &cfg->result, err, errlen) < 0)
				return -1;
			break;
		case 'e':
			if (util_parse_size(optarg, &cfg->event_size, err, errlen) < 0)
				return -1;
			break;
		case 'h':
			usage(stdout);
			exit(CLI_OK);
		case 'V':
			puts("cdp-load " CDPPROXY_VERSION);
			exit(CLI_OK);
		default:
			cli_bad_option(o, argv, opts, err, errlen);
			return -1;
		}
	}
	if (optind != argc - 1) {
		snprintf(err, errlen, "one ws://HOST:PORT/PATH wanted (see --help)");
		return -1;
	}
	if (cfg->connections < 1 || cfg->in_flight < 1 || cfg->duration <= 0 || cfg->timeout <= 0) {
		snprintf(err, errlen, "--connections, --in-flight, --duration and --timeout must be > 0");
		return -1;
	}
	if (cfg->method && (strlen(cfg->method) > 256 || strpbrk(cfg->method, "\"\\"))) {
		snprintf(err, errlen, "--method: at most 256 bytes, no quotes or backslashes");
		return -1;
	}
	if (cfg->session_len > WIRE_SESSION_MAX || strpbrk(cfg->session ? cfg->session : "", "\"\\")) {
		snprintf(err, errlen, "--session: at most %d bytes, no quotes or backslashes",
			 WIRE_SESSION_MAX);
		return -1;
	}
	if (mix_max(&cfg->cmd) > WIRE_SIZE_MAX || mix_max(&cfg->result) > WIRE_SIZE_MAX ||
	    cfg->event_size > WIRE_SIZE_MAX) {
		snprintf(err, errlen, "--cmd-size, --result-size and --event-size: at most %zu bytes "
			 "(1 GiB less %d)", (size_t)WIRE_SIZE_MAX, WIRE_PREFIX_MAX);
		return -1;
	}
	if (cfg->paired && (cfg->connections != 1 || cfg->in_flight != 1)) {
		snprintf(err, errlen, "--baseline needs --connections 1 --in-flight 1");
		return -1;
	}
	if (cfg->rate < 0 || (cfg->rate > 0 && cfg->paired)) {
		snprintf(err, errlen, "--rate must be > 0, and does not go with --baseline");
		return -1;
	}
	if (cfg->paired)
		cfg->connections = 2;   /* the main one, then the baseline's */
	return parse_url(argv[optind], &cfg->url, err, errlen);
}

/* The quantile q of the sorted differences, in microseconds. */
static double diff_quantile(const struct load *l, double q)
{
	size_t i = (size_t)(q * (double)(l->n_diffs - 1) + 0.5);

	return (double)l->diffs[i] / 1e3;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* --rate: the rate achieved, in the messages paced (a flood's events, or
 * answers): those of the commands sent, over the time they were sent in.
 * Sending falls behind when the answers do (--in-flight caps what is
 * outstanding); all of them arriving is checked apart. The last answers'
 * wait does not count: on a busy machine a few late ones would read as a
 * slower rate. */
static double paced_achieved(const struct load *l, uint64_t sent)
{
	double secs = (double)(l->last_send_ns - l->start_ns) / 1e9;

	if (secs <= 0)
		return 0;
	return (double)sent * (l->cfg.flood ? (double)l->cfg.flood : 1.0) / secs;
}

static void report(FILE *out, const struct load *l, uint64_t sent, uint64_t answered,
		   uint64_t events, uint64_t up, uint64_t down, double secs)
{
	const struct lat_hist *h = &l->rtt;

	char shape[1300];

	if (l->cfg.paired)
		snprintf(shape, sizeof shape, "paired with ws://%s%s, 1 in flight in turn",
			 l->cfg.base.hostport, l->cfg.base.path);
	else
		snprintf(shape, sizeof shape, "%d connection%s x %d in flight", l->cfg.connections,
			 l->cfg.connections > 1 ? "s" : "", l->cfg.in_flight);
	fprintf(out, "cdp-load: ws://%s%s, %s%s\n", l->cfg.url.hostport, l->cfg.url.path, shape,
		l->cfg.flood ? ", floods" : l->cfg.method ? ", raw commands" : "");
	fprintf(out, "  %" PRIu64 " answers in %.3f s: %.0f/s; up %.1f MB/s, down %.1f MB/s\n",
		answered, secs, (double)answered / secs, (double)up / secs / 1e6,
		(double)down / secs / 1e6);
	if (events)
		fprintf(out, "  %" PRIu64 " events: %.0f/s\n", events, (double)events / secs);
	if (l->cfg.rate > 0)
		fprintf(out, "  paced at %.0f %s/s: achieved %.0f/s (%.1f%%)\n", l->cfg.rate,
			l->cfg.flood ? "events" : "answers", paced_achieved(l, sent),
			100.0 * paced_achieved(l, sent) / l->cfg.rate);
	fprintf(out, "  round trip (us): min %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  "
		"max %.1f  mean %.1f\n", (double)h->min / 1e3, (double)lat_hist_quantile(h, 0.5) / 1e3,
		(double)lat_hist_quantile(h, 0.9) / 1e3, (double)lat_hist_quantile(h, 0.99) / 1e3,
		(double)lat_hist_quantile(h, 0.999) / 1e3, (double)h->max / 1e3,
		h->n ? (double)h->sum / (double)h->n / 1e3 : 0.0);
	if (l->cfg.paired && l->n_diffs)
		fprintf(out, "  baseline round trip (us): p50 %.1f; added over it, of %zu adjacent "
			"pairs: p25 %.1f  p50 %.1f  p75 %.1f\n",
			(double)lat_hist_quantile(&l->base_rtt, 0.5) / 1e3, l->n_diffs,
			diff_quantile(l, 0.25), diff_quantile(l, 0.5), diff_quantile(l, 0.75));
}

static void write_hist(FILE *out, const struct lat_hist *h)
{
	fprintf(out, "{\"n\":%" PRIu64 ",\"min\":%.3f,\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,"
		"\"p999\":%.3f,\"max\":%.3f,\"mean\":%.3f}", h->n, (double)h->min / 1e3,
		(double)lat_hist_quantile(h, 0.5) / 1e3, (double)lat_hist_quantile(h, 0.9) / 1e3,
		(double)lat_hist_quantile(h, 0.99) / 1e3, (double)lat_hist_quantile(h, 0.999) / 1e3,
		(double)h->max / 1e3, h->n ? (double)h->sum / (double)h->n / 1e3 : 0.0);
}

static void write_json(FILE *out, const struct load *l, uint64_t sent, uint64_t answered,
		       uint64_t events, uint64_t up, uint64_t down, double secs)
{
	fprintf(out, "{\"ok\":%s,\"error\":\"", l->failed ? "false" : "true");
	for (const char *p = l->first_error; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', out);
		fputc((unsigned char)*p < 0x20 ? '?' : *p, out);
	}
	fprintf(out, "\",\"connections\":%d,\"in_flight\":%d,\"seconds\":%.6f,\"answers\":%" PRIu64
		",\"answers_per_s\":%.1f,\"events\":%" PRIu64 ",\"events_per_s\":%.1f,\"bytes_up\":%"
		PRIu64 ",\"bytes_down\":%" PRIu64 ",\"mb_per_s_up\":%.3f,\"mb_per_s_down\":%.3f,"
		"\"rate\":%.1f,\"rate_achieved\":%.1f,\"rtt_us\":", l->cfg.connections,
		l->cfg.in_flight, secs, answered, (double)answered / secs, events,
		(double)events / secs, up, down, (double)up / secs / 1e6, (double)down / secs / 1e6,
		l->cfg.rate, l->cfg.rate > 0 ? paced_achieved(l, sent) : 0.0);
	write_hist(out, &l->rtt);
	if (l->cfg.paired) {
		fputs(",\"baseline_rtt_us\":", out);
		write_hist(out, &l->base_rtt);
		fprintf(out, ",\"added_us\":{\"pairs\":%zu", l->n_diffs);
		if (l->n_diffs)
			fprintf(out, ",\"p25\":%.3f,\"p50\":%.3f,\"p75\":%.3f", diff_quantile(l, 0.25),
				diff_quantile(l, 0.5), diff_quantile(l, 0.75));
		fputc('}', out);
	}
	fputs("}\n", out);
}

int main(int argc, char **argv)
{
	struct load_cfg *cfg = &ld.cfg;
	const char *json = NULL;
	int quiet = 0;
	char err[512];
	struct event *sigs[2];
	struct timeval tv;
	uint64_t answered = 0, events = 0, up = 0, down = 0, sent = 0, biggest;
	double secs;

	cfg->connections = cfg->in_flight = 1;
	cfg->duration = 5;
	cfg->timeout = 30;
	cfg->seed = 1;
	cfg->event_size = 1024;
	cfg->params = "{}";
	parse_mix("150", &cfg->cmd, err, sizeof err);
	parse_mix("150", &cfg->result, err, sizeof err);
	if (parse_args(argc, argv, cfg, &json, &quiet, err, sizeof err) < 0) {
		fprintf(stderr, "cdp-load: %s\n", err);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	biggest = mix_max(&cfg->cmd) > mix_max(&cfg->result) ? mix_max(&cfg->cmd) : mix_max(&cfg->result);
	ld.ops = &conn_ops;
	ld.pattern = pattern_get(biggest > cfg->event_size ? biggest : cfg->event_size);
	ld.base = event_base_new();
	ld.conns = xcalloc((size_t)cfg->connections, sizeof *ld.conns);
	sigs[0] = evsignal_new(ld.base, SIGINT, on_signal, &ld);
	sigs[1] = evsignal_new(ld.base, SIGTERM, on_signal, &ld);
	event_add(sigs[0], NULL);
	event_add(sigs[1], NULL);
	tv.tv_sec = 1;
	tv.tv_usec = 0;
	ld.progress_ns = util_mono_ns();
	ld.watch = event_new(ld.base, -1, EV_PERSIST, on_watch, &ld);
	evtimer_add(ld.watch, &tv);
	ld.last_idx = -1;
	for (int i = 0; i < cfg->connections; i++) {
		int base = cfg->paired && i == 1;
		ld.conns[i].ld = &ld;
		ld.conns[i].idx = i;
		ld.conns[i].fd = -1;
		ld.conns[i].to = base ? &cfg->base : &cfg->url;
		ld.conns[i].rtt = base ? &ld.base_rtt : &ld.rtt;
	}
	for (int i = 0; i < cfg->connections && !ld.failed; i++)
		load_conn_start(&ld.conns[i]);
	if (!ld.failed)
		event_base_dispatch(ld.base);

	for (int i = 0; i < cfg->connections; i++) {
		answered += ld.conns[i].answered;
		sent += ld.conns[i].sent;
		events += ld.conns[i].events;
		up += ld.conns[i].bytes_up;
		down += ld.conns[i].bytes_down;
	}
	if (!ld.failed && answered != sent)
		fail(&ld, "%" PRIu64 " commands sent, %" PRIu64 " answered", sent, answered);
	if (ld.n_diffs)
		qsort(ld.diffs, ld.n_diffs, sizeof *ld.diffs, cmp_i64);
	secs = ld.last_ns > ld.start_ns ? (double)(ld.last_ns - ld.start_ns) / 1e9 : 1e-9;
	if (!ld.failed && cfg->rate > 0 &&
	    paced_achieved(&ld, sent) < cfg->rate * (1 - RATE_TOLERANCE))
		fail(&ld, "paced at %.0f/s but achieved %.0f/s (%.1f%% short): the peer, the "
			  "proxy or this machine cannot keep up (or --in-flight %d is too few)",
			  cfg->rate, paced_achieved(&ld, sent),
			  100.0 * (1 - paced_achieved(&ld, sent) / cfg->rate),
			  cfg->in_flight);
	report(stderr, &ld, sent, answered, events, up, down, secs);
	if (!quiet && ld.rtt.n)
		lat_hist_print(&ld.rtt, stderr, 1000, "us");
	if (ld.failed)
		fprintf(stderr, "  FAILED: %s\n", ld.first_error);
	else
		fprintf(stderr, "  ok: %" PRIu64 " answers%s, each once, in order%s\n", answered,
			events ? " and their events" : "", cfg->method ? "" : ", byte for byte");
	if (json) {
		FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;
		if (!f) {
			perror(json);
		} else {
			write_json(f, &ld, sent, answered, events, up, down, secs);
			if (f != stdout)
				fclose(f);
		}
	}
	for (int i = 0; i < cfg->connections; i++)
		load_conn_free(&ld.conns[i]);
	free(ld.conns);
	free(ld.diffs);
	if (ld.deadline)
		event_free(ld.deadline);
	if (ld.pace)
		event_free(ld.pace);
	event_free(ld.watch);
	event_free(sigs[0]);
	event_free(sigs[1]);
	event_base_free(ld.base);
	return ld.failed ? 1 : 0;
}
