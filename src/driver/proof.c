/* proof.c - which object serves malloc: dlsym(RTLD_DEFAULT) finds the definition the dynamic
 * linker binds to (LD_PRELOAD and DT_NEEDED order included), dladdr names the object holding it.
 * Version functions cannot prove this: a loaded library answers them even when it serves nothing.
 */
#include "driver/proof.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const proof_symbols[PROOF_NSYMS] = {
    "malloc", "free", "calloc", "realloc", "posix_memalign",
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void resolve_path(const char *path, char *out, size_t len)
{
	char real[PATH_MAX];

	snprintf(out, len, "%s", realpath(path, real) ? real : path);
}

/* In the executable itself dladdr reports argv[0]; /proc/self/exe is the real file. */
static void self_path(char *out, size_t len)
{
	resolve_path("/proc/self/exe", out, len);
}

static int in_expected(const char *library, const Dl_info *di, const void *self_base)
{
	if (!library)
		return di->dli_fbase == self_base;
	return strncmp(base_name(di->dli_fname), library, strlen(library)) == 0;
}

int proof_check(const char *library, struct proof *pr)
{
	Dl_info self, di, first;
	char found[PATH_MAX];

	memset(pr, 0, sizeof *pr);
	if (!dladdr((void *)proof_check, &self))
		self.dli_fbase = NULL;
	if (library)
		snprintf(pr->expected, sizeof pr->expected, "%s*", library);
	else
		self_path(pr->expected, sizeof pr->expected);

	for (int i = 0; i < PROOF_NSYMS; i++) {
		void *sym = dlsym(RTLD_DEFAULT, proof_symbols[i]);

		if (!sym || !dladdr(sym, &di) || !di.dli_fname) {
			snprintf(pr->problem, sizeof pr->problem,
			         "%s does not resolve to any object", proof_symbols[i]);
			return -1;
		}
		if (di.dli_fbase == self.dli_fbase)
			self_path(found, sizeof found);
		else
			resolve_path(di.dli_fname, found, sizeof found);
		if (i == 0) {
			first = di;
			snprintf(pr->library, sizeof pr->library, "%s", found);
		}
		if (!in_expected(library, &di, self.dli_fbase) || di.dli_fbase != first.dli_fbase) {
			snprintf(pr->problem, sizeof pr->problem, "%s is served by %s, not %s",
			         proof_symbols[i], found, pr->expected);
			return -1;
		}
	}
	pr->verified = 1;
	return 0;
}
