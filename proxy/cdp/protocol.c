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
