/* audit_main: `cdpbench audit`: the flags, the arms, the rounds (interleaved,
 * by rounds.c, the order reversed every other round), Ctrl-C, and the rig
 * analysis of one run's logs; audit --log analyses logs and runs nothing. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "audit_findings.h"
#include "audit_view.h"
#include "cli.h"
#include "datadir.h"
#include "report.h"
#include "rounds.h"
#include "util.h"

#define DEFAULT_ARMS "direct,passthrough,network-postdata-cap"

static void usage(FILE *out)
{
	fputs("usage: cdpbench audit [options] -- COMMAND [ARGS...]\n"
	      "       cdpbench audit --log FILE [--log FILE...] [--bench report.json]\n"
	      "Runs your test command once per policy per round, interleaved, with its browsers\n"
	      "launched through build/cdpproxy-chromium (PUPPETEER_EXECUTABLE_PATH and\n"
	      "CDPPROXY_BROWSER name it), and reports how long each arm takes, with bootstrap CIs,\n"
	      "and what the suite asks of the browser (audit.json, audit.md, audit.html).\n\n"
	      "  --policies LIST      the arms, comma-separated: direct (the real Chromium, no\n"
	      "                       proxy), a name in policies/, or a policy file's path\n"
	      "                       (default " DEFAULT_ARMS ");\n"
	      "                       NAME:nolog runs that policy with no log (the proxy's\n"
	      "                       own cost); ratios are to the first\n"
	      "  --rounds N           measured rounds (default 5)\n"
	      "  --warmup-rounds N    rounds run first and left out of the figures (default 1)\n"
	      "  --out DIR            where the report and each run's output go (default audit)\n"
	      "  --junit FILE         the JUnit XML your command writes: each test's duration\n"
	      "  --timeout S          stop a run (its whole process group) after S seconds\n"
	      "                       (default 900)\n"
	      "  --chromium PATH      the real browser (default $CDPPROXY_CHROMIUM or\n"
	      "                       /usr/bin/chromium)\n"
	      "  --log-bodies SIZE    CDPPROXY_LOG_BODIES of the proxied arms (default 16KiB; 0:\n"
	      "                       no bodies, so no params in the rig analysis)\n"
	      "  --bench FILE         a cdpbench report.json: its ratios back the findings\n"
	      "  --log FILE           analyse this wrapper or cdpproxy --log file; run nothing\n"
	      "  --seed N             the bootstrap's seed (default fixed)\n"
	      "  -h, --help           this text\n"
	      "  -V, --version        the version\n", out);
}

/* Appends the arms of spec; -1 with a message on a missing policy or a bad
 * option. A name is a file in the policy directory the proxy itself uses;
 * NAME:nolog is that policy with no log (the arm is named so). */
static int parse_arms(struct audit *a, const char *spec)
{
	char *copy = xstrdup(spec), *save = NULL, path[BENCH_PATH_MAX + 64], dir[1100];

	datadir_policies(NULL, dir, sizeof dir);
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct audit_arm *arm;
		char *opt = strrchr(tok, ':');
		const char *slash, *file;
		int nolog = 0;
		if (opt && !strcmp(opt, ":nolog")) {   /* else a path with a colon */
			*opt = '\0';
			if (!strcmp(tok, "direct")) {
				fprintf(stderr, "cdpbench audit: --policies: direct:nolog: direct runs "
					"no proxy, so it has no log to drop\n");
				free(copy);
				return -1;
			}
			nolog = 1;
		}
		slash = strrchr(tok, '/');
		file = slash ? slash + 1 : tok;
		a->arms = xrealloc(a->arms, (a->narms + 1) * sizeof *a->arms);
		arm = &a->arms[a->narms++];
		memset(arm, 0, sizeof *arm);
		arm->nolog = nolog;
		snprintf(arm->name, sizeof arm->name, "%.*s%s", (int)strcspn(file, "."), file,
			 nolog ? ":nolog" : "");
		for (size_t i = 0; i + 1 < a->narms; i++) {
			/* the same policy twice is an A/A pair: its runs need names of their own */
			if (!strcmp(a->arms[i].name, arm->name)) {
				char base[AUDIT_NAME_MAX];
				snprintf(base, sizeof base, "%s", arm->name);
				snprintf(arm->name, sizeof arm->name, "%.*s#%zu", AUDIT_NAME_MAX - 8, base,
					 a->narms);
				i = (size_t)-1;
			}
		}
		if (!strcmp(tok, "direct"))
			continue;
		if (strchr(tok, '/') || strstr(tok, ".json"))
			snprintf(path, sizeof path, "%s", tok);
		else
			snprintf(path, sizeof path, "%s/%s.json", dir, tok);
		if (access(path, R_OK) < 0) {
			fprintf(stderr, "cdpbench audit: --policies: no policy %s (%s: %s)\n", tok, path,
				strerror(errno));
			free(copy);
			return -1;
		}
		arm->policy = realpath(path, NULL);
	}
	free(copy);
	if (!a->narms) {
		fprintf(stderr, "cdpbench audit: --policies: no arms\n");
		return -1;
	}
	return 0;
}

