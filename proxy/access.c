/* access: which Host and Origin headers the proxy accepts, as Chrome does. Pure. */
#include "access.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int access_add(struct access_list *l, const char *name)
{
	if (l->n == ACCESS_MAX_ALLOW)
		return -1;
	l->name[l->n++] = name;
	return 0;
}

int access_host_ok(const char *host, const struct access_list *allow)
{
	char name[256];
	unsigned char addr[16];
	size_t n;

	if (!host || !*host)
		return 1;   /* HTTP/1.0 without Host: nothing to rebind */
	if (host[0] == '[') {   /* [v6]:port */
		n = strcspn(host + 1, "]");
		if (host[1 + n] != ']' || n >= sizeof name)
			return 0;
		snprintf(name, sizeof name, "%.*s", (int)n, host + 1);
		return inet_pton(AF_INET6, name, addr) == 1;
	}
	n = strcspn(host, ":");
	if (n >= sizeof name)
		return 0;
	snprintf(name, sizeof name, "%.*s", (int)n, host);
	if (inet_pton(AF_INET, name, addr) == 1 || !strcasecmp(name, "localhost"))
		return 1;
	for (size_t i = 0; i < allow->n; i++)
		if (!strcasecmp(name, allow->name[i]))
			return 1;
	return 0;
}

int access_origin_ok(const char *origin, const struct access_list *allow)
{
	if (!origin || !*origin)
		return 1;
	for (size_t i = 0; i < allow->n; i++)
		if (!strcmp(allow->name[i], "*") || !strcmp(allow->name[i], origin))
			return 1;
	return 0;
}
