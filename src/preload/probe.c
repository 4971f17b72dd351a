/* probe.c - build/liballocab-probe.so: preloaded into every process of a bench run, it finds with
 * dlsym(RTLD_DEFAULT) and the loaded objects' program headers (dladdr's answer) which object serves
 * each function of the malloc family (as the drivers prove theirs), whether the executable defines
 * allocator symbols of its own, and whether every LD_PRELOAD entry was really loaded, and appends
 * one JSON line per event to the file named by ALLOCAB_PROBE_FILE: "start" when an image starts,
 * "fork" in a fork child, "exit" at normal exit (with the read-back of a configured arm, in
 * probe_config.c). Records are written with one write(2) on an
 * O_APPEND descriptor, so concurrent processes never interleave. Format: docs/results-format.md
 * ("Probe records"). */
#include "preload/probe.h"
#include "common/allocknown.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdint.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define REC_MAX  16384
#define MAX_OBJS 8

struct serving {
	char path[ALLOCKNOWN_NSYMS][PATH_MAX];
	const char *allocator; /* known name, "executable", "mixed" or "unknown" */
	const char *exe_allocator;
	char version[32];
};

static char file_path[PATH_MAX];
static char self_path[PATH_MAX];
static char count_path[PATH_MAX];
static char exe_path[PATH_MAX];
static char preload[4096];
static char missing[4096]; /* JSON array body of LD_PRELOAD entries not loaded */
static char loaded[8192];  /* JSON array body of the realpaths of those loaded */
static struct serving at_start;

int probe_active(void)
{
	return file_path[0] != '\0';
}

const char *probe_self_path(void)
{
	return self_path;
}

const char *probe_file_path(void)
{
	return file_path;
}

const char *probe_count_path(void)
{
	return count_path;
}

void probe_json_str(char *buf, size_t len, size_t *k, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	if (*k + 2 >= len)
		return;
	buf[(*k)++] = '"';
	for (; s && *s && *k + 8 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			buf[(*k)++] = '\\';
			buf[(*k)++] = (char)c;
		} else if (c < 0x20 || c >= 0x80) {
			/* Bytes above 0x7f as \u00XX: always valid JSON, even for non-UTF-8 paths.
			 */
			memcpy(buf + *k, "\\u00", 4);
			buf[*k + 4] = hex[c >> 4];
			buf[*k + 5] = hex[c & 15];
			*k += 6;
		} else {
			buf[(*k)++] = (char)c;
		}
	}
	buf[(*k)++] = '"';
}

void probe_put(char *buf, size_t len, size_t *k, const char *s)
{
	size_t n = strlen(s);

	if (*k + n < len) {
		memcpy(buf + *k, s, n);
		*k += n;
	}
}

static void append_record(const char *rec, size_t n)
{
	int fd = open(file_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return;
	if (write(fd, rec, n) < 0) {
		/* Nothing to do: a missing record makes the run unverified. */
	}
	close(fd);
}

/* {"probe":..,"event":..,"pid":..,"ppid":.., into buf; returns the length. */
static size_t record_head(char *buf, size_t len, const char *event)
{
	size_t k = 0;
	char num[64];

	probe_put(buf, len, &k, "{\"probe\":\"" PROBE_SCHEMA "\",\"event\":");
	probe_json_str(buf, len, &k, event);
	snprintf(num, sizeof num, ",\"pid\":%ld,\"ppid\":%ld", (long)getpid(), (long)getppid());
	probe_put(buf, len, &k, num);
	return k;
}

void probe_event(const char *event, const char *extra)
{
	char buf[REC_MAX];
	size_t k;

	if (!probe_active())
		return;
	k = record_head(buf, sizeof buf, event);
	if (extra) {
		probe_put(buf, sizeof buf, &k, ",");
		probe_put(buf, sizeof buf, &k, extra);
	}
	probe_put(buf, sizeof buf, &k, "}\n");
	append_record(buf, k);
}

struct locate_req {
	uintptr_t addr;
	Dl_info *di;
	int found;
};

static int locate_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct locate_req *q = arg;
	uintptr_t lo = UINTPTR_MAX;
	int hit = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (start < lo)
			lo = start;
		if (q->addr >= start && q->addr < start + ph->p_memsz)
			hit = 1;
	}
	if (!hit)
		return 0;
	q->di->dli_fname = info->dlpi_name;
	q->di->dli_fbase = (void *)lo;
	q->found = 1;
	return 1;
}