/* Reads every *.jsonl of dir into r; the files read. */
static int rig_read_dir(struct audit_rig *r, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[BENCH_PATH_MAX + 300], err[512];
	int n = 0;

	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 6, ".jsonl"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (audit_rig_add_file(r, path, err, sizeof err) < 0)
			fprintf(stderr, "cdpbench audit: %s\n", err);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* The findings' numbers from a cdpbench report.json, when given. */
static void cite(json_t *rig, const char *bench)
{
	json_error_t je;
	json_t *b;

	if (!bench || !rig)
		return;
	if (!(b = json_load_file(bench, 0, &je))) {
		fprintf(stderr, "cdpbench audit: --bench %s: %s\n", bench, je.text);
		return;
	}
	audit_findings_cite(json_object_get(rig, "findings"), b, bench);
	json_decref(b);
}

/* The rig part from the logs of one run: passthrough's (the rig as it is),
 * else the first proxied arm's; its first run that passed. */
static void analyse(struct audit *a, const char *bench)
{
	size_t pick = a->narms;
	struct audit_rig rig;

	for (size_t i = 0; i < a->narms && pick == a->narms; i++)
		if (a->arms[i].policy && !strcmp(a->arms[i].name, "passthrough"))
			pick = i;
	for (size_t i = 0; i < a->narms && pick == a->narms; i++)
		if (audit_arm_logs(&a->arms[i]))
			pick = i;
	for (int round = 0; pick < a->narms && round < a->rounds_run; round++) {
		const struct audit_run *r = audit_run_at(a, round, pick);
		if (!r->ok)
			continue;
		audit_rig_init(&rig);
		if (rig_read_dir(&rig, r->logdir) > 0) {
			a->rig = audit_rig_json(&rig);
			snprintf(a->rig_from, sizeof a->rig_from, "%s", r->logdir);
		}
		audit_rig_free(&rig);
		break;
	}
	cite(a->rig, bench);
}

static int log_only(char **logs, int nlogs, const char *bench)
{
	struct audit_rig rig;
	char err[512];
	json_t *j;
	int rc = 0;

	audit_rig_init(&rig);
	for (int i = 0; i < nlogs; i++) {
		if (audit_rig_add_file(&rig, logs[i], err, sizeof err) < 0) {
			fprintf(stderr, "cdpbench audit: %s\n", err);
			rc = CLI_FAILED;
		}
	}
	if (rig.in.bad)
		fprintf(stderr, "cdpbench audit: %llu lines are not records; the first is line %llu: %s\n",
			(unsigned long long)rig.in.bad, (unsigned long long)rig.in.first_bad,
			rig.in.first_bad_why);
	j = audit_rig_json(&rig);
	cite(j, bench);
	if (!rc)
		audit_rig_print(j, stdout);
	json_decref(j);
	audit_rig_free(&rig);
	return rc;
}

static void arm_name(struct rounds_job *j, size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((struct audit *)j->arg)->arms[i].name);
}

