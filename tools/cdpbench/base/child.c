/* child: helper processes (uploadsink, cdpproxy) started, awaited and stopped by PID;
 * they die with cdpbench. */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"

#define STOP_WAIT_MS 5000

void child_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The port in "listening on http://HOST:PORT" in its stderr, or 0. */
static int read_port(const struct child *c)
{
	char path[128], line[512];
	FILE *f;
	int port = 0;

	snprintf(path, sizeof path, "%s/stderr", c->dir);
	if (!(f = fopen(path, "r")))
		return 0;
	while (!port && fgets(line, sizeof line, f)) {
		char *at = strstr(line, "listening on http://"), *colon;
		if (at && (colon = strchr(at + 20, ':')))
			port = atoi(colon + 1);
	}
	fclose(f);
	return port;
}

void child_last_line(const struct child *c, char *out, size_t outlen)
{
	char path[128], line[512];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof path, "%s/stderr", c->dir);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof line, f))
		if (line[0] != '\n')
			snprintf(out, outlen, "%.*s", (int)strcspn(line, "\n"), line);
	fclose(f);
}

int child_start(struct child *c, const char *name, char *const argv[], int timeout_ms,
		char *err, size_t errlen)
{
	char tmpl[] = "/tmp/cdpbench-child-XXXXXX", out[160], errp[160];
	pid_t parent = getpid();
	int status;

	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", name);
	if (access(argv[0], X_OK) < 0) {
		snprintf(err, errlen, "cannot run %s: %s (build it: make)", argv[0], strerror(errno));
		return -1;
	}
	if (!mkdtemp(tmpl)) {
		snprintf(err, errlen, "cannot make a temporary directory: %s", strerror(errno));
		return -1;
	}
	snprintf(c->dir, sizeof c->dir, "%s", tmpl);
	snprintf(out, sizeof out, "%s/stdout", c->dir);
	snprintf(errp, sizeof errp, "%s/stderr", c->dir);
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		c->pid = 0;
		child_stop(c);
		return -1;
	}
	if (c->pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_RDONLY);
		launch_die_with_parent(parent);   /* no helper outlives a killed cdpbench */
		/* (an fd that came out as 0, 1 or 2 is where it belongs: kept) */
		if (o >= 0 && dup2(o, 1) >= 0 && o > 2)
			close(o);
		if (e >= 0 && dup2(e, 2) >= 0 && e > 2)
			close(e);
		if (nul >= 0 && dup2(nul, 0) >= 0 && nul > 2)
			close(nul);
		execv(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	for (int waited = 0; waited < timeout_ms; waited += 10) {
		if ((c->port = read_port(c)) > 0)
			return 0;
		if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
			char last[300];
			c->pid = 0;
			child_last_line(c, last, sizeof last);
			snprintf(err, errlen, "%s exited before listening: %s", name,
				 *last ? last : "no message");
			child_stop(c);
			return -1;
		}
		child_sleep_ms(10);
	}
	snprintf(err, errlen, "%s did not listen within %d ms", name, timeout_ms);
	child_stop(c);
	return -1;
}

int child_alive(struct child *c)
{
	int status;

	if (!c->pid)
		return 0;
	if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
		c->pid = 0;
		return 0;
	}
	return 1;
}

void child_stop(struct child *c)
{
	char path[160];
	int status;

	if (c->pid > 0) {
		kill(c->pid, SIGTERM);
		for (int waited = 0; ; waited += 10) {
			if (waitpid(c->pid, &status, WNOHANG) == c->pid)
				break;
			if (waited >= STOP_WAIT_MS) {
				kill(c->pid, SIGKILL);
				waitpid(c->pid, &status, 0);
				break;
			}
			child_sleep_ms(10);
		}
		c->pid = 0;
	}
	if (c->dir[0]) {
		snprintf(path, sizeof path, "%s/stdout", c->dir);
		unlink(path);
		snprintf(path, sizeof path, "%s/stderr", c->dir);
		unlink(path);
		rmdir(c->dir);
		c->dir[0] = '\0';
	}
}
