/* run_main: `cdpbench` without a subcommand: the flags, the matrix of
 * scenarios x bodies, its rounds, and the report. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cdp.h"
#include "child.h"
#include "cli.h"
#include "placement.h"
#include "replay.h"
#include "report.h"
#include "report_view.h"
#include "matrix.h"
#include "run.h"
#include "scenario.h"
#include "trial.h"
#include "util.h"

#define MAX_TRANSFERS 12   /* measured, with --measure-ms */
#define PLACEMENT_DEFAULT PLACEMENT_SPLIT   /* measured: README, "Where the variance comes from" */
#define PLACEMENT_DEFAULT_NAME "split"
#define STR(x) #x
#define XSTR(x) STR(x)

/* What each mode runs unless a flag says otherwise. */
struct mode {
	const char *bodies;
	double mib;
	int rounds, warmup_rounds, transfers;
	double budget_s;   /* 0: the rounds are fixed */
	int measure_ms;    /* measured time per trial, in more transfers (0: exactly N) */
	int warmup_ms;     /* warm-up time per trial, in more warm-up transfers */
};

/* No warm-up round by default: over 104 cell-runs here, the first round's
 * trials were no slower than the others' median. Warm-up transfers to 1000
 * ms (the page starts none it expects to end past that: a slow cell warms up
 * with one) and measured ones to 300 ms: a
 * fresh browser's start keeps its CPU busy for about a second and its first
 * transfers run slow; a second of warm-up halves u8's and blob's
 * trial-to-trial spread (README, "Why the defaults are what they are"). */
#define WARMUP_MS 1000   /* the default's, and the atlas's */
static const struct mode mode_default = { "u8,blob", 4, 4, 0, 2, 300, 300, WARMUP_MS };
/* The default matrix alone adds download, with only some scenarios (scenario.c). */
#define DEFAULT_MATRIX_BODIES "u8,blob,download"
static const struct mode mode_quick = { "u8,blob", 4, 2, 0, 1, 0, 0, 0 };
/* stream is not in --full: Chromium streams request bodies only over HTTP/2 or
 * QUIC, and the sink speaks HTTP/1.1 (--bodies stream shows the error). */
static const struct mode mode_full = { "u8,ab,blob,form,str,xhr,download", 32, 5, 1, 2, 0, 0, 0 };
/* --atlas: every workload, fixed rounds (a run is long: README, "The atlas"),
 * the default's second of warm-up (with 150 ms a fast cell's slow first
 * transfers ended it and two runs disagreed on cells one called tight);
 * with --quick, a matrix small enough for a test. */
static const struct mode mode_atlas = { "u8,ab,blob,form,str,xhr,download,pageload", 4, ATLAS_MIN_ROUNDS, 0,
					2, 0, 300, WARMUP_MS };
static const struct mode mode_atlas_quick = { "u8,pageload", 1, 2, 0, 1, 0, 0, 0 };

