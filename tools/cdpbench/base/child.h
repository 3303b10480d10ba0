/* child: helper processes (uploadsink, cdpproxy) started, awaited and stopped by PID. */
#ifndef CDPBENCH_CHILD_H
#define CDPBENCH_CHILD_H

#include <sys/types.h>

struct child {
	pid_t pid;          /* 0 when not running */
	int port;           /* from its "listening on http://HOST:PORT" line */
	char dir[64];       /* its temporary directory: stdout and stderr files */
	char name[32];
};

/* Runs argv[0] with stdout and stderr in files of a new temporary directory,
 * and waits up to timeout_ms for "listening on http://HOST:PORT" on stderr.
 * 0, or -1 with a reason (and its last stderr line) in err. */
int child_start(struct child *c, const char *name, char *const argv[], int timeout_ms,
		char *err, size_t errlen);
/* Is it still running? (reaps it if not) */
int child_alive(struct child *c);
/* SIGTERM, up to 5 s, then SIGKILL; removes its directory. */
void child_stop(struct child *c);
/* Copies the last non-empty line of its stderr into out. */
void child_last_line(const struct child *c, char *out, size_t outlen);

/* Milliseconds of sleep. */
void child_sleep_ms(int ms);

#endif
