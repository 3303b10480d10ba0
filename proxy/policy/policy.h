/* policy: ordered rules that decide, per message, pass, stub, reject, rewrite,
 * drop or delay, plus commands to inject when a session attaches. Pure but
 * for policy_load, which reads the file. */
#ifndef CDPPROXY_POLICY_H
#define CDPPROXY_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

enum policy_action { ACT_PASS, ACT_STUB, ACT_REJECT, ACT_REWRITE, ACT_DROP, ACT_DELAY };

/* What a rule matches: the message as the proxy sees it. A response is
 * matched on its command's method. */
enum policy_kind { PK_COMMAND = 1, PK_EVENT = 2, PK_RESPONSE = 4 };

struct policy_rule {
	char *method;               /* glob: * any run, ? one character, \ quotes */
	unsigned kinds;             /* PK_* bits; all when the rule names none */
	char *target;               /* target type, or NULL for any */
	char *url;                  /* glob on the target URL, or NULL for any */
	int mapper;                 /* -1: any client; 1: only the WebDriver BiDi
	                             * mapper's connection (client.h); 0: all but it */
	enum policy_action action;
	int log;                    /* 0: keep matching messages out of the log */
	json_t *result;             /* stub: the result ({} by default) */
	int64_t code;               /* reject */
	char *message;              /* reject */
	json_t *merge;              /* rewrite: deep-merged into params (result for a response) */
	json_t *remove;             /* rewrite: array of keys removed from params */
	uint64_t delay_ms;          /* delay */
	uint64_t hits;              /* messages this rule decided */
};

struct policy_inject {
	char *target;               /* target type, or NULL for any */
	json_t *commands;           /* array of {"method","params"} */
};

struct policy {
	char *name, *source;        /* its name, and the file it came from (or "PUT") */
	json_t *doc;                /* the document as given */
	struct policy_rule *rules;
	size_t n_rules;
	struct policy_inject *injects;
	size_t n_injects;
	json_t *warnings;           /* policy_check's: array of "SOURCE: $.path: reason" */
};

/* Parses a policy document. name is used when the document has none; source
 * names it in errors ("policies/x.json"). NULL with "SOURCE: $.path: reason"
 * in err on anything that is not a valid policy, and on a stub or reject
 * that would silently break the WebDriver BiDi mapper (policy_mapper.h). A
 * valid policy that names what the protocol does not have (policy_check.h)
 * loads, with warnings. */
struct policy *policy_parse(const json_t *doc, const char *name, const char *source,
			    char *err, size_t errlen);
/* Reads and parses a file; the name defaults to the file's base name. */
struct policy *policy_load(const char *path, char *err, size_t errlen);
/* The do-nothing policy: every message passes. */
struct policy *policy_passthrough(void);
void policy_free(struct policy *p);

/* The first rule matching a message, or NULL (pass). method is not
 * NUL-terminated; target and url may be NULL when unknown; mapper: the
 * connection carries the WebDriver BiDi mapper's CDP (client.h). */
struct policy_rule *policy_match(const struct policy *p, enum policy_kind kind,
				 const char *method, size_t mlen,
				 const char *target, const char *url, int mapper);

/* Could a rule match a message of this kind and method, whatever its
 * target? (A message cut through is judged before its sessionId, which
 * may come last, is known.) method is not NUL-terminated; NULL: any. */
int policy_may_match(const struct policy *p, enum policy_kind kind,
		     const char *method, size_t mlen);

/* Applies a rewrite rule to a params (or result) object in place. */
void policy_rewrite(const struct policy_rule *rule, json_t *params);

/* The commands to send when a session of this target type attaches: a new
 * array of {"method","params"}, possibly empty. */
json_t *policy_injects(const struct policy *p, const char *target);

/* The domains a session should have enabled upstream under p: the client's
 * own enables (domain -> the params it sent), as this policy would forward
 * them, plus what p injects for the target. A new object domain -> params. */
json_t *policy_desired(const struct policy *p, const json_t *client_enabled,
		       const char *target, const char *url, int mapper);

const char *policy_action_name(enum policy_action a);
/* {"name","source","rules":[{..., "hits"}],"inject":[...]}, and "warnings"
 * when there are any. */
json_t *policy_json(const struct policy *p);

#endif
