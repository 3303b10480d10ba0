/* launch: starts headless Chromium with a fresh profile, and stops it. */
#ifndef CDPPROXY_LAUNCH_H
#define CDPPROXY_LAUNCH_H

#include <sys/types.h>

struct launch {
	pid_t pid;                /* 0 when not running */
	char *profile;            /* the temporary --user-data-dir */
	int port;                 /* its DevTools port */
};

/* Starts path with the flags cdpproxy needs (headless, no network chatter,
 * --remote-debugging-port=0, a fresh profile) plus extra, and waits for its
 * DevToolsActivePort. 0, or -1 with a reason in err. */
int launch_start(struct launch *l, const char *path, char **extra, int nextra,
		 char *err, size_t errlen);

/* What launch_start_opts starts. */
struct launch_opts {
	const char *path;         /* the browser */
	char **extra;             /* more flags, after the base ones */
	int nextra;
	int no_debugging;         /* no --remote-debugging-port at all: returns once started */
	const char *url;          /* opened at start (last argument), or NULL */
};

/* launch_start with a choice of remote debugging and a start URL: the honest
 * no-debugger baseline is Chromium with no debugging port, opening the page.
 * With no_debugging, l->port stays 0. 0, or -1 with a reason in err. */
int launch_start_opts(struct launch *l, const struct launch_opts *o, char *err, size_t errlen);
/* The flags every launch passes (DESIGN.md section 2), before --remote-debugging-port,
 * --user-data-dir and the caller's: their count, and the array in *flags. */
size_t launch_base_flags(const char *const **flags);

/* Profiles are /tmp/cdpproxy-chromium-OWNERPID-XXXXXX: the owner's PID in
 * the name lets a later start tell a stale one from a live one. */
#define LAUNCH_PROFILE_PREFIX "cdpproxy-chromium-"

/* Makes a fresh profile directory named for this process into out. 0, or
 * -1 with a reason in err. */
int launch_make_dir(char *out, size_t outlen, char *err, size_t errlen);
/* Removes a directory (an absolute path) and everything in it that this
 * user owns, walking with openat/unlinkat and following no symlink. */
void launch_remove_dir(const char *dir);
/* Removes the profiles in /tmp of this user whose owner process is gone (it
 * was killed before it could remove them); returns how many. Every launch
 * does this. */
int launch_sweep_stale(void);

/* How launch_spawn starts a program. */
struct launch_spawn {
	const char *path;
	const char *const *argv;
	const char *tmpdir;       /* its TMPDIR, or NULL: ours */
	int fd[5];                /* its fds 0..4: -1 keeps ours at 0..2, closes 3 and 4 */
	int own_group;            /* in a process group of its own */
};

/* Forks and execs s->path: it dies with the calling thread's process
 * (PR_SET_PDEATHSIG, SIGKILL), gets the fds asked for and no other of ours
 * (none above 4), default SIGPIPE and SIGXFSZ and an empty signal mask. The pid once
 * the exec happened, or -1 with a reason in err ("cannot run PATH: why"
 * and *exec_errno, unless NULL, the exec's errno when the exec failed). */
pid_t launch_spawn(const struct launch_spawn *s, int *exec_errno, char *err, size_t errlen);
/* For a child just forked by pid parent: die (SIGKILL) when the parent
 * does; exits at once if it already has. Async-signal-safe. */
void launch_die_with_parent(pid_t parent);

/* Is it still running? Reaps it (and reports how it ended in err) if not. */
int launch_alive(struct launch *l, char *err, size_t errlen);
/* Stops the browser's process group (TERM, then KILL) and removes the profile. */
void launch_stop(struct launch *l);

#endif