/* dladdr's dli_fname and dli_fbase for p, from the program headers of the loaded objects:
 * dladdr itself scans an object's whole symbol table for the nearest symbol, which costs more
 * than everything else the probe does. Returns nonzero when p lies in a loaded object. */
static int locate(const void *p, Dl_info *di)
{
	struct locate_req q = {.addr = (uintptr_t)p, .di = di};

	memset(di, 0, sizeof *di);
	dl_iterate_phdr(locate_one, &q);
	return q.found;
}

/* The executable's load base, for telling its own definitions from a library's: the object that
 * holds the program headers the kernel mapped (AT_PHDR). */
static void *exe_base(void)
{
	static void *base;
	Dl_info di;

	if (!base && locate((void *)getauxval(AT_PHDR), &di))
		base = di.dli_fbase;
	return base;
}

/* The function the counting library forwards sym to, when it serves sym. */
static void *past_counter(const char *sym, void *p, const Dl_info *di)
{
	void *(*next)(const char *) =
	    (void *(*)(const char *))dlsym(RTLD_DEFAULT, "allocab_count_next");
	Dl_info ci;

	if (!next || !locate((void *)next, &ci) || ci.dli_fbase != di->dli_fbase)
		return p;
	return next(sym);
}

/* The definition of sym in the first object after the executable in load order (the global
 * lookup order) that defines it. For a non-PIE executable that takes a function's address,
 * dlsym returns the executable's canonical PLT stub, which serves nothing itself. */
