/* switches: Chromium's reading of its command line (base::CommandLine on
 * Linux): which arguments are switches, and their names and values. Pure. */
#include "switches.h"

#include <string.h>

int switches_is_end(const char *arg)
{
	return !strcmp(arg, "--");
}

int switches_parse(const char *arg, struct switch_arg *out)
{
	/* base::CommandLine's prefixes on POSIX, the longest first. */
	size_t prefix = !strncmp(arg, "--", 2) ? 2 : arg[0] == '-' ? 1 : 0;
	const char *eq;

	if (!prefix || !arg[prefix])
		return 0;
	out->name = arg + prefix;
	eq = strchr(out->name, '=');
	out->name_len = eq ? (size_t)(eq - out->name) : strlen(out->name);
	out->value = eq ? eq + 1 : NULL;
	return 1;
}

int switches_is(const struct switch_arg *s, const char *name)
{
	return strlen(name) == s->name_len && !memcmp(s->name, name, s->name_len);
}

int switches_find(int argc, char *const *argv, const char *name, const char **value)
{
	struct switch_arg s;
	int found = 0;

	for (int i = 1; i < argc && !switches_is_end(argv[i]); i++) {
		if (switches_parse(argv[i], &s) && switches_is(&s, name)) {
			*value = s.value ? s.value : "";
			found = 1;
		}
	}
	return found;
}
