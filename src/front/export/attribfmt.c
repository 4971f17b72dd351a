/* attribfmt.c - what each comparison's difference is made of (cmp_attribs) and the machines' facts
 * (rf_doc.facts), rendered: one line per decided comparison and a facts line per document for the
 * text formats, members of the JSON document and CSV columns; the HTML report's chart of them is
 * front/draw/draw.h's chart_attrib (docs/methodology.md, "What a difference is made of"). */
#include "front/export/exportint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *part_text(enum cmp_part k, int cpu)
{
	return k == CMP_PART_USER  ? "user time"
	       : k == CMP_PART_SYS ? "system time"
	       : cpu               ? "unsplit CPU time"
	                           : "time off the CPU";
}

/* v ns as milliseconds with a sign. */
static void ms(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%+.1f ms", v / 1e6);
}

/* A count with thousands separators ("8,930"). */
static void count(double v, char *buf, size_t len)
{
	char d[32];
	long long x = llround(fabs(v));
	size_t n, k = 0, j = 0;

	snprintf(d, sizeof d, "%lld", x);
	n = strlen(d);
	if (v < 0 && len > 1)
		buf[k++] = '-';
	for (; j < n && k + 2 < len; j++) {
		buf[k++] = d[j];
		if ((n - j - 1) % 3 == 0 && j + 1 < n)
			buf[k++] = ',';
	}
	buf[k] = '\0';
}

static int dominant(const struct cmp_attrib *a)
{
	int best = 0;

	for (int k = 1; k < CMP_NPARTS; k++)
		if (fabs(a->part[k].est) > fabs(a->part[best].est))
			best = k;
	return best;
}

/* Whether every part goes the total's way, up to 5% of it either side. */
static int same_way(const struct cmp_attrib *a)
{
	for (int k = 0; k < CMP_NPARTS; k++)
		if (!(a->share[k] >= -0.05 && a->share[k] <= 1.05))
			return 0;
	return 1;
}

void export_attrib_line(const struct cmp_attrib *a, char *buf, size_t len)
{
	const struct cmp_row *row = a->row;
	char t[32], lo[32], hi[32], p[CMP_NPARTS][32], sum[32], fb[32], fc[32], df[32], dl[32],
	    dh[32], head[512];
	size_t k = 0;
	int d = dominant(a);

	ms(a->total.est, t, sizeof t);
	ms(a->total.lo, lo, sizeof lo);
	ms(a->total.hi, hi, sizeof hi);
	for (int i = 0; i < CMP_NPARTS; i++)
		ms(a->part[i].est, p[i], sizeof p[i]);
	ms(a->parts_sum, sum, sizeof sum);
	count(a->minflt_base, fb, sizeof fb);
	count(a->minflt_cand, fc, sizeof fc);
	count(a->minflt.est, df, sizeof df);
	count(a->minflt.lo, dl, sizeof dl);
	count(a->minflt.hi, dh, sizeof dh);
	snprintf(head, sizeof head, "%s%s%s %s, %s against %s: ", row->workload,
	         strcmp(row->phase, "total") ? "/" : "", strcmp(row->phase, "total") ? row->phase : "",
	         rf_regime_name(row->regime), row->candidate, row->baseline);
	if (same_way(a))
		k = (size_t)snprintf(buf, len, "%s%.0f%% of the difference (%s [%s, %s]) is %s",
		                     head, 100 * a->share[d], t, lo, hi, part_text((enum cmp_part)d,
		                                                                   a->cpu));
	else
		k = (size_t)snprintf(buf, len, "%sthe difference (%s [%s, %s]) is %s %s, offset by "
		                     "the others",
		                     head, t, lo, hi, part_text((enum cmp_part)d, a->cpu), p[d]);
	if (k < len)
		snprintf(buf + k, len - k,
		         ": %s %s page faults per rep, %s %s (%s [%s, %s]); user %s, system %s, %s "
		         "%s: parts sum %s, %s the interval",
		         row->baseline, fb, row->candidate, fc, df, dl, dh, p[CMP_PART_USER],
		         p[CMP_PART_SYS], cmp_part_name(CMP_PART_REST), p[CMP_PART_REST], sum,
		         a->adds_up ? "within" : "NOT within");
}