static void *past_plt_stub(const char *sym, void *p)
{
	void *self = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD), *found = NULL;
	struct link_map *lm = NULL;

	if (!self || dlinfo(self, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
		if (self)
			dlclose(self);
		return p;
	}
	for (struct link_map *l = lm->l_next; l && !found; l = l->l_next) {
		void *h = l->l_name[0] ? dlopen(l->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
		void *q = h ? dlsym(h, sym) : NULL;
		Dl_info di;

		if (q && locate(q, &di) && di.dli_fname && strcmp(di.dli_fname, l->l_name) == 0)
			found = q;
		if (h)
			dlclose(h);
	}
	dlclose(self);
	return found ? found : p;
}

/* Whether p is the executable's canonical PLT entry: its dynamic symbol is undefined there. */
static int plt_stub(void *p)
{
	Dl_info di;
	const ElfW(Sym) *sym = NULL;

	if (!locate(p, &di) || di.dli_fbase != exe_base())
		return 0;
	return dladdr1(p, &di, (void **)&sym, RTLD_DL_SYMENT) && di.dli_fbase == exe_base() &&
	       sym && sym->st_shndx == SHN_UNDEF;
}

const char *probe_object_of(const void *p, char *buf, size_t len)
{
	Dl_info di;
	char real[PATH_MAX];

	if (!locate(p, &di) || !di.dli_fname)
		return NULL;
	if (di.dli_fbase == exe_base())
		snprintf(buf, len, "%s", exe_path);
	else
		snprintf(buf, len, "%s", realpath(di.dli_fname, real) ? real : di.dli_fname);
	return buf;
}

static const char *exe_allocator(void)
{
	Dl_info di;

	for (size_t i = 1; i < ALLOC_KNOWN_COUNT; i++)
		for (size_t k = 0; alloc_known_table[i].marks[k]; k++) {
			void *p = dlsym(RTLD_DEFAULT, alloc_known_table[i].marks[k]);

			if (p && locate(p, &di) && di.dli_fbase == exe_base() && !plt_stub(p))
				return alloc_known_table[i].name;
		}
	return NULL;
}

typedef int (*version_int_fn)(void);
typedef int (*version_mallctl_fn)(const char *, void *, size_t *, void *, size_t);
typedef const char *(*version_majmin_fn)(int *, int *, const char **);

/* The version of the known allocator name whose version function is in the object at base, as
 * its table row says to ask it; "" when name is not known or its function lies elsewhere. */
static void version_of(const char *name, void *base, char *out, size_t len)
{
	const struct alloc_known *k = alloc_known_by_name(name);
	const char *v = NULL;
	size_t sz = sizeof v;
	int a = 0, b = 0;
	Dl_info di;
	void *p;

	out[0] = '\0';
	if (k && k->version == ALLOC_VERSION_LIBC)
		snprintf(out, len, "glibc %s", gnu_get_libc_version());
	if (!k || !k->version_sym || !(p = dlsym(RTLD_DEFAULT, k->version_sym)) ||
	    !locate(p, &di) || di.dli_fbase != base)
		return;
	switch (k->version) {
	case ALLOC_VERSION_INT:
		a = ((version_int_fn)p)();
		snprintf(out, len, "%d.%d.%d", a / 100, a / 10 % 10, a % 10);
		break;
	case ALLOC_VERSION_MALLCTL:
		if (((version_mallctl_fn)p)("version", (void *)&v, &sz, NULL, 0) == 0 && v)
			snprintf(out, len, "%.*s", (int)strcspn(v, "-"), v);
		break;
	case ALLOC_VERSION_MAJMIN:
		((version_majmin_fn)p)(&a, &b, NULL);
		snprintf(out, len, "%d.%d", a, b);
		break;
	case ALLOC_VERSION_LIBC:
		break;
	}
}

static void determine(struct serving *sv)
{
	void *bases[ALLOCKNOWN_NSYMS] = {0};
	Dl_info di;

	memset(sv, 0, sizeof *sv);
	sv->exe_allocator = exe_allocator();
	for (int i = 0; i < ALLOCKNOWN_NSYMS; i++) {
		void *p = dlsym(RTLD_DEFAULT, alloc_known_syms[i]);

		if (p && plt_stub(p))
			p = past_plt_stub(alloc_known_syms[i], p);
		if (p && locate(p, &di))
			p = past_counter(alloc_known_syms[i], p, &di);
		if (!p || !locate(p, &di) || !di.dli_fname) {
			snprintf(sv->path[i], PATH_MAX, "?");
			continue;
		}
		bases[i] = di.dli_fbase;
		for (int j = 0; j < i; j++)
			if (bases[j] == bases[i]) {
				memcpy(sv->path[i], sv->path[j], PATH_MAX);
				break;
			}
		if (sv->path[i][0])
			continue;
		if (di.dli_fbase == exe_base())
			memcpy(sv->path[i], exe_path, PATH_MAX);
		else if (!realpath(di.dli_fname, sv->path[i]))
			snprintf(sv->path[i], PATH_MAX, "%s", di.dli_fname);
	}
	sv->allocator = "unknown";
	for (int i = 1; i < ALLOCKNOWN_NSYMS; i++)
		if (bases[i] != bases[0])
			sv->allocator = "mixed";
	if (strcmp(sv->allocator, "mixed") != 0 && bases[0]) {
		const struct alloc_known *k = alloc_known_by_object(sv->path[0]);

		if (bases[0] == exe_base())
			sv->allocator = sv->exe_allocator ? sv->exe_allocator : "executable";
		else if (k)
			sv->allocator = k->name;
		if (k || bases[0] == exe_base())
			version_of(sv->allocator, bases[0], sv->version, sizeof sv->version);
	}
}

/* The LD_PRELOAD entries that are not loaded, and the realpaths of those that are, as the
 * bodies of two JSON arrays. */
static void find_missing(void)
{
	char copy[sizeof preload], *save = NULL, real[PATH_MAX];
	size_t k = 0, kl = 0;

	snprintf(copy, sizeof copy, "%s", preload);
	for (char *e = strtok_r(copy, " :", &save); e; e = strtok_r(NULL, " :", &save)) {
		void *h = dlopen(e, RTLD_LAZY | RTLD_NOLOAD);
		struct link_map *lm = NULL;

		if (h) {
			if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name[0]) {
				if (kl)
					probe_put(loaded, sizeof loaded, &kl, ",");
				probe_json_str(loaded, sizeof loaded, &kl,
				               realpath(lm->l_name, real) ? real : lm->l_name);
			}
			dlclose(h);
			continue;
		}
		if (k)
			probe_put(missing, sizeof missing, &k, ",");
		probe_json_str(missing, sizeof missing, &k, e);
	}
	missing[k] = '\0';
	loaded[kl] = '\0';
}

