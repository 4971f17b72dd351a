/* fleetint.h - private to the fleet module (fleet.c, fleetcell.c, fleetload.c): what fleet_build's
 * steps share. fleet.h is the public API. */
#ifndef ALLOCAB_FLEETINT_H
#define ALLOCAB_FLEETINT_H

#include "front/fleet/fleet.h"

#include <stddef.h>

/* What the cells of every row need to know of the fleet as a whole. */
struct fleet_ctx {
	struct fleet_report *f;
	const struct cmp_opts *o;
	const char *gphase;     /* the phase of the geometric means */
	const char **gm_union;  /* the workloads some machine's geometric mean covers */
	size_t ngm_union;
	size_t *gm_count;       /* per machine: the workloads its geometric mean covers */
};

/* fleetcell.c: fills row->cells (allocated, one per machine; entries[m] is the machine's row or
 * NULL) with the machines' estimates or the reason each is not pooled, then pools those that
 * are. Returns 0, or -1 when memory ran out. */
int fleet_fill_row(const struct fleet_ctx *c, struct fleet_row *row,
                   const struct cmp_row *const *entries);

/* fleetload.c: m's load figures (load_runs, busy_share, others, load, busy) from the telemetry
 * of the measured runs of m->doc. */
void fleet_machine_load(struct fleet_machine *m);
/* The fleet's warnings into f->warn (busy machines, machines without comparisons, each machine's
 * own warnings under its label, comparisons not pooled). Returns 0, or -1 when memory ran out. */
int fleet_warnings(struct fleet_report *f);

/* fleetexplain.c: row->ex from the row's k units (unit[j] the machine standing for unit j, y[j]
 * and se[j] what was pooled), after the pooling. */
void fleet_explain(const struct fleet_ctx *c, struct fleet_row *row, const size_t *unit,
                   const double *y, const double *se, size_t k);

/* fleetgroup.c: each machine's unit, nsessions and copy_of, and f->nunits. Returns 0, or -1
 * when memory ran out. */
int fleet_group(struct fleet_report *f);
/* The labels of machines idx[0..n) for one line: all of them up to 4, else the first 3 and
 * "(N more)". */
void fleet_names(const struct fleet_report *f, const size_t *idx, size_t n, char *buf, size_t len);

#endif
