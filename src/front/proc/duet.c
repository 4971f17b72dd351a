/* duet.c - runs at once, each pinned to its CPU (two CPUs, or one shared), one forked helper each
 * (proc.h). A helper is a copy of the front end: it pins itself, waits on a common start pipe,
 * runs its process with runner_run (whose single-threaded signal handling it keeps intact),
 * judges it with the caller's judge while the run's tracking evidence is still there, and writes
 * the result to its end of a socket pair. The bench and its helpers are not dumpable, and the
 * report comes through an AF_UNIX socket, which open(2) of a /proc/PID/fd link cannot reopen
 * (ENXIO), so that the run cannot write into it; what the bench reads is then checked against
 * the kernel (duetcheck.h). */
#include "front/proc/proc.h"
#include "front/proc/guard.h"
#include "front/proc/duetcheck.h"
#include "front/proc/ptrack.h"

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
#include <sys/socket.h>
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

/* Sets member name of o to v, a new item (NULL: nothing). */
static void set_item(cJSON *o, const char *name, cJSON *v)
{
	if (!v)
		return;
	if (cJSON_GetObjectItemCaseSensitive(o, name))
		cJSON_ReplaceItemInObjectCaseSensitive(o, name, v);
	else
		cJSON_AddItemToObject(o, name, v);
}

/* A run one of whose processes could run elsewhere than on the CPU cpu its helper pinned it to
 * (ptrack.h, affinity_tid): its judgement made unverified for that (when it was verified), and its
 * summary given "left_cpu": {"pid", "cpus"}. */
static void left_cpu(cJSON *judged, int cpu, const struct ptrack *t)
{
	cJSON *sum = cJSON_GetObjectItemCaseSensitive(judged, "summary"), *o;
	char why[200];

	snprintf(
	    why, sizeof why,
	    "process %ld could run on CPUs %s at its exit or exec, not only on CPU %d that its "
	    "run was given (sched_setaffinity)",
	    t->affinity_tid, t->affinity_cpus, cpu);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(judged, "verified"))) {
		set_item(judged, "verified", cJSON_CreateFalse());
		set_item(judged, "reason", cJSON_CreateString(why));
		if (cJSON_IsObject(sum)) {
			set_item(sum, "verified", cJSON_CreateFalse());
			set_item(sum, "reason", cJSON_CreateString(why));
		}
	}
	if (cJSON_IsObject(sum) && (o = cJSON_CreateObject())) {
		cJSON_AddNumberToObject(o, "pid", (double)t->affinity_tid);
		cJSON_AddStringToObject(o, "cpus", t->affinity_cpus);
		set_item(sum, "left_cpu", o);
	}
}

static void helper(struct duet_side *s, int go_fd, int out_fd)
{
	struct duet_msg m;
	cpu_set_t set;
	cJSON *cn, *judged;
	char *out, *text, *jtext;
	char c, err[256];

	memset(&m, 0, sizeof m);
	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0) {
		m.fail = DUET_NO_PIN;
		m.fail_errno = errno;
		write_full(out_fd, &m, sizeof m);
		_exit(1);
	}
	while (read(go_fd, &c, 1) < 0 && errno == EINTR)
		;
	telemetry_sample(&m.tel[0]);
	errno = 0;
	m.ok = runner_run(s->spec, &m.r, err, sizeof err) == 0;
	m.fail = m.ok ? DUET_RAN : DUET_NO_RUN;
	m.fail_errno = m.ok ? 0 : errno;
	telemetry_sample(&m.tel[1]);
	cn = m.ok ? runner_containment_json(&m.r) : NULL;
	text = json_text(cn, &m.contain_len);
	judged = m.ok && s->judge ? s->judge(s->judge_ctx, &m.r) : NULL;
	if (judged && m.r.track && m.r.track->affinity_tid > 0)
		left_cpu(judged, s->cpu, m.r.track);
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
	_exit(m.ok ? 0 : 1);
}

/* The JSON object that the helper of s sent, n bytes, into *o. 0, or -1 when it was cut short or
 * is not an object. */
