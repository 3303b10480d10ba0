/* legs: every leg the programs run, registered in one place (legs.c): a
 * new leg is a folder of proxy/ (the Makefile finds it) and its
 * registration there. */
#ifndef CDPPROXY_LEGS_H
#define CDPPROXY_LEGS_H

#include "proxy.h"

/* Every leg, NULL-ended, for proxy_config.legs. */
extern const struct proxy_leg *const legs_all[];

#endif
