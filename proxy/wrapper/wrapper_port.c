/* wrapper_port: cdpproxy-chromium's port mode: Chromium on a free port of its
 * own, the proxy on the port the client asked for, and Chromium's stderr
 * passed on with the proxy's address in its "DevTools listening" line. */
#define _GNU_SOURCE   /* pipe2 */
#include "wrapper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch.h"
#include "proxy.h"
#include "util.h"

#define LISTENING "DevTools listening on ws://"
#define TEND_US (100 * 1000)       /* signals and the kill time, between lws's wake-ups */
#define STDERR_DRAIN_MS 500        /* for Chromium's last lines, after it exits */
#define ACTIVE_PORT "DevToolsActivePort"
#define PORT_HOLD_US (300 * 1000)  /* after its DevTools line, for Chromium's write to fail */

struct port_run {
	struct wrapper *w;
	struct proxy px;
	volatile int stop;
	lws_sorted_usec_list_t sul;
	int errfd;                    /* Chromium's stderr (read end) */
	volatile int relay_done;
	char browser_path[512];       /* /devtools/browser/ID */
	uint64_t watch_port_until_us; /* DevToolsActivePort kept ours until then */
	uint64_t port_from_us;        /* ... and first written then */
};

static struct port_run *the_run;

static void port_tend(struct proxy *px)
{
	(void)px;
	if (!wrapper_tend(the_run->w, wrapper_reload))
		the_run->stop = 1;
}

static void rewrite_active_port(const char *profile, int port, const char *path);

static void tend_tick(lws_sorted_usec_list_t *sul)
{
	struct port_run *r = the_run;

	port_tend(&r->px);
	/* Chromium may write its file after its stderr line: ours again. */
	if (r->watch_port_until_us && util_mono_us() >= r->port_from_us &&
	    util_mono_us() < r->watch_port_until_us)
		rewrite_active_port(r->w->cfg.user_data_dir, r->px.port, r->browser_path);
	lws_sul_schedule(the_run->px.ctx, 0, sul, tend_tick, TEND_US);
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		p += k;
		n -= (size_t)k;
	}
}