static void usage(FILE *out)
{
	fputs("usage: cdpbench [--quick | --full] [options]\n"
	      "       cdpbench audit [options] -- COMMAND [ARGS...]   (cdpbench audit --help)\n"
	      "Measures upload throughput in headless Chromium with no debugger, with a CDP client\n"
	      "attached, and with each scenario's domains enabled; prints a table and writes a\n"
	      "report (report.json, report.md, report.html).\n\n"
	      "  --quick              a smoke matrix, under a minute: native,none,attach,Network,\n"
	      "                       playwright x u8,blob, 4 MiB, 2 rounds, no warm-up round\n"
	      "  --full               every scenario x every body but stream, 32 MiB (long)\n"
	      "  --atlas              every domain and the rigs' sequences (with and without a\n"
	      "                       route) x every workload but stream, 4 MiB, 6 rounds: a\n"
	      "                       heatmap (atlas.html, atlas.json) besides the report, in\n"
	      "                       --out (default atlas); with --quick, a small matrix\n"
	      "  --scenarios LIST     comma-separated: built-ins (see --list), a domain (Network),\n"
	      "                       a domain with params (Network:{\"maxPostDataSize\":1024}),\n"
	      "                       domains in order (DOM+CSS); a name given twice is an A/A pair\n"
	      "  --replay FILE        add a scenario replaying FILE: a replay file or a cdpproxy\n"
	      "                       --log (--log-bodies for params); repeatable. Alone: none,\n"
	      "                       attach and the replays\n"
	      "  --bodies LIST        u8,ab,blob,form,str,xhr,stream,download,pageload (default\n"
	      "                       u8,blob; with no --scenarios either, download too, with the\n"
	      "                       scenarios whose answer differs from the uploads'); pageload:\n"
	      "                       a page of 200 small resources\n"
	      "  --mib N              body size in MiB (default 4; --quick 4, --full 32)\n"
	      "  --rounds N           measured rounds, fixed (default: 4, then more within --budget);\n"
	      "                       cells interleave round by round\n"
	      "  --budget DURATION    add rounds until every ratio's CI is within --target-ci, or\n"
	      "                       DURATION (5m, 90s) is spent (default 5m; with --rounds N, N\n"
	      "                       rounds first)\n"
	      "  --target-ci F        the CI half-width a ratio should reach (default 0.1: +-10%)\n"
	      "  --warmup-rounds N    rounds run first and discarded (default 0; --full 1)\n"
	      "  --transfers N        measured transfers per trial, after the warm-up (default 2)\n"
	      "  --measure-ms MS      then more transfers (up to " XSTR(MAX_TRANSFERS) " in all) until MS ms of\n"
	      "                       measured time (default 300; --quick and --full 0: N exactly)\n"
	      "  --warmup-ms MS       warm-up transfers before the measured ones: one, then more\n"
	      "                       while one more as long as the last ends within MS ms of\n"
	      "                       warm-up (default " XSTR(WARMUP_MS) "; --quick and --full 0: one)\n"
	      "  --placement P        shared: the sink and the browsers on every CPU; split: the\n"
	      "                       sink on the last CPU, the browsers on the others (default "
	      PLACEMENT_DEFAULT_NAME ")\n"
	      "  --out DIR            where the report goes (default report)\n"
	      "  --chromium PATH      the browser (default /usr/bin/chromium)\n"
	      "  --trial-timeout S    give up on a trial after S seconds (default: from the size)\n"
	      "  --seed N             the bootstrap's seed (default fixed: reports reproduce)\n"
	      "  --order-seed N       the rounds' order (default: drawn for each run, and recorded)\n"
	      "  --list               the scenarios and bodies, then exit\n"
	      "  --print-replay FILE  print the replay FILE (or a cdpproxy log) would run, then exit\n"
	      "  --verbose            libwebsockets notices on stderr\n"
	      "  -h, --help           this text\n"
	      "  -V, --version        the version\n", out);
}

static void list_one(const char *name, const char *about, void *arg)
{
	fprintf(arg, "  %-18s %s\n", name, about);
}

static int print_replay(const char *path)
{
	struct scenario_cmd *cmds;
	size_t n;
	struct scenario_lost lost;
	char err[512], *out;

	if (replay_load(path, &cmds, &n, &lost, err, sizeof err) < 0) {
		fprintf(stderr, "cdpbench: %s\n", err);
		return 1;
	}
	replay_warn_lossy(path, &lost);
	out = replay_format(cmds, n);
	fputs(out, stdout);
	free(out);
	replay_free(cmds, n);
	return 0;
}

/* A built-in matrix, leaving out (with a note) what this tree cannot run yet. */
static void lenient_scenarios(struct scenario_list *l, const char *spec,
			      const struct scenario_env *env, json_t *notes)
{
	const char *p = spec;
	char item[128], err[512];

	while (*p) {
		size_t n = strcspn(p, ",");
		snprintf(item, sizeof item, "%.*s", (int)n, p);
		p += n + (p[n] == ',');
		if (scenario_parse_list(l, item, env, err, sizeof err) < 0) {
			fprintf(stderr, "cdpbench: leaving %s out of the matrix: %s\n", item, err);
			json_array_append_new(notes, json_sprintf("left out of the matrix: %s (%s)",
								  item, err));
		}
	}
}

