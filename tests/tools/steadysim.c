/* steadysim.c - A/A program benches on CPU time simulated through the real code path
 * (docs/validation.md, "A/A program benches on CPU time, simulated"; `make steady-sim`). Not used
 * by allocab itself.
 *
 * Usage: steadysim TEMPLATE TRIALS SEED [SETTING...]
 *
 * TEMPLATE is a real allocab-bench/1 file of a program bench on CPU time that marks a phase
 * "setup" once and a phase "epoch" several times, every run ok, no warm-up round (make
 * steady-sim writes it with `allocab bench --program 'phase_fixture 8' -a system --arm s2=system
 * --arm s3=system --arm s4=system --rounds 10 --warmup 0 --allocation none`). For each of TRIALS
 * simulated benches per setting, every run of the template gets new CPU and wall times: its marks
 * are written as a program writes them (phase/allocab_phase.h lines) into a marks file that the
 * bench's own judgement reads (phaserun_finish: the regimes of each phase's spans, judged on
 * their CPU times, and "phase_marks"), its total CPU time (containment.cgroup_cpu) is the sum of
 * its spans plus the shell's and the process's own; the document is then read
 * (rf_from_json) and compared (cmp_build) as `allocab compare` does, by default, with
 * `--primary epoch` and with `--primary all`. Every arm is the same distribution (A/A): a row
 * that says faster or slower is a false positive.
 *
 * The times of one run (log scale, arms exchangeable): a machine state shared by the runs in the
 * order they ran (AR(1) over runs), the run's own factor, and per epoch a warm-up trend
 * (amplitude drawn per run, decaying over the epochs), AR(1) noise over the epochs and
 * occasional outlier epochs; the first run of each round a little slower. Arms run in an order
 * shuffled per round (as the bench does), or, in the setting "fixed-order", always in the
 * template's arm order: the positive control, where the first-of-round excess falls on the
 * baseline and the test must see it. The settings "arm-*" are not A/A either: each arm gets its
 * own effect on its spans, drawn per bench (normal, sd 1, 2 or 4%), the size of a layout or
 * placement effect that stays with an arm for a whole bench. SETTING names (default: all of them)
 * are listed by `steadysim TEMPLATE 0 0 list`.
 *
 * Prints per setting and report one line "SETTING REPORT FAMILY rows decided trials any_decided
 * settled_runs runs", the rates with Clopper-Pearson 95% intervals and the median half-width of
 * the steady epochs' rows in their own family. */
#include "common/prng.h"
#include "front/compare/compare.h"
#include "front/results/results.h"
#include "front/engine/phaserun.h"
#include "front/stats/stats.h"
#include "binomci.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct model {
	const char *name;
	int epochs;            /* spans of "epoch" per run */
	double sd_epoch;       /* epoch noise, log sd */
	double ar_epoch;       /* its AR(1) coefficient over the epochs of a run */
	double warm;           /* warm-up: the first epoch's log excess (median over runs) */
	double warm_sd;        /* log sd of that amplitude between runs */
	double sd_machine;     /* machine state (the load's share of the caches), log sd */
	double ar_machine;     /* its AR(1) coefficient from one span to the next, across runs */
	double p_out;          /* probability of an outlier epoch */
	double first_of_round; /* log excess of the first run of each round */
	double sd_run;         /* the run's own factor, log sd */
	int fixed_order;       /* arms in template order every round */
	double arm_sd;         /* an arm's own effect on its spans, drawn per bench (not A/A) */
};

#define BASE_EPOCH 0.5e6 /* ns of CPU per epoch */
#define BASE_SETUP 0.3e6
#define SHELL_CPU  1.5e6  /* sh -c */
#define PROC_CPU   15.0e6 /* the program's start and exit outside its phases */

