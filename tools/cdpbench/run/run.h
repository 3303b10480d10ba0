/* run: `cdpbench` without a subcommand: the matrix of scenarios x bodies,
 * run round by round, and its report. */
#ifndef CDPBENCH_RUN_H
#define CDPBENCH_RUN_H

/* `cdpbench ARGS`; the exit status. */
int run_main(int argc, char **argv);

#endif
