/* glob: the method and URL patterns of policy rules: * any run, ? one
 * character, \ quotes the next one. */
#include "glob.h"

int glob_match(const char *pat, const char *s, size_t n)
{
	const char *star = NULL, *resume = NULL;
	size_t i = 0, back = 0;

	/* Iterative matching with one backtrack point: linear for one '*' run. */
	while (i < n) {
		if (*pat == '*') {
			star = ++pat;
			back = i;
			resume = pat;
			continue;
		}
		if (*pat == '\\' && pat[1] && pat[1] == s[i]) {
			pat += 2;
			i++;
			continue;
		}
		if (*pat && *pat != '\\' && (*pat == '?' || *pat == s[i])) {
			pat++;
			i++;
			continue;
		}
		if (!star)
			return 0;
		pat = resume;
		i = ++back;
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}