/* The realistic setting and variations of one feature each. */
static const struct model models[] = {
    {"iid", 8, 0.12, 0, 0, 0, 0, 0, 0, 0, 0.05, 0, 0},
    {"trend", 8, 0.12, 0, 0.3, 0.5, 0, 0, 0, 0, 0.05, 0, 0},
    {"ar", 8, 0.12, 0.5, 0, 0, 0, 0, 0, 0, 0.05, 0, 0},
    {"drift", 8, 0.12, 0, 0, 0, 0.2, 0.95, 0, 0, 0.05, 0, 0},
    {"outliers", 8, 0.12, 0, 0, 0, 0, 0, 0.08, 0, 0.05, 0, 0},
    {"first", 8, 0.12, 0, 0, 0, 0, 0, 0, 0.03, 0.05, 0, 0},
    {"all-8", 8, 0.12, 0.5, 0.3, 0.5, 0.2, 0.95, 0.08, 0.03, 0.05, 0, 0},
    {"all-7", 7, 0.12, 0.5, 0.3, 0.5, 0.2, 0.95, 0.08, 0.03, 0.05, 0, 0},
    {"all-6", 6, 0.12, 0.5, 0.3, 0.5, 0.2, 0.95, 0.08, 0.03, 0.05, 0, 0},
    {"settling", 8, 0.03, 0.5, 0.3, 0.5, 0.05, 0.95, 0.08, 0.03, 0.05, 0, 0},
    {"fixed-order", 8, 0.12, 0.5, 0.3, 0.5, 0.2, 0.95, 0.08, 0.10, 0.05, 1, 0},
    {"arm-1pct", 8, 0.12, 0.5, 0.3, 0.5, 0.2, 0.95, 0.08, 0.03, 0.05, 0, 0.01},
    {"arm-2pct", 8, 0.12, 0.5, 0.3, 0.5, 0.2, 0.95, 0.08, 0.03, 0.05, 0, 0.02},
    {"arm-4pct", 8, 0.12, 0.5, 0.3, 0.5, 0.2, 0.95, 0.08, 0.03, 0.05, 0, 0.04},
};
#define NMODELS (sizeof models / sizeof models[0])

enum { REP_DEFAULT, REP_EPOCH, REP_ALL, NREPS };
static const char *const rep_names[NREPS] = {"default", "primary-epoch", "primary-all"};

struct tally {
	size_t rows[NREPS][CMP_NFAMILIES], decided[NREPS][CMP_NFAMILIES];
	size_t any[NREPS][CMP_NFAMILIES], trials;
	size_t ep_rows, ep_decided; /* the epoch's steady rows in the one family */
	size_t settled, runs;
	double *half; /* half-widths (%) of the epoch's steady rows, --primary epoch */
	size_t nhalf;
};

/* "k/n = r% (lo-hi%)", Clopper-Pearson 95%. */
static const char *rate(size_t k, size_t n, char *buf, size_t len)
{
	double lo = 0, hi = 1;

	if (n > 0)
		binomci_interval(k, n, 0.95, &lo, &hi);
	if (n == 0)
		snprintf(buf, len, "0/0");
	else
		snprintf(buf, len, "%zu/%zu = %.2f%% (%.2f-%.2f%%)", k, n, 100.0 * k / n, 100 * lo,
		         100 * hi);
	return buf;
}

static cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static void set_num(cJSON *o, const char *k, double v)
{
	cJSON *x = get(o, k);

	if (x)
		cJSON_SetNumberValue(x, v);
}

struct runsim {
	double machine; /* the machine state, carried from run to run */
	struct prng rng;
	struct arm_phase_names ref;
	char dir[PATH_MAX];
	unsigned long nmarks;
};

/* One run of model m at machine state s->machine: writes its marks and its CPU totals into run.
 * Returns whether its epoch settled (0/1), or -1 when the bench's judgement refused the marks. */
