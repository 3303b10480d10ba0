/* cli: the command-line convention every program keeps: -h/--help and
 * -V/--version on stdout with exit 0, a bad flag one line on stderr with
 * exit 2, a failure at run time exit 1. */
#ifndef CDPPROXY_CLI_H
#define CDPPROXY_CLI_H

#include <getopt.h>
#include <stddef.h>

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };   /* exit statuses */

/* getopt_long's optstring: -h and -V, and ':' first so that a missing
 * argument is told apart from an unknown option. */
#define CLI_SHORTOPTS ":hV"
/* Their long forms, to end a struct option table with. */
#define CLI_LONGOPTS { "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' }

/* Once getopt_long (with CLI_SHORTOPTS, opts) returned c, '?' or ':': what
 * was wrong, one line in err: "unknown option '--x'", "ambiguous option
 * '--l'", "'--log' needs an argument", "'--quiet' takes no argument", each
 * with " (see --help)". */
void cli_bad_option(int c, char **argv, const struct option *opts, char *err, size_t errlen);

#endif
