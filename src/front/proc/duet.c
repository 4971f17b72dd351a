/* duet.c - runs at once, each pinned to its CPU (two CPUs, or one shared), one forked helper each
 * (proc.h). A helper is a copy of the front end: it pins itself, waits on a common start pipe,
 * runs its process with runner_run (whose single-threaded signal handling it keeps intact),
 * judges it with the caller's judge while the run's tracking evidence is still there, and writes
 * the result to its pipe. */
#include "front/proc/proc.h"
#include "front/proc/guard.h"

#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/prng.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CPU_SEED_XOR 0xc0ffee5eedc0ffeeULL

int duet_round_swap(uint64_t shuffle_seed, unsigned round)
{
	struct prng r;

	prng_seed(&r, (shuffle_seed ^ CPU_SEED_XOR) + 0x9e3779b97f4a7c15ULL * (uint64_t)round);
	return (int)(prng_next(&r) >> 63);
}

int duet_cpus(int cpu[2], int shared, char *err, size_t errlen)
{
	cpu_set_t set;
	int k = 0;

	if (sched_getaffinity(0, sizeof set, &set) != 0) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < CPU_SETSIZE && k < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[k++] = i;
	if (k == 1 && shared)
		cpu[k++] = cpu[0];
	if (k < 2) {
		snprintf(err, errlen, "--duet needs two CPUs; this process may run on %d",
		         CPU_COUNT(&set));
		return -1;
	}
	return 0;
}

/* Most bytes of a run's containment object or judgement as text (a probe's summary lists every
 * process of the run). */
#define DUET_JSON_MAX (16u << 20)

/* What a helper sends back; r.out follows as r.out_len bytes, then the run's containment object
 * as contain_len bytes of compact JSON, then its judgement as judged_len bytes. The pointers of r
 * are the helper's and never followed. */
struct duet_msg {
	int ok;
	struct runner_result r;
	struct telemetry_sample tel[2];
	size_t contain_len, judged_len;
	char err[256];
};

/* o as compact JSON (malloc'd) and in *len its length; NULL and 0 when o is NULL or too long. */
static char *json_text(const cJSON *o, size_t *len)
{
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;

	*len = text ? strlen(text) : 0;
	if (*len > DUET_JSON_MAX) {
		cJSON_free(text);
		*len = 0;
		return NULL;
	}
	return text;
}

/* Seconds a helper may take to report after its run's time limit and grace: the judgement of
 * the run's records (a helper that takes longer is killed and the duet fails). */
#define DUET_REPORT_S 300