/* After the DevTools line, Chromium's stderr goes on to ours as it comes. */
static void *relay_stderr(void *arg)
{
	struct port_run *r = arg;
	char buf[16384];
	ssize_t n;

	while ((n = read(r->errfd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			write_all(2, buf, (size_t)n);
	r->relay_done = 1;
	return NULL;
}

/* Reads Chromium's stderr, passing lines on, until its DevTools line: its
 * port and browser path. 0, or -1 when Chromium ended before saying it. */
static int await_listening(struct port_run *r, int *port, char *path, size_t pathlen)
{
	char buf[8192];
	size_t len = 0;

	for (;;) {
		struct pollfd p[2] = { { .fd = r->w->wake_fd, .events = POLLIN },
				       { .fd = r->errfd, .events = POLLIN } };
		char *nl;
		ssize_t n;

		wrapper_tend(r->w, NULL);
		if (poll(p, 2, 100) <= 0 || !p[1].revents)
			continue;
		n = read(r->errfd, buf + len, sizeof buf - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			write_all(2, buf, len);
			return -1;
		}
		len += (size_t)n;
		buf[len] = '\0';
		while ((nl = memchr(buf, '\n', len))) {
			size_t line = (size_t)(nl - buf) + 1;
			char *at = strstr(buf, LISTENING);
			if (at && at < nl) {
				char *colon = strchr(at + strlen(LISTENING), ':'), *slash;
				*port = colon ? atoi(colon + 1) : 0;
				slash = colon ? strchr(colon, '/') : NULL;
				if (*port > 0 && slash && slash < nl) {
					snprintf(path, pathlen, "%.*s", (int)(nl - slash), slash);
					memmove(buf, buf + line, len - line);
					len -= line;
					/* The rest of what was read, after the line. */
					write_all(2, buf, len);
					return 0;
				}
			}
			write_all(2, buf, line);
			memmove(buf, buf + line, len - line);
			len -= line;
		}
		if (len == sizeof buf - 1) {   /* a line longer than buf: on as it is */
			write_all(2, buf, len);
			len = 0;
		}
	}
}

/* ChromeDriver reads the port from DevToolsActivePort in the profile as
 * soon as the file exists, and Chromium writes its own port there just after
 * its DevTools line (tens of ms late on a busy machine): read in between, a
 * third of ChromeDriver's sessions went around the proxy. So a directory
 * holds the name until then, Chromium's write fails (it logs and goes on),
 * and only the proxy's port is ever in the file. 1 when held. */
static int hold_active_port(const char *profile)
{
	int dir, held;

	mkdir(profile, 0700);   /* Chromium's own mode; there already is fine */
	if ((dir = open(profile, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	unlinkat(dir, ACTIVE_PORT, 0);   /* an earlier run's names a port long gone */
	held = mkdirat(dir, ACTIVE_PORT, 0700) == 0;
	close(dir);
	return held;
}

/* ChromeDriver and others read the port from DevToolsActivePort in the
 * profile: it names the proxy's, so they come through it too. Left alone
 * when it does already. Names are taken relative to the profile's
 * directory: nothing is removed by path. */
static void rewrite_active_port(const char *profile, int port, const char *path)
{
	static const char tmp[] = ACTIVE_PORT ".cdpproxy";
	int dir, fd, now = 0;
	FILE *f;

	if ((dir = open(profile, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	if ((fd = openat(dir, ACTIVE_PORT, O_RDONLY | O_CLOEXEC)) >= 0 && (f = fdopen(fd, "r"))) {
		if (fscanf(f, "%d", &now) != 1)
			now = 0;
		fclose(f);
	} else if (fd >= 0) {
		close(fd);
	}
	if (now != port && (fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0) {
		if ((f = fdopen(fd, "w"))) {
			fprintf(f, "%d\n%s", port, path);
			unlinkat(dir, ACTIVE_PORT, AT_REMOVEDIR);   /* hold_active_port's */
			if (fclose(f) != 0 || renameat(dir, tmp, dir, ACTIVE_PORT) < 0)
				unlinkat(dir, tmp, 0);
		} else {
			close(fd);
			unlinkat(dir, tmp, 0);
		}
	}
	close(dir);
}

int wrapper_run_port(struct wrapper *w, char *err, size_t errlen)
{
	static struct port_run r;
	int errpipe[2], fds[5] = { -1, -1, -1, -1, -1 }, chrome_port = 0, held;
	char *path = r.browser_path;
	pthread_t relay;

	r.w = w;
	the_run = &r;
	wrapper_serve(w, &r.px);
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fds[2] = errpipe[1];
	held = w->cfg.user_data_dir && hold_active_port(w->cfg.user_data_dir);
	if (wrapper_start(w, fds, err, errlen) < 0)
		return -1;
	close(errpipe[1]);
	r.errfd = errpipe[0];
	if (await_listening(&r, &chrome_port, path, sizeof r.browser_path) < 0) {
		/* It failed as a browser: the client sees what it said and its status. */
		while (wrapper_tend(w, NULL))
			poll(NULL, 0, 50);
		wrapper_exit(w);
	}

	if (wrapper_proxy_start(w, &r.px, NULL, w->cfg.client_port, chrome_port, err, errlen) < 0) {
		wrapper_kill(w);
		launch_remove_dir(w->tmpdir);
		return -1;
	}
	if (wrapper_listen_admin(w, &r.px, err, errlen) < 0) {
		/* Unhooked first: the browser's SIGCHLD would wake a freed loop. */
		wrapper_serve(w, NULL);
		proxy_stop(&r.px);
		wrapper_kill(w);
		launch_remove_dir(w->tmpdir);
		return -1;
	}
	r.px.on_wake = port_tend;
	if (w->cfg.user_data_dir) {
		r.port_from_us = util_mono_us() + (held ? PORT_HOLD_US : 0);
		r.watch_port_until_us = util_mono_us() + 5000000;
		if (!held)
			rewrite_active_port(w->cfg.user_data_dir, r.px.port, path);
	}
	fprintf(stderr, "DevTools listening on ws://127.0.0.1:%d%s\n", r.px.port, path);
	if (pthread_create(&relay, NULL, relay_stderr, &r) == 0)
		pthread_detach(relay);
	else
		r.relay_done = 1;
	lws_sul_schedule(r.px.ctx, 0, &r.sul, tend_tick, TEND_US);
	proxy_run(&r.px, &r.stop);
	lws_sul_cancel(&r.sul);
	r.px.on_wake = NULL;
	wrapper_serve(w, NULL);   /* the context goes now */
	wrapper_push(w, &r.px);
	proxy_stop(&r.px);
	w->log_lost = r.px.log_lost;
	for (int waited = 0; !r.relay_done && waited < STDERR_DRAIN_MS; waited += 20)
		poll(NULL, 0, 20);
	wrapper_exit(w);
}
