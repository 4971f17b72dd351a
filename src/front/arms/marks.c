/* marks.c - the marks of a run of the kinds that mark phases (arms.h, ARM_KIND_MARKS_PHASES):
 * its marks file and variable, and the judgement of what the program wrote there into the run's
 * "phase_marks" (marks/marks.h; docs/programs.md, "Phases your program marks"). The regimes of a
 * phase's spans are those of common/steady.h's steady_spans (docs/methodology.md, "Programs that
 * mark their phases"): the first span cold, the last half of the others steady, those between
 * warm-up; settled by the drivers' rule; the steady time the mean of the steady spans. */
#include "front/arms/arms.h"

#include "common/errmsg.h"
#include "common/steady.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int arm_marks_prepare(const char *dir, unsigned long n, char *const *base, struct arm_marks_run *p,
                      char *err, size_t errlen)
{
	size_t k = 0;
	int fd;

	while (base && base[k])
		k++;
	snprintf(p->file, sizeof p->file, "%s/run-%lu.marks", dir, n);
	snprintf(p->var, sizeof p->var, "%s=%s", PHASEMARK_ENV, p->file);
	if (!(p->set = calloc(k + 2, sizeof *p->set)))
		return errmsg_fail(err, errlen, "out of memory");
	if ((fd = open(p->file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
		free(p->set);
		p->set = NULL;
		return errmsg_fail(err, errlen, "%s: %s", p->file, strerror(errno));
	}
	close(fd);
	if (k)
		memcpy(p->set, base, k * sizeof *p->set);
	p->set[k] = p->var;
	p->lo = p->hi = 0;
	p->cpu_rule = 0;
	return 0;
}

static cJSON *phase_json(const struct phasemark_phase *ph, int cpu_rule)
{
	cJSON *o = cJSON_CreateObject(), *w = cJSON_CreateArray(), *rg = cJSON_CreateArray();
	enum steady_regime *g = malloc(ph->n * sizeof *g);
	struct steady_rule rule = steady_default_rule();
	size_t nc = 0;
	double steady;
	int settled;
	cJSON *cpu;

	if (!o || !w || !rg || !g) {
		cJSON_Delete(o), cJSON_Delete(w), cJSON_Delete(rg), free(g);
		return NULL;
	}
	for (size_t i = 0; i < ph->n; i++)
		nc += ph->cpu[i] > 0;
	cpu_rule = cpu_rule && nc == ph->n;
	nc = 0;
	settled = steady_spans(cpu_rule ? ph->cpu : ph->ns, ph->n, &rule, g);
	for (size_t i = 0; i < ph->n; i++) {
		cJSON_AddItemToArray(w, cJSON_CreateNumber((double)ph->ns[i]));
		cJSON_AddItemToArray(rg, cJSON_CreateString(steady_regime_name(g[i])));
	}
	steady = steady_spans_mean(ph->ns, g, ph->n);
	for (size_t i = 0; i < ph->n; i++)
		nc += ph->cpu[i] >= 0;
	cpu = nc == ph->n ? cJSON_CreateArray() : cJSON_CreateNull();
	for (size_t i = 0; nc == ph->n && i < ph->n; i++)
		cJSON_AddItemToArray(cpu, cJSON_CreateNumber((double)ph->cpu[i]));
	cJSON_AddStringToObject(o, "name", ph->name);
	cJSON_AddItemToObject(o, "wall_ns", w);
	cJSON_AddItemToObject(o, "cpu_ns", cpu);
	cJSON_AddItemToObject(o, "regimes", rg);
	cJSON_AddStringToObject(o, "regimes_time", cpu_rule ? "cpu" : "wall");
	cJSON_AddItemToObject(o, "settled",
	                      settled < 0 ? cJSON_CreateNull() : cJSON_CreateBool(settled));
	cJSON_AddNumberToObject(o, "cold_ns", (double)ph->ns[0]);
	cJSON_AddItemToObject(o, "steady_ns",
	                      isnan(steady) ? cJSON_CreateNull() : cJSON_CreateNumber(round(steady)));
	free(g);
	return o;
}

static cJSON *marks_json(const struct phasemark_set *s, int cpu_rule)
{
	cJSON *o, *phases;

	if (s->nphases == 0)
		return cJSON_CreateNull();
	if (!(o = cJSON_CreateObject()) || !cJSON_AddNumberToObject(o, "lines", (double)s->nlines) ||
	    !(phases = cJSON_AddArrayToObject(o, "phases"))) {
		cJSON_Delete(o);
		return NULL;
	}
	for (size_t i = 0; i < s->nphases; i++) {
		cJSON *ph = phase_json(&s->phase[i], cpu_rule);
		if (!ph) {
			cJSON_Delete(o);
			return NULL;
		}
		cJSON_AddItemToArray(phases, ph);
	}
	return o;
}

static void join(char *buf, size_t len, const char (*names)[PHASEMARK_MAX_NAME + 1], size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", names[i]);
	if (n == 0)
		snprintf(buf, len, "none");
}

/* Whether s marks the names of ref, in any order; when not, why in err. */
static int same_names(const struct phasemark_set *s, const struct arm_phase_names *ref, char *err,
                      size_t errlen)
{
	char mine[PHASEMARK_MAX_PHASES][PHASEMARK_MAX_NAME + 1], a[600], b[600];
	size_t hits = 0;

	for (size_t i = 0; i < s->nphases; i++) {
		strcpy(mine[i], s->phase[i].name);
		for (size_t j = 0; j < ref->n; j++)
			hits += strcmp(mine[i], ref->name[j]) == 0;
	}
	if (hits == ref->n && s->nphases == ref->n)
		return 1;
	join(a, sizeof a, (const char(*)[PHASEMARK_MAX_NAME + 1])mine, s->nphases);
	join(b, sizeof b, ref->name, ref->n);
	errmsg_fail(err, errlen, "phases %s differ from those of the first ok run (%s)", a, b);
	return 0;
}

/* A number n of object o, or 0. */
static double num(const cJSON *o, const char *n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, n);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Whether every span of s holds no more CPU time than the kernel gave: each no more than its wall
 * time on every online CPU, and a phase's spans together no more than the run's CPU time (run's
 * containment.cgroup_cpu or process, the larger: phasemark_cpu_most). When not, why in err. */
static int cpu_within(const struct phasemark_set *s, const cJSON *run, char *err, size_t errlen)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(run, "process"),
	            *cg = cJSON_GetObjectItemCaseSensitive(
	                cJSON_GetObjectItemCaseSensitive(run, "containment"), "cgroup_cpu");
	double used =
	    fmax(num(p, "user_ns") + num(p, "sys_ns"), num(cg, "user_ns") + num(cg, "sys_ns"));
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	for (size_t i = 0; i < s->nphases; i++) {
		const struct phasemark_phase *ph = &s->phase[i];
		double sum = 0;

		for (size_t k = 0; k < ph->n; k++) {
			if (ph->cpu[k] < 0)
				continue;
			sum += (double)ph->cpu[k];
			if ((double)ph->cpu[k] >
			    (double)ph->ns[k] * (double)(ncpu > 0 ? ncpu : 1) + 2e6) {
				snprintf(
				    err, errlen,
				    "span %zu of '%s' holds %lld ns of CPU time in %lld ns of wall "
				    "time on %ld CPUs",
				    k + 1, ph->name, (long long)ph->cpu[k], (long long)ph->ns[k],
				    ncpu);
				return 0;
			}
		}
		if (sum > phasemark_cpu_most(used)) {
			snprintf(
			    err, errlen,
			    "the spans of '%s' hold %.0f ns of CPU time, more than the %.0f ns the "
			    "kernel counted for the whole run",
			    ph->name, sum, used);
			return 0;
		}
	}
	return 1;
}

int arm_marks_judge(struct arm_marks_run *p, struct arm_phase_names *ref, cJSON *run, char *err,
                    size_t errlen)
{
	struct phasemark_set s;
	cJSON *j = NULL;

	if (phasemark_read(p->file, p->lo, p->hi, &s, err, errlen) == 0 &&
	    cpu_within(&s, run, err, errlen) && (!ref->known || same_names(&s, ref, err, errlen)) &&
	    !(j = marks_json(&s, p->cpu_rule)))
		snprintf(err, errlen, "out of memory");
	if (j && !ref->known) {
		ref->known = 1;
		ref->n = s.nphases;
		for (size_t i = 0; i < s.nphases; i++)
			strcpy(ref->name[i], s.phase[i].name);
	}
	if (j)
		cJSON_AddItemToObject(run, "phase_marks", j);
	phasemark_free(&s);
	return j ? 0 : -1;
}

void arm_marks_discard(struct arm_marks_run *p)
{
	unlink(p->file);
	free(p->set);
	p->set = NULL;
}
