/* procstat: this process's resource use from /proc. */
#include "procstat.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The boot time, in seconds since the epoch ("btime" of /proc/stat). */
static double boot_time(void)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	double t = 0;

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "btime %lf", &t) == 1)
			break;
	if (f)
		fclose(f);
	return t;
}

static unsigned long long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned long long n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n ? n - 1 : 0;   /* not the one opendir holds */
}

void procstat_read(struct metrics_process *p)
{
	FILE *f = fopen("/proc/self/stat", "re");
	char buf[1024], *rest, *save = NULL, *tok;
	unsigned long long field[25] = { 0 };   /* by the number proc(5) gives */
	double tick = (double)sysconf(_SC_CLK_TCK);
	int k = 3;
	size_t n;
	struct rlimit rl;

	memset(p, 0, sizeof *p);
	if (!f)
		return;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold spaces and ')'. */
	if (!(rest = strrchr(buf, ')')) || tick <= 0)
		return;
	for (tok = strtok_r(rest + 1, " ", &save); tok && k < 25; tok = strtok_r(NULL, " ", &save))
		field[k++] = strtoull(tok, NULL, 10);
	if (k < 25)
		return;
	p->cpu_seconds = (double)(field[14] + field[15]) / tick;   /* utime, stime */
	p->start_time_seconds = boot_time() + (double)field[22] / tick;
	p->virtual_bytes = field[23];
	p->resident_bytes = field[24] * (uint64_t)sysconf(_SC_PAGESIZE);
	p->open_fds = open_fds();
	p->max_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 0;
	p->ok = 1;
}
