/* cdplog: reads a cdpproxy --log file offline: summary, pairs, timeline, har. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdplog.h"
#include "cli.h"
#include "logrec.h"
#include "util.h"

static void usage(FILE *out)
{
	fputs("usage: cdplog summary|pairs|timeline|har LOG [options]\n"
	      "Reads a cdpproxy --log file (JSON Lines; - for stdin) in one pass, with bounded memory.\n\n"
	      "  summary     per domain and method: messages, commands, events, bytes, round-trip\n"
	      "              p50/p99/max, errors (busiest first); connections and how each ended\n"
	      "              (closed by whom, or no close record: the process was killed);\n"
	      "              sessions with their targets and enabled domains (with params under\n"
	      "              --log-bodies); policy generations; marks; WebDriver BiDi's (bidi\n"
	      "              records) by module and method, its errors\n"
	      "  pairs       each command with its answer, one line each, in the order sent: time,\n"
	      "              conn, session, method, round trip, error (its message with --log-bodies)\n"
	      "  timeline    per session, in time order: attach, URL changes, each X.enable and\n"
	      "              X.disable, marks, and the policy switches while it lived\n"
	      "  har         a HAR 1.2 file (Chrome DevTools' Network panel imports it, Playwright's\n"
	      "              routeFromHAR replays it): an entry per request of each page session\n"
	      "              (redirects apart) with headers, timings, request bodies and the\n"
	      "              response bodies fetched (by the client, or by cdpproxy\n"
	      "              --record-bodies); pages from the navigations; on stderr, how many\n"
	      "              entries have no body and why. Needs a log recorded with\n"
	      "              --log-bodies; secrets stay redacted\n\n"
	      "  --json              JSON instead of text (pairs: one object a line)\n"
	      "  --session S         pairs, timeline: only session S (a prefix of its id; - for none)\n"
	      "  --method M          pairs: only method M (a name, a glob like 'Runtime.*', a domain)\n"
	      "  --conn N            pairs: only connection N\n"
	      "  --since T, --until T  pairs: commands sent from/until T: seconds since the log's\n"
	      "                      first record (12.5), microseconds since the epoch as in t, or\n"
	      "                      UTC YYYY-MM-DDTHH:MM:SS[.frac]Z\n"
	      "  --top N             summary: rows per table (default 30, 0 for all)\n"
	      "  --pending N         commands kept awaiting their answer (default 100000); older\n"
	      "                      ones are shown or counted as unanswered\n"
	      "  --sessions-max N    sessions kept at once (default 10000); the least recently\n"
	      "                      seen is forgotten (har: its requests are written as they are)\n"
	      "  -o FILE             har: write to FILE (default: standard output)\n"
	      "  --per-session       har: one file per page session, FILE's name with the session\n"
	      "                      id before .har (out.har: out-SESSIONID.har); needs -o\n"
	      "  --max-requests N    har: requests held at once, in flight or awaiting the client's\n"
	      "                      body fetch (default 1000); past it the oldest is written as it\n"
	      "                      is, its comment saying so\n"
	      "  -h, --help          this text\n"
	      "  -V, --version       the version\n", out);
}

enum { O_JSON = 256, O_SESSION, O_METHOD, O_CONN, O_SINCE, O_UNTIL, O_TOP, O_PENDING,
       O_SESSIONS_MAX, O_PER_SESSION, O_MAX_REQUESTS };

/* Parses argv; returns 0 to run *cmd on *path, 1 when --help or --version
 * was answered, -1 with one line in err. */
