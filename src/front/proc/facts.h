/* facts.h - the machine's facts every bench measures at its start and its end (facts.c;
 * docs/results-format.md, "allocab-bench/1"), beside the fingerprint and not part of its id. */
#ifndef ALLOCAB_FACTS_H
#define ALLOCAB_FACTS_H

#include <cjson/cJSON.h>

#define FACTS_TRIALS 10 /* mappings faulted in per measurement */
/* MiB per mapping: 2,048 small pages. Ten trials of 32 MiB would take 1.5 s of CPU time at 18 us
 * a fault; of 8 MiB, 0.4 s (docs/methodology.md, "What a difference is made of"). */
#define FACTS_MIB 8

struct facts {
	double fault_median, fault_min, fault_max; /* CPU ns per minor fault, over the trials */
	int trials;                                /* trials that gave a cost (0: none) */
	char hypervisor[32];                       /* "KVM", "Hyper-V", ...; "" none */
	char cpu_vendor[16], cpu_model[64], kernel[128], thp[32]; /* "" when unknown */
};

/* Measures the facts now, the fault cost over `trials` mappings (at most FACTS_TRIALS; 0: no
 * fault cost) in a child process. Never fails: what cannot be read stays empty. */
void facts_measure(struct facts *f, int trials);
/* The facts as their JSON object (fault_ns, hypervisor, cpu_vendor, cpu_model, kernel, thp;
 * unknown values null). NULL when memory ran out. */
cJSON *facts_json(const struct facts *f);
/* Measures the facts and puts them into doc's top-level "facts" as member when ("start", "end");
 * keep: leaves a member already there (a resumed bench's start). Nothing is recorded when memory
 * runs out. */
void facts_record(cJSON *doc, const char *when, int keep);

#endif
