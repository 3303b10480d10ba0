/* switches: Chromium's reading of its command line (base::CommandLine on
 * Linux): which arguments are switches, and their names and values. Pure. */
#ifndef CDPPROXY_SWITCHES_H
#define CDPPROXY_SWITCHES_H

#include <stddef.h>

/* One switch: name (not NUL-ended: name_len bytes, without its "-" or "--")
 * and value (after the first '=', NUL-ended; NULL when there is no '='). */
struct switch_arg {
	const char *name;
	size_t name_len;
	const char *value;
};

/* Reads arg as Chromium does: "--" or else "-", then at least one byte, is a
 * switch; its name runs to the first '=' and its value follows it ("-x",
 * "--x", "-x=v", "--x=v"; names compared case-sensitively on Linux). 1 with
 * *out for a switch, 0 for a plain argument. A bare "--" is no switch: it
 * ends switch parsing (switches_is_end). */
int switches_parse(const char *arg, struct switch_arg *out);
/* Is arg the "--" after which Chromium reads no switch? */
int switches_is_end(const char *arg);
/* Is s the switch named name (NUL-ended, without prefix)? */
int switches_is(const struct switch_arg *s, const char *name);
/* The value of the last switch named name in argv[1..argc) before a bare
 * "--" (Chromium's: the last one wins): 1 with *value ("" when it has
 * none), 0 when there is none. */
int switches_find(int argc, char *const *argv, const char *name, const char **value);

#endif
