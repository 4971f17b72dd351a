/* fingerprint.c - the machine a measurement ran on, as a cJSON object (docs/results-format.md,
 * "machine"). Linked into the drivers and the front end alike: no driver or workload dependencies.
 */
#include "common/fingerprint.h"

#include <gnu/libc-version.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

extern char **environ;

static const char *const id_fields[] = {
    "cpu_model", "online_cpus", "kernel", "glibc", "thp", "governor", NULL,
};

/* Exact names, then prefixes (ending in '_'), of the variables that steer an allocator. */
static const char *const env_names[] = {
    "LD_PRELOAD", "GLIBC_TUNABLES", "MALLOC_CONF", "JE_MALLOC_CONF", "ALLOCAB_INJECT_NS", NULL,
};
static const char *const env_prefixes[] = {"MALLOC_", "MIMALLOC_", "TCMALLOC_", NULL};

static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* First line of a small file, trimmed, into buf; NULL if unreadable or empty. */
static const char *read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *s;

	if (!f)
		return NULL;
	s = fgets(buf, (int)len, f);
	fclose(f);
	if (!s)
		return NULL;
	s = trim(s);
	return *s ? s : NULL;
}

static const char *cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	const char *found = NULL;

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (!colon || strncmp(line, "model name", 10) != 0)
			continue;
		snprintf(buf, len, "%s", trim(colon + 1));
		found = *buf ? buf : NULL;
	}
	fclose(f);
	return found;
}

/* The bracketed choice of "always [madvise] never". */
static const char *thp_mode(char *buf, size_t len)
{
	const char *line = read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, len);
	const char *open, *close;

	if (!line || !(open = strchr(line, '[')) || !(close = strchr(open, ']')))
		return NULL;
	memmove(buf, open + 1, (size_t)(close - open - 1));
	buf[close - open - 1] = '\0';
	return buf;
}

static int steers_allocator(const char *name, size_t len)
{
	for (const char *const *e = env_names; *e; e++)
		if (strlen(*e) == len && strncmp(name, *e, len) == 0)
			return 1;
	for (const char *const *p = env_prefixes; *p; p++)
		if (len > strlen(*p) && strncmp(name, *p, strlen(*p)) == 0)
			return 1;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The matching variables, sorted by name so equal environments print equally. */
static cJSON *env_json(void)
{
	cJSON *env = cJSON_CreateObject();
	size_t n = 0, k = 0;
	const char **vars;

	if (!env)
		return NULL;
	for (char **e = environ; e && *e; e++)
		n++;
	vars = malloc((n ? n : 1) * sizeof *vars);
	if (!vars) {
		cJSON_Delete(env);
		return NULL;
	}
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (eq && steers_allocator(*e, (size_t)(eq - *e)))
			vars[k++] = *e;
	}
	qsort(vars, k, sizeof *vars, by_name);
	for (size_t i = 0; i < k; i++) {
		const char *eq = strchr(vars[i], '=');
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)(eq - vars[i]), vars[i]);
		if (!cJSON_AddStringToObject(env, name, eq + 1)) {
			cJSON_Delete(env);
			env = NULL;
			break;
		}
	}
	free(vars);
	return env;
}

static int add_string_or_null(cJSON *o, const char *key, const char *value)
{
	return (value ? cJSON_AddStringToObject(o, key, value) : cJSON_AddNullToObject(o, key)) !=
	       NULL;
}

cJSON *fingerprint_json(void)
{
	cJSON *m = cJSON_CreateObject(), *env;
	char model[256], thp[64], gov[64], id[17];
	struct utsname u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int ok;

	if (!m)
		return NULL;
	ok = add_string_or_null(m, "cpu_model", cpu_model(model, sizeof model));
	ok = ok && (cpus > 0 ? cJSON_AddNumberToObject(m, "online_cpus", (double)cpus)
	                     : cJSON_AddNullToObject(m, "online_cpus"));
	ok = ok && add_string_or_null(m, "kernel", uname(&u) == 0 ? u.release : NULL);
	ok = ok && add_string_or_null(m, "glibc", gnu_get_libc_version());
	ok = ok && add_string_or_null(m, "thp", thp_mode(thp, sizeof thp));
	ok = ok &&
	     add_string_or_null(m, "governor",
	                        read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
	                                  gov, sizeof gov));
	if (ok) {
		fingerprint_id(m, id);
		ok = cJSON_AddStringToObject(m, "id", id) != NULL;
	}
	if (ok && (env = env_json()))
		cJSON_AddItemToObject(m, "env", env);
	else
		ok = 0;
	if (!ok) {
		cJSON_Delete(m);
		return NULL;
	}
	return m;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Each field hashes as name, NUL, a type tag and the value, NUL: null, "null" and 0 all differ. */
void fingerprint_id(const cJSON *machine, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const char *const *f = id_fields; *f; f++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(machine, *f);
		char val[512];

		if (cJSON_IsString(v))
			snprintf(val, sizeof val, "s%s", v->valuestring);
		else if (cJSON_IsNumber(v))
			snprintf(val, sizeof val, "n%.17g", v->valuedouble);
		else
			snprintf(val, sizeof val, "-");
		h = fnv1a(h, *f, strlen(*f) + 1);
		h = fnv1a(h, val, strlen(val) + 1);
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}
