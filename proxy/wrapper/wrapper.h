/* wrapper: cdpproxy-chromium, a program a client launches as if it were
 * Chromium: its configuration (the browser's argv, the environment), the real
 * browser's process and the wrapper's life as a browser. */
#ifndef CDPPROXY_WRAPPER_H
#define CDPPROXY_WRAPPER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "access.h"

enum wrapper_mode {
	WRAPPER_EXEC,             /* no remote debugging: become the browser */
	WRAPPER_PIPE,             /* --remote-debugging-pipe: relay fds 3 and 4 */
	WRAPPER_PORT,             /* --remote-debugging-port=N: the proxy on N */
};

struct policy;

struct wrapper_config {
	enum wrapper_mode mode;
	const char *chromium;         /* CDPPROXY_CHROMIUM, default /usr/bin/chromium */
	char **argv;                  /* Chromium's, NULL-ended (port mode: its port is 0) */
	int client_port;              /* port mode: the port the client asked for (0: any) */
	const char *user_data_dir;    /* --user-data-dir as the client gave it, or NULL */
	char *origins;                /* port mode: --remote-allow-origins' value, split in place */
	struct access_list allow_origins;  /* ... the proxy's allowed Origins */
	const char *policy_path;      /* CDPPROXY_POLICY's file, or NULL */
	char policy_file[1024];       /* that file, when it is named (datadir_policy_file) */
	struct policy *policy;        /* loaded from it at start, or NULL */
	char policy_dir[1024];        /* where a policy switched by name is found */
	char log_path[4096];          /* CDPPROXY_LOG with %p (or a directory) resolved; "" */
	size_t log_bodies;            /* CDPPROXY_LOG_BODIES: bytes of body logged, 0: none */
	uint64_t record_bodies;       /* CDPPROXY_RECORD_BODIES: --record-bodies' budget, 0: off */
	int no_bidi_channel;          /* CDPPROXY_BIDI_CHANNEL=0: --no-bidi-channel */
	uint64_t max_message;         /* CDPPROXY_MAX_MESSAGE, default 256 MiB */
	uint64_t queue_bytes;         /* per direction, before the producer is paused */
	char admin_host[128];         /* the admin listener (/proxy/), CDPPROXY_CONTROL=HOST:PORT; "" when unset */
	int admin_port;
	char pushgateway[1024];       /* CDPPROXY_PUSHGATEWAY, http(s)://HOST[:PORT][/PREFIX]; "" unset */
	char push_job[256];           /* CDPPROXY_PUSHGATEWAY_JOB, default "cdpproxy" */
	char push_instance[512];      /* CDPPROXY_PUSHGATEWAY_INSTANCE, default HOSTNAME-PID */
};

/* Reads the client's argv (argv[0] is the wrapper) and the CDPPROXY_*
 * environment into c; loads the policy. 0, or -1 with a one-line reason in
 * err: nothing has been started then. */
int wrapper_configure(struct wrapper_config *c, int argc, char **argv, char *err, size_t errlen);
void wrapper_config_free(struct wrapper_config *c);
/* wrapper_configure's reading of argv, as Chromium reads it: c->mode,
 * c->argv (Chromium's: every debugging endpoint is the wrapper's choice),
 * client_port, user_data_dir, allow_origins; c->chromium is argv[0]. 0, or
 * -1 with a one-line reason in err. wrapper_args_free frees what it made. */
int wrapper_args(struct wrapper_config *c, int argc, char **argv, char *err, size_t errlen);
void wrapper_args_free(struct wrapper_config *c);

/* The real browser's process. */
struct wrapper {
	struct wrapper_config cfg;
	pid_t chrome;                 /* 0 once reaped */
	int status;                   /* its wait status, once reaped */
	char tmpdir[256];             /* its TMPDIR (/tmp/cdpproxy-chromium-PID-*), removed at the end */
	pid_t client;                 /* our parent at start: the client */
	uint64_t kill_at_us;          /* SIGKILL the browser then if still there (0: not armed) */
	void (*wake)(void);           /* called from signal handlers, after the flags are set */
	int wake_fd;                  /* readable after a signal (a self-pipe), for poll */
	uint64_t log_lost;            /* records CDPPROXY_LOG lost, known once the proxy stopped */
	int exec_errno;               /* why the browser could not be run, or 0 */
	int cleaner_fd;               /* the cleaner's pipe (-1: none): told the browser and its TMPDIR */
};