static int read_object(cJSON **o, int fd, size_t n, struct helpers *h)
{
	char *text = malloc(n + 1);

	if (!text || read_all(fd, text, n, h) != 0) {
		free(text);
		return -1;
	}
	text[n] = '\0';
	*o = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsObject(*o)) {
		cJSON_Delete(*o);
		*o = NULL;
		return -1;
	}
	return 0;
}

/* Reads side s's report from fd into s and *m. 0, or -1 when it is not one (cut short, a length
 * out of range, an object that is not JSON). */
static int collect(struct duet_side *s, int fd, struct helpers *h, struct duet_msg *m)
{
	if (read_all(fd, m, sizeof *m, h) != 0 || (m->ok != 0 && m->ok != 1) ||
	    m->r.end < RUNNER_EXITED || m->r.end > RUNNER_STOPPED ||
	    m->r.out_len > RUNNER_OUT_MAX || m->r.tail_len > RUNNER_TAIL_MAX ||
	    m->r.tail[m->r.tail_len] != '\0' || m->r.orphans || m->contain_len > DUET_JSON_MAX ||
	    m->judged_len > DUET_JSON_MAX)
		return -1;
	if (!m->ok)
		return 0;
	s->r = m->r;
	s->r.out = NULL;
	s->r.track = NULL; /* the tracking and containment evidence stays in the helper */
	s->r.contain = NULL;
	s->tel[0] = m->tel[0];
	s->tel[1] = m->tel[1];
	if (s->r.out_len || s->spec->capture_stdout) {
		if (!(s->r.out = malloc(s->r.out_len + 1)) ||
		    read_all(fd, s->r.out, s->r.out_len, h) != 0)
			return -1;
		s->r.out[s->r.out_len] = '\0';
	}
	if (m->contain_len && read_object(&s->containment, fd, m->contain_len, h) != 0)
		return -1;
	return m->judged_len ? read_object(&s->judged, fd, m->judged_len, h) : 0;
}