void export_facts_line(const struct rf_doc *d, char *buf, size_t len)
{
	const struct rf_facts *s = &d->facts[0], *e = &d->facts[1];
	size_t k, base;

	if (!s->present) {
		snprintf(buf, len, "machine: %s: no facts recorded (a bench written before them)",
		         d->path);
		return;
	}
	k = base = (size_t)snprintf(buf, len, "machine: %s, %s, kernel %s, THP %s",
	                     s->cpu_model[0] ? s->cpu_model : "CPU unknown",
	                     s->hypervisor[0] ? s->hypervisor : "no hypervisor",
	                     s->kernel[0] ? s->kernel : "unknown", s->thp[0] ? s->thp : "unknown");
	for (int w = 0; w < 2 && k < len; w++) {
		const struct rf_facts *f = w ? e : s;
		if (!f->present || isnan(f->fault_median))
			continue;
		k += (size_t)snprintf(buf + k, len - k, "%s %.1f µs [%.1f–%.1f] at the %s (%.0f trials)",
		                      k == base ? ", a fault costs" : ",", f->fault_median / 1e3,
		                      f->fault_min / 1e3, f->fault_max / 1e3, w ? "end" : "start",
		                      f->trials);
	}
}

void export_facts_differ_line(const struct rf_doc *a, const struct rf_doc *b, char *buf,
                              size_t len)
{
	static const char *const names[] = {"CPU vendor", "CPU model", "hypervisor",
	                                    "kernel",     "THP",       "fault cost"};
	unsigned m = cmp_facts_differ(a, b);
	size_t k;

	buf[0] = '\0';
	if (!m)
		return;
	k = (size_t)snprintf(buf, len, "the two files' machines differ in");
	for (unsigned i = 0, first = 1; i < sizeof names / sizeof names[0] && k < len; i++)
		if (m & (1u << i)) {
			k += (size_t)snprintf(buf + k, len - k, "%s %s", first ? ":" : ",", names[i]);
			first = 0;
		}
	if (k < len)
		snprintf(buf + k, len - k, "%s", m & CMP_FACT_FAULT
		                                     ? " (fault cost: the ranges of the trials are "
		                                       "disjoint)"
		                                     : "");
}

static int decided(const struct cmp_attrib *a)
{
	return a->usable &&
	       (a->row->verdict == CMP_FASTER || a->row->verdict == CMP_SLOWER);
}

void export_attrib_text(FILE *out, const struct export_input *in, int md)
{
	const struct cmp_report *r = in->r;
	char line[EXPORT_LINE];
	size_t n = 0;

	fputs(md ? "\n#### Machine\n\n" : "\n", out);
	for (const struct rf_doc *d = r->base; d; d = d == r->cand || r->paired ? NULL : r->cand) {
		export_facts_line(d, line, sizeof line);
		export_prose(out, line, md, in->width);
	}
	if (!r->paired) {
		export_facts_differ_line(r->base, r->cand, line, sizeof line);
		if (line[0])
			export_prose(out, line, md, in->width);
	}
	for (size_t i = 0; in->attrib && i < r->nrows; i++)
		n += decided(&in->attrib[i]);
	if (!n)
		return;
	if (md)
		fputs("\n#### What the differences are made of\n\n", out);
	else
		export_wrap(out, "\nwhat the differences are made of ", "  ",
		            "(faster or slower rows; paired differences candidate - baseline, "
		            "Hodges-Lehmann with the rows' level):",
		            in->width);
	for (size_t i = 0; i < r->nrows; i++)
		if (decided(&in->attrib[i])) {
			export_attrib_line(&in->attrib[i], line, sizeof line);
			if (md)
				fputs("- ", out);
			export_prose(out, line, md, in->width);
		}
}

static cJSON *num(double v)
{
	return export_json_num(v);
}

static cJSON *iv_json(const struct stats_interval *iv)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "est", num(iv->est));
	cJSON_AddItemToObject(o, "lo", num(iv->lo));
	cJSON_AddItemToObject(o, "hi", num(iv->hi));
	cJSON_AddItemToObject(o, "level", num(iv->level));
	return o;
}

