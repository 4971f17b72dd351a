/* measure.c - the timed loop of a driver's run (measure.h). */
#include "driver/measure.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t measure_physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

int64_t measure_resident_bytes(void)
{
	char buf[128];
	long long size, resident;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%lld %lld", &size, &resident) != 2)
		return -1;
	return resident * sysconf(_SC_PAGESIZE);
}

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* Whether the automatic mode stops after rep k (k > 0), its time judged and spent counted. */
static int settled_after(struct measure *m, int k, double *spent_ns)
{
	const struct runrec_reps_how *how = m->how;
	const struct runrec_rep *r = &m->reps[k];

	m->after[k - 1] = (double)(how->cpu ? r->phase[0].cpu_ns : r->phase[0].wall_ns);
	*spent_ns += (double)r->phase[0].wall_ns;
	return steady_is_settled(m->after, (size_t)k, &how->rule) ||
	       ((size_t)k >= how->rule.min_after && *spent_ns >= how->max_steady_s * 1e9);
}

int measure_reps(struct measure *m)
{
	const struct run_opts *o = m->o;
	struct wl_ctx *ctx = m->ctx;
	size_t nphases = params_nphases(o->wl);
	double spent_ns = 0;

	for (int k = 0; k < o->reps; k++) {
		struct runrec_rep *r = &m->reps[k];
		struct timespec w0, w1, c0, c1;
		struct wl_usage u0, u1;
		uint64_t checksum = 0;
		int rc;

		memset(ctx->phase, 0, sizeof ctx->phase);
		wl_usage_now(&u0);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
		clock_gettime(CLOCK_MONOTONIC, &w0);
		rc = o->wl->run(ctx, &checksum);
		clock_gettime(CLOCK_MONOTONIC, &w1);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
		wl_usage_now(&u1);
		if (rc != 0)
			return -1;
		r->checksum = checksum;
		r->phase[0] =
		    (struct runrec_time){ts_ns(&w1) - ts_ns(&w0), ts_ns(&c1) - ts_ns(&c0), {0}};
		wl_usage_delta(&u0, &u1, &r->phase[0].usage);
		for (size_t i = 0; i < nphases; i++)
			r->phase[1 + i] = (struct runrec_time){
			    ctx->phase[i].wall_ns, ctx->phase[i].cpu_ns, ctx->phase[i].usage};
		r->rss_after_bytes = measure_resident_bytes();
		runmarks_rep(m->marks, k);
		m->nreps = k + 1;
		if (m->how->automatic && k > 0 && settled_after(m, k, &spent_ns))
			break;
	}
	return 0;
}
