/* fleettext.c - a fleet of machines (`allocab merge`) as the table and markdown formats render
 * it, and the notes every fleet format shares (exportint.h). */
#include "front/export/exportint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FLEET_COLS 9
#define MACHINE_COLS 6

void export_fleet_method(const struct fleet_report *f, char *buf, size_t len)
{
	snprintf(buf, len,
	         "method: each file is one machine, its rounds paired within it (speedup = "
	         "exp(-HL(d)), Hodges-Lehmann of d = ln(t_candidate/t_baseline) per round, Wilcoxon "
	         "signed-rank interval; its standard error = interval width / (2 z)); pooled across "
	         "the machines by random effects: DerSimonian-Laird tau^2, Hartung-Knapp-Sidik-"
	         "Jonkman %g%% interval (t, k - 1 df); new machine: prediction interval (t, k - 2 "
	         "df, DerSimonian-Laird se); odd: |studentized deleted residual| > t_{k-1, 1 - %g/(2k)} "
	         "(docs/methodology.md, \"A fleet of machines\")",
	         100 * f->conf, 1 - f->conf);
}

void export_fleet_cell_note(const struct fleet_report *f, const struct fleet_row *row, size_t m,
                            char *buf, size_t len)
{
	const struct fleet_cell *c = &row->cells[m];
	size_t k = 0;

	buf[0] = '\0';
	if (!c->pooled)
		k += (size_t)snprintf(buf, len, "not pooled: %s", c->why);
	if (c->odd)
		k += (size_t)snprintf(buf + k, k < len ? len - k : 0,
		                      "ODD: deleted residual %+.1f beyond +-%.2f", c->resid,
		                      row->odd_bound);
	if (c->excludes && k < len)
		k += (size_t)snprintf(buf + k, len - k, "%sits interval excludes the pooled estimate",
		                      k ? "; " : "");
	if (f->m[m].busy && k < len)
		snprintf(buf + k, len - k, "%sbusy machine", k ? "; " : "");
}

void export_fleet_note(const struct fleet_report *f, const struct fleet_row *row, size_t m,
                       char *buf, size_t len)
{
	if (m == f->nm)
		export_fleet_pooled_note(f, row, buf, len);
	else
		export_fleet_cell_note(f, row, m, buf, len);
}

static void names_of(const struct fleet_report *f, const struct fleet_row *row, int odd,
                     char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < f->nm && k < len; i++)
		if (odd ? row->cells[i].odd : row->cells[i].excludes)
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", f->m[i].label);
}

void export_fleet_pooled_note(const struct fleet_report *f, const struct fleet_row *row,
                              char *buf, size_t len)
{
	char odd[256];
	size_t k;

	if (!row->has_meta) {
		snprintf(buf, len, "%s", row->npooled ? "one machine: nothing to pool" : "no machine to pool");
		return;
	}
	k = (size_t)snprintf(buf, len, "%s%s%stau %.3g, I^2 %.0f%%",
	                     row->sessions_of ? "sessions of one machine, " : "",
	                     row->sessions_of ? row->sessions_of : "",
	                     row->sessions_of ? " (holds across its sessions, not machines): " : "",
	                     row->meta.tau, 100 * row->meta.i2);
	if (k < len && !isnan(row->meta.pi_lo))
		k += (size_t)snprintf(buf + k, len - k, "; a new machine: [%.3g, %.3g]",
		                      cmp_speedup(row->meta.pi_hi), cmp_speedup(row->meta.pi_lo));
	else if (k < len)
		k += (size_t)snprintf(buf + k, len - k, "; no prediction interval below 3 machines");
	names_of(f, row, 1, odd, sizeof odd);
	if (k < len && odd[0])
		snprintf(buf + k, len - k, "; odd: %s", odd);
}

static void machine_cells(const struct fleet_report *f, char (*c)[CELL])
{
	static const char *const head[MACHINE_COLS] = {"machine", "file",   "status",
	                                               "rounds",  "others", "machine fingerprint"};

	for (int j = 0; j < MACHINE_COLS; j++)
		snprintf(c[j], CELL, "%s", head[j]);
	for (size_t i = 0; i < f->nm; i++) {
		const struct fleet_machine *m = &f->m[i];
		char(*r)[CELL] = c + (i + 1) * MACHINE_COLS;
		snprintf(r[0], CELL, "%s", m->label);
		snprintf(r[1], CELL, "%s", m->doc->path);
		snprintf(r[2], CELL, "%s", m->doc->status);
		snprintf(r[3], CELL, "%zu", m->doc->nrounds);
		if (m->load_runs)
			snprintf(r[4], CELL, "%s%.0f%% of runs", m->busy ? "BUSY: " : "",
			         100 * m->busy_share);
		else
			snprintf(r[4], CELL, "unknown");
		snprintf(r[5], CELL, "%.80s; compared: %.60s",
		         m->doc->machine_desc ? m->doc->machine_desc : "-", m->times);
	}
}

static void interval_cell(char *buf, double lo, double hi, double level)
{
	snprintf(buf, CELL, "[%.3f, %.3f] %.3g%%", cmp_speedup(hi), cmp_speedup(lo), 100 * level);
}

