/* wrapper: cdpproxy-chromium, a program a client launches as if it were
 * Chromium: its configuration (the browser's argv, the environment), the real
 * browser's process and the wrapper's life as a browser. */
#define _GNU_SOURCE   /* pipe2, close_range */
#include "wrapper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "access.h"
#include "datadir.h"
#include "launch.h"
#include "legs.h"
#include "policy.h"
#include "proxy.h"
#include "record.h"
#include "util.h"

/* CDPPROXY_LOG: "%p" becomes our PID; a directory gets a file per wrapper. */
static int resolve_log(const char *v, char *out, size_t outlen, char *err, size_t errlen)
{
	struct stat st;
	size_t n = 0;

	if (strstr(v, "%p")) {
		for (const char *p = v; *p && n + 24 < outlen; p++) {
			if (p[0] == '%' && p[1] == 'p') {
				n += (size_t)snprintf(out + n, outlen - n, "%ld", (long)getpid());
				p++;
			} else {
				out[n++] = *p;
			}
		}
		out[n] = '\0';
	} else if (stat(v, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(out, outlen, "%s/cdpproxy-chromium-%ld.jsonl", v, (long)getpid());
	} else {
		snprintf(out, outlen, "%s", v);
	}
	if (strlen(out) + 1 >= outlen) {
		snprintf(err, errlen, "CDPPROXY_LOG: path too long");
		return -1;
	}
	return 0;
}

/* Reads the CDPPROXY_* variables. */
static int read_env(struct wrapper_config *c, char *err, size_t errlen)
{
	const char *v;
	uint64_t size;

	c->chromium = (v = getenv("CDPPROXY_CHROMIUM")) && *v ? v : "/usr/bin/chromium";
	if ((v = getenv("CDPPROXY_MAX_MESSAGE")) && *v) {
		if (util_parse_size(v, &c->max_message, err, errlen) < 0 || !c->max_message) {
			snprintf(err, errlen, "CDPPROXY_MAX_MESSAGE: '%s' is not a size above 0 "
				 "(e.g. 256MiB)", v);
			return -1;
		}
		if (c->max_message > UTIL_MAX_MESSAGE_LIMIT) {
			snprintf(err, errlen, "CDPPROXY_MAX_MESSAGE: '%s' is above " UTIL_MAX_MESSAGE_LIMIT_TEXT
				 ", the most it can be (Chrome sends at most 256MiB)", v);
			return -1;
		}
	}
	if ((v = getenv("CDPPROXY_LOG")) && *v &&
	    resolve_log(v, c->log_path, sizeof c->log_path, err, errlen) < 0)
		return -1;
	if ((v = getenv("CDPPROXY_LOG_BODIES")) && *v && strcmp(v, "0")) {
		/* "1", "yes", "true": on, at the proxy's --log-bodies default. */
		if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true"))
			size = 65536;
		else if (util_parse_size(v, &size, err, errlen) < 0) {
			snprintf(err, errlen, "CDPPROXY_LOG_BODIES: '%s' is not 1 or a size (e.g. 64KiB)", v);
			return -1;
		}
		c->log_bodies = (size_t)size;
	}
	if ((v = getenv("CDPPROXY_RECORD_BODIES")) && *v && strcmp(v, "0")) {
		/* "1", "yes", "true": on, at --record-bodies' default budget. */
		if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true"))
			size = RECORD_BUDGET_DEFAULT;
		else if (util_parse_size(v, &size, err, errlen) < 0 || !size) {
			snprintf(err, errlen, "CDPPROXY_RECORD_BODIES: '%s' is not 1 or a size (e.g. 64MiB)", v);
			return -1;
		}
		if (!*c->log_path) {
			snprintf(err, errlen, "CDPPROXY_RECORD_BODIES wants CDPPROXY_LOG: the bodies it fetches go there");
			return -1;
		}
		c->record_bodies = size;
		if (!c->log_bodies)   /* the HAR wants the events' headers and URLs too */
			c->log_bodies = 65536;
	}
	if ((v = getenv("CDPPROXY_BIDI_CHANNEL")) && *v) {
		if (strcmp(v, "0") && strcmp(v, "1")) {
			snprintf(err, errlen, "CDPPROXY_BIDI_CHANNEL: '%s' is not 0 or 1", v);
			return -1;
		}
		c->no_bidi_channel = !strcmp(v, "0");
	}
	if ((v = getenv("CDPPROXY_CONTROL")) && *v) {
		if (util_parse_hostport("CDPPROXY_CONTROL", v, c->admin_host, sizeof c->admin_host,
					&c->admin_port, err, errlen) < 0)
			return -1;
		/* No token can be given to the client's own connections: loopback only. */
		if (!access_is_loopback(c->admin_host)) {
			snprintf(err, errlen, "CDPPROXY_CONTROL: %s is not a loopback address "
				 "(CDP is full control of the browser)", c->admin_host);
			return -1;
		}
	}
	if (wrapper_push_configure(c, err, errlen) < 0)
		return -1;
	if ((v = getenv("CDPPROXY_POLICY")) && *v) {
		/* A name as cdpproxy --policy takes it: the policies folder's. */
		c->policy_path = datadir_policy_file(v, NULL, c->policy_file, sizeof c->policy_file);
		if (!(c->policy = policy_load(c->policy_path, err, errlen)))
			return -1;
	}
	datadir_policies(c->policy_path, c->policy_dir, sizeof c->policy_dir);
	return 0;
}

int wrapper_configure(struct wrapper_config *c, int argc, char **argv, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	c->max_message = 256ull << 20;
	c->queue_bytes = 16ull << 20;
	c->admin_port = -1;
	if (read_env(c, err, errlen) < 0)
		return -1;
	if (wrapper_args(c, argc, argv, err, errlen) < 0) {
		wrapper_config_free(c);
		return -1;
	}
	return 0;
}

void wrapper_config_free(struct wrapper_config *c)
{
	wrapper_args_free(c);
	policy_free(c->policy);
	c->policy = NULL;
}

int wrapper_exec_failed(const char *path, int e, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot run %s: %s (set CDPPROXY_CHROMIUM)", path, strerror(e));
	return e == ENOENT ? 127 : 126;   /* as shells do */
}

int wrapper_check_browser(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return wrapper_exec_failed(path, errno, err, errlen);
	if (S_ISDIR(st.st_mode))
		return wrapper_exec_failed(path, EISDIR, err, errlen);
	if (!S_ISREG(st.st_mode))
		return wrapper_exec_failed(path, EACCES, err, errlen);
	if (access(path, X_OK) < 0)
		return wrapper_exec_failed(path, errno, err, errlen);
	return 0;
}

/* What the wrapper tells its cleaner, in one write (atomic: under PIPE_BUF). */
struct cleaner_note {
	pid_t browser;
	char tmpdir[256];
};

#define CLEANER_WAIT_MS 10000   /* for the browser to go, at most */

/* Is pid gone (or a zombie no one has reaped yet)? */
static int pid_gone(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');   /* "pid (comm) S ...": comm may hold anything */
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* The cleaner's life: the note, then the wrapper's end (EOF), then the
 * browser's, then the TMPDIR goes (again, should a dying helper have
 * written into it meanwhile). */
static void cleaner_run(int fd)
{
	struct cleaner_note note = { 0 };
	char drain[64];
	ssize_t n;
	int waited = 0;

	while ((n = read(fd, &note, sizeof note)) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof note)
		_exit(0);   /* the wrapper ended before starting a browser */
	note.tmpdir[sizeof note.tmpdir - 1] = '\0';
	while ((n = read(fd, drain, sizeof drain)) != 0)
		if (n < 0 && errno != EINTR)
			break;
	for (; !pid_gone(note.browser) && waited < CLEANER_WAIT_MS; waited += 50)
		poll(NULL, 0, 50);
	for (int tries = 0; tries < 10; tries++) {
		struct stat st;
		launch_remove_dir(note.tmpdir);
		if (lstat(note.tmpdir, &st) < 0)
			break;
		poll(NULL, 0, 100);
	}
	_exit(0);
}

/* Rewrites the process's command line (/proc/PID/cmdline is the memory
 * of argv's strings, one contiguous block) to title, cut to fit. */
static void set_cmdline(int argc, char **argv, const char *title)
{
	char *end = argv[0] + strlen(argv[0]) + 1;

	for (int i = 1; i < argc && argv[i] == end; i++)
		end = argv[i] + strlen(argv[i]) + 1;
	memset(argv[0], 0, (size_t)(end - argv[0]));
	memcpy(argv[0], title, strnlen(title, (size_t)(end - argv[0]) - 1));
}

int wrapper_cleaner_start(struct wrapper *w, int argc, char **argv, char *err, size_t errlen)
{
	int p[2], status;
	pid_t mid;

	w->cleaner_fd = -1;
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((mid = fork()) < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (mid == 0) {
		/* Forked twice: the cleaner is no child of the wrapper (no
		 * process of its tree), and in a session of its own, where a
		 * kill of the wrapper's process group does not reach it. */
		if (fork() != 0)
			_exit(0);
		setsid();
		set_cmdline(argc, argv, "cdpproxy-chromium-cleaner");
		/* None of the client's fds (its pipes, the wrapper's stderr
		 * it reads to the end) stays open in it. */
		if (dup2(p[0], 3) < 0 || close_range(4, ~0U, 0) < 0)
			_exit(0);
		for (int fd = 0; fd < 3; fd++)
			close(fd);
		if (open("/dev/null", O_RDWR) == 0) {
			if (dup(0) < 0 || dup(0) < 0) {
				/* no stdout or stderr: it writes nothing anyway */
			}
		}
		cleaner_run(3);
	}
	close(p[0]);
	waitpid(mid, &status, 0);
	w->cleaner_fd = p[1];
	return 0;
}

/* Signals, as flags for wrapper_tend: the handlers only note and wake. */
static volatile sig_atomic_t got_term, got_int, got_hup, got_chld;
static struct wrapper *the_wrapper;
static int wake_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;

	switch (sig) {
	case SIGTERM: got_term = 1; break;
	case SIGINT: got_int = 1; break;
	case SIGHUP: got_hup = 1; break;
	default: got_chld = 1; break;
	}
	if (write(wake_pipe[1], "", 1) < 0) {
		/* full: a wake-up is pending anyway */
	}
	if (the_wrapper && the_wrapper->wake)
		the_wrapper->wake();
	errno = saved;
}

int wrapper_start(struct wrapper *w, const int fds[5], char *err, size_t errlen)
{
	struct launch_spawn s = { .path = w->cfg.chromium, .argv = (const char *const *)w->cfg.argv };
	struct sigaction sa;

	w->client = getppid();
	/* The client's death (its SIGKILL) is ours, and so the browser's: a
	 * browser the client can no longer close must not be left running. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	w->wake_fd = wake_pipe[0];
	the_wrapper = w;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);   /* a log past ulimit -f: lost records, as cdpproxy */

	launch_sweep_stale();
	if (launch_make_dir(w->tmpdir, sizeof w->tmpdir, err, errlen) < 0)
		return -1;
	s.tmpdir = w->tmpdir;
	memcpy(s.fd, fds, sizeof s.fd);
	if ((w->chrome = launch_spawn(&s, &w->exec_errno, err, errlen)) < 0) {
		w->chrome = 0;
		launch_remove_dir(w->tmpdir);
		return -1;
	}
	if (w->cleaner_fd >= 0) {
		struct cleaner_note note = { .browser = w->chrome };
		snprintf(note.tmpdir, sizeof note.tmpdir, "%s", w->tmpdir);
		if (write(w->cleaner_fd, &note, sizeof note) != (ssize_t)sizeof note) {
			/* no cleaner: the next start's sweep removes it */
		}
	}
	return 0;
}

void wrapper_kill_later(struct wrapper *w, int ms)
{
	uint64_t at = util_mono_us() + (uint64_t)ms * 1000;

	if (!w->kill_at_us || at < w->kill_at_us)
		w->kill_at_us = at;
}

void wrapper_kill(struct wrapper *w)
{
	if (!w->chrome)
		return;
	kill(w->chrome, SIGKILL);
	waitpid(w->chrome, &w->status, 0);
	w->chrome = 0;
}

int wrapper_tend(struct wrapper *w, void (*reload)(struct wrapper *w, struct policy *p))
{
	char drain[64], err[512];
	int status;

	while (read(w->wake_fd, drain, sizeof drain) > 0)
		;
	if (got_term || got_int) {
		int sig = got_term ? SIGTERM : SIGINT;
		got_term = got_int = 0;
		if (w->chrome)
			kill(w->chrome, sig);
		/* A SIGTERM from PR_SET_PDEATHSIG: no client will wait for a
		 * graceful close, so it gets a short one. */
		if (getppid() != w->client)
			wrapper_kill_later(w, 1000);
	}
	if (got_hup) {
		struct policy *p;
		got_hup = 0;
		if (!w->cfg.policy_path)
			fprintf(stderr, "cdpproxy-chromium: SIGHUP: no CDPPROXY_POLICY to reload\n");
		else if (!(p = policy_load(w->cfg.policy_path, err, sizeof err)))
			fprintf(stderr, "cdpproxy-chromium: SIGHUP: %s; keeping the running policy\n", err);
		else if (reload)
			reload(w, p);
		else
			policy_free(p);
	}
	got_chld = 0;
	if (w->chrome && waitpid(w->chrome, &status, WNOHANG) == w->chrome) {
		w->chrome = 0;
		w->status = status;
	}
	if (w->chrome && w->kill_at_us && util_mono_us() >= w->kill_at_us)
		wrapper_kill(w);
	return w->chrome != 0;
}

void wrapper_exit(struct wrapper *w)
{
	struct rlimit none = { 0, 0 };

	wrapper_kill(w);
	launch_remove_dir(w->tmpdir);
	if (w->log_lost)   /* as cdpproxy: not a clean run */
		fprintf(stderr, "cdpproxy-chromium: %llu log records lost (CDPPROXY_LOG %s)\n",
			(unsigned long long)w->log_lost, w->cfg.log_path);
	wrapper_config_free(&w->cfg);
	fflush(stderr);
	if (WIFEXITED(w->status))   /* exit, not _exit: LeakSanitizer looks then */
		exit(WEXITSTATUS(w->status) || !w->log_lost ? WEXITSTATUS(w->status) : 1);
	/* Died of a signal: so do we, for the client to see the same end. */
	setrlimit(RLIMIT_CORE, &none);
	signal(WTERMSIG(w->status), SIG_DFL);
	prctl(PR_SET_PDEATHSIG, 0);
	{
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, WTERMSIG(w->status));
		sigprocmask(SIG_UNBLOCK, &s, NULL);
	}
	raise(WTERMSIG(w->status));
	_exit(128 + WTERMSIG(w->status));
}

