/* phasemark.c - reading the marks file a program writes (marks.h, phasemark_*). */
#include "marks/marks.h"

#include "common/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

double phasemark_cpu_most(double run_cpu_ns)
{
	return run_cpu_ns * 1.01 + 2e6;
}

int phasemark_valid_name(const char *s, size_t n)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";

	if (n < 1 || n > PHASEMARK_MAX_NAME || (n == 5 && memcmp(s, "total", 5) == 0))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr(ok, s[i]))
			return 0;
	return 1;
}

/* The first bytes of s[0..n) for a message: printable ASCII, anything else as '?'. */
static void shown(const char *s, size_t n, char out[40])
{
	size_t k = n < 32 ? n : 32;

	for (size_t i = 0; i < k; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\'' ? s[i] : '?';
	strcpy(out + k, n > k ? "..." : "");
}

/* A decimal integer of 1 to 19 digits, no sign, into *v. */
static int parse_ns(const char *s, size_t n, int64_t *v)
{
	uint64_t x = 0;

	if (n < 1 || n > 19)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > INT64_MAX)
		return -1;
	*v = (int64_t)x;
	return 0;
}

/* The phase called name, added when new; NULL when there are already PHASEMARK_MAX_PHASES. */
static struct phasemark_phase *phase_of(struct phasemark_set *s, const char *name, size_t n)
{
	struct phasemark_phase *p;

	for (size_t i = 0; i < s->nphases; i++)
		if (strlen(s->phase[i].name) == n && memcmp(s->phase[i].name, name, n) == 0)
			return &s->phase[i];
	if (s->nphases == PHASEMARK_MAX_PHASES)
		return NULL;
	p = &s->phase[s->nphases++];
	memcpy(p->name, name, n);
	p->name[n] = '\0';
	p->open_at = -1;
	return p;
}

/* Room for one more span in p's three arrays. */
static int grow(struct phasemark_phase *p)
{
	size_t cap = p->cap ? 2 * p->cap : 16;
	int64_t *ns = realloc(p->ns, cap * sizeof *ns), *at, *cpu;
	uint32_t *pid;

	if (!ns)
		return -1;
	p->ns = ns;
	if (!(at = realloc(p->at, cap * sizeof *at)))
		return -1;
	p->at = at;
	if (!(cpu = realloc(p->cpu, cap * sizeof *cpu)))
		return -1;
	p->cpu = cpu;
	if (!(pid = realloc(p->pid, cap * sizeof *pid)))
		return -1;
	p->pid = pid;
	p->cap = cap;
	return 0;
}

/* One mark line's fields. */
struct mark {
	int end;
	const char *name;
	size_t nl;
	int64_t t;
	uint32_t pid; /* 0: none */
	int64_t cpu;  /* the process's CPU clock, -1: none */
};

static int end_span(struct phasemark_set *s, struct phasemark_phase *p, const struct mark *m,
                    size_t line, char *err, size_t errlen)
{
	int64_t d = m->t - p->open_at;

	if (p->open_at < 0)
		return errmsg_fail(err, errlen, "line %zu: end of '%s' that was not begun", line,
		                   p->name);
	if (d <= 0 || d > PHASEMARK_MAX_NS)
		return errmsg_fail(err, errlen,
		                   "line %zu: '%s' lasts %lld ns from its begin at line %zu: not "
		                   "in 1..10^15",
		                   line, p->name, (long long)d, p->open_line);
	if ((m->cpu >= 0) != (p->open_cpu >= 0))
		return errmsg_fail(err, errlen,
		                   "line %zu: '%s' %s a CPU time and its begin at line %zu %s: a "
		                   "span's two marks come from one helper",
		                   line, p->name, m->cpu >= 0 ? "ends with" : "ends without",
		                   p->open_line, m->cpu >= 0 ? "has none" : "has one");
	if (m->cpu >= 0 && (m->cpu < p->open_cpu || m->cpu - p->open_cpu > PHASEMARK_MAX_NS))
		return errmsg_fail(err, errlen,
		                   "line %zu: '%s' used %lld ns of CPU from its begin at line %zu: "
		                   "not in 0..10^15",
		                   line, p->name, (long long)(m->cpu - p->open_cpu), p->open_line);
	if (m->pid && p->open_pid && m->pid != p->open_pid)
		return errmsg_fail(err, errlen,
		                   "line %zu: pid %u ends '%s', begun by pid %u at line %zu: a span "
		                   "is one process's",
		                   line, m->pid, p->name, p->open_pid, p->open_line);
	if (s->nspans == PHASEMARK_MAX_SPANS)
		return errmsg_fail(err, errlen, "line %zu: more than %d phases ended", line,
		                   PHASEMARK_MAX_SPANS);
	if (p->n == p->cap && grow(p) != 0)
		return errmsg_fail(err, errlen, "out of memory");
	p->ns[p->n] = d;
	p->at[p->n] = p->open_at;
	p->cpu[p->n] = m->cpu >= 0 ? m->cpu - p->open_cpu : -1;
	s->cpu_spans += m->cpu >= 0;
	p->pid[p->n++] = p->open_pid ? p->open_pid : m->pid;
	s->nspans++;
	p->open_at = -1;
	return 0;
}