static int sim_run(struct runsim *s, const struct model *m, int first, double arm, cJSON *run)
{
	struct arm_marks_run p;
	enum run_status st = RS_OK;
	char err[256], line[160];
	double lvl = m->sd_run * prng_normal(&s->rng) + (first ? m->first_of_round : 0) + arm;
	double amp = m->warm * exp(m->warm_sd * prng_normal(&s->rng)), eps = 0;
	double t_ns = 1000, cpu_ns = 0, spans_cpu = 0, wall;
	cJSON *pm, *ph, *cg, *x;
	FILE *f;

	cJSON_DeleteItemFromObjectCaseSensitive(run, "phase_marks");
	if (arm_kind_command.marks_prepare(s->dir, s->nmarks++, NULL, &p, err, sizeof err) != 0 ||
	    !(f = fopen(p.file, "a"))) {
		fprintf(stderr, "steadysim: %s\n", err);
		exit(1);
	}
	for (int e = -1; e < m->epochs; e++) {
		const char *name = e < 0 ? "setup" : "epoch";
		double lt, c, w;
		s->machine = m->ar_machine * s->machine + sqrt(1 - m->ar_machine * m->ar_machine) *
		                                              m->sd_machine * prng_normal(&s->rng);
		lt = s->machine;
		if (e < 0) {
			lt += log(BASE_SETUP) + lvl + 0.03 * prng_normal(&s->rng);
		} else {
			double z = prng_normal(&s->rng);
			eps = e == 0 ? m->sd_epoch * z
			             : m->ar_epoch * eps +
			                   sqrt(1 - m->ar_epoch * m->ar_epoch) * m->sd_epoch * z;
			lt += log(BASE_EPOCH) + lvl + amp * exp(-e / 1.5) + eps;
			if (prng_double(&s->rng) < m->p_out)
				lt += log1p(-0.5 * log(1 - prng_double(&s->rng)));
		}
		c = floor(exp(lt));
		w = floor(c * (1.05 + 0.1 * prng_double(&s->rng)));
		snprintf(line, sizeof line, "begin %s %.0f 4242 %.0f\n", name, t_ns, cpu_ns);
		fputs(line, f);
		t_ns += w;
		cpu_ns += c;
		spans_cpu += c;
		snprintf(line, sizeof line, "end %s %.0f 4242 %.0f\n", name, t_ns, cpu_ns);
		fputs(line, f);
		t_ns += 1000;
	}
	fclose(f);
	/* the run's CPU figures first: a run's marks may hold no more than the kernel counted */
	cpu_ns = spans_cpu + SHELL_CPU * exp(0.1 * prng_normal(&s->rng)) +
	         PROC_CPU * exp(s->machine + lvl - arm + 0.05 * prng_normal(&s->rng));
	cpu_ns = floor(cpu_ns);
	wall = floor(cpu_ns * 1.2);
	cg = get(get(run, "containment"), "cgroup_cpu");
	set_num(cg, "user_ns", floor(cpu_ns * 0.9));
	set_num(cg, "sys_ns", cpu_ns - floor(cpu_ns * 0.9));
	x = get(run, "cpu");
	set_num(x, "user_ns", floor(cpu_ns * 0.9));
	set_num(x, "sys_ns", cpu_ns - floor(cpu_ns * 0.9));
	set_num(x, "total_ns", cpu_ns);
	x = get(run, "process");
	set_num(x, "wall_ns", wall);
	set_num(x, "user_ns", floor(cpu_ns * 0.9));
	set_num(x, "sys_ns", cpu_ns - floor(cpu_ns * 0.9));
	set_num(run, "wall_ns", wall);
	p.lo = 1;
	p.hi = (int64_t)t_ns + 1000;
	p.cpu_rule = 1;
	phaserun_finish(&arm_kind_command, &p, &s->ref, run, &st);
	if (st != RS_OK)
		return -1;
	pm = get(run, "phase_marks");
	cJSON_ArrayForEach(ph, get(pm, "phases"))
	{
		const cJSON *n = get(ph, "name"), *sd = get(ph, "settled");
		if (cJSON_IsString(n) && strcmp(n->valuestring, "epoch") == 0)
			return cJSON_IsTrue(sd);
	}
	return 0;
}

static size_t arm_index(const cJSON *arms, const char *name)
{
	size_t i = 0;
	const cJSON *a;

	cJSON_ArrayForEach(a, arms)
	{
		if (cJSON_IsString(a) && strcmp(a->valuestring, name) == 0)
			return i;
		i++;
	}
	return (size_t)-1;
}