/* The proxy the signal handlers wake: one wrapper a process. */
static struct proxy *served;

static void wake_served(void)
{
	if (served && served->ctx && !served->ctx_gone)
		lws_cancel_service(served->ctx);
}

void wrapper_serve(struct wrapper *w, struct proxy *px)
{
	served = px;
	w->wake = px ? wake_served : NULL;
}

void wrapper_reload(struct wrapper *w, struct policy *p)
{
	(void)w;
	proxy_set_policy(served, p, "SIGHUP");
	fprintf(stderr, "cdpproxy-chromium: policy %s (generation %llu)\n", p->name,
		(unsigned long long)served->core.policy_gen);
}

int wrapper_proxy_start(struct wrapper *w, struct proxy *px, const char *host, int port,
			int upstream_port, char *err, size_t errlen)
{
	struct proxy_config cfg = {
		.legs = legs_all,
		.listen_host = "127.0.0.1", .listen_port = port, .upstream_host = "127.0.0.1",
		.upstream_port = upstream_port, .max_connections = 256, .upstream_timeout = 10,
	};
	struct policy *p = w->cfg.policy;

	w->cfg.policy = NULL;   /* the proxy's now */
	if (host)
		snprintf(cfg.listen_host, sizeof cfg.listen_host, "%s", host);
	cfg.log_path = *w->cfg.log_path ? w->cfg.log_path : NULL;
	cfg.log_bodies = w->cfg.log_bodies;
	cfg.record_bodies = w->cfg.record_bodies;
	cfg.no_bidi_channel = w->cfg.no_bidi_channel;
	cfg.max_message = w->cfg.max_message;
	cfg.queue_bytes = w->cfg.queue_bytes;
	cfg.policy_path = w->cfg.policy_path;
	cfg.policy_dir = w->cfg.policy_dir;
	cfg.allow_origins = w->cfg.allow_origins;
	return proxy_start(px, &cfg, p, err, errlen);
}

int wrapper_listen_admin(struct wrapper *w, struct proxy *px, char *err, size_t errlen)
{
	char why[512];
	int bound;

	if (!*w->cfg.admin_host)
		return 0;
	/* Exactly the port asked for (chrome-launcher hides our stderr, so a
	 * fixed port is how its users find us): taken is an error, not another. */
	if (proxy_listen_also(px, w->cfg.admin_host, w->cfg.admin_port, &bound, why,
			      sizeof why) < 0) {
		snprintf(err, errlen, "CDPPROXY_CONTROL: %s", why);
		return -1;
	}
	fprintf(stderr, "cdpproxy-chromium: control on http://%s:%d/proxy/stats\n",
		w->cfg.admin_host, bound);
	return 0;
}