/* Splits line[0..n) into "begin|end NAME NS [PID [CPU]]". */
static int split(const char *line, size_t n, size_t no, struct mark *m, char *err, size_t errlen)
{
	const char *f[5], *end = line + n;
	size_t len[5], k = 0;
	char buf[40];
	int64_t pid = 0;

	for (const char *p = line; k < 5; k++) {
		const char *sp = k < 4 ? memchr(p, ' ', (size_t)(end - p)) : NULL;
		f[k] = p;
		len[k] = (size_t)((sp ? sp : end) - p);
		if (!sp) {
			k++;
			break;
		}
		p = sp + 1;
	}
	if (k < 3 ||
	    !((len[0] == 5 && memcmp(f[0], "begin", 5) == 0) ||
	      (len[0] == 3 && memcmp(f[0], "end", 3) == 0)))
		return errmsg_fail(err, errlen,
		                   "line %zu: not 'begin NAME NS [PID [CPU]]' or 'end NAME NS [PID "
		                   "[CPU]]'",
		                   no);
	m->end = len[0] == 3;
	m->name = f[1];
	m->nl = len[1];
	if (!phasemark_valid_name(f[1], len[1])) {
		shown(f[1], len[1], buf);
		return errmsg_fail(err, errlen,
		                   "line %zu: '%s' is not a phase name (1 to %d of [A-Za-z0-9_.-], "
		                   "not 'total')",
		                   no, buf, PHASEMARK_MAX_NAME);
	}
	if (parse_ns(f[2], len[2], &m->t) != 0) {
		shown(f[2], len[2], buf);
		if (len[2] > 19 && strspn(f[2], "0123456789") >= len[2])
			return errmsg_fail(err, errlen,
			                   "line %zu: timestamp '%s' is too long (%zu digits; at most "
			                   "19)",
			                   no, buf, len[2]);
		return errmsg_fail(err, errlen,
		                   "line %zu: timestamp '%s' is not a decimal integer of ns%s", no,
		                   buf, strspn(f[2], "0123456789") >= len[2] ? " below 2^63" : "");
	}
	if (k >= 4 && (parse_ns(f[3], len[3], &pid) != 0 || pid < 1 || pid > PHASEMARK_MAX_PID)) {
		shown(f[3], len[3], buf);
		return errmsg_fail(err, errlen, "line %zu: pid '%s' is not a process id (1 to %u)",
		                   no, buf, PHASEMARK_MAX_PID);
	}
	m->pid = (uint32_t)pid;
	m->cpu = -1;
	if (k == 5 && parse_ns(f[4], len[4], &m->cpu) != 0) {
		shown(f[4], len[4], buf);
		return errmsg_fail(err, errlen,
		                   "line %zu: CPU time '%s' is not a decimal integer of ns", no, buf);
	}
	return 0;
}

