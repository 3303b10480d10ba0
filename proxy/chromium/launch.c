/* launch: starts headless Chromium with a fresh profile, and stops it. */
#define _GNU_SOURCE   /* close_range, pipe2 */
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define LAUNCH_WAIT_MS 30000
#define STOP_WAIT_MS 5000

/* Flags for a headless Chromium run as root with no network (README, --launch).
 * The last: Chromium 156 preloads its omnibox popup (chrome://omnibox-popup
 * .top-chrome/ and omnibox_popup_aim.html) in a renderer of its own even
 * headless, about 2 CPU-s in the 3 s after DevTools is ready: a start cost
 * 4.4 -> 2.4 CPU-s to 3 s after ready (interleaved, the machine alone,
 * 2026-12-05), and no page under test shares its CPU with that renderer. A
 * --disable-features after `--` replaces this one (the last wins). The tests
 * and bench tools read the same list from tools/common/chromium-flags.js
 * (41-cdpbench-quick.t checks the two agree). */
static const char *const base_flags[] = {
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-features=WebUIOmniboxAimPopup,WebUIOmniboxPopup",
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

void launch_die_with_parent(pid_t parent)
{
	/* The parent may have died between fork and prctl: then the signal
	 * would never come, and we are someone else's child already. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
}

/* The child's side of the exec report: closes every fd from 5 on but keep
 * (none kept when it is below 5). */
static void close_from_5_but(int keep)
{
	if (keep < 5) {
		if (close_range(5, ~0U, 0) < 0)
			for (int fd = 5; fd < 65536; fd++)
				close(fd);
		return;
	}
	if ((keep > 5 && close_range(5, (unsigned)keep - 1, 0) < 0) || close_range((unsigned)keep + 1, ~0U, 0) < 0)
		for (int fd = 5; fd < 65536; fd++)
			if (fd != keep)
				close(fd);
}

pid_t launch_spawn(const struct launch_spawn *s, int *exec_errno, char *err, size_t errlen)
{
	char tmpdir[4200];
	const char **envp;
	pid_t parent = getpid(), pid;
	int report[2], child_errno = 0;
	size_t n;
	ssize_t got;

	/* The exec's failure comes back as its errno on a close-on-exec pipe:
	 * nothing read means the exec happened. */
	if (pipe2(report, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	/* The environment, built before fork: the process may have other
	 * threads, and only async-signal-safe calls may follow fork. */
	for (n = 0; environ[n]; n++)
		;
	envp = xcalloc(n + 2, sizeof *envp);
	n = 0;
	if (s->tmpdir) {
		snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", s->tmpdir);
		envp[n++] = tmpdir;
	}
	for (size_t i = 0; environ[i]; i++)
		if (!s->tmpdir || strncmp(environ[i], "TMPDIR=", 7))
			envp[n++] = environ[i];
	pid = fork();
	if (pid == 0) {
		sigset_t none;
		int moved[5], rep = fcntl(report[1], F_DUPFD_CLOEXEC, 5), e;

		launch_die_with_parent(parent);
		if (s->own_group)
			setpgid(0, 0);   /* so stopping its group stops its renderers */
		/* What the caller ignores or blocks, Chromium must not inherit. */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* Out of the way first (above 4), so that a source that is
		 * itself 0..4 is not overwritten by an earlier dup2. */
		for (int i = 0; i < 5; i++)
			moved[i] = s->fd[i] >= 0 ? fcntl(s->fd[i], F_DUPFD, 5) : -1;
		for (int i = 0; i < 5; i++) {
			if (moved[i] >= 0)
				dup2(moved[i], i);
			else if (i > 2)
				close(i);
		}
		/* Nothing else of ours (but the report, closed by the exec): a
		 * client's pipe end held open by Chromium would never see EOF. */
		close_from_5_but(rep);
		execve(s->path, (char *const *)s->argv, (char *const *)envp);
		e = errno;
		if (write(rep, &e, sizeof e) < 0) {
			/* the parent sees no report, and then our exit 127 */
		}
		_exit(127);
	}
	free(envp);
	close(report[1]);
	if (pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		close(report[0]);
		return -1;
	}
	while ((got = read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (got == (ssize_t)sizeof child_errno) {
		waitpid(pid, NULL, 0);
		snprintf(err, errlen, "cannot run %s: %s", s->path, strerror(child_errno));
		if (exec_errno)
			*exec_errno = child_errno;
		return -1;
	}
	return pid;
}

static pid_t spawn(const struct launch_opts *o, const char *profile, char *err, size_t errlen)
{
	char dirflag[4200], logpath[4200];
	const char **argv = xcalloc(N_BASE + (size_t)o->nextra + 5, sizeof *argv);
	struct launch_spawn s = { .path = o->path, .fd = { -1, -1, -1, -1, -1 }, .own_group = 1,
				  /* Chromium puts its singleton socket in a directory of its
				   * own under TMPDIR and leaves it there: inside the profile,
				   * it goes when the profile does. */
				  .tmpdir = profile };
	size_t n = 0;
	pid_t pid;

	snprintf(dirflag, sizeof dirflag, "--user-data-dir=%s", profile);
	snprintf(logpath, sizeof logpath, "%s/chromium.log", profile);
	argv[n++] = o->path;
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
	s.argv = argv;
	s.fd[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s.fd[1] = s.fd[2] = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	pid = launch_spawn(&s, NULL, err, errlen);
	for (int i = 0; i < 2; i++)
		if (s.fd[i] >= 0)
			close(s.fd[i]);
	free(argv);
	return pid;
}

/* The owner's PID in a profile's name, cdpproxy-chromium-PID-XXXXXX, or 0. */
static pid_t profile_owner(const char *name)
{
	const char *p = name + strlen(LAUNCH_PROFILE_PREFIX);
	char *end;
	long pid = strtol(p, &end, 10);

	return end != p && *end == '-' && pid > 0 ? (pid_t)pid : 0;
}

#define REMOVE_DEPTH 64   /* deeper than any profile Chromium writes; an fd a level */

/* Removes the entry name in the directory dirfd, and what is under it, as
 * rm -rf's safe mode does: every step relative to an open directory, no
 * symlink followed (a symlink is removed as itself), a directory entered
 * only if it is still the one fstatat saw, and only what uid owns touched. */
static void remove_at(int dirfd, const char *name, uid_t uid, int depth)
{
	struct stat st, opened;
	struct dirent *e;
	DIR *d;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_uid != uid)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(dirfd, name, 0);
		return;
	}
	if (depth >= REMOVE_DEPTH)
		return;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	/* Swapped since fstatat (for a symlink O_NOFOLLOW refused; for another
	 * directory, this): not ours to walk. */
	if (fstat(fd, &opened) < 0 || opened.st_dev != st.st_dev || opened.st_ino != st.st_ino ||
	    !(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			remove_at(fd, e->d_name, uid, depth + 1);
	closedir(d);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

void launch_remove_dir(const char *dir)
{
	const char *slash = strrchr(dir, '/');
	char parent[4200];
	int fd;

	if (!slash || !slash[1])
		return;
	snprintf(parent, sizeof parent, "%.*s", slash == dir ? 1 : (int)(slash - dir), dir);
	if ((fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	remove_at(fd, slash + 1, geteuid(), 0);
	close(fd);
}

int launch_sweep_stale(void)
{
	DIR *d = opendir("/tmp");
	struct dirent *e;
	struct stat st;
	int removed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t owner;
		if (strncmp(e->d_name, LAUNCH_PROFILE_PREFIX, strlen(LAUNCH_PROFILE_PREFIX)) ||
		    !(owner = profile_owner(e->d_name)) || owner == getpid())
			continue;
		/* Only a directory of our own user: another's is theirs to sweep
		 * (and its PID, in another PID namespace, may not be dead). */
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		/* EPERM: alive, someone else's. A reused PID keeps a stale
		 * profile a while longer, which is the safe mistake. */
		if (kill(owner, 0) == 0 || errno != ESRCH)
			continue;
		remove_at(dirfd(d), e->d_name, geteuid(), 0);
		removed++;
	}
	closedir(d);
	return removed;
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

int launch_make_dir(char *out, size_t outlen, char *err, size_t errlen)
{
	struct stat st;

	snprintf(out, outlen, "/tmp/%s%ld-XXXXXX", LAUNCH_PROFILE_PREFIX, (long)getpid());
	if (!mkdtemp(out)) {
		snprintf(err, errlen, "cannot make a profile directory: %s", strerror(errno));
		return -1;
	}
	/* mkdtemp makes a new 0700 directory; anything else there is not ours. */
	if (lstat(out, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0700) {
		snprintf(err, errlen, "%s is not the new 0700 directory of ours it should be", out);
		return -1;
	}
	return 0;
}

int launch_start(struct launch *l, const char *path, char **extra, int nextra,
		 char *err, size_t errlen)
{
	struct launch_opts o = { path, extra, nextra, 0, NULL };

	return launch_start_opts(l, &o, err, errlen);
}

int launch_start_opts(struct launch *l, const struct launch_opts *o, char *err, size_t errlen)
{
	char tmpl[128];
	const char *path = o->path;
	int status;

	launch_stop(l);
	launch_sweep_stale();
	if (access(path, X_OK) < 0) {
		snprintf(err, errlen, "cannot run %s: %s (install it: apt-get install chromium)",
			 path, strerror(errno));
		return -1;
	}
	if (launch_make_dir(tmpl, sizeof tmpl, err, errlen) < 0)
		return -1;
	l->profile = xstrdup(tmpl);
	l->pid = spawn(o, l->profile, err, errlen);
	if (l->pid < 0) {
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
		launch_remove_dir(l->profile);
		free(l->profile);
		l->profile = NULL;
	}
	l->port = 0;
}
