/* policy_check: a parsed policy held against the protocol: methods and
 * events it does not define, parameters a method does not take, values of
 * the wrong JSON type. Warnings, not errors: a newer Chrome may have what
 * this build's protocol table lacks. */
#ifndef CDPPROXY_POLICY_CHECK_H
#define CDPPROXY_POLICY_CHECK_H

#include <jansson.h>

#include "policy.h"

/* At most this many warnings per policy; one more line says how many
 * were left out. */
#define POLICY_CHECK_MAX 100

/* The warnings about p, each "SOURCE: $.path: reason" (with "did you mean
 * X?" when a known name is close), as a new array of strings, possibly
 * empty. Only the top level of params and results is checked. */
json_t *policy_check(const struct policy *p);

#endif