static cJSON *attrib_json(const struct cmp_attrib *a)
{
	cJSON *o, *parts, *f;

	if (!a->usable)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "n", (double)a->n);
	cJSON_AddStringToObject(o, "time", a->cpu ? "cpu" : "wall");
	cJSON_AddItemToObject(o, "total_ns", iv_json(&a->total));
	cJSON_AddItemToObject(o, "parts_ns", parts = cJSON_CreateObject());
	for (int k = 0; k < CMP_NPARTS; k++) {
		cJSON *p = iv_json(&a->part[k]);
		cJSON_AddItemToObject(p, "share", num(a->share[k]));
		cJSON_AddItemToObject(parts, cmp_part_name((enum cmp_part)k), p);
	}
	cJSON_AddItemToObject(o, "parts_sum_ns", num(a->parts_sum));
	cJSON_AddBoolToObject(o, "adds_up", a->adds_up);
	cJSON_AddItemToObject(o, "minflt", f = iv_json(&a->minflt));
	cJSON_AddItemToObject(f, "baseline", num(a->minflt_base));
	cJSON_AddItemToObject(f, "candidate", num(a->minflt_cand));
	cJSON_AddItemToObject(o, "majflt_baseline", num(a->majflt_base));
	cJSON_AddItemToObject(o, "majflt_candidate", num(a->majflt_cand));
	cJSON_AddItemToObject(o, "user_ns_baseline", num(a->user_base));
	cJSON_AddItemToObject(o, "user_ns_candidate", num(a->user_cand));
	cJSON_AddItemToObject(o, "sys_ns_baseline", num(a->sys_base));
	cJSON_AddItemToObject(o, "sys_ns_candidate", num(a->sys_cand));
	cJSON_AddItemToObject(o, "peak_rss_kib_baseline", num(a->row->peak_base_kib));
	cJSON_AddItemToObject(o, "peak_rss_kib_candidate", num(a->row->peak_cand_kib));
	return o;
}

static cJSON *facts_json(const struct rf_facts *f)
{
	cJSON *o, *fn;

	if (!f->present)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "fault_ns", fn = cJSON_CreateObject());
	cJSON_AddItemToObject(fn, "median", num(f->fault_median));
	cJSON_AddItemToObject(fn, "min", num(f->fault_min));
	cJSON_AddItemToObject(fn, "max", num(f->fault_max));
	cJSON_AddItemToObject(fn, "trials", num(f->trials));
	const char *s[] = {f->hypervisor, f->cpu_vendor, f->cpu_model, f->kernel, f->thp};
	static const char *const k[] = {"hypervisor", "cpu_vendor", "cpu_model", "kernel", "thp"};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		cJSON_AddItemToObject(o, k[i], s[i][0] ? cJSON_CreateString(s[i]) : cJSON_CreateNull());
	return o;
}

void export_attrib_json(cJSON *doc, const struct export_input *in)
{
	const struct cmp_report *r = in->r;
	cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "comparisons"), *fa, *diff;
	static const char *const names[] = {"cpu_vendor", "cpu_model", "hypervisor",
	                                    "kernel",     "thp",       "fault_ns"};
	unsigned m;

	for (size_t i = 0; i < r->nrows; i++) {
		cJSON *row = cJSON_GetArrayItem(rows, (int)i);
		if (row)
			cJSON_AddItemToObject(row, "attribution",
			                      in->attrib ? attrib_json(&in->attrib[i])
			                                 : cJSON_CreateNull());
	}
	cJSON_AddItemToObject(doc, "facts", fa = cJSON_CreateArray());
	for (const struct rf_doc *d = r->base; d; d = d == r->cand || r->paired ? NULL : r->cand) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "file", d->path);
		cJSON_AddItemToObject(o, "start", facts_json(&d->facts[0]));
		cJSON_AddItemToObject(o, "end", facts_json(&d->facts[1]));
		cJSON_AddItemToArray(fa, o);
	}
	cJSON_AddItemToObject(doc, "facts_differ", diff = cJSON_CreateArray());
	m = r->paired ? 0 : cmp_facts_differ(r->base, r->cand);
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (m & (1u << i))
			cJSON_AddItemToArray(diff, cJSON_CreateString(names[i]));
}

void export_attrib_csv_values(FILE *out, const struct export_input *in, size_t i,
                              void (*field)(FILE *, double, int))
{
	const struct cmp_attrib *a = in->attrib ? &in->attrib[i] : NULL;
	const double na = NAN;
	int u = a && a->usable;
	double v[] = {u ? a->total.est : na,          u ? a->total.lo : na,
	              u ? a->total.hi : na,           u ? a->part[CMP_PART_USER].est : na,
	              u ? a->part[CMP_PART_SYS].est : na, u ? a->part[CMP_PART_REST].est : na,
	              u ? a->parts_sum : na,          u ? (double)a->adds_up : na,
	              u ? a->share[CMP_PART_SYS] : na, u ? a->minflt_base : na,
	              u ? a->minflt_cand : na,        u ? a->minflt.est : na,
	              u ? a->minflt.lo : na,          u ? a->minflt.hi : na};

	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
		field(out, v[k], 0);
}
