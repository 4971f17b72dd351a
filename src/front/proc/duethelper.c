/* duethelper.c - a duet helper (duet.h): a forked copy of the bench that pins itself, waits on
 * the common start, runs its process with runner_run (whose single-threaded signal handling it
 * keeps intact), judges it with the caller's judge while the run's tracking evidence is still
 * there, and writes the report to its end of a socket pair. */
#include "front/proc/duet.h"
#include "front/proc/ptrack.h"

#include "common/atomicio.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

void duet_helper(struct duet_side *s, int go_fd, int out_fd)
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

