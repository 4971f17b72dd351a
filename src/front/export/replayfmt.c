/* replayfmt.c - what the replays of a comparison say (struct cmp_replay), for every format that
 * carries them: what was replayed, the caveat that it is the allocation stream only, and the
 * program's predicted speedup, as lines of text and as the "replays" member of the JSON
 * (docs/methodology.md, "Does the replay predict the program?"). */
#include "front/export/exportint.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

static void add_num(cJSON *o, const char *key, double v)
{
	cJSON_AddItemToObject(o, key, export_json_num(v));
}

static void add_str(cJSON *o, const char *key, const char *s)
{
	cJSON_AddItemToObject(o, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

/* "process 5 (pid 19285, /usr/bin/sort: sort -n) of trace sort.trace". */
static void what_replayed(const struct rf_input *in, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!in) {
		export_append(buf, len, "a recorded process (its record does not say which)");
		return;
	}
	export_append(buf, len, "process");
	if (!isnan(in->index))
		export_append(buf, len, " %.0f", in->index);
	if (!isnan(in->pid))
		export_append(buf, len, " (pid %.0f%s%s%s%s)", in->pid, in->exe ? ", " : "",
		              in->exe ? in->exe : "", in->command ? ": " : "",
		              in->command ? in->command : "");
	if (in->trace)
		export_append(buf, len, " of trace %s", in->trace);
}

/* The first two lines of a replay: what it replays, and the caveat. */
static void replay_head(const struct cmp_replay *x, char (*line)[EXPORT_LINE])
{
	const struct rf_input *in = x->input;
	char what[EXPORT_LINE / 2];

	what_replayed(in, what, sizeof what);
	snprintf(line[0], EXPORT_LINE, "replay (workload %s): %s", x->workload, what);
	if (in && !isnan(in->events))
		export_append(line[0], EXPORT_LINE, ", %.0f calls", in->events);
	if (in && !isnan(in->threads))
		export_append(line[0], EXPORT_LINE, ", %.0f thread%s", in->threads,
		              in->threads == 1 ? "" : "s");
	if (in && !isnan(in->duration_ns))
		export_append(line[0], EXPORT_LINE, ", %.3f s while recorded",
		              in->duration_ns * 1e-9);
	if (in && in->ended)
		export_append(line[0], EXPORT_LINE, ", ended by %s", in->ended);
	snprintf(line[1], EXPORT_LINE,
	         "replay: the allocation stream only: the program's own computation, I/O and the "
	         "cache effects of its data accesses are not in it; the speedups of %s are the "
	         "allocators' on that stream, not the program's (docs/methodology.md, \"Does the "
	         "replay predict the program?\")",
	         x->workload);
}

/* "1.002x [0.999, 1.004]", an unbounded end as "inf". */
static void prediction_text(const struct cmp_prediction *p, char *buf, size_t len)
{
	char lv[16];

	if (isinf(p->hi))
		snprintf(buf, len, "%.3fx [%.3f, unbounded]", p->est, p->lo);
	else
		snprintf(buf, len, "%.3fx [%.3f, %.3f]", p->est, p->lo, p->hi);
	export_append(buf, len, " (%s%%, from %.3fx [%.3f, %.3f] on the replay)",
	              cmp_level_text(p->row->d.level, lv, sizeof lv), cmp_speedup(p->row->d.est),
	              cmp_speedup(p->row->d.hi), cmp_speedup(p->row->d.lo));
}

size_t export_replay_lines(const struct export_input *in, char (*line)[EXPORT_LINE], size_t max)
{
	size_t n = 0;

	for (size_t k = 0; k < in->nreplays && n + 3 <= max; k++) {
		const struct cmp_replay *x = &in->replays[k];
		replay_head(x, line + n);
		n += 2;
		if (!x->n) {
			snprintf(line[n++], EXPORT_LINE,
			         "predicted speedup of the whole program: cannot be computed: %s",
			         x->why_not);
			continue;
		}
		snprintf(
		    line[n], EXPORT_LINE,
		    "predicted speedup of the whole program (%s regime): t_prog / (t_prog - "
		    "(t_replay,%s - t_replay,candidate)), t_replay,%s %.3f ms, t_prog %.3f ms = ",
		    rf_regime_name(x->regime), x->p[0].row->baseline, x->p[0].row->baseline,
		    x->t_replay_ns * 1e-6, x->t_prog_ns * 1e-6);
		if (x->t_prog_from)
			export_append(line[n], EXPORT_LINE, "the median time of arm %s in %s",
			              x->t_prog_arm, x->t_prog_from);
		else
			export_append(
			    line[n], EXPORT_LINE,
			    "the process's duration while recorded (recording slows a "
			    "program, so the prediction leans towards 1x; --program-results "
			    "FILE takes a --program bench's time instead)");
		export_append(line[n++], EXPORT_LINE,
		              "; the interval carries the replay's through, the two times taken "
		              "as known:");
		for (size_t i = 0; i < x->n && n < max; i++) {
			char t[256];
			prediction_text(&x->p[i], t, sizeof t);
			snprintf(line[n++], EXPORT_LINE, "  %s: %s", x->p[i].row->candidate, t);
		}
	}
	return n;
}

const char *export_replay_note(const struct export_input *in, const char *wl, char *buf, size_t len)
{
	for (size_t k = 0; wl && k < in->nreplays; k++)
		if (strcmp(in->replays[k].workload, wl) == 0) {
			char what[EXPORT_LINE / 2];
			what_replayed(in->replays[k].input, what, sizeof what);
			snprintf(buf, len,
			         "replay of %s: the allocation stream only, not the program", what);
			return buf;
		}
	return NULL;
}

/* The process a replay ran (struct rf_input), or null. */
static cJSON *process_json(const struct rf_input *in)
{
	cJSON *o;

	if (!in)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	add_str(o, "trace", in->trace);
	add_num(o, "index", in->index);
	add_num(o, "pid", in->pid);
	add_str(o, "exe", in->exe);
	add_str(o, "command", in->command);
	add_num(o, "threads", in->threads);
	add_num(o, "events", in->events);
	add_num(o, "duration_ns", in->duration_ns);
	add_str(o, "ended", in->ended);
	return o;
}

/* A replay's prediction of the program's speedup (struct cmp_replay), or null. */
static cJSON *prediction_json(const struct cmp_replay *x)
{
	cJSON *o, *arr;

	if (!x->n)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	add_str(o, "regime", rf_regime_name(x->regime));
	add_num(o, "program_ns", x->t_prog_ns);
	add_str(o, "program_from", x->t_prog_from ? x->t_prog_from : "trace");
	add_str(o, "program_arm", x->t_prog_arm);
	add_num(o, "replay_baseline_ns", x->t_replay_ns);
	cJSON_AddItemToObject(o, "candidates", arr = cJSON_CreateArray());
	for (size_t i = 0; i < x->n; i++) {
		const struct cmp_prediction *p = &x->p[i];
		cJSON *c = cJSON_CreateObject(), *ci = cJSON_CreateArray();
		add_str(c, "candidate", p->row->candidate);
		add_num(c, "speedup", p->est);
		cJSON_AddItemToArray(ci, export_json_num(p->lo));
		cJSON_AddItemToArray(ci, export_json_num(p->hi));
		cJSON_AddItemToObject(c, "ci", ci);
		add_num(c, "level", p->row->d.level);
		add_num(c, "replay_speedup", cmp_speedup(p->row->d.est));
		cJSON_AddItemToArray(arr, c);
	}
	return o;
}

cJSON *export_replay_json(const struct export_input *in)
{
	cJSON *arr = cJSON_CreateArray();
	char note[EXPORT_LINE];

	for (size_t k = 0; arr && k < in->nreplays; k++) {
		const struct cmp_replay *x = &in->replays[k];
		cJSON *o = cJSON_CreateObject();
		add_str(o, "workload", x->workload);
		cJSON_AddItemToObject(o, "process", process_json(x->input));
		add_str(o, "caveat", export_replay_note(in, x->workload, note, sizeof note));
		cJSON_AddItemToObject(o, "prediction", prediction_json(x));
		add_str(o, "no_prediction", x->n ? NULL : x->why_not);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}