static int64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The text of path (a /proc file) into buf, NUL-terminated. 0 or -1. */
static int read_proc(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Reads what follows a report in fd until EOF, or until helper pid has exited and nothing more is
 * there (a copy of its end taken elsewhere keeps EOF away); waits for it without reaping, reads
 * what the kernel counted of its children, then reaps it: into c. */
static void drain_and_wait(int fd, pid_t pid, struct helpers *h, struct duetcheck *c)
{
	char buf[4096], path[64];
	siginfo_t si = {0};
	long long cu = 0, cs = 0, hz = sysconf(_SC_CLK_TCK);
	int exited = 0;

	for (;;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		ssize_t k;

		exited =
		    exited || (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		               si.si_pid == pid);
		if (poll(&pf, 1, exited ? 0 : 100) > 0) {
			if ((k = read(fd, buf, sizeof buf)) > 0 || (k < 0 && errno == EINTR)) {
				c->extra += k > 0 ? (size_t)k : 0;
				continue;
			}
			break; /* EOF */
		}
		if (exited)
			break;
		tend(h);
		if (h->until > 0 && mono_s() > h->until && !h->expired) {
			h->expired = 1;
			kill(pid, SIGKILL);
		}
	}
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		tend(h);
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	c->have_kernel = read_proc(path, buf, sizeof buf) == 0 &&
	                 duetcheck_parse_stat(buf, &cu, &cs) == 0 && cu < (1LL << 40) &&
	                 cs < (1LL << 40);
	c->exited = si.si_pid == pid && si.si_code == CLD_EXITED;
	c->status = si.si_status;
	c->tick_ns = hz > 0 ? 1000000000 / hz : 10000000;
	c->kernel_user_ns = (int64_t)cu * c->tick_ns;
	c->kernel_sys_ns = (int64_t)cs * c->tick_ns;
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* A number of a containment object as ns, or -1 when it is none or out of range. */
static int64_t json_ns(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9e18
	           ? (int64_t)v->valuedouble
	           : -1;
}

/* The figures of side s's report m into c. */
static void report_figures(const struct duet_side *s, const struct duet_msg *m, struct duetcheck *c)
{
	const cJSON *cg = cJSON_GetObjectItemCaseSensitive(s->containment, "cgroup_cpu");
	int64_t u = json_ns(cg, "user_ns"), y = json_ns(cg, "sys_ns");

	c->ok = m->ok;
	c->user_ns = m->r.user_ns;
	c->sys_ns = m->r.sys_ns;
	c->wall_ns = m->r.wall_ns;
	c->have_cgroup = cJSON_IsObject(cg);
	c->cgroup_ns = !c->have_cgroup ? 0 : u < 0 || y < 0 ? -1 : u + y;
}

/* Side s, whose report was refused for the fixed reason why, as the kernel saw it: its helper's
 * children's CPU time and the bench's clock, exit status 1 (the run's own is not known); made
 * unverified for why by its judgement. */
static void refuse(struct duet_side *s, const struct duetcheck *c, const char *why)
{
	cJSON *j = cJSON_CreateObject();

	runner_result_free(&s->r);
	cJSON_Delete(s->containment);
	cJSON_Delete(s->judged);
	memset(&s->r, 0, sizeof s->r);
	memset(s->tel, 0, sizeof s->tel);
	s->containment = NULL;
	s->r.end = RUNNER_EXITED;
	s->r.exit_code = 1;
	s->r.wall_ns = c->window_ns;
	s->r.user_ns = c->have_kernel ? c->kernel_user_ns : 0;
	s->r.sys_ns = c->have_kernel ? c->kernel_sys_ns : 0;
	s->r.out = s->spec->capture_stdout ? calloc(1, 1) : NULL;
	cJSON_AddBoolToObject(j, "verified", 0);
	cJSON_AddStringToObject(j, "reason", why);
	cJSON_AddNullToObject(j, "summary");
	s->judged = j;
	s->refused = why;
}

/* Reads, checks and ends side i (duet_run). 0, or -1 with err when its helper could not run its
 * process. */
static int finish(struct duet_side *s, struct helpers *h, size_t i, int64_t t0, char *err,
                  size_t errlen)
{
	struct duet_msg m;
	struct duetcheck c = {.ncpu = sysconf(_SC_NPROCESSORS_ONLN)};
	const char *why = NULL;

	memset(&m, 0, sizeof m);
	if (collect(s, h->fd[i], h, &m) != 0)
		why = DUETCHECK_MALFORMED;
	report_figures(s, &m, &c);
	drain_and_wait(h->fd[i], h->pid[i], h, &c);
	h->pid[i] = -1;
	c.window_ns = clock_ns() - t0;
	if (!why)
		why = duetcheck_judge(&c);
	if (why) {
		refuse(s, &c, why);
		return 0;
	}
	if (!m.ok)
		return errmsg_fail(err, errlen, "duet helper for CPU %d could not %s: %s", s->cpu,
		                   m.fail == DUET_NO_PIN ? "pin itself to it" : "start its run",
		                   m.fail_errno ? strerror(m.fail_errno) : "out of memory");
	return 0;
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
	int64_t t0;

	if (n < 2 || n > DUET_MAX_SIDES) {
		snprintf(err, errlen, "runs at once: %zu sides, not 2 to %d", n, DUET_MAX_SIDES);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&side[i].r, 0, sizeof side[i].r);
		side[i].containment = side[i].judged = NULL;
		side[i].refused = NULL;
		h.pid[i] = -1;
		h.fd[i] = -1;
	}
	for (size_t i = 0; i < n; i++)
		if (side[i].spec->contain)
			guard_ensure(); /* before the helpers: theirs is the bench's */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* and so its helpers: dumpable.h */
	if (pipe2(go, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	t0 = clock_ns();
	for (size_t i = 0; i < n && rc == 0; i++) {
		int p[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) != 0) {
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
		if ((rc = finish(&side[i], &h, i, t0, err, errlen)) == 0 && h.expired)
			rc = errmsg_fail(err, errlen, "duet helper for CPU %d did not report within %d s "
			                 "of its run's time limit: killed", side[i].cpu, DUET_REPORT_S);
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
