/* input: a connection's buffer of bytes read and not yet handled, which
 * main.c reads into and http.c and ws.c consume. */
#include <string.h>

#include "echo.h"
#include "util.h"

void echo_input_reserve(struct echo_conn *c, size_t n)
{
	if (c->in_off && c->in_off == c->in_len)
		c->in_off = c->in_len = 0;
	if (c->in_len + n <= c->in_cap)
		return;
	if (c->in_off) {  /* slide the unhandled bytes to the front first */
		memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
		c->in_len -= c->in_off;
		c->in_off = 0;
	}
	if (c->in_len + n > c->in_cap) {
		while (c->in_len + n > c->in_cap)
			c->in_cap *= 2;
		c->in = xrealloc(c->in, c->in_cap);
	}
}
