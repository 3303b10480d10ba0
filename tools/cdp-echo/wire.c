/* wire: cdp-echo builds the framing and message layouts it shares with cdp-load. */
#include "../cdp-load/wire.c"
