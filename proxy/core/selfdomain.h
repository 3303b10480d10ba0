/* selfdomain: the proxy's own CDP domain, CDPProxy, answered in band by
 * the proxy itself: a test steers its own A/B run through the CDP session
 * it already has. It says what a command changed (a policy to switch to)
 * and route applies it: selfdomain calls nothing above core. */
#ifndef CDPPROXY_SELFDOMAIN_H
#define CDPPROXY_SELFDOMAIN_H

#include <jansson.h>

#include "core.h"

/* The most a CDPProxy command's params may take (a policy given inline, as
 * PUT /proxy/policy's body), and a mark's label: past them, an error
 * without parsing or logging them. */
#define SELFDOMAIN_PARAMS_MAX (1024 * 1024)
#define SELFDOMAIN_LABEL_MAX 1024

/* What a CDPProxy command came to. */
struct selfdomain_result {
	json_t *result;               /* the answer's "result" (the caller's); NULL: an error, */
	int code;                     /* ... with the CDP error's code */
	char message[600];            /* ... and message */
	/* CDPProxy.setPolicy: the policy to switch to (the caller's, who
	 * answers with core_policy_json once it is in force); else NULL. */
	struct policy *policy;
};

/* The method's domain is CDPProxy (len bytes, not NUL-terminated)? */
int selfdomain_owns(const char *method, size_t len);
/* Carries out the CDPProxy command `method` with the params at span params
 * of buf, on connection cc, session sid ("" for the connection's own), into
 * *res. A mark is logged here; a policy switch is left to the caller. */
void selfdomain_command(struct core_conn *cc, const char *method, const char *sid,
			const char *buf, const struct scan_span *params,
			struct selfdomain_result *res);

#endif
