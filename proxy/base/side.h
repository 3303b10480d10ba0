/* side: the two ends of a proxied connection, one word for direction in
 * every layer: arrays are indexed by it, and a message's direction is the
 * side it goes to. */
#ifndef CDPPROXY_SIDE_H
#define CDPPROXY_SIDE_H

/* The client, Chrome; NOBODY: a producer no leg stands for (a policy
 * switch), which nothing pauses. Only DOWN and UP index arrays. */
enum side { DOWN, UP, NOBODY };

/* Who is on side s, as stderr and the log's close records say it:
 * "client", "upstream". */
extern const char *const side_name[2];
/* The log's "dir" of a message going to side s: "down", "up". */
extern const char *const side_dir[2];

#endif
