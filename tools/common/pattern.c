/* pattern: the a-z test pattern, one buffer reserved once and filled on demand. */
#include "pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

const char *pattern_get(size_t n)
{
	static char *pat;
	static size_t filled;

	if (!pat) {
		/* Reserved once, filled on demand: references into it stay valid. */
		void *p = mmap(NULL, PATTERN_MAX + 64, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			abort();
		}
		pat = p;
	}
	if (n > PATTERN_MAX) {
		fprintf(stderr, "pattern: %zu bytes is over 1 GiB\n", n);
		abort();
	}
	for (; filled < n + PATTERN_PERIOD; filled++)
		pat[filled] = (char)('a' + filled % PATTERN_PERIOD);
	return pat;
}
