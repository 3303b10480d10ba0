/* cli: the one-line messages for a bad flag, from getopt_long's state. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* The options whose name is name[0..n) or starts with it (getopt_long takes
 * a unique prefix); *match the exact one, else the last. */
static int matches(const char *name, size_t n, const struct option *opts,
		   const struct option **match)
{
	int count = 0;

	*match = NULL;
	for (const struct option *o = opts; o->name; o++) {
		if (strncmp(o->name, name, n))
			continue;
		*match = o;
		if (!o->name[n])
			return 1;
		count++;
	}
	return count;
}

void cli_bad_option(int c, char **argv, const struct option *opts, char *err, size_t errlen)
{
	/* getopt_long steps past a long option even when it fails; a short one
	 * in the middle of "-abc" it does not: optopt says which it was. */
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	size_t n = strcspn(arg, "=");
	const struct option *o = NULL;
	int count = 0, is_long = !strncmp(arg, "--", 2) && n > 2;

	if (is_long)
		count = matches(arg + 2, n - 2, opts, &o);
	if (is_long && optopt == 0)
		snprintf(err, errlen, "%s option '%.*s' (see --help)", count > 1 ? "ambiguous" : "unknown",
			 (int)n, arg);
	else if (is_long && count == 1 && o->val == optopt)
		snprintf(err, errlen, c == ':' ? "'--%s' needs an argument (see --help)" :
			 "'--%s' takes no argument (see --help)", o->name);
	else if (c == ':')
		snprintf(err, errlen, "'-%c' needs an argument (see --help)", optopt);
	else
		snprintf(err, errlen, "unknown option '-%c' (see --help)", optopt);
}
