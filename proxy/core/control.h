/* control: the CDPProxy domain, answered in band by the proxy itself: a
 * test steers its own A/B run through the CDP session it already has. */
#ifndef CDPPROXY_CONTROL_H
#define CDPPROXY_CONTROL_H

#include <jansson.h>

#include "core.h"

/* The most a CDPProxy command's params may take (a policy given inline, as
 * PUT /proxy/policy's body), and a mark's label: past them, an error
 * without parsing or logging them. */
#define CONTROL_PARAMS_MAX (1024 * 1024)
#define CONTROL_LABEL_MAX 1024

/* The method's domain is CDPProxy (len bytes, not NUL-terminated)? */
int control_is_ours(const char *method, size_t len);
/* Carries out the CDPProxy command `method` with params (borrowed; an
 * object) on connection cc, session sid ("" for the connection's own).
 * Returns the answer's "result" object, or NULL with the CDP error's code
 * and message (msglen bytes) filled in. */
json_t *control_command(struct core_conn *cc, const char *method, const char *sid,
			json_t *params, int *code, char *msg, size_t msglen);
/* The error answer to a command whose params are over CONTROL_PARAMS_MAX:
 * NULL, with code and message filled as control_command does. */
json_t *control_too_large(const char *method, int *code, char *msg, size_t msglen);
/* The policy named name: the file NAME.json in the core's policy directory
 * (no path: nothing outside it). NULL with the reason in err. */
struct policy *control_policy_by_name(const struct core *core, const char *name,
				      char *err, size_t errlen);
/* {"name","gen","since_us","policy"}: the policy in force. */
json_t *control_policy_json(const struct core *core);

#endif