static int parse_bodies(const char *spec, const char ***out, size_t *n)
{
	char *copy = xstrdup(spec), *save = NULL;

	*out = NULL;
	*n = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < bench_nbodies && strcmp(bench_bodies[i], tok); i++)
			;
		if (i == bench_nbodies) {
			fprintf(stderr, "cdpbench: unknown body '%s' (bodies: u8, ab, blob, form, str, "
				"xhr, stream, download, pageload)\n", tok);
			free(copy);
			return -1;
		}
		*out = xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = bench_bodies[i];
	}
	free(copy);
	return *n ? 0 : -1;
}

/* "5m", "90s", "1m30s", "300" (seconds): seconds, or -1. */
static double parse_duration(const char *text)
{
	double total = 0;
	const char *p = text;
	char *end;

	do {
		double v = strtod(p, &end);
		if (end == p || !(v >= 0))
			return -1;
		total += v * (*end == 'h' ? 3600 : *end == 'm' ? 60 : 1);
		p = end + (*end == 'h' || *end == 'm' || *end == 's');
	} while (*p && p != end);
	return *p ? -1 : total;
}

int run_main(int argc, char **argv)
{
	enum { O_QUICK = 256, O_FULL, O_SCEN, O_REPLAY, O_BODIES, O_MIB, O_ROUNDS, O_WARM, O_XFER,
	       O_OUT, O_CHROMIUM, O_TIMEOUT, O_SEED, O_LIST, O_PRINT, O_VERBOSE,
	       O_BUDGET, O_TARGET, O_MEASURE, O_WARMMS, O_PLACEMENT, O_ORDER, O_ATLAS };
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, O_QUICK }, { "full", no_argument, NULL, O_FULL },
		{ "atlas", no_argument, NULL, O_ATLAS },
		{ "scenarios", required_argument, NULL, O_SCEN },
		{ "replay", required_argument, NULL, O_REPLAY },
		{ "bodies", required_argument, NULL, O_BODIES }, { "mib", required_argument, NULL, O_MIB },
		{ "rounds", required_argument, NULL, O_ROUNDS },
		{ "warmup-rounds", required_argument, NULL, O_WARM },
		{ "transfers", required_argument, NULL, O_XFER }, { "out", required_argument, NULL, O_OUT },
		{ "chromium", required_argument, NULL, O_CHROMIUM },
		{ "trial-timeout", required_argument, NULL, O_TIMEOUT },
		{ "seed", required_argument, NULL, O_SEED },
		{ "order-seed", required_argument, NULL, O_ORDER }, { "list", no_argument, NULL, O_LIST },
		{ "print-replay", required_argument, NULL, O_PRINT },
		{ "verbose", no_argument, NULL, O_VERBOSE },
		{ "budget", required_argument, NULL, O_BUDGET },
		{ "target-ci", required_argument, NULL, O_TARGET },
		{ "measure-ms", required_argument, NULL, O_MEASURE },
		{ "warmup-ms", required_argument, NULL, O_WARMMS },
		{ "placement", required_argument, NULL, O_PLACEMENT }, CLI_LONGOPTS, { NULL, 0, NULL, 0 },
	};
	static struct bench_config cfg;
	const struct mode *mode = &mode_default;
	const char *scen_spec = NULL, *body_spec = NULL, **bodies = NULL;
	const struct scenario_cells *only = NULL;   /* the default matrix's cells per body */
	char **replays = NULL, err[512], sink_bin[BENCH_PATH_MAX + 16];
	int nreplays = 0, c, li = 0, rounds = -1, warm = -1, xfer = -1, measure = -1, warmms = -1;
	int rc = 1, atlas = 0, out_given = 0;
	double mib = -1, budget = -1, target = 0.1;
	enum placement placement = PLACEMENT_DEFAULT;
	json_t *placed = NULL;
	size_t nbodies = 0, ncells = 0;
	struct scenario_list scen = { NULL, 0 };
	struct scenario_env env;
	struct report rep;
	struct report_view view = { 0 };
	struct report_cell *cells = NULL;
	struct child sink;
	struct lws_context *ctx = NULL;
	uint64_t t0, t_start = util_mono_us();
	time_t now;
	char *end;
	volatile sig_atomic_t *stop = NULL;

	memset(&rep, 0, sizeof rep);
	memset(&sink, 0, sizeof sink);
	snprintf(cfg.out_dir, sizeof cfg.out_dir, "report");
	cfg.chromium = "/usr/bin/chromium";
	cfg.resamples = ESTIMATE_RESAMPLES;
	cfg.seed = ESTIMATE_SEED;
	/* Runs are replications: with one order for all, whatever a cell's
	 * neighbours do to it would repeat in every run (README). 53 bits: a
	 * number JSON readers keep exactly. */
	cfg.order_seed = (util_mono_us() ^ ((uint64_t)getpid() << 32)) & ((1ull << 53) - 1);
	cfg.warmup_transfers = 1;
	/* one line of our own instead of getopt's and the usage */
	while ((c = getopt_long(argc, argv, CLI_SHORTOPTS, opts, &li)) != -1) {
		long v = 0;
		int ms = c == O_MEASURE || c == O_WARMMS;
		if (c == O_ROUNDS || c == O_WARM || c == O_XFER || c == O_TIMEOUT || ms) {
			char flag[32];
			snprintf(flag, sizeof flag, "--%s", opts[li].name);
			if (util_parse_long(flag, optarg, c == O_WARM || ms ? 0 : 1, ms ? 60000 : 1000, &v,
					    err, sizeof err) < 0) {
				fprintf(stderr, "cdpbench: %s\n", err);
				return 2;
			}
		}
		switch (c) {
		case O_QUICK: mode = &mode_quick; break;
		case O_FULL: mode = &mode_full; break;
		case O_ATLAS: atlas = 1; break;
		case O_SCEN: scen_spec = optarg; break;
		case O_REPLAY:
			replays = xrealloc(replays, (size_t)(nreplays + 1) * sizeof *replays);
			replays[nreplays++] = optarg;
			break;
		case O_BODIES: body_spec = optarg; break;
		case O_MIB:
			mib = strtod(optarg, &end);
			if (*end || end == optarg || !(mib > 0) || mib > 4096) {
				fprintf(stderr, "cdpbench: --mib wants a size in MiB (0 < N <= 4096), not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case O_BUDGET:
			if ((budget = parse_duration(optarg)) < 0) {
				fprintf(stderr, "cdpbench: --budget wants a duration (5m, 90s, 1m30s), not "
					"'%s'\n", optarg);
				return 2;
			}
			break;
		case O_TARGET:
			target = strtod(optarg, &end);
			if (*end || end == optarg || !(target > 0) || target >= 1) {
				fprintf(stderr, "cdpbench: --target-ci wants a fraction (0 < F < 1; 0.1 is "
					"+-10%%), not '%s'\n", optarg);
				return 2;
			}
			break;
		case O_ROUNDS: rounds = (int)v; break;
		case O_MEASURE: measure = (int)v; break;
		case O_WARMMS: warmms = (int)v; break;
		case O_PLACEMENT:
			if (placement_parse(optarg, &placement) < 0) {
				fprintf(stderr, "cdpbench: --placement wants shared or split, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case O_WARM: warm = (int)v; break;
		case O_XFER: xfer = (int)v; break;
		case O_OUT:
			snprintf(cfg.out_dir, sizeof cfg.out_dir, "%s", optarg);
			out_given = 1;
			break;
		case O_CHROMIUM: cfg.chromium = optarg; break;
		case O_TIMEOUT: cfg.trial_timeout_s = (int)v; break;
		case O_SEED:
		case O_ORDER:
			if (util_parse_long(c == O_SEED ? "--seed" : "--order-seed", optarg, 0, LONG_MAX,
					    &v, err, sizeof err) < 0) {
				fprintf(stderr, "cdpbench: %s\n", err);
				return 2;
			}
			*(c == O_SEED ? &cfg.seed : &cfg.order_seed) = (uint64_t)v;
			break;
		case O_LIST:
			printf("scenarios:\n");
			scenario_catalogue(list_one, stdout);
			printf("bodies: u8 ab blob form str xhr stream download pageload\n");
			return 0;
		case O_PRINT: return print_replay(optarg);
		case O_VERBOSE: cfg.verbose = 1; break;
		case 'h': usage(stdout); return CLI_OK;
		case 'V': puts("cdpbench " CDPPROXY_VERSION); return CLI_OK;
		default:
			cli_bad_option(c, argv, opts, err, sizeof err);
			fprintf(stderr, "cdpbench: %s\n", err);
			return CLI_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cdpbench: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (atlas) {
		if (mode == &mode_full) {
			fprintf(stderr, "cdpbench: --atlas and --full are two matrices: choose one\n");
			return 2;
		}
		mode = mode == &mode_quick ? &mode_atlas_quick : &mode_atlas;
		if (!out_given)
			snprintf(cfg.out_dir, sizeof cfg.out_dir, "atlas");
	}
	cfg.bytes = (uint64_t)llround((mib > 0 ? mib : mode->mib) * (1 << 20));
	cfg.rounds = rounds > 0 ? rounds : mode->rounds;
	cfg.warmup_rounds = warm >= 0 ? warm : mode->warmup_rounds;
	cfg.transfers = xfer > 0 ? xfer : mode->transfers;
	cfg.measure_ms = measure >= 0 ? measure : mode->measure_ms;
	cfg.warmup_ms = warmms >= 0 ? warmms : mode->warmup_ms;
	cfg.max_transfers = cfg.measure_ms && cfg.transfers < MAX_TRANSFERS ? MAX_TRANSFERS :
			    cfg.transfers;
	/* --rounds N alone fixes the count; --budget adds rounds after them. */
	cfg.budget_s = budget >= 0 ? budget : rounds > 0 ? 0 : mode->budget_s;
	cfg.target_ci = target;
	cfg.by_workload = atlas;
	bench_find_dirs(&cfg);
	env.replays = cfg.replays;
	env.policies = cfg.policies;
	rep.notes = json_array();
	if (atlas)
		json_array_append_new(rep.notes, json_string(
			"every ratio's CI is widened to no narrower than a median of its rounds can be when "
			"they scatter as its workload's cells do, pooled (atlas.json's noise_sd)"));
	if (!scen_spec && atlas) {
		lenient_scenarios(&scen, mode == &mode_atlas_quick ? scenario_atlas_quick_spec :
				  scenario_atlas_spec, &env, rep.notes);
	} else if (scen_spec || mode == &mode_quick) {
		if (scenario_parse_list(&scen, scen_spec ? scen_spec : scenario_quick_spec, &env, err,
					sizeof err) < 0) {
			fprintf(stderr, "cdpbench: --scenarios: %s\n", err);
			return 2;
		}
	} else if (mode == &mode_full) {
		lenient_scenarios(&scen, scenario_full_spec, &env, rep.notes);
	} else if (nreplays) {
		lenient_scenarios(&scen, "none,attach", &env, rep.notes);
	} else {
		lenient_scenarios(&scen, scenario_default_spec, &env, rep.notes);
		if (!body_spec)
			only = scenario_default_cells;
	}
	for (int i = 0; i < nreplays; i++) {
		if (scenario_add_replay(&scen, replays[i], err, sizeof err) < 0) {
			fprintf(stderr, "cdpbench: --replay: %s\n", err);
			return 2;
		}
	}
	free(replays);
	if (parse_bodies(body_spec ? body_spec : only ? DEFAULT_MATRIX_BODIES : mode->bodies, &bodies,
			 &nbodies) < 0) {
		if (!body_spec || !*body_spec)
			fprintf(stderr, "cdpbench: --bodies: no bodies\n");
		return 2;
	}
	if (access(cfg.chromium, X_OK) < 0) {
		fprintf(stderr, "cdpbench: cannot run %s: %s (apt-get install chromium, or --chromium "
			"PATH)\n", cfg.chromium, strerror(errno));
		return 1;
	}

	/* Cells in table order: by body, then scenario. */
	for (size_t b = 0; b < nbodies; b++) {
		for (size_t s = 0; s < scen.n; s++) {
			if (!scenario_cells_has(only, bodies[b], scen.v[s].name))
				continue;
			cells = xrealloc(cells, (ncells + 1) * sizeof *cells);
			memset(&cells[ncells], 0, sizeof *cells);
			cells[ncells].sc = &scen.v[s];
			cells[ncells].body = bodies[b];
			cells[ncells].samples = xcalloc((size_t)(cfg.warmup_rounds + cfg.rounds),
							sizeof *cells[ncells].samples);
			ncells++;
		}
	}

	snprintf(sink_bin, sizeof sink_bin, "%s/uploadsink", cfg.bindir);
	{
		char *sargv[] = { sink_bin, "--listen", "127.0.0.1:0", "--quiet", "--page", cfg.page, NULL };
		if (child_start(&sink, "uploadsink", sargv, 10000, err, sizeof err) < 0) {
			fprintf(stderr, "cdpbench: %s\n", err);
			goto out;
		}
	}
	placed = placement_apply(placement, sink.pid);
	if (!(ctx = cdp_context(cfg.verbose))) {
		fprintf(stderr, "cdpbench: cannot create the libwebsockets context\n");
		goto out;
	}
	/* The proxies cdpbench starts listen on loopback for cdpbench alone: a
	 * token from the environment would only lock cdpbench out. */
	unsetenv("CDPPROXY_TOKEN");
	stop = bench_catch_signals();
	now = time(NULL);
	strftime(rep.started, sizeof rep.started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	fprintf(stderr, "cdpbench: %zu scenarios x %zu bodies = %zu cells, %d rounds (%d warm-up), "
		"%.4g MiB; sink on port %d\n", scen.n, nbodies, ncells, cfg.warmup_rounds + cfg.rounds,
		cfg.warmup_rounds, (double)cfg.bytes / (1 << 20), sink.port);
	rep.env = report_environment(&cfg, argc, argv);
	json_object_set(rep.env, "placement", placed);
	rep.cfg = &cfg;
	rep.cells = cells;
	rep.ncells = ncells;
	rep.scenarios = &scen;
	rep.bodies = bodies;
	rep.nbodies = nbodies;
	t0 = util_mono_us();
	matrix_run(&rep, ctx, sink.port, t_start, stop);
	json_object_set_new(rep.env, "load_average_end", report_load_average());
	rep.wall_s = (double)(util_mono_us() - t0) / 1e6;
	rep.interrupted = *stop;
	child_stop(&sink);
	report_compute(&rep);
	report_view_build(&view, &rep);
	report_text(&view, stdout);
	fflush(stdout);
	if (report_write_files(&rep, &view, err, sizeof err) < 0 ||
	    (atlas && report_write_atlas(&rep, &view, err, sizeof err) < 0)) {
		fprintf(stderr, "cdpbench: %s\n", err);
		goto out;
	}
	fprintf(stderr, "cdpbench: %.0f s; %s in %s/ (%sreport.html, report.md, report.json)\n",
		rep.wall_s, atlas ? "atlas" : "report", cfg.out_dir,
		atlas ? "atlas.html, atlas.json, " : "");
	rc = *stop ? 130 : 0;
out:
	report_view_free(&view);
	child_stop(&sink);
	if (ctx)
		lws_context_destroy(ctx);
	for (size_t i = 0; i < ncells; i++) {
		for (int k = 0; k < rep.rounds_run; k++)
			json_decref(cells[i].samples[k].detail);
		free(cells[i].samples);
	}
	free(cells);
	free(bodies);
	json_decref(rep.env);
	json_decref(placed);
	json_decref(rep.notes);
	json_decref(rep.findings);
	scenario_list_free(&scen);
	return rc;
}