static void arm_run(struct rounds_job *j, size_t i, int round, int position,
		    struct rounds_result *out)
{
	struct audit *a = j->arg;
	struct audit_run *r = audit_run_at(a, round, i);

	(void)position;
	audit_run_once(a, i, round, j->stop, r);
	out->ok = r->ok;
	out->seconds = r->seconds;
	out->error = r->error;
	snprintf(out->what, sizeof out->what, "ok");
}

int audit_main(int argc, char **argv)
{
	enum { O_POLICIES = 256, O_ROUNDS, O_WARM, O_OUT, O_JUNIT, O_TIMEOUT, O_CHROMIUM,
	       O_BODIES, O_BENCH, O_LOG, O_SEED };
	static const struct option opts[] = {
		{ "policies", required_argument, NULL, O_POLICIES },
		{ "rounds", required_argument, NULL, O_ROUNDS },
		{ "warmup-rounds", required_argument, NULL, O_WARM },
		{ "out", required_argument, NULL, O_OUT }, { "junit", required_argument, NULL, O_JUNIT },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "chromium", required_argument, NULL, O_CHROMIUM },
		{ "log-bodies", required_argument, NULL, O_BODIES },
		{ "bench", required_argument, NULL, O_BENCH }, { "log", required_argument, NULL, O_LOG },
		{ "seed", required_argument, NULL, O_SEED }, CLI_LONGOPTS, { NULL, 0, NULL, 0 },
	};
	static struct bench_config cfg;
	static struct audit a;
	static struct audit_view view;
	const char *arms = DEFAULT_ARMS, *bench = NULL;
	char **logs = NULL, err[512];
	int nlogs = 0, c, li = 0, rc = 1, total;
	volatile sig_atomic_t *stop = NULL;
	uint64_t t0;
	time_t now;

	memset(&a, 0, sizeof a);
	snprintf(cfg.out_dir, sizeof cfg.out_dir, "audit");
	cfg.chromium = getenv("CDPPROXY_CHROMIUM") && *getenv("CDPPROXY_CHROMIUM") ?
		       getenv("CDPPROXY_CHROMIUM") : "/usr/bin/chromium";
	cfg.resamples = ESTIMATE_RESAMPLES;
	cfg.seed = ESTIMATE_SEED;
	cfg.rounds = 5;
	cfg.warmup_rounds = 1;
	a.cfg = &cfg;
	a.timeout_s = 900;
	a.log_bodies = "16KiB";
	optind = 1;
	/* "+": the first word that is not an option starts the command */
	while ((c = getopt_long(argc, argv, "+" CLI_SHORTOPTS, opts, &li)) != -1) {
		long v = 0;
		if (c == O_ROUNDS || c == O_WARM || c == O_TIMEOUT) {
			char flag[32];
			snprintf(flag, sizeof flag, "--%s", opts[li].name);
			if (util_parse_long(flag, optarg, c == O_WARM ? 0 : 1,
					    c == O_TIMEOUT ? 86400 : 1000, &v, err, sizeof err) < 0) {
				fprintf(stderr, "cdpbench audit: %s\n", err);
				return 2;
			}
		}
		switch (c) {
		case O_POLICIES: arms = optarg; break;
		case O_ROUNDS: cfg.rounds = (int)v; break;
		case O_WARM: cfg.warmup_rounds = (int)v; break;
		case O_OUT: snprintf(cfg.out_dir, sizeof cfg.out_dir, "%s", optarg); break;
		case O_JUNIT: a.junit = optarg; break;
		case O_TIMEOUT: a.timeout_s = (int)v; break;
		case O_CHROMIUM: cfg.chromium = optarg; break;
		case O_BODIES: a.log_bodies = optarg; break;
		case O_BENCH: bench = optarg; break;
		case O_LOG:
			logs = xrealloc(logs, (size_t)(nlogs + 1) * sizeof *logs);
			logs[nlogs++] = optarg;
			break;
		case O_SEED:
			if (util_parse_long("--seed", optarg, 0, LONG_MAX, &v, err, sizeof err) < 0) {
				fprintf(stderr, "cdpbench audit: %s\n", err);
				return CLI_USAGE;
			}
			cfg.seed = (uint64_t)v;
			break;
		case 'h': usage(stdout); return CLI_OK;
		case 'V': puts("cdpbench " CDPPROXY_VERSION); return CLI_OK;
		default:
			cli_bad_option(c, argv, opts, err, sizeof err);
			fprintf(stderr, "cdpbench audit: %s\n", err);
			return CLI_USAGE;
		}
	}
	if (nlogs) {
		if (optind < argc) {
			fprintf(stderr, "cdpbench audit: --log runs nothing; drop the command or the --log\n");
			free(logs);
			return 2;
		}
		rc = log_only(logs, nlogs, bench);
		free(logs);
		return rc;
	}
	if (optind >= argc) {
		fprintf(stderr, "cdpbench audit: no command (cdpbench audit [options] -- COMMAND ...)\n");
		return 2;
	}
	a.argv = argv + optind;
	a.argc = argc - optind;
	bench_find_dirs(&cfg);
	snprintf(a.wrapper, sizeof a.wrapper, "%s/cdpproxy-chromium", cfg.bindir);
	if (parse_arms(&a, arms) < 0) {
		rc = CLI_USAGE;
		goto out;
	}
	if (access(cfg.chromium, X_OK) < 0) {
		fprintf(stderr, "cdpbench audit: cannot run %s: %s (--chromium PATH)\n", cfg.chromium,
			strerror(errno));
		goto out;
	}
	if (access(a.wrapper, X_OK) < 0) {
		fprintf(stderr, "cdpbench audit: cannot run %s: %s (build it: make)\n", a.wrapper,
			strerror(errno));
		goto out;
	}
	if (mkdir(cfg.out_dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "cdpbench audit: cannot create %s: %s\n", cfg.out_dir, strerror(errno));
		goto out;
	}
	total = cfg.warmup_rounds + cfg.rounds;
	a.runs = xcalloc((size_t)total * a.narms, sizeof *a.runs);
	stop = bench_catch_signals();
	now = time(NULL);
	strftime(a.started, sizeof a.started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	a.env = report_environment(&cfg, argc, argv);
	json_object_del(a.env, "chromium_flags");   /* cdpbench's own launches: not these */
	fprintf(stderr, "cdpbench audit: %zu arms x %d rounds (%d warm-up) of:", a.narms, total,
		cfg.warmup_rounds);
	for (int i = 0; i < a.argc; i++)
		fprintf(stderr, " %s", a.argv[i]);
	fprintf(stderr, "\n");
	t0 = util_mono_us();
	a.rounds_run = rounds_drive(&(struct rounds_job){
		.who = "cdpbench audit", .ncells = a.narms, .warmup = cfg.warmup_rounds,
		.fixed = total, .name = arm_name, .run = arm_run, .arg = &a,
		.stop = stop }, t0);
	a.wall_s = (double)(util_mono_us() - t0) / 1e6;
	a.interrupted = *stop;
	audit_stats_compute(&a);
	analyse(&a, bench);
	audit_view_build(&view, &a);
	audit_text(&view, stdout);
	fflush(stdout);
	if (audit_write_files(&a, &view, err, sizeof err) < 0) {
		fprintf(stderr, "cdpbench audit: %s\n", err);
		goto out;
	}
	fprintf(stderr, "cdpbench audit: %.0f s; report in %s/ (audit.html, audit.md, audit.json)\n",
		a.wall_s, cfg.out_dir);
	rc = *stop ? 130 : 0;
out:
	audit_view_free(&view);
	for (size_t i = 0; a.runs && i < (size_t)(cfg.warmup_rounds + cfg.rounds) * a.narms; i++)
		audit_run_free(&a.runs[i]);
	free(a.runs);
	for (size_t i = 0; i < a.narms; i++)
		free(a.arms[i].policy);
	free(a.arms);
	audit_stats_free(&a);
	json_decref(a.rig);
	json_decref(a.env);
	return rc;
}
