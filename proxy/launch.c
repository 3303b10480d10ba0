/* launch: starts headless Chromium with a fresh profile, and stops it. */
#define _XOPEN_SOURCE 700
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define LAUNCH_WAIT_MS 30000
#define STOP_WAIT_MS 5000

/* Flags for a headless Chromium run as root with no network (README, --launch). */
static const char *const base_flags[] = {
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
};
#define N_BASE (sizeof base_flags / sizeof base_flags[0])

size_t launch_base_flags(const char *const **flags)
{
	*flags = base_flags;
	return N_BASE;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	remove(path);
	return 0;
}

/* Describes how a reaped child ended. */
static void describe_exit(int status, char *err, size_t errlen)
{
	if (WIFSIGNALED(status))
		snprintf(err, errlen, "chromium was killed by signal %d", WTERMSIG(status));
	else
		snprintf(err, errlen, "chromium exited with status %d", WEXITSTATUS(status));
}

/* The port in the profile's DevToolsActivePort, or 0 while it is not there. */
static int read_port(const char *profile)
{
	char path[4096];
	FILE *f;
	int port = 0;

	snprintf(path, sizeof path, "%s/DevToolsActivePort", profile);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%d", &port) != 1)
		port = 0;
	fclose(f);
	return port;
}

extern char **environ;

static pid_t spawn(const struct launch_opts *o, const char *profile)
{
	char dirflag[4200], logpath[4200], tmpdir[4200];
	const char *path = o->path;
	const char **argv = xcalloc(N_BASE + (size_t)o->nextra + 5, sizeof *argv), **envp;
	size_t n = 0;
	pid_t pid;

	snprintf(dirflag, sizeof dirflag, "--user-data-dir=%s", profile);
	snprintf(logpath, sizeof logpath, "%s/chromium.log", profile);
	argv[n++] = path;
	for (size_t i = 0; i < N_BASE; i++)
		argv[n++] = base_flags[i];
	if (!o->no_debugging)
		argv[n++] = "--remote-debugging-port=0";
	argv[n++] = dirflag;
	for (int i = 0; i < o->nextra; i++)
		argv[n++] = o->extra[i];
	if (o->url)
		argv[n++] = o->url;
	argv[n] = NULL;
	/* The environment with TMPDIR set, built before fork: the proxy has a
	 * log writer thread, and only async-signal-safe calls may follow fork. */
	for (n = 0; environ[n]; n++)
		;
	envp = xcalloc(n + 2, sizeof *envp);
	snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", profile);
	envp[0] = tmpdir;
	for (size_t i = 0, k = 1; i < n; i++)
		if (strncmp(environ[i], "TMPDIR=", 7))
			envp[k++] = environ[i];
	pid = fork();
	if (pid == 0) {
		int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_RDONLY);
		setpgid(0, 0);   /* its own group, so stopping it stops its renderers */
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (nul >= 0)
			dup2(nul, 0);
		/* Chromium puts its singleton socket in a directory of its own
		 * under TMPDIR and leaves it there: inside the profile (envp), it
		 * goes when the profile does. */
		execve(path, (char *const *)argv, (char *const *)envp);
		fprintf(stderr, "cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	free(argv);
	free(envp);
	return pid;
}

/* The last line Chromium wrote, to say why it failed. */
static void last_log_line(const char *profile, char *out, size_t outlen)
{
	char path[4200], line[300];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof path, "%s/chromium.log", profile);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof line, f))
		if (line[0] != '\n')
			snprintf(out, outlen, "%s", line);
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

int launch_start(struct launch *l, const char *path, char **extra, int nextra,
		 char *err, size_t errlen)
{
	struct launch_opts o = { path, extra, nextra, 0, NULL };

	return launch_start_opts(l, &o, err, errlen);
}

int launch_start_opts(struct launch *l, const struct launch_opts *o, char *err, size_t errlen)
{
	char tmpl[] = "/tmp/cdpproxy-chromium-XXXXXX";
	const char *path = o->path;
	int status;

	launch_stop(l);
	if (access(path, X_OK) < 0) {
		snprintf(err, errlen, "cannot run %s: %s (install it: apt-get install chromium)",
			 path, strerror(errno));
		return -1;
	}
	if (!mkdtemp(tmpl)) {
		snprintf(err, errlen, "cannot make a profile directory: %s", strerror(errno));
		return -1;
	}
	l->profile = xstrdup(tmpl);
	l->pid = spawn(o, l->profile);
	if (l->pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		l->pid = 0;
		launch_stop(l);
		return -1;
	}
	if (o->no_debugging)
		return 0;   /* no port to wait for; launch_alive tells if it died */
	for (int waited = 0; waited < LAUNCH_WAIT_MS; waited += 20) {
		if ((l->port = read_port(l->profile)) > 0)
			return 0;
		if (waitpid(l->pid, &status, WNOHANG) == l->pid) {
			char last[400];
			l->pid = 0;
			describe_exit(status, err, errlen);
			last_log_line(l->profile, last, sizeof last);
			if (*last)
				snprintf(err + strlen(err), errlen - strlen(err), " before opening its "
					 "debugging port: %s", last);
			launch_stop(l);
			return -1;
		}
		sleep_ms(20);
	}
	snprintf(err, errlen, "chromium did not open its debugging port within %d s",
		 LAUNCH_WAIT_MS / 1000);
	launch_stop(l);
	return -1;
}

int launch_alive(struct launch *l, char *err, size_t errlen)
{
	int status;

	if (!l->pid || waitpid(l->pid, &status, WNOHANG) != l->pid)
		return 1;
	describe_exit(status, err, errlen);
	kill(-l->pid, SIGKILL);   /* renderers it left behind */
	l->pid = 0;
	return 0;
}

void launch_stop(struct launch *l)
{
	int status;

	if (l->pid > 0) {
		kill(-l->pid, SIGTERM);
		for (int waited = 0; waited < STOP_WAIT_MS; waited += 20) {
			if (waitpid(l->pid, &status, WNOHANG) == l->pid)
				break;
			sleep_ms(20);
			if (waited + 20 >= STOP_WAIT_MS) {
				kill(-l->pid, SIGKILL);
				waitpid(l->pid, &status, 0);
			}
		}
		kill(-l->pid, SIGKILL);   /* any child still in its group */
		l->pid = 0;
	}
	if (l->profile) {
		nftw(l->profile, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(l->profile);
		l->profile = NULL;
	}
	l->port = 0;
}