/* One simulated bench of model m into t. */
static void sim_bench(struct runsim *s, const struct model *m, cJSON *doc, struct tally *t)
{
	const cJSON *arms = get(get(doc, "config"), "arms");
	size_t narms = (size_t)cJSON_GetArraySize(arms);
	cJSON *round, *runs[16];
	uint32_t order[16];
	double arm[16];
	struct rf_doc *d;
	char err[512];

	s->machine = m->sd_machine * prng_normal(&s->rng);
	for (size_t i = 0; i < 16; i++)
		arm[i] = m->arm_sd * prng_normal(&s->rng);
	cJSON_ArrayForEach(round, get(doc, "rounds"))
	{
		cJSON *run;
		memset(runs, 0, sizeof runs);
		cJSON_ArrayForEach(run, get(round, "runs"))
		{
			size_t a = arm_index(arms, get(run, "arm")->valuestring);
			runs[a] = run;
		}
		for (uint32_t i = 0; i < narms; i++)
			order[i] = i;
		if (!m->fixed_order)
			prng_shuffle(&s->rng, order, (uint32_t)narms);
		for (size_t i = 0; i < narms; i++) {
			int r;
			if ((r = sim_run(s, m, i == 0, arm[order[i]], runs[order[i]])) < 0) {
				fprintf(stderr, "steadysim: the marks were refused\n");
				exit(1);
			}
			t->settled += (size_t)r;
			t->runs++;
		}
	}
	if (!(d = rf_from_json(doc, "steadysim.json", err, sizeof err))) {
		fprintf(stderr, "steadysim: %s\n", err);
		exit(1);
	}
	for (int k = 0; k < NREPS; k++) {
		struct cmp_primary pr = {.regime = -1};
		struct cmp_opts o = {.conf = 0.95, .seed = 1, .equivalence = NAN, .primary = &pr};
		struct cmp_report *rep;
		int any[CMP_NFAMILIES] = {0, 0};
		if (k == REP_EPOCH)
			snprintf(pr.phase, sizeof pr.phase, "epoch");
		pr.all = k == REP_ALL;
		if (cmp_build(d, NULL, &o, &rep, err, sizeof err) != 0) {
			fprintf(stderr, "steadysim: %s\n", err);
			exit(1);
		}
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct cmp_row *row = &rep->rows[i];
			int dec = row->verdict == CMP_FASTER || row->verdict == CMP_SLOWER;
			if (!row->workload || !row->usable)
				continue;
			t->rows[k][row->family]++;
			t->decided[k][row->family] += (size_t)dec;
			any[row->family] |= dec;
			if (k == REP_EPOCH && row->family == CMP_FAMILY_PRIMARY)
				t->half[t->nhalf++] = expm1((row->d.hi - row->d.lo) / 2) * 100;
			if (k == REP_ALL && row->regime == RF_STEADY &&
			    strcmp(row->phase, "epoch") == 0) {
				t->ep_rows++;
				t->ep_decided += (size_t)dec;
			}
		}
		for (int f = 0; f < CMP_NFAMILIES; f++)
			t->any[k][f] += (size_t)any[f];
		cmp_free(rep);
	}
	rf_free(d);
	t->trials++;
}

/* Whether tmpl can be a template: read by the reader, arms 2..16, every round one ok run per
 * arm that marked its phases; else why in err. */
static int template_ok(const cJSON *tmpl, char *err, size_t errlen)
{
	const cJSON *arms = get(get(tmpl, "config"), "arms"), *round, *run;
	int narms = cJSON_GetArraySize(arms), nrounds = 0;
	struct rf_doc *d = rf_from_json(tmpl, "template", err, errlen);

	if (!d)
		return 0;
	rf_free(d);
	if (!cJSON_IsArray(arms) || narms < 2 || narms > 16)
		return snprintf(err, errlen, "config.arms is not 2 to 16 arms"), 0;
	cJSON_ArrayForEach(round, get(tmpl, "rounds"))
	{
		int n = 0;
		cJSON_ArrayForEach(run, get(round, "runs"))
		{
			const cJSON *st = get(run, "status"), *arm = get(run, "arm");
			if (!cJSON_IsString(st) || strcmp(st->valuestring, "ok") != 0 ||
			    !cJSON_IsString(arm) || arm_index(arms, arm->valuestring) >= 16 ||
			    !cJSON_IsObject(get(run, "phase_marks")))
				return snprintf(err, errlen,
				                "a run that is not ok or marked no phase"),
				       0;
			n++;
		}
		if (n != narms)
			return snprintf(err, errlen, "a round without one run per arm"), 0;
		nrounds++;
	}
	if (nrounds < 2)
		return snprintf(err, errlen, "fewer than 2 rounds"), 0;
	return 1;
}

