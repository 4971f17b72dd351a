/* runner.c - one process, measured or in the foreground (runner_run, proc.h): its lifetimes in
 * order (runner.h): the signals caught, the child started (runspawn.c), waited for and reaped
 * (runwait.c), what it left waited for, and its output collected (here). */
#include "front/proc/runner.h"
#include "front/proc/contain.h"
#include "front/proc/guard.h"
#include "front/proc/ptrack.h"

#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The captured stdout and the cleaned stderr tail into u->r. */
static void collect(struct run *u, int resumed)
{
	struct runner_result *r = u->r;
	struct sink *s = u->sinks;
	size_t keep;

	if (s[0].buf)
		s[0].buf[s[0].len] = '\0';
	r->out = s[0].buf;
	r->out_len = s[0].len;
	r->out_truncated = s[0].truncated;
	s[0].buf = NULL;
	keep = s[1].len < RUNNER_TAIL_MAX ? s[1].len : RUNNER_TAIL_MAX;
	r->tail_len = runner_clean_tail(u->tailbuf + s[1].len - keep, keep,
	                                s[1].truncated || s[1].len > keep, r->tail);
	if (resumed)
		r->tail_len = (size_t)snprintf(r->tail, sizeof r->tail, "%s",
		                               "allocab: the bench was stopped by a signal during the "
		                               "run and resumed by its guard past the run's time limit");
}

/* Closes what is left open and frees what the run no longer needs; rc != 0: containment too. */
static void finish(struct run *u, int rc)
{
	for (int i = 0; i < 2; i++) {
		if (u->out[i] >= 0)
			close(u->out[i]);
		if (u->errp[i] >= 0)
			close(u->errp[i]);
		if (u->hold[i] >= 0)
			close(u->hold[i]);
		if (u->ready[i] >= 0)
			close(u->ready[i]);
		if (u->sinks[i].fd >= 0)
			close(u->sinks[i].fd);
	}
	if (rc != 0) {
		contain_free(u->r->contain);
		u->r->contain = NULL;
	}
	free(u->sinks[0].buf);
	free(u->env);
	free(u->padvar);
	runner_restore_signals(u);
}

int runner_run(const struct runner_spec *spec, struct runner_result *r, char *err, size_t errlen)
{
	struct run u = {.spec = spec, .r = r, .fg = spec->flags & RUNNER_FOREGROUND,
	                .fwd = spec->flags & RUNNER_FORWARD_SIGNALS, .parent = getpid(),
	                .out = {-1, -1}, .errp = {-1, -1}, .hold = {-1, -1}, .ready = {-1, -1},
	                .sinks = {{.fd = -1, .limit = RUNNER_OUT_MAX},
	                          {.fd = -1, .limit = RUNNER_TAIL_MAX, .tail = 1}}};
	int rc = -1;

	memset(r, 0, sizeof *r);
	r->end = RUNNER_EXITED;
	if (spec->contain)
		guard_ensure();
	u.sinks[1].buf = u.tailbuf;
	if (spec->capture_stdout && !u.fg && !(u.sinks[0].buf = malloc(u.sinks[0].cap = 65536))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	runner_catch_signals(&u);
	if (spec->stop && *spec->stop) {
		r->end = RUNNER_STOPPED;
		rc = 0;
	} else if (runner_spawn(&u, err, errlen) == 0) {
		int resumed = runner_supervise(&u);

		if (spec->flags & RUNNER_WAIT_ORPHANS)
			runner_wait_orphans(&u);
		collect(&u, resumed);
		rc = 0;
	}
	finish(&u, rc);
	return rc;
}

void runner_result_free(struct runner_result *r)
{
	if (!r)
		return;
	free(r->out);
	r->out = NULL;
	r->out_len = 0;
	ptrack_free(r->track);
	r->track = NULL;
	contain_free(r->contain);
	r->contain = NULL;
}

const char *runner_signal_name(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
	    {SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},       {SIGQUIT, "SIGQUIT"},
	    {SIGILL, "SIGILL"},       {SIGTRAP, "SIGTRAP"},     {SIGABRT, "SIGABRT"},
	    {SIGBUS, "SIGBUS"},       {SIGFPE, "SIGFPE"},       {SIGKILL, "SIGKILL"},
	    {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"},     {SIGUSR2, "SIGUSR2"},
	    {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"},     {SIGTERM, "SIGTERM"},
	    {SIGSTKFLT, "SIGSTKFLT"}, {SIGCHLD, "SIGCHLD"},     {SIGCONT, "SIGCONT"},
	    {SIGSTOP, "SIGSTOP"},     {SIGTSTP, "SIGTSTP"},     {SIGTTIN, "SIGTTIN"},
	    {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},       {SIGXCPU, "SIGXCPU"},
	    {SIGXFSZ, "SIGXFSZ"},     {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"},
	    {SIGWINCH, "SIGWINCH"},   {SIGIO, "SIGIO"},         {SIGPWR, "SIGPWR"},
	    {SIGSYS, "SIGSYS"},
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].sig == sig)
			return names[i].name;
	return NULL;
}

size_t runner_clean_tail(const char *raw, size_t n, int cut, char *out)
{
	const unsigned char *s = (const unsigned char *)raw;
	size_t i = 0, k = 0;

	if (cut) {
		const char *nl = memchr(raw, '\n', n);

		if (nl && (size_t)(nl - raw) + 1 < n)
			i = (size_t)(nl - raw) + 1;
		else
			while (i < n && (s[i] & 0xC0) == 0x80)
				i++;
	}
	while (n > i && (raw[n - 1] == '\n' || raw[n - 1] == '\r'))
		n--;
	while (i < n) {
		int len = s[i] ? utf8_seq(s + i, n - i) : 0;

		if (len <= 0) {
			out[k++] = '?';
			i++;
			continue;
		}
		memcpy(out + k, s + i, (size_t)len);
		k += (size_t)len;
		i += (size_t)len;
	}
	out[k] = '\0';
	return k;
}
