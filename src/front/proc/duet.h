/* duet.h - internal to duet runs (duet_run, proc.h): what a helper sends back and the bench's
 * hold on its helpers while they run. duet.c starts the helpers and reaps them; each helper, a
 * forked copy of the bench, runs its side (duethelper.c); duetread.c reads and checks each
 * report. Not for other modules. */
#ifndef ALLOCAB_DUET_H
#define ALLOCAB_DUET_H

#include "front/proc/proc.h"

#include <stdint.h>
#include <time.h>

/* Most bytes of a run's containment object or judgement as text (a probe's summary lists every
 * process of the run). */
#define DUET_JSON_MAX (16u << 20)

/* Why a helper could not run its process (duet_msg.fail). No text comes through the channel: the
 * bench words the reason itself. */
enum duet_fail { DUET_RAN, DUET_NO_PIN, DUET_NO_RUN };

/* What a helper sends back, and all it sends; r.out follows as r.out_len bytes, then the run's
 * containment object as contain_len bytes of compact JSON, then its judgement as judged_len
 * bytes. The pointers of r are the helper's and never followed. */
struct duet_msg {
	int ok;
	int fail, fail_errno; /* !ok: enum duet_fail and errno */
	struct runner_result r;
	struct telemetry_sample tel[2];
	size_t contain_len, judged_len;
};

/* Seconds a helper may take to report after its run's time limit and grace: the judgement of
 * the run's records (a helper that takes longer is killed and the duet fails). */
#define DUET_REPORT_S 300

/* The helpers of one duet_run. */
struct duet_helpers {
	pid_t pid[DUET_MAX_SIDES];
	int fd[DUET_MAX_SIDES];
	size_t n;
	const volatile sig_atomic_t *stop;
	int told;            /* they were asked to stop */
	double until;        /* CLOCK_MONOTONIC second by which every report is in (0: none) */
	int expired;         /* the wait passed until */
	int stopped;         /* a helper was found stopped by a signal (and resumed) */
	size_t stopped_side; /* the first one */
};

static inline int64_t duet_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CLOCK_MONOTONIC in seconds. */
double duet_mono_s(void);

/* Helper side s: pins itself to s->cpu, waits for EOF on go_fd, runs and judges, writes its
 * report to out_fd. Never returns. */
__attribute__((noreturn)) void duet_helper(struct duet_side *s, int go_fd, int out_fd);

/* Reads, checks and ends side i, whose helpers started at t0. 0, or -1 with err when its helper
 * could not run its process. */
int duet_finish(struct duet_side *s, struct duet_helpers *h, size_t i, int64_t t0, char *err,
                size_t errlen);

#endif
