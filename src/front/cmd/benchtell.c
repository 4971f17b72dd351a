/* benchtell.c - what `allocab bench` says after its rounds (benchtell.h). */
#include "front/cmd/benchtell.h"

#include "common/errmsg.h"
#include "front/calib/calib.h"
#include "front/gate/gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "5 measured rounds and 1 warm-up round": what this session ran; "(8 measured rounds in all)"
 * after it when it continued a file. */
static void rounds_text(const struct bench_result *r, char *buf, size_t len)
{
	unsigned measured = r->measured - r->measured0;
	unsigned warm = r->rounds_done - r->rounds0 - measured;
	int k = snprintf(buf, len, "%u measured round%s and %u warm-up round%s", measured,
	                 measured == 1 ? "" : "s", warm, warm == 1 ? "" : "s");

	if (r->rounds0 && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, " (%u measured round%s in all)", r->measured,
		         r->measured == 1 ? "" : "s");
}

/* s as one word of a shell command line: as it is when it needs no quotes, else in '...'. */
static void shell_word(const char *s)
{
	int plain = *s && s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                              "0123456789_./:@%+=,-")] == '\0';

	if (plain) {
		fputs(s, stderr);
		return;
	}
	fputc('\'', stderr);
	for (; *s; s++)
		fputs(*s == '\'' ? "'\\''" : (char[2]){*s, 0}, stderr);
	fputc('\'', stderr);
}

/* The command that reads the results next. */
static void next_command(const char *path)
{
	fputs("allocab: bench: next: allocab compare ", stderr);
	shell_word(path);
	fputc('\n', stderr);
}

/* The command that continues the bench (docs/methodology.md, "Resuming a bench"): its own
 * arguments but the options a continuation sets itself (bench_continuation_args), then
 * --resume path. */
static void resume_command(int argc, char **argv, const char *path)
{
	const char **keep = calloc((size_t)argc + 1, sizeof *keep);
	size_t n = keep ? bench_continuation_args(argc, argv, keep) : 0;

	fputs("allocab: bench: to add rounds: allocab bench", stderr);
	for (size_t i = 0; i < n; i++) {
		fputc(' ', stderr);
		shell_word(keep[i]);
	}
	free(keep);
	fputs(" --resume ", stderr);
	shell_word(path);
	fputc('\n', stderr);
}

static void report(const struct bench_tell *t, const struct bench_result *r)
{
	char by[256] = "", rounds[96];
	size_t k = 0;

	rounds_text(r, rounds, sizeof rounds);
	if (strcmp(r->status, "interrupted") == 0) {
		errmsg_print(stderr, "bench", "interrupted after %s; results in %s", rounds,
		             t->results);
		return;
	}
	if (strcmp(r->status, "aborted") == 0)
		return; /* report_hopeless says why */
	for (size_t i = 1; bench_run_status_name(i); i++)
		if (r->by_status[i])
			k += (size_t)snprintf(by + k, sizeof by - k, "%s%zu %s", k ? ", " : "",
			                      r->by_status[i], bench_run_status_name(i));
	if (r->failed)
		fprintf(stderr,
		        "allocab: bench: %zu of %zu run%s did not succeed (%s); results in %s\n",
		        r->failed, r->runs, r->runs == 1 ? "" : "s", by, t->results);
	else if (!t->o->quiet)
		errmsg_print(stderr, "bench", "%s in %.1f s%s; results in %s", rounds, r->elapsed_s,
		             strcmp(r->status, "budget") == 0    ? ", stopped by --budget"
		             : strcmp(r->status, "decided") != 0 ? ""
		             : t->c->gate                        ? ", stopped: the gate decided"
		                          : ", stopped: every comparison decided",
		             t->results);
}

/* The budget's yield on stderr (calib_yield_report); a bench whose arms compare cannot judge by
 * default (no system arm) says so in one line. */
static void yield(const cJSON *doc)
{
	char err[1024];

	fputc('\n', stderr);
	if (calib_yield_report(doc, stderr, err, sizeof err) != ST_OK)
		errmsg_print(stderr, "bench", "no yield to report: %s", err);
}

/* The bench stopped after its first round: the arms whose proof cannot succeed, and why it
 * stopped. Returns ST_FAIL. */
static enum status report_hopeless(const struct bench_tell *t, const cJSON *doc, unsigned round)
{
	const cJSON *first =
	    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "rounds"), (int)round);

	bench_report_hopeless(t->c, first, stderr);
	fprintf(stderr,
	        "allocab: bench: stopped after the first round: no later round can change these "
	        "proofs (docs/programs.md, \"Failing loudly\"); results in %s\n",
	        t->results);
	return ST_FAIL;
}

enum status bench_tell_done(const struct bench_tell *t, const struct bench_result *r,
                            const cJSON *doc)
{
	enum status rc;

	report(t, r);
	if (!t->o->quiet && strcmp(r->status, "interrupted") != 0 &&
	    strcmp(r->status, "aborted") != 0)
		yield(doc);
	rc = strcmp(r->status, "interrupted") == 0 ? ST_INTERRUPTED
	     : t->c->gate                          ? gate_outcome_status(r->gate)
	                                           : ST_OK;
	/* An arm without a verified successful run fails the bench, whatever the gate. */
	if (strcmp(r->status, "aborted") == 0)
		rc = report_hopeless(t, doc, r->rounds0);
	else if (rc != ST_INTERRUPTED && bench_report_unproven(t->c, doc, stderr) > 0)
		rc = ST_FAIL;
	else if (r->measured && (rc == ST_INTERRUPTED || !t->o->quiet))
		next_command(t->results);
	/* a spent plan of adaptive allocation is not continued (front/engine/benchresume.c) */
	if (!t->c->gate && (r->planned == 0 || r->measured < r->planned) &&
	    (rc == ST_INTERRUPTED || (strcmp(r->status, "budget") == 0 && !t->o->quiet)))
		resume_command(t->argc, t->argv, t->results);
	return rc;
}

void bench_tell_failed(const struct bench_tell *t, const struct bench_result *r, const char *err)
{
	char rounds[96];

	errmsg_print(stderr, "bench", "%s", err);
	if (!r->resumable)
		return;
	rounds_text(r, rounds, sizeof rounds);
	errmsg_print(stderr, "bench", "stopped: %s keeps %s", t->results, rounds);
	resume_command(t->argc, t->argv, t->results);
}