/* Line s->nlines, line[0..n) without its newline: "begin NAME NS [PID [CPU]]" or "end ...". */
static int parse_line(struct phasemark_set *s, const char *line, size_t n,
                      struct phasemark_window run, char *err, size_t errlen)
{
	struct phasemark_phase *p;
	struct mark m = {0};
	size_t no = s->nlines;
	int64_t lo = run.lo, hi = run.hi;

	if (split(line, n, no, &m, err, errlen) != 0)
		return -1;
	if ((lo || hi) && (m.t < lo || m.t > hi))
		return errmsg_fail(err, errlen,
		                   "line %zu: timestamp %lld lies outside the run (%lld..%lld): not "
		                   "CLOCK_MONOTONIC nanoseconds",
		                   no, (long long)m.t, (long long)lo, (long long)hi);
	if (!(p = phase_of(s, m.name, m.nl)))
		return errmsg_fail(err, errlen, "line %zu: more than %d phase names", no,
		                   PHASEMARK_MAX_PHASES);
	if (m.end)
		return end_span(s, p, &m, no, err, errlen);
	if (p->open_at >= 0)
		return errmsg_fail(err, errlen,
		                   "line %zu: begin of '%s' while it is open (begun at line %zu)",
		                   no, p->name, p->open_line);
	p->open_at = m.t;
	p->open_line = no;
	p->open_pid = m.pid;
	p->open_cpu = m.cpu;
	return 0;
}

int phasemark_parse(const char *text, size_t len, struct phasemark_window run,
                    struct phasemark_set *s, char *err, size_t errlen)
{
	size_t at = 0;

	memset(s, 0, sizeof *s);
	if (len > PHASEMARK_MAX_BYTES)
		return errmsg_fail(err, errlen, "the marks exceed %u bytes", PHASEMARK_MAX_BYTES);
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;

		s->nlines++;
		if (n + 1 > PHASEMARK_MAX_LINE)
			return errmsg_fail(err, errlen, "line %zu: longer than %d bytes", s->nlines,
			                   PHASEMARK_MAX_LINE);
		if (!nl)
			return errmsg_fail(err, errlen,
			                   "line %zu: no newline at its end (a mark cut short)",
			                   s->nlines);
		if (parse_line(s, text + at, n, run, err, errlen) != 0)
			return -1;
		at += n + 1;
	}
	for (size_t i = 0; i < s->nphases; i++)
		if (s->phase[i].open_at >= 0)
			return errmsg_fail(err, errlen, "'%s' begun at line %zu never ended",
			                   s->phase[i].name, s->phase[i].open_line);
	return 0;
}

int phasemark_read(const char *path, int64_t lo, int64_t hi, struct phasemark_set *s, char *err,
                   size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t n = 0;
	int rc = 0;

	memset(s, 0, sizeof *s);
	if (fd < 0)
		return errmsg_fail(err, errlen, "cannot open the marks file: %s",
		                   errno == ELOOP ? "a symbolic link replaced it" : strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return errmsg_fail(err, errlen, "the marks file is not a regular file");
	}
	if (!(buf = malloc(PHASEMARK_MAX_BYTES + 1))) {
		close(fd);
		return errmsg_fail(err, errlen, "out of memory");
	}
	for (;;) {
		ssize_t k = read(fd, buf + n, PHASEMARK_MAX_BYTES + 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			rc = errmsg_fail(err, errlen, "cannot read the marks file: %s", strerror(errno));
		if (k <= 0 || (n += (size_t)k) > PHASEMARK_MAX_BYTES)
			break;
	}
	close(fd);
	if (rc == 0)
		rc = phasemark_parse(buf, n, (struct phasemark_window){lo, hi}, s, err, errlen);
	free(buf);
	return rc;
}

void phasemark_free(struct phasemark_set *s)
{
	for (size_t i = 0; i < s->nphases; i++) {
		free(s->phase[i].ns);
		free(s->phase[i].at);
		free(s->phase[i].pid);
		free(s->phase[i].cpu);
	}
	memset(s, 0, sizeof *s);
}
