/* side: the names the two ends of a connection are written under. */
#include "side.h"

const char *const side_name[2] = { "client", "upstream" };
const char *const side_dir[2] = { "down", "up" };
