/* cdpbench: measures how each enabled CDP domain changes upload throughput in
 * Chromium (run/), or how a test suite's own command runs under each policy
 * (`cdpbench audit`, audit/); both report through report/. */
#include <string.h>

#include "audit.h"
#include "run.h"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "audit"))
		return audit_main(argc - 1, argv + 1);
	return run_main(argc, argv);
}
