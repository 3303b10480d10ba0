/* protocol: the CDP commands and events the protocol defines, with their
 * parameters, from the generated table proxy/cdp/protocol_table.inc
 * (`make protocol-table`). */
#include "protocol.h"

#include <stdlib.h>
#include <string.h>

const struct protocol_method protocol_methods[] = {
#include "protocol_table.inc"
};
const size_t protocol_n_methods = sizeof protocol_methods / sizeof protocol_methods[0];

struct key {
	const char *p;
	size_t len;
};

/* Byte order, a prefix first: the order of LC_ALL=C sort. */
static int key_cmp(const void *k, const void *elem)
{
	const struct key *a = k;
	const char *b = ((const struct protocol_method *)elem)->name;
	size_t blen = strlen(b);
	int c = memcmp(a->p, b, a->len < blen ? a->len : blen);

	return c ? c : (a->len > blen) - (a->len < blen);
}

const struct protocol_method *protocol_find(const char *name, size_t len)
{
	struct key k = { name, len };

	return bsearch(&k, protocol_methods, protocol_n_methods, sizeof protocol_methods[0], key_cmp);
}

int protocol_known(const char *name, size_t len)
{
	return protocol_find(name, len) != NULL;
}

char protocol_member_type(const char *shape, const char *name)
{
	size_t n = strlen(name);

	while (*shape) {
		const char *colon = strchr(shape, ':');
		if ((size_t)(colon - shape) == n && !memcmp(shape, name, n))
			return colon[1];
		shape = colon + 2;
		shape += *shape == ' ';
	}
	return 0;
}