/* Forks the cleaner (call it while single-threaded, before wrapper_start):
 * a process outside the wrapper's tree and process group that, once the
 * wrapper has ended in any way (SIGKILL too: its pipe's EOF), waits for the
 * browser to go and removes its TMPDIR. Its command line (main's argc and
 * argv, rewritten in place) says what it is, so that nothing takes it for
 * the wrapper. 0, or -1 with a reason in err. */
int wrapper_cleaner_start(struct wrapper *w, int argc, char **argv, char *err, size_t errlen);

/* Can path be run as the browser (a regular file we may execute)? 0, or
 * the shell's status for it (127: not there, 126: not runnable) with
 * "cannot run PATH: why (set CDPPROXY_CHROMIUM)" in err. */
int wrapper_check_browser(const char *path, char *err, size_t errlen);
/* The same status and message for an exec of path that failed with e. */
int wrapper_exec_failed(const char *path, int e, char *err, size_t errlen);

/* Prepares w (signals, the client watch) and starts the browser with
 * fds[0..4] as its fds (-1: ours for 0..2, none for 3 and 4). 0, or -1 with
 * a reason in err. */
int wrapper_start(struct wrapper *w, const int fds[5], char *err, size_t errlen);
/* Acts on the signals that came since the last call: forwards SIGTERM and
 * SIGINT to the browser, reloads the policy on SIGHUP (calling reload with
 * it, if it loads), reaps the browser, and kills it when the client is gone
 * or the kill time came. Returns 1 while the browser runs, 0 once reaped. */
int wrapper_tend(struct wrapper *w, void (*reload)(struct wrapper *w, struct policy *p));
/* Ends the wrapper as the browser ended: its exit code, or its signal
 * raised again (with no core dump); removes the browser's TMPDIR first.
 * Log records lost are said on stderr, and make a status 0 exit 1. */
void wrapper_exit(struct wrapper *w) __attribute__((noreturn));
/* Kills the browser's process group member we started, now (SIGKILL), and
 * waits for it. */
void wrapper_kill(struct wrapper *w);
/* Arms the kill: the browser gets SIGKILL in ms unless it has gone. */
void wrapper_kill_later(struct wrapper *w, int ms);

struct proxy;
/* Both modes serve through px: signals wake its loop (w->wake), and SIGHUP's
 * policy becomes its core's (wrapper_reload). */
void wrapper_serve(struct wrapper *w, struct proxy *px);
/* Starts px as the wrapper's configuration asks (log, policy, limits),
 * listening on host:port (port -1: not at all) and forwarding to Chrome on
 * upstream_port, with every leg (legs.h); w->cfg.policy is taken either
 * way. 0, or -1 with err. */
int wrapper_proxy_start(struct wrapper *w, struct proxy *px, const char *host, int port,
			int upstream_port, char *err, size_t errlen);
/* Adds the admin listener (CDPPROXY_CONTROL) to px (none unset) and names
 * it on stderr. 0, or -1 with err (a port taken: no other is tried). */
int wrapper_listen_admin(struct wrapper *w, struct proxy *px, char *err, size_t errlen);
/* Reads CDPPROXY_PUSHGATEWAY and its _JOB and _INSTANCE into c (none set:
 * c->pushgateway is ""). 0, or -1 with a reason in err (not a URL). */
int wrapper_push_configure(struct wrapper_config *c, char *err, size_t errlen);
/* With CDPPROXY_PUSHGATEWAY: PUTs px's metrics (core_metrics_text) to
 * URL/metrics/job/JOB/instance/INSTANCE, waiting at most
 * WRAPPER_PUSH_TIMEOUT_MS. A failure is one line on stderr and a
 * "pushgateway" log record, never an error: the wrapper exits as the
 * browser did. Call it after the loop, before proxy_stop. */
#define WRAPPER_PUSH_TIMEOUT_MS 2000
void wrapper_push(struct wrapper *w, struct proxy *px);
/* wrapper_tend's reload: the policy SIGHUP loaded, made the proxy's. */
void wrapper_reload(struct wrapper *w, struct policy *p);

/* The modes (wrapper_pipe.c, wrapper_port.c): run until the browser is gone,
 * then wrapper_exit. Return only on a failure to start, with err. */
int wrapper_run_pipe(struct wrapper *w, char *err, size_t errlen);
int wrapper_run_port(struct wrapper *w, char *err, size_t errlen);

#endif
