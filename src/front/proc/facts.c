/* facts.c - the machine's facts a bench measures at its start and at its end (docs/results-format.md,
 * "allocab-bench/1", its member facts): what a minor page fault costs here in CPU time (mmap FACTS_MIB MiB of anonymous
 * memory in small pages, MADV_NOHUGEPAGE so that THP cannot make it a few huge faults; touch
 * every page; munmap; FACTS_TRIALS times, in a child process so the bench's own heap is
 * untouched), the hypervisor (cpuid leaf 0x40000000, else /sys/hypervisor/type, else none), the
 * CPU's vendor (cpuid) and model (/proc/cpuinfo, else cpuid), the kernel and the transparent huge
 * pages mode. */
#include "front/proc/proc.h"

#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FACTS_TRIALS 10 /* mappings faulted in per measurement, the most facts_measure takes */
/* MiB per mapping: 2,048 small pages. Ten trials of 32 MiB would take 1.5 s of CPU time at 18 us
 * a fault; of 8 MiB, 0.4 s (docs/methodology.md, "What a difference is made of"). */
#define FACTS_MIB 8

/* The child's CPU time: a fault's cost without the time other tasks held the CPU (on a machine of
 * load 14 on 2 CPUs the wall time per fault was 3 to 5 times its CPU time). */
static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One trial: CPU ns per minor fault over the pages of a fresh mapping, or -1. */
static double fault_trial(size_t bytes, long page)
{
	struct rusage r0, r1;
	int64_t t0, t1;
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long faults;

	if (p == MAP_FAILED)
		return -1;
	madvise(p, bytes, MADV_NOHUGEPAGE);
	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ns();
	for (size_t off = 0; off < bytes; off += (size_t)page)
		((volatile char *)p)[off] = 1;
	t1 = now_ns();
	getrusage(RUSAGE_SELF, &r1);
	munmap(p, bytes);
	faults = r1.ru_minflt - r0.ru_minflt;
	return faults > 0 ? (double)(t1 - t0) / (double)faults : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The trials in a child, their results through a pipe. Returns the trials made (0: none). */
static int fault_cost(double *out, int trials)
{
	int fd[2], got = 0, status;
	pid_t pid;
	ssize_t n;

	if (pipe(fd) != 0)
		return 0;
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		return 0;
	}
	if (pid == 0) {
		long page = sysconf(_SC_PAGESIZE);
		double v[FACTS_TRIALS];
		close(fd[0]);
		for (int i = 0; i < trials; i++)
			v[i] = fault_trial((size_t)FACTS_MIB << 20, page > 0 ? page : 4096);
		_exit(write(fd[1], v, sizeof v[0] * (size_t)trials) < 0);
	}
	close(fd[1]);
	while ((n = read(fd[0], out + got, sizeof *out * (size_t)(trials - got))) > 0)
		got += (int)(n / (ssize_t)sizeof *out);
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return got;
}

/* cpuid 0x40000000 signatures (trailing blanks and NULs cut) and the names they are recorded as;
 * any other signature is recorded as it is. */
static const char *const known[][2] = {
    {"KVMKVMKVM", "KVM"},       {"Microsoft Hv", "Hyper-V"}, {"VMwareVMware", "VMware"},
    {"XenVMMXenVMM", "Xen"},    {"bhyve bhyve", "bhyve"},    {"TCGTCGTCGTCG", "TCG"},
    {"VBoxVBoxVBox", "VirtualBox"}, {"ACRNACRNACRN", "ACRN"}, {"QNXQVMBSQG", "QNX"},
};

/* Cuts leading and trailing blanks and the newline of s in place. */
static void trim(char *s)
{
	char *b = s, *e;

	while (*b == ' ' || *b == '\t')
		b++;
	memmove(s, b, strlen(b) + 1);
	for (e = s + strlen(s); e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\t'); e--)
		e[-1] = '\0';
}

static void hypervisor(struct facts *f)
{
	unsigned a, b, c, d;
	char sig[13] = "";
	FILE *fp;

	f->hypervisor[0] = '\0';
	if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31))) {
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		sig[12] = '\0';
		for (int i = 11; i >= 0 && (sig[i] == ' ' || sig[i] == '\0'); i--)
			sig[i] = '\0';
		for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
			if (strcmp(sig, known[i][0]) == 0)
				snprintf(sig, sizeof sig, "%s", known[i][1]);
		snprintf(f->hypervisor, sizeof f->hypervisor, "%s", sig);
	}
	if (!f->hypervisor[0] && (fp = fopen("/sys/hypervisor/type", "r"))) {
		if (fgets(f->hypervisor, sizeof f->hypervisor, fp))
			f->hypervisor[strcspn(f->hypervisor, "\n")] = '\0';
		fclose(fp);
	}
}

/* The model as the kernel names it (/proc/cpuinfo "model name", what the fingerprint records),
 * else cpuid's brand string (on this VM they differ: the kernel read it at boot). */
