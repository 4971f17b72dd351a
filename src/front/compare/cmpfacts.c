/* cmpfacts.c - which of the machine facts of two documents differ (compare.h). */
#include "front/compare/compare.h"

#include <math.h>
#include <string.h>

unsigned cmp_facts_differ(const struct rf_doc *a, const struct rf_doc *b)
{
	const struct rf_facts *x = &a->facts[0], *y = &b->facts[0];
	unsigned m = 0;

	if (!x->present || !y->present)
		return 0;
	m |= strcmp(x->cpu_vendor, y->cpu_vendor) ? CMP_FACT_VENDOR : 0;
	m |= strcmp(x->cpu_model, y->cpu_model) ? CMP_FACT_MODEL : 0;
	m |= strcmp(x->hypervisor, y->hypervisor) ? CMP_FACT_HYPERVISOR : 0;
	m |= strcmp(x->kernel, y->kernel) ? CMP_FACT_KERNEL : 0;
	m |= strcmp(x->thp, y->thp) ? CMP_FACT_THP : 0;
	if (!isnan(x->fault_median) && !isnan(y->fault_median) &&
	    (x->fault_max < y->fault_min || y->fault_max < x->fault_min))
		m |= CMP_FACT_FAULT;
	return m;
}