static void write_serving(const char *event, const struct serving *sv, const char *tail)
{
	char buf[REC_MAX];
	size_t k = record_head(buf, sizeof buf, event);
	int uniform = strcmp(sv->allocator, "mixed") != 0;

	probe_put(buf, sizeof buf, &k, ",\"exe\":");
	probe_json_str(buf, sizeof buf, &k, exe_path);
	probe_put(buf, sizeof buf, &k, ",\"allocator\":");
	probe_json_str(buf, sizeof buf, &k, sv->allocator);
	probe_put(buf, sizeof buf, &k, ",\"version\":");
	if (sv->version[0])
		probe_json_str(buf, sizeof buf, &k, sv->version);
	else
		probe_put(buf, sizeof buf, &k, "null");
	probe_put(buf, sizeof buf, &k, ",\"object\":");
	probe_json_str(buf, sizeof buf, &k, sv->path[0]);
	probe_put(buf, sizeof buf, &k, uniform ? ",\"uniform\":true" : ",\"uniform\":false");
	probe_put(buf, sizeof buf, &k, ",\"serves\":{");
	for (int i = 0; i < ALLOCKNOWN_NSYMS; i++) {
		probe_put(buf, sizeof buf, &k, i ? "," : "");
		probe_json_str(buf, sizeof buf, &k, alloc_known_syms[i]);
		probe_put(buf, sizeof buf, &k, ":");
		probe_json_str(buf, sizeof buf, &k, sv->path[i]);
	}
	probe_put(buf, sizeof buf, &k, "},\"exe_allocator\":");
	if (sv->exe_allocator)
		probe_json_str(buf, sizeof buf, &k, sv->exe_allocator);
	else
		probe_put(buf, sizeof buf, &k, "null");
	probe_put(buf, sizeof buf, &k, ",\"preload\":");
	probe_json_str(buf, sizeof buf, &k, preload);
	probe_put(buf, sizeof buf, &k, ",\"preload_missing\":[");
	probe_put(buf, sizeof buf, &k, missing);
	probe_put(buf, sizeof buf, &k, "],\"preload_paths\":[");
	probe_put(buf, sizeof buf, &k, loaded);
	probe_put(buf, sizeof buf, &k, "]");
	if (tail)
		probe_put(buf, sizeof buf, &k, tail);
	probe_put(buf, sizeof buf, &k, "}\n");
	append_record(buf, k);
}

static void after_fork_child(void)
{
	char work[160];

	probe_work_json(work, sizeof work, PROBE_COUNTS_NONE, 1);
	write_serving("fork", &at_start, work);
}

__attribute__((constructor)) static void probe_start(void)
{
	const char *f = getenv(PROBE_FILE_VAR), *c = getenv(PROBE_COUNT_VAR);
	const char *pl = getenv("LD_PRELOAD");
	char work[160];
	Dl_info di;
	ssize_t n;

	if (!f || f[0] != '/' || strlen(f) >= sizeof file_path)
		return;
	snprintf(file_path, sizeof file_path, "%s", f);
	snprintf(count_path, sizeof count_path, "%s", c ? c : "");
	snprintf(preload, sizeof preload, "%s", pl ? pl : "");
	if (locate((void *)probe_start, &di) && di.dli_fname)
		snprintf(self_path, sizeof self_path, "%s", di.dli_fname);
	if ((n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1)) > 0)
		exe_path[n] = '\0';
	find_missing();
	probe_config_init(getenv(PROBE_CONFIG_VAR));
	determine(&at_start);
	probe_work_json(work, sizeof work, PROBE_COUNTS_NONE, 1);
	write_serving("start", &at_start, work);
	pthread_atfork(NULL, NULL, after_fork_child);
}

__attribute__((destructor)) void probe_exit(void)
{
	struct serving now;
	char tail[8192];
	size_t k;

	if (!probe_active())
		return;
	determine(&now);
	probe_work_json(tail, 4096, PROBE_COUNTS_WAIT, 0);
	k = strlen(tail);
	probe_rusage_json(tail, sizeof tail, &k);
	probe_config_json(tail, sizeof tail, &k, now.path[0]);
	tail[k] = '\0';
	write_serving("exit", &now, tail);
}