int main(int argc, char **argv)
{
	struct runsim s = {0};
	cJSON *tmpl;
	char err[256];
	long trials;
	struct rf_file info;
	enum jl_why why;

	if (argc < 4) {
		fprintf(stderr, "usage: steadysim TEMPLATE TRIALS SEED [SETTING...]\n");
		return 2;
	}
	if (argc == 5 && strcmp(argv[4], "list") == 0) {
		for (size_t i = 0; i < NMODELS; i++)
			printf("%s\n", models[i].name);
		return 0;
	}
	if (rf_bench_read(argv[1], &tmpl, &info, &why, err, sizeof err) != 0) {
		fprintf(stderr, "steadysim: %s\n", err);
		return 2;
	}
	cJSON_Delete(info.disk);
	if (!template_ok(tmpl, err, sizeof err)) {
		fprintf(stderr, "steadysim: %s is not a template: %s\n", argv[1], err);
		return 2;
	}
	trials = strtol(argv[2], NULL, 10);
	prng_seed(&s.rng, strtoull(argv[3], NULL, 10));
	if (phaserun_dir(s.dir, err, sizeof err) != 0) {
		fprintf(stderr, "steadysim: %s\n", err);
		return 1;
	}
	printf("# setting report family rows decided trials any_decided settled_runs runs\n");
	for (size_t mi = 0; mi < NMODELS; mi++) {
		const struct model *m = &models[mi];
		struct tally t = {0};
		double medhalf;
		char a[96], b[96];
		int asked = argc == 4;
		for (int i = 4; i < argc; i++)
			asked |= strcmp(argv[i], m->name) == 0;
		if (!asked)
			continue;
		if (!(t.half = malloc((size_t)(trials > 0 ? trials : 1) * 16 * sizeof *t.half)))
			return 1;
		for (long i = 0; i < trials; i++) {
			cJSON *doc = cJSON_Duplicate(tmpl, 1);
			sim_bench(&s, m, doc, &t);
			cJSON_Delete(doc);
		}
		for (int k = 0; k < NREPS; k++)
			for (int fam = 0; fam < CMP_NFAMILIES; fam++)
				if (t.rows[k][fam])
					printf("%s %s %s %zu %zu %zu %zu %zu %zu\n", m->name,
					       rep_names[k], cmp_family_name((enum cmp_family)fam),
					       t.rows[k][fam], t.decided[k][fam], t.trials,
					       t.any[k][fam], t.settled, t.runs);
		printf("# %s: epochs never settled in %s of runs\n", m->name,
		       rate(t.runs - t.settled, t.runs, a, sizeof a));
		printf("# %s: benches with a primary row decided: totals %s", m->name,
		       rate(t.any[REP_DEFAULT][CMP_FAMILY_PRIMARY], t.trials, a, sizeof a));
		printf(", --primary epoch %s",
		       rate(t.any[REP_EPOCH][CMP_FAMILY_PRIMARY], t.trials, b, sizeof b));
		printf(", one family %s\n",
		       rate(t.any[REP_ALL][CMP_FAMILY_PRIMARY], t.trials, a, sizeof a));
		printf("# %s: rows decided in one family %s, of them the steady epochs %s\n",
		       m->name,
		       rate(t.decided[REP_ALL][CMP_FAMILY_PRIMARY],
		            t.rows[REP_ALL][CMP_FAMILY_PRIMARY], a, sizeof a),
		       rate(t.ep_decided, t.ep_rows, b, sizeof b));
		medhalf = t.nhalf ? stats_median(t.half, t.nhalf) : NAN;
		printf("# %s: median half-width of the steady epochs, --primary epoch: %.1f%%\n",
		       m->name, medhalf);
		free(t.half);
		fflush(stdout);
	}
	rmdir(s.dir);
	cJSON_Delete(tmpl);
	return 0;
}
