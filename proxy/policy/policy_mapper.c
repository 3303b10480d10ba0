/* policy_mapper: what chromium-bidi's WebDriver BiDi mapper needs of CDP
 * (read in chromium-bidi 14's CdpTarget, NetworkProcessor, NetworkRequest
 * and NetworkStorage), and the refusal of a policy that would take it away
 * without the BiDi client hearing of it. */
#include "policy_mapper.h"

#include <stdio.h>
#include <string.h>

#include "glob.h"

/* One command the mapper sends. A stub of it is always silent (the mapper
 * takes the empty answer as done); a reject is silent unless error_reaches:
 * the mapper hands that CDP error on to the BiDi command that caused it. */
struct need {
	const char *method;
	int error_reaches;
	const char *why;
};

#define ON_EVERY_TARGET "it sends it to every target and ignores a failure"
static const struct need needs[] = {
	{ "Network.enable", 0, ON_EVERY_TARGET ": navigation, network events and interception "
	  "would be lost" },
	{ "Fetch.enable", 0, "network.addIntercept sends it and ignores a failure: the intercept "
	  "would never pause a request" },
	{ "Fetch.disable", 0, "network.removeIntercept sends it and ignores a failure: requests "
	  "would stay paused" },
	{ "Fetch.continueRequest", 0, "it continues each paused request no intercept matches: "
	  "the request would stay paused" },
	{ "Fetch.continueResponse", 0, "it continues each paused response no intercept matches: "
	  "the request would stay paused" },
	{ "Fetch.continueWithAuth", 0, "it answers auth no intercept matches: the request would "
	  "stay paused" },
	{ "Fetch.fulfillRequest", 0, "network.provideResponse sends it: the request would stay "
	  "paused" },
	{ "Fetch.failRequest", 0, "network.failRequest sends it: the request would stay paused" },
	{ "Network.getResponseBody", 1, "network.getData would return a stub's empty answer as "
	  "the body" },
	{ "Network.getRequestPostData", 1, "network.getData would return a stub's empty answer "
	  "as the body" },
	{ "Network.setCacheDisabled", 1, "network.setCacheBehavior would leave the cache on" },
	{ "Page.enable", 0, ON_EVERY_TARGET ": contexts and navigation would be lost" },
	{ "Page.getFrameTree", 0, ON_EVERY_TARGET ": its frames would be unknown" },
	{ "Page.setLifecycleEventsEnabled", 0, ON_EVERY_TARGET ": navigations would not complete" },
	{ "Runtime.enable", 0, ON_EVERY_TARGET ": realms and script.* would be lost" },
	{ "Runtime.runIfWaitingForDebugger", 0, ON_EVERY_TARGET ": new targets would stay paused" },
	{ "Target.setAutoAttach", 0, ON_EVERY_TARGET ": iframes, popups and workers would be "
	  "unseen" },
};
#undef ON_EVERY_TARGET

/* Does rule r apply to the mapper's connection for method? */
static int reaches(const struct policy_rule *r, const char *method)
{
	return (r->kinds & PK_COMMAND) && r->mapper != 0 &&
	       glob_match(r->method, method, strlen(method));
}

/* Is method kept for the mapper, on every session, by a rule before
 * rules[upto]? (A rule with a target or url covers some sessions only.) */
static int kept_before(const struct policy *p, size_t upto, const char *method)
{
	for (size_t i = 0; i < upto; i++) {
		const struct policy_rule *r = &p->rules[i];
		if (reaches(r, method) && !r->target && !r->url)
			return r->action != ACT_STUB && r->action != ACT_REJECT;
	}
	return 0;
}

int policy_mapper_check(const struct policy *p, char *err, size_t errlen)
{
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct policy_rule *r = &p->rules[i];
		if (r->action != ACT_STUB && r->action != ACT_REJECT)
			continue;
		for (size_t n = 0; n < sizeof needs / sizeof needs[0]; n++) {
			const struct need *nd = &needs[n];
			if ((r->action == ACT_REJECT && nd->error_reaches) ||
			    !reaches(r, nd->method) || kept_before(p, i, nd->method))
				continue;
			snprintf(err, errlen, "%s: $.rules[%zu]: %s %s for the WebDriver BiDi mapper "
				 "too, silently (%s); add \"mapper\": false to this rule, or before it "
				 "a rule with \"mapper\": true that passes or rewrites %s",
				 p->source, i, r->action == ACT_STUB ? "stubs" : "rejects", nd->method, nd->why,
				 nd->method);
			return -1;
		}
	}
	return 0;
}
