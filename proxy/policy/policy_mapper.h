/* policy_mapper: the CDP commands chromium-bidi's WebDriver BiDi mapper
 * needs, and the refusal of a policy that would stub or reject one of them
 * for the mapper, where the mapper would lose it without telling its
 * client. Pure. */
#ifndef CDPPROXY_POLICY_MAPPER_H
#define CDPPROXY_POLICY_MAPPER_H

#include <stddef.h>

#include "policy.h"

/* 0 if no stub or reject rule of p applies to the mapper's connection for
 * a command it needs (a rule with "mapper": false does not; nor does one
 * after a rule that passes, rewrites or delays the command for the mapper
 * on every session). Else -1 with "SOURCE: $.rules[N]: reason" in err:
 * the command, what the mapper does with it, what a BiDi client would lose,
 * and how to keep the rule off the mapper. */
int policy_mapper_check(const struct policy *p, char *err, size_t errlen);

#endif
