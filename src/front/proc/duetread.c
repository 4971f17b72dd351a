/* duetread.c - the bench's side of a duet report (duet.h): read while the helpers are tended,
 * checked against the kernel (duetcheck.h), or refused. */
#include "front/proc/duet.h"
#include "front/proc/duetcheck.h"
#include "front/proc/guard.h"

#include "common/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double duet_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* While waiting: asks every helper once to stop when *stop is set; resumes a helper stopped by a
 * signal (a program of the same user can stop the tracer of its run, or of a rival's). */
static void tend(struct duet_helpers *h)
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
static int read_all(int fd, void *p, size_t n, struct duet_helpers *h)
{
	char *c = p;

	while (n > 0) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int ready = poll(&pf, 1, 250);
		ssize_t k;

		tend(h);
		if (ready == 0 || (ready < 0 && errno == EINTR)) {
			if (h->until > 0 && duet_mono_s() > h->until) {
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

/* The JSON object that the helper of s sent, n bytes, into *o. 0, or -1 when it was cut short or
 * is not an object. */
static int read_object(cJSON **o, int fd, size_t n, struct duet_helpers *h)
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
static int collect(struct duet_side *s, int fd, struct duet_helpers *h, struct duet_msg *m)
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
static void drain_and_wait(int fd, pid_t pid, struct duet_helpers *h, struct duetcheck *c)
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
		if (h->until > 0 && duet_mono_s() > h->until && !h->expired) {
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
int duet_finish(struct duet_side *s, struct duet_helpers *h, size_t i, int64_t t0, char *err,
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
	c.window_ns = duet_clock_ns() - t0;
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

