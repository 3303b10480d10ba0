/* audit_run: one run of the user's command, in a process group of its own so
 * that everything it starts (runners, workers, browsers) is stopped with it,
 * with the environment that sends its browsers through the arm. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit.h"
#include "child.h"
#include "launch.h"
#include "util.h"

#define STOP_WAIT_MS 5000

/* SIGTERM to the group, SIGKILL to what is left after STOP_WAIT_MS; reaps
 * the leader if it is still running (then *status). */
static void stop_group(pid_t pgid, int leader_running, int *status)
{
	if (kill(-pgid, SIGTERM) < 0)
		return;
	for (int waited = 0; waited < STOP_WAIT_MS; waited += 20) {
		if (leader_running && waitpid(pgid, status, WNOHANG) == pgid)
			leader_running = 0;
		if (!leader_running && kill(-pgid, 0) < 0)
			return;
		child_sleep_ms(20);
	}
	kill(-pgid, SIGKILL);
	if (leader_running)
		waitpid(pgid, status, 0);
}

/* The arm's environment, set in the child just before exec. */
static void set_env(const struct audit *a, const struct audit_arm *arm, const char *logdir)
{
	const char *browser = arm->policy ? a->wrapper : a->cfg->chromium;

	setenv("PUPPETEER_EXECUTABLE_PATH", browser, 1);
	setenv("CDPPROXY_BROWSER", browser, 1);
	setenv("CDPBENCH_AUDIT_ARM", arm->name, 1);
	/* The wrapper starts the same browser the direct arm runs. */
	setenv("CDPPROXY_CHROMIUM", a->cfg->chromium, 1);
	if (arm->policy)
		setenv("CDPPROXY_POLICY", arm->policy, 1);
	else
		unsetenv("CDPPROXY_POLICY");
	if (audit_arm_logs(arm)) {
		setenv("CDPPROXY_LOG", logdir, 1);
		setenv("CDPPROXY_LOG_BODIES", a->log_bodies, 1);
	} else {
		unsetenv("CDPPROXY_LOG");
		unsetenv("CDPPROXY_LOG_BODIES");
	}
}

void audit_run_once(const struct audit *a, size_t armi, int round, volatile sig_atomic_t *stop,
		    struct audit_run *run)
{
	const struct audit_arm *arm = &a->arms[armi];
	char dir[BENCH_PATH_MAX + 8];
	uint64_t t0;
	pid_t pid;
	int status = 0, running = 1;

	memset(run, 0, sizeof *run);
	snprintf(dir, sizeof dir, "%s/runs", a->cfg->out_dir);
	mkdir(dir, 0755);
	snprintf(run->output, sizeof run->output, "%s/r%d-%s.out", dir, round, arm->name);
	if (audit_arm_logs(arm)) {
		snprintf(run->logdir, sizeof run->logdir, "%s/r%d-%s.logs", dir, round, arm->name);
		if (mkdir(run->logdir, 0755) < 0 && errno != EEXIST) {
			snprintf(run->error, sizeof run->error, "cannot create %s: %s", run->logdir,
				 strerror(errno));
			return;
		}
	}
	if (a->junit)
		unlink(a->junit);   /* a file left by the last run must not count for this one */
	t0 = util_mono_us();
	pid = fork();
	if (pid < 0) {
		snprintf(run->error, sizeof run->error, "cannot fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		int out = open(run->output, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		launch_die_with_parent(getppid());
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (out >= 0) {
			dup2(out, 1);
			dup2(out, 2);
			if (out > 2)
				close(out);
		}
		if (nul >= 0 && dup2(nul, 0) >= 0 && nul > 2)
			close(nul);
		set_env(a, arm, run->logdir);
		execvp(a->argv[0], a->argv);
		fprintf(stderr, "cdpbench audit: cannot run %s: %s\n", a->argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);   /* both sides set it: no window where a stop misses the group */
	run->ran = 1;
	while (running) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		double s = (double)(util_mono_us() - t0) / 1e6;
		if (w == pid) {
			running = 0;
		} else if (*stop || (a->timeout_s && s > a->timeout_s)) {
			run->timed_out = !*stop;
			stop_group(pid, 1, &status);
			running = 0;
		} else {
			child_sleep_ms(20);
		}
	}
	run->seconds = (double)(util_mono_us() - t0) / 1e6;
	/* What the command left running (a server, a browser) goes with it. */
	stop_group(pid, 0, NULL);
	run->status = WIFEXITED(status) ? WEXITSTATUS(status) :
		      WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
	run->ok = !run->timed_out && !*stop && run->status == 0;
	if (*stop)
		snprintf(run->error, sizeof run->error, "interrupted");
	else if (run->timed_out)
		snprintf(run->error, sizeof run->error, "timed out after %d s", a->timeout_s);
	else if (run->status)
		snprintf(run->error, sizeof run->error, "exit status %d (output: %s)", run->status,
			 run->output);
	if (a->junit && run->ran && !*stop) {
		char err[256];
		if (audit_junit_read(a->junit, &run->tests, &run->ntests, err, sizeof err) < 0 &&
		    !run->error[0])
			snprintf(run->error, sizeof run->error, "--junit: %s", err);
	}
}

void audit_run_free(struct audit_run *run)
{
	for (size_t i = 0; i < run->ntests; i++)
		free(run->tests[i].name);
	free(run->tests);
	run->tests = NULL;
	run->ntests = 0;
}
