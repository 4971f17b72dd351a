/* ptrackrec.c - what the tracker keeps of a run (ptrackrec.h): its processes with their CPU
 * clocks, its images, the allocator libraries mapped at exit, pids in their namespaces. */
#include "front/proc/ptrackrec.h"
#include "common/allocknown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

unsigned long ptrack_pidns(long pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof path, "/proc/%ld/ns/pid", pid);
	return stat(path, &st) == 0 ? (unsigned long)st.st_ino : 0;
}

static long nspid_in(long pid, unsigned long own)
{
	char path[64], line[256];
	long last = pid;
	unsigned long ns = ptrack_pidns(pid);
	FILE *f;

	if (!ns || ns == own)
		return pid;
	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	if (!(f = fopen(path, "re")))
		return pid;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "NSpid:", 6) == 0) {
			char *p = line + 6, *end;

			for (long v; (v = strtol(p, &end, 10)), end != p; p = end)
				last = v;
			break;
		}
	fclose(f);
	return last;
}

long ptrack_nspid(long pid)
{
	static unsigned long own;

	if (!own)
		own = ptrack_pidns((long)getpid());
	return nspid_in(pid, own);
}

void ptrack_add_proc(struct ptrack *t, long pid)
{
	if (t->nprocs == t->procs_cap) {
		size_t cap = t->procs_cap ? 2 * t->procs_cap : 64;
		struct ptrack_proc *nv = cap <= 4 * PTRACK_MAX_IMAGES
		                             ? realloc(t->procs, cap * sizeof *nv)
		                             : NULL;

		if (!nv) {
			t->procs_truncated = 1;
			return;
		}
		t->procs = nv;
		t->procs_cap = cap;
	}
	t->procs[t->nprocs++] = (struct ptrack_proc){pid, nspid_in(pid, t->own_pidns), 0, 0};
	/* Out of memory the process has no reading: its CPU time counts as unaccounted. */
	u64map_put(&t->procidx, (uint64_t)pid, (uint64_t)t->nprocs);
}

/* Reads the CPU clock of process pid (every thread of it) into its entry, as a whole (2: its
 * zombie) or a part (1: alive). A thread's id, or a process not of the run, is not read. */
void ptrack_read_cpu(struct ptrack *t, long pid, int whole)
{
	const uint64_t *i = u64map_get(&t->procidx, (uint64_t)pid);
	struct ptrack_proc *p = i && *i && *i <= t->nprocs ? &t->procs[*i - 1] : NULL;
	clockid_t clk;
	struct timespec ts;

	if (!p || p->have_cpu == 2 || clock_getcpuclockid((pid_t)pid, &clk) != 0 ||
	    clock_gettime(clk, &ts) != 0)
		return;
	p->have_cpu = whole;
	p->cpu_ns = (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A process that ended unknown to the tracker: one whose fork stop never came (its parent was
 * killed first) is the run's when this process traces it; a thread (no process clock) or a child
 * of this process's own (CLONE_PARENT | CLONE_UNTRACED) is not added. */
void ptrack_adopt(struct ptrack *t, long pid)
{
	char path[64], line[128];
	clockid_t clk;
	struct timespec ts;
	long tracer = 0;
	FILE *f;

	if (clock_getcpuclockid((pid_t)pid, &clk) != 0 || clock_gettime(clk, &ts) != 0)
		return;
	snprintf(path, sizeof path, "/proc/%ld/status", pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
			break;
	fclose(f);
	if (tracer == (long)getpid()) {
		t->processes++;
		ptrack_add_proc(t, pid);
	}
}

static const char *intern(struct ptrack *t, const char *exe)
{
	char **nv;

	for (size_t i = t->nexes; i-- > 0;)
		if (strcmp(t->exes[i], exe) == 0)
			return t->exes[i];
	if (t->nexes == t->exes_cap) {
		size_t cap = t->exes_cap ? 2 * t->exes_cap : 16;
		if (!(nv = realloc(t->exes, cap * sizeof *nv)))
			return NULL;
		t->exes = nv;
		t->exes_cap = cap;
	}
	if (!(t->exes[t->nexes] = strdup(exe)))
		return NULL;
	return t->exes[t->nexes++];
}

void ptrack_add_image(struct ptrack *t, long pid)
{
	char path[64], exe[4096];
	ssize_t n;
	const char *e;
	struct stat st;

	if (t->nimages == PTRACK_MAX_IMAGES) {
		t->images_truncated = 1;
		return;
	}
	snprintf(path, sizeof path, "/proc/%ld/exe", pid);
	n = readlink(path, exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (n <= 0)
		snprintf(exe, sizeof exe, "?");
	if (t->nimages == t->images_cap) {
		size_t cap = t->images_cap ? 2 * t->images_cap : 64;
		struct ptrack_image *nv = realloc(t->images, cap * sizeof *nv);

		if (!nv) {
			t->images_truncated = 1;
			return;
		}
		t->images = nv;
		t->images_cap = cap;
	}
	if (!(e = intern(t, exe))) {
		t->images_truncated = 1;
		return;
	}
	t->images[t->nimages++] = (struct ptrack_image){
	    .pid = pid, .nspid = nspid_in(pid, t->own_pidns), .exe = e, .probe_size = -1};
	if (t->probe_file && stat(t->probe_file, &st) == 0)
		t->images[t->nimages - 1].probe_size = (long long)st.st_size;
}

static void add_lib(struct ptrack *t, long pid, const char *exe, const char *object)
{
	const char *e, *o;

	for (size_t i = t->nlibs; i-- > 0 && t->libs[i].pid == pid;)
		if (strcmp(t->libs[i].object, object) == 0)
			return;
	if (t->nlibs == t->libs_cap) {
		size_t cap = t->libs_cap ? 2 * t->libs_cap : 16;
		struct ptrack_lib *nv =
		    cap <= PTRACK_MAX_LIBS ? realloc(t->libs, cap * sizeof *nv) : NULL;

		if (!nv)
			return;
		t->libs = nv;
		t->libs_cap = cap;
	}
	if ((e = intern(t, exe)) && (o = intern(t, object)))
		t->libs[t->nlibs++] = (struct ptrack_lib){pid, e, o};
}

/* At a process's exit: every known allocator's library but the platform's that it maps. */
void ptrack_scan_maps(struct ptrack *t, long pid)
{
	char path[64], line[4608], exe[4096];
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/maps", pid);
	if (!(f = fopen(path, "re")))
		return;
	snprintf(path, sizeof path, "/proc/%ld/exe", pid);
	n = readlink(path, exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	while (fgets(line, sizeof line, f)) {
		char *obj = strchr(line, '/');
		const struct alloc_known *k;

		if (!obj)
			continue;
		obj[strcspn(obj, "\n")] = '\0';
		if ((k = alloc_known_by_object(obj)) && !alloc_known_platform(k))
			add_lib(t, pid, n > 0 ? exe : "?", obj);
	}
	fclose(f);
}

