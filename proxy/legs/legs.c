/* legs: the registration of every leg: its header, and its line in
 * legs_all. The first serves HTTP (proxy.h: its first protocol gets the
 * accepted connections); a leg whose connections none opens (the pipe's,
 * outside the wrapper's pipe mode) costs its protocol's name and nothing
 * else. */
#include "legs.h"

#include "http.h"
#include "mapper.h"
#include "pipe.h"
#include "ws.h"

const struct proxy_leg *const legs_all[] = {
	&http_leg,
	&ws_leg,
	&pipe_leg,
	&mapper_leg,
	NULL
};