static void cpu(struct facts *f)
{
	unsigned r[4], max;
	char line[512], *colon;
	FILE *fp;

	f->cpu_vendor[0] = f->cpu_model[0] = '\0';
	if (__get_cpuid(0, &max, &r[0], &r[2], &r[1])) {
		memcpy(f->cpu_vendor, &r[0], 4);
		memcpy(f->cpu_vendor + 4, &r[1], 4);
		memcpy(f->cpu_vendor + 8, &r[2], 4);
		f->cpu_vendor[12] = '\0';
	}
	if ((fp = fopen("/proc/cpuinfo", "re"))) {
		while (!f->cpu_model[0] && fgets(line, sizeof line, fp))
			if (strncmp(line, "model name", 10) == 0 && (colon = strchr(line, ':')))
				snprintf(f->cpu_model, sizeof f->cpu_model, "%s", colon + 1);
		fclose(fp);
	}
	if (!f->cpu_model[0] && __get_cpuid_max(0x80000000, NULL) >= 0x80000004) {
		for (unsigned leaf = 0; leaf < 3; leaf++) {
			__cpuid(0x80000002 + leaf, r[0], r[1], r[2], r[3]);
			memcpy(f->cpu_model + 16 * leaf, r, 16);
		}
		f->cpu_model[48] = '\0';
	}
	trim(f->cpu_model);
}

static void thp(struct facts *f)
{
	char line[256];
	FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char *a, *b;

	f->thp[0] = '\0';
	if (!fp)
		return;
	if (fgets(line, sizeof line, fp) && (a = strchr(line, '[')) && (b = strchr(a, ']'))) {
		*b = '\0';
		snprintf(f->thp, sizeof f->thp, "%s", a + 1);
	}
	fclose(fp);
}

void facts_measure(struct facts *f, int trials)
{
	double v[FACTS_TRIALS];
	struct utsname u;
	int n, k = 0;

	memset(f, 0, sizeof *f);
	if (trials > FACTS_TRIALS)
		trials = FACTS_TRIALS;
	n = trials > 0 ? fault_cost(v, trials) : 0;
	for (int i = 0; i < n; i++)
		if (v[i] > 0)
			v[k++] = v[i];
	f->trials = k;
	if (k) {
		qsort(v, (size_t)k, sizeof *v, cmp_double);
		f->fault_min = v[0];
		f->fault_max = v[k - 1];
		f->fault_median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	hypervisor(f);
	cpu(f);
	thp(f);
	snprintf(f->kernel, sizeof f->kernel, "%s", uname(&u) == 0 ? u.release : "");
}

static cJSON *str_or_null(const char *s)
{
	return s[0] ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *facts_json(const struct facts *f)
{
	cJSON *o = cJSON_CreateObject(), *fn = cJSON_CreateObject();

	if (!o || !fn) {
		cJSON_Delete(o);
		cJSON_Delete(fn);
		return NULL;
	}
	cJSON_AddItemToObject(o, "fault_ns", fn);
	if (f->trials) {
		cJSON_AddNumberToObject(fn, "median", f->fault_median);
		cJSON_AddNumberToObject(fn, "min", f->fault_min);
		cJSON_AddNumberToObject(fn, "max", f->fault_max);
	} else {
		cJSON_AddNullToObject(fn, "median");
		cJSON_AddNullToObject(fn, "min");
		cJSON_AddNullToObject(fn, "max");
	}
	cJSON_AddNumberToObject(fn, "trials", f->trials);
	cJSON_AddItemToObject(o, "hypervisor", str_or_null(f->hypervisor));
	cJSON_AddItemToObject(o, "cpu_vendor", str_or_null(f->cpu_vendor));
	cJSON_AddItemToObject(o, "cpu_model", str_or_null(f->cpu_model));
	cJSON_AddItemToObject(o, "kernel", str_or_null(f->kernel));
	cJSON_AddItemToObject(o, "thp", str_or_null(f->thp));
	return o;
}

void facts_record(cJSON *doc, const char *when, int keep)
{
	facts_put(doc, when, keep, NULL);
}

void facts_put(cJSON *doc, const char *when, int keep, const struct facts *given)
{
	cJSON *all = cJSON_GetObjectItemCaseSensitive(doc, "facts"), *one;
	struct facts f;

	if (!cJSON_IsObject(all)) {
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "facts");
		if (!(all = cJSON_AddObjectToObject(doc, "facts")))
			return;
	}
	if (keep && cJSON_GetObjectItemCaseSensitive(all, when))
		return;
	if (given)
		f = *given;
	else
		facts_measure(&f, FACTS_TRIALS);
	if (!(one = facts_json(&f)))
		return;
	if (cJSON_GetObjectItemCaseSensitive(all, when))
		cJSON_ReplaceItemInObjectCaseSensitive(all, when, one);
	else
		cJSON_AddItemToObject(all, when, one);
}