static int parse_args(int argc, char **argv, struct logrec_opts *o, struct har_opts *ho,
		      const char **cmd, const char **path, char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, O_JSON },
		{ "session", required_argument, NULL, O_SESSION },
		{ "method", required_argument, NULL, O_METHOD },
		{ "conn", required_argument, NULL, O_CONN },
		{ "since", required_argument, NULL, O_SINCE },
		{ "until", required_argument, NULL, O_UNTIL },
		{ "top", required_argument, NULL, O_TOP },
		{ "pending", required_argument, NULL, O_PENDING },
		{ "sessions-max", required_argument, NULL, O_SESSIONS_MAX },
		{ "per-session", no_argument, NULL, O_PER_SESSION },
		{ "max-requests", required_argument, NULL, O_MAX_REQUESTS },
		CLI_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	char flag[32];
	uint64_t t;
	long v;
	int c, li = 0;

	while ((c = getopt_long(argc, argv, CLI_SHORTOPTS "o:", opts, &li)) != -1) {
		switch (c) {
		case 'o': ho->out = optarg; break;
		case O_PER_SESSION: ho->per_session = 1; break;
		case O_JSON: o->json = 1; break;
		case O_SESSION: o->session = optarg; break;
		case O_METHOD: o->method = optarg; break;
		case O_SINCE:
		case O_UNTIL:
			/* its form now; a time since the start needs the log's first record */
			if (logrec_parse_time(optarg, 0, &t, err, errlen) < 0)
				return -1;
			*(c == O_SINCE ? &o->since : &o->until) = optarg;
			break;
		case O_CONN:
		case O_TOP:
		case O_PENDING:
		case O_SESSIONS_MAX:
		case O_MAX_REQUESTS:
			snprintf(flag, sizeof flag, "--%s", opts[li].name);
			if (util_parse_long(flag, optarg, c == O_CONN || c == O_TOP ? 0 : 1, LONG_MAX, &v,
					    err, errlen) < 0)
				return -1;
			if (c == O_CONN)
				o->conn = (uint64_t)v, o->has_conn = 1;
			else if (c == O_TOP)
				o->top = (size_t)v;
			else if (c == O_PENDING)
				o->pending_max = (size_t)v;
			else if (c == O_MAX_REQUESTS)
				ho->max_requests = (size_t)v;
			else
				o->sessions_max = (size_t)v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			puts("cdplog " CDPPROXY_VERSION);
			return 1;
		default:
			cli_bad_option(c, argv, opts, err, errlen);
			return -1;
		}
	}
	if (argc - optind != 2) {
		snprintf(err, errlen, "%s (see --help)", argc - optind < 2 ?
			 "wants a command (summary, pairs, timeline, har) and a LOG" : "too many arguments");
		return -1;
	}
	*cmd = argv[optind];
	*path = argv[optind + 1];
	if (strcmp(*cmd, "summary") && strcmp(*cmd, "pairs") && strcmp(*cmd, "timeline") && strcmp(*cmd, "har")) {
		snprintf(err, errlen, "unknown command '%s': summary, pairs, timeline or har (see --help)", *cmd);
		return -1;
	}
	if (ho->per_session && (!ho->out || !strcmp(ho->out, "-"))) {
		snprintf(err, errlen, "--per-session wants -o FILE to name its files after (see --help)");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct logrec_opts o = { .top = 30, .pending_max = 100000, .sessions_max = 10000 };
	struct har_opts ho = { .out = "-", .max_requests = 1000 };
	const char *cmd = NULL, *path = NULL;
	char err[300] = "";
	FILE *f;
	int rc;

	rc = parse_args(argc, argv, &o, &ho, &cmd, &path, err, sizeof err);
	if (rc) {
		if (rc < 0)
			fprintf(stderr, "cdplog: %s\n", err);
		return rc < 0 ? CLI_USAGE : CLI_OK;
	}
	f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		snprintf(err, sizeof err, "cannot open %s: %s", path, strerror(errno));
		rc = -1;
		goto done;
	}
	if (!strcmp(cmd, "summary"))
		rc = cdplog_summary(f, path, &o, stdout, err, sizeof err);
	else if (!strcmp(cmd, "har"))
		rc = cdplog_har(f, path, &o, &ho, err, sizeof err);
	else if (!strcmp(cmd, "pairs"))
		rc = cdplog_pairs(f, path, &o, stdout, err, sizeof err);
	else
		rc = cdplog_timeline(f, path, &o, stdout, err, sizeof err);
	if (f != stdin)
		fclose(f);
done:
	if (rc < 0)
		fprintf(stderr, "cdplog: %s\n", err);
	if (fflush(stdout) != 0 && rc >= 0) {
		fprintf(stderr, "cdplog: writing the output failed: %s\n", strerror(errno));
		rc = -1;
	}
	return rc < 0 ? CLI_FAILED : CLI_OK;
}