/* The helpers of one duet_run. */
struct helpers {
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

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* While waiting: asks every helper once to stop when *stop is set; resumes a helper stopped by a
 * signal (a program of the same user can stop the tracer of its run, or of a rival's). */
static void tend(struct helpers *h)
{
	for (size_t i = 0; i < h->n; i++) {
		if (h->pid[i] <= 0)
			continue;
		if (h->stop && *h->stop && !h->told)
			kill(h->pid[i], SIGTERM);
		if (guard_stopped(h->pid[i]) && kill(h->pid[i], SIGCONT) == 0 && !h->stopped) {
			h->stopped = 1;
			h->stopped_side = i;
		}
	}
	h->told |= h->stop && *h->stop;
}

/* Reads n bytes from fd, waking four times a second to tend the helpers, until h->until. 0, or -1
 * at EOF, error or the end of the wait (h->expired). */
static int read_all(int fd, void *p, size_t n, struct helpers *h)
{
	char *c = p;

	while (n > 0) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int ready = poll(&pf, 1, 250);
		ssize_t k;

		tend(h);
		if (ready == 0 || (ready < 0 && errno == EINTR)) {
			if (h->until > 0 && mono_s() > h->until) {
				h->expired = 1;
				return -1;
			}
			continue;
		}
		k = read(fd, c, n);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

static void helper(struct duet_side *s, int go_fd, int out_fd)
{
	struct duet_msg m;
	cpu_set_t set;
	cJSON *cn, *judged;
	char *out, *text, *jtext;
	char c;

	memset(&m, 0, sizeof m);
	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0) {
		snprintf(m.err, sizeof m.err, "cannot pin to CPU %d: %s", s->cpu, strerror(errno));
		write_full(out_fd, &m, sizeof m);
		_exit(1);
	}
	while (read(go_fd, &c, 1) < 0 && errno == EINTR)
		;
	telemetry_sample(&m.tel[0]);
	m.ok = runner_run(s->spec, &m.r, m.err, sizeof m.err) == 0;
	telemetry_sample(&m.tel[1]);
	cn = m.ok ? runner_containment_json(&m.r) : NULL;
	text = json_text(cn, &m.contain_len);
	judged = m.ok && s->judge ? s->judge(s->judge_ctx, &m.r) : NULL;
	jtext = json_text(judged, &m.judged_len);
	out = m.r.out;
	m.r.out = NULL;
	m.r.track = NULL;
	m.r.contain = NULL;
	if (write_full(out_fd, &m, sizeof m) != 0 ||
	    (m.ok && out && m.r.out_len && write_full(out_fd, out, m.r.out_len) != 0) ||
	    (m.ok && m.contain_len && write_full(out_fd, text, m.contain_len) != 0) ||
	    (m.ok && m.judged_len && write_full(out_fd, jtext, m.judged_len) != 0))
		_exit(1);
	_exit(0);
}

/* The JSON object called what that the helper of s sent, n bytes, into *o. */
static int read_object(const struct duet_side *s, const char *what, cJSON **o, int fd, size_t n,
                       struct helpers *h, char *err, size_t errlen)
{
	char *text;

	if (n > DUET_JSON_MAX) {
		snprintf(err, errlen, "duet helper for CPU %d sent %s too long", s->cpu, what);
		return -1;
	}
	if (!(text = malloc(n + 1))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (read_all(fd, text, n, h) != 0) {
		free(text);
		snprintf(err, errlen, "duet helper for CPU %d died while reporting", s->cpu);
		return -1;
	}
	text[n] = '\0';
	*o = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsObject(*o)) {
		cJSON_Delete(*o);
		*o = NULL;
		snprintf(err, errlen, "duet helper for CPU %d sent no %s", s->cpu, what);
		return -1;
	}
	return 0;
}

/* Reads side i's message into it. */
static int collect(struct duet_side *s, int fd, struct helpers *h, char *err, size_t errlen)
{
	struct duet_msg m;

	if (read_all(fd, &m, sizeof m, h) != 0) {
		snprintf(err, errlen, "duet helper for CPU %d died without a result", s->cpu);
		return -1;
	}
	if (!m.ok) {
		snprintf(err, errlen, "%s", m.err);
		return -1;
	}
	s->r = m.r;
	s->r.track = NULL; /* the tracking and containment evidence stays in the helper */
	s->r.contain = NULL;
	s->tel[0] = m.tel[0];
	s->tel[1] = m.tel[1];
	if (s->r.out_len || s->spec->capture_stdout) {
		if (!(s->r.out = malloc(s->r.out_len + 1))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (read_all(fd, s->r.out, s->r.out_len, h) != 0) {
			snprintf(err, errlen, "duet helper for CPU %d died while reporting",
			         s->cpu);
			return -1;
		}
		s->r.out[s->r.out_len] = '\0';
	}
	if (m.contain_len && read_object(s, "containment object", &s->containment, fd,
	                                 m.contain_len, h, err, errlen) != 0)
		return -1;
	return m.judged_len
	           ? read_object(s, "judgement", &s->judged, fd, m.judged_len, h, err, errlen)
	           : 0;
}

/* When every helper must have reported: the latest time limit and grace of the sides, and
 * DUET_REPORT_S; 0 (no end) when a side has no time limit. */
static double wait_until(const struct duet_side *side, size_t n)
{
	double most = 0;

	for (size_t i = 0; i < n; i++) {
		double t = side[i].spec->timeout_s + side[i].spec->grace_s;

		if (side[i].spec->timeout_s <= 0)
			return 0;
		most = t > most ? t : most;
	}
	return mono_s() + most + DUET_REPORT_S;
}

/* Reaps the helpers; failed: kills them first (SIGKILL acts on a stopped one too), then removes
 * what their runs left (the runs themselves die with their helper: runner.c). A helper stopped
 * after its report is resumed; one not gone within DUET_REAP_S is killed. */
#define DUET_REAP_S 5
static void reap(struct helpers *h, int failed)
{
	double until = mono_s() + DUET_REAP_S;

	for (size_t i = 0; i < h->n; i++) {
		if (failed && h->pid[i] > 0)
			kill(h->pid[i], SIGKILL);
		if (h->fd[i] >= 0)
			close(h->fd[i]);
		while (h->pid[i] > 0) {
			pid_t w = waitpid(h->pid[i], NULL, WNOHANG);

			if (w == h->pid[i] || (w < 0 && errno != EINTR))
				break;
			if (guard_stopped(h->pid[i]))
				kill(h->pid[i], SIGCONT);
			if (mono_s() > until)
				kill(h->pid[i], SIGKILL);
			nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
		}
	}
	if (failed)
		sweep_leftovers(NULL, "bench", 0);
}

int duet_run(struct duet_side *side, size_t n, const volatile sig_atomic_t *stop, char *err,
             size_t errlen)
{
	struct helpers h = {.n = n, .stop = stop};
	pid_t self = getpid();
	int go[2], rc = 0;

	if (n < 2 || n > DUET_MAX_SIDES) {
		snprintf(err, errlen, "runs at once: %zu sides, not 2 to %d", n, DUET_MAX_SIDES);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&side[i].r, 0, sizeof side[i].r);
		side[i].containment = side[i].judged = NULL;
		h.pid[i] = -1;
		h.fd[i] = -1;
	}
	for (size_t i = 0; i < n; i++)
		if (side[i].spec->contain)
			guard_ensure(); /* before the helpers: theirs is the bench's */
	if (pipe2(go, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	for (size_t i = 0; i < n && rc == 0; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) != 0) {
			snprintf(err, errlen, "cannot start a duet helper: %s", strerror(errno));
			rc = -1;
			break;
		}
		if ((h.pid[i] = fork()) < 0) {
			snprintf(err, errlen, "cannot start a duet helper: %s", strerror(errno));
			close(p[0]);
			close(p[1]);
			rc = -1;
			break;
		}
		if (h.pid[i] == 0) {
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self)
				_exit(1); /* a helper dies with the bench */
			close(go[1]);
			close(p[0]);
			helper(&side[i], go[0], p[1]);
		}
		close(p[1]);
		h.fd[i] = p[0];
	}
	close(go[0]);
	close(go[1]); /* the common start: every helper reads EOF */
	h.until = wait_until(side, n);
	for (size_t i = 0; i < n && rc == 0; i++)
		if ((rc = collect(&side[i], h.fd[i], &h, err, errlen)) != 0 && h.expired)
			snprintf(err, errlen, "duet helper for CPU %d did not report within %d s of its "
			         "run's time limit: killed", side[i].cpu, DUET_REPORT_S);
	if (rc == 0 && h.stopped)
		rc = errmsg_fail(err, errlen, "the duet helper for CPU %d (the tracer of its run) was "
		                 "stopped by a signal during the round: resumed, but its runs are no "
		                 "measurement", side[h.stopped_side].cpu);
	reap(&h, rc != 0);
	if (rc != 0) {
		for (size_t i = 0; i < n; i++) {
			runner_result_free(&side[i].r);
			cJSON_Delete(side[i].containment);
			cJSON_Delete(side[i].judged);
			side[i].containment = side[i].judged = NULL;
		}
	}
	return rc;
}
