/* protocol: the CDP method and event names the protocol defines, from the
 * generated list proxy/cdp/protocol_names.inc (`make protocol-names`). */
#include "protocol.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
#include "protocol_names.inc"
};

struct key {
	const char *p;
	size_t len;
};

/* Byte order, a prefix first: the order of LC_ALL=C sort. */
static int key_cmp(const void *k, const void *elem)
{
	const struct key *a = k;
	const char *b = *(const char *const *)elem;
	size_t blen = strlen(b);
	int c = memcmp(a->p, b, a->len < blen ? a->len : blen);

	return c ? c : (a->len > blen) - (a->len < blen);
}

int protocol_known(const char *name, size_t len)
{
	struct key k = { name, len };

	return bsearch(&k, names, sizeof names / sizeof names[0], sizeof names[0], key_cmp) != NULL;
}

int protocol_domain_known(const char *domain, size_t len)
{
	size_t lo = 0, hi = sizeof names / sizeof names[0];

	if (!len || memchr(domain, '.', len))
		return 0;
	/* The first name not below domain: "Domain." sorts right after
	 * "Domain" and before any longer "DomainX", as '.' is below letters. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct key k = { domain, len };
		if (key_cmp(&k, &names[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sizeof names / sizeof names[0] && !strncmp(names[lo], domain, len) &&
	       names[lo][len] == '.';
}