/* The comparisons: per fleet row, one line per machine and the pooled line. Returns lines. */
static size_t row_cells(const struct fleet_report *f, char (*c)[CELL])
{
	static const char *const head[FLEET_COLS] = {"workload", "phase",   "regime",
	                                             "candidate", "machine", "speedup",
	                                             "interval",  "n",       "note"};
	size_t n = 1;

	for (int j = 0; j < FLEET_COLS; j++)
		snprintf(c[j], CELL, "%s", head[j]);
	for (size_t i = 0; i < f->nrows; i++) {
		const struct fleet_row *row = &f->rows[i];
		for (size_t m = 0; m <= f->nm; m++, n++) {
			char(*r)[CELL] = c + n * FLEET_COLS;
			const struct cmp_row *cr = m < f->nm ? row->cells[m].row : NULL;
			snprintf(r[0], CELL, "%s", row->workload ? row->workload : "geomean");
			snprintf(r[1], CELL, "%s", row->phase);
			snprintf(r[2], CELL, "%s", rf_regime_name(row->regime));
			snprintf(r[3], CELL, "%s", row->candidate);
			snprintf(r[4], CELL, "%s", m < f->nm ? f->m[m].label : "POOLED");
			if (m == f->nm) {
				if (row->has_meta) {
					snprintf(r[5], CELL, "%.3fx", cmp_speedup(row->meta.mu));
					interval_cell(r[6], row->meta.lo, row->meta.hi, row->meta.level);
				} else {
					snprintf(r[5], CELL, "-");
					snprintf(r[6], CELL, "-");
				}
				snprintf(r[7], CELL, "%zu of %zu", row->nunits,
				         row->sessions_of ? row->npooled : f->nunits);
				export_fleet_pooled_note(f, row, r[8], CELL);
				continue;
			}
			if (cr && cr->usable) {
				snprintf(r[5], CELL, "%.3fx", cmp_speedup(cr->d.est));
				interval_cell(r[6], cr->d.lo, cr->d.hi, cr->d.level);
			} else {
				snprintf(r[5], CELL, "-");
				snprintf(r[6], CELL, "-");
			}
			snprintf(r[7], CELL, cr ? "%zu" : "-", cr ? cr->n : 0);
			export_fleet_cell_note(f, row, m, r[8], CELL);
		}
	}
	return n;
}

/* The method, the regimes, the convention, how to read a line, and the warnings: the table
 * format's head; markdown's <details> after the tables. */
static void put_method(FILE *out, const struct fleet_report *f, int md, size_t width)
{
	const char *pre = md ? "- " : "";
	char line[EXPORT_LINE];

	if (md)
		fputs("\n<details><summary>Method and warnings</summary>\n\n", out);
	export_fleet_method(f, line, sizeof line);
	export_wrap(out, pre, "  ", line, md ? 0 : width);
	snprintf(line, sizeof line, "regimes compared: %s%s%s",
	         f->compared[RF_STEADY] ? "steady" : "",
	         f->compared[RF_STEADY] && f->compared[RF_COLD] ? " and " : "",
	         f->compared[RF_COLD] ? "cold" : "");
	export_wrap(out, pre, "  ", line, md ? 0 : width);
	snprintf(line, sizeof line, "convention: %s", CMP_CONVENTION);
	export_wrap(out, pre, "  ", line, md ? 0 : width);
	export_wrap(
	    out, pre, "  ",
	    "a machine's interval is its own (paired rounds, the level it reaches); POOLED "
	    "is the fleet's mean effect; \"a new machine\" is where another machine of this "
	    "fleet would fall",
	    md ? 0 : width);
	export_print_warnings(out, f->warn, f->nwarn, md, width);
	if (md)
		fputs("\n</details>\n", out);
}

/* Per pooled comparison, what the machines' facts explain of it, and what sets its odd machines
 * apart (fleet_explain_text). */
static void put_explained(FILE *out, const struct fleet_report *f, int md)
{
	char name[256], text[1024];
	int head = 0;

	for (size_t i = 0; i < f->nrows; i++) {
		const struct fleet_row *row = &f->rows[i];
		if (!row->has_meta)
			continue;
		if (!head++)
			fprintf(out, md ? "\n#### What the machines' facts explain\n\n"
			                : "\nwhat the machines' facts explain (fault cost, CPU vendor):\n");
		fprintf(out, "%s%s %s %s: %s\n", md ? "- " : "", fleet_row_name(row, name, sizeof name),
		        rf_regime_name(row->regime), row->candidate,
		        fleet_explain_text(row, text, sizeof text));
		if (row->ex.odd[0])
			fprintf(out, "%sodd: %s\n", md ? "  - " : "    ", row->ex.odd);
	}
}

int export_fleet_markup(FILE *out, const struct export_fleet_input *in, int md, char *err,
                        size_t errlen)
{
	const struct fleet_report *f = in->f;
	size_t lines = 1 + f->nrows * (f->nm + 1);
	char(*c)[CELL] = calloc(lines * FLEET_COLS, CELL);
	char(*mc)[CELL] = calloc((f->nm + 1) * MACHINE_COLS, CELL);
	struct export_grid gm = {mc, f->nm + 1, MACHINE_COLS, 1u << 3, 1, 0};
	struct export_grid gc = {c, lines, FLEET_COLS, 1u << 5, 5, 1u << 5 | 1u << 8};

	if (!c || !mc) {
		free(c);
		free(mc);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fprintf(out, md ? "### allocab merge: %zu machines\n" : "allocab merge: %zu machines\n",
	        f->nm);
	if (!md)
		put_method(out, f, md, in->width);
	fprintf(out, md ? "\n#### Machines\n\n" : "\nmachines (others: runs before which another "
	                                          "task was runnable):\n");
	machine_cells(f, mc);
	md ? export_print_md(out, &gm) : export_print_grid(out, &gm, in->width);
	fprintf(out, md ? "\n#### Comparisons\n\n" : "\n");
	row_cells(f, c);
	md ? export_print_md(out, &gc) : export_print_grid(out, &gc, in->width);
	put_explained(out, f, md);
	if (md)
		put_method(out, f, md, in->width);
	free(c);
	free(mc);
	return 0;
}
