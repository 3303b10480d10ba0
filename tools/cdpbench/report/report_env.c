/* report_env: the machine a report was measured on: Chromium's version, the
 * kernel, CPU, memory, the flags, the command line and the load average. */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "launch.h"

/* The first line of a command's output, or "". */
static void first_line_of(const char *cmd, char *out, size_t outlen)
{
	FILE *p = popen(cmd, "r");

	out[0] = '\0';
	if (!p)
		return;
	if (!fgets(out, (int)outlen, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

/* The value of the first "key<TAB>: value" line of a /proc file. */
static void proc_field(const char *path, const char *key, char *out, size_t outlen)
{
	char line[512];
	FILE *f = fopen(path, "r");

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (!strncmp(line, key, strlen(key)) && colon) {
			colon += 1 + strspn(colon + 1, " \t");
			snprintf(out, outlen, "%.*s", (int)strcspn(colon, "\n"), colon);
			break;
		}
	}
	fclose(f);
}

json_t *report_environment(const struct bench_config *cfg, int argc, char **argv)
{
	char version[256], cmd[BENCH_PATH_MAX + 64], cpu[256], mem[64];
	const char *const *flags;
	size_t nflags = launch_base_flags(&flags);
	struct utsname u;
	json_t *fl = json_array(), *args = json_array();

	snprintf(cmd, sizeof cmd, "'%s' --version 2>/dev/null", cfg->chromium);
	first_line_of(cmd, version, sizeof version);
	proc_field("/proc/cpuinfo", "model name", cpu, sizeof cpu);
	proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
	uname(&u);
	for (size_t i = 0; i < nflags; i++)
		json_array_append_new(fl, json_string(flags[i]));
	json_array_append_new(fl, json_string("--user-data-dir=<fresh per trial>"));
	json_array_append_new(fl, json_string("--remote-debugging-port=0 (not for none)"));
	for (int i = 0; i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	return json_pack("{s:s,s:s,s:s,s:s,s:I,s:s,s:s,s:o,s:o,s:o}", "chromium", version,
			 "chromium_path", cfg->chromium, "kernel", u.release, "machine", u.machine,
			 "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN), "cpu", cpu,
			 "memory", mem, "chromium_flags", fl, "command", args,
			 "load_average_start", report_load_average());
}

json_t *report_load_average(void)
{
	double la[3];

	if (getloadavg(la, 3) != 3)
		return json_null();
	return json_pack("[f,f,f]", la[0], la[1], la[2]);
}
