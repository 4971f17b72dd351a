/* proc.h - the proc module: running the processes a bench measures and proving what ran in
 * them. The engine (front/engine) and `allocab record`'s session (trace/session.c) call it; it
 * calls no other module; the other headers of this folder are private to it.
 *
 * Stated once for all below: a function that can fail returns 0 (or a pointer) or else -1 (or
 * NULL) with a one-line reason in err, errlen bytes; a NULL without err means memory ran out.
 * None exits. A returned cJSON object is the caller's; pointers given are borrowed for the call
 * unless a field says it is kept. */
#ifndef ALLOCAB_PROC_H
#define ALLOCAB_PROC_H

#include <cjson/cJSON.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- The runner (runner.c), the front end's one process supervisor. By default one measured
 * process of a bench: fork/exec in its own process group with a padded environment, stdout
 * captured whole and the tail of stderr, timed with CLOCK_MONOTONIC around fork..wait4 with
 * wait4's rusage, killed (SIGTERM to the group, SIGKILL after a grace) at its timeout or at stop,
 * and by the kernel (PR_SET_PDEATHSIG) when this process dies first; on request tracked
 * (ptrack.h) and contained (contain.h). Its flags ask for what `allocab record` needs. ---- */

/* The environment variable whose random-length value pads every run's environment. */
#define RUNNER_PAD_VAR  "ALLOCAB_PAD"
#define RUNNER_TAIL_MAX 1024        /* bytes of stderr kept */
#define RUNNER_OUT_MAX  (16u << 20) /* bytes of stdout kept when captured */

/* What a run asks of the runner besides the defaults above (runner_spec.flags, or'ed). */
enum runner_flag {
	/* The child stays in this process's process group and inherits its stdin, stdout, stderr,
	 * signal mask and ignored signals, as a shell's foreground job does: the terminal's signals
	 * (Ctrl-C) and input reach it directly. Nothing is captured (out stays NULL, tail empty);
	 * this process's stdio is flushed before the fork. A kill at the timeout or at stop goes to
	 * the child alone, and what it leaves running is not killed. */
	RUNNER_FOREGROUND = 1 << 0,
	/* A path without a '/' is searched for in PATH, as execvp does (a file that is not an
	 * executable format runs under /bin/sh). */
	RUNNER_PATH_SEARCH = 1 << 1,
	/* The environment is not padded: no RUNNER_PAD_VAR is added, an inherited one is kept. */
	RUNNER_NO_PAD = 1 << 2,
	/* The child gets SIGTERM when this process dies (PR_SET_PDEATHSIG); when it has died before
	 * the child could ask for that, the child exits 128 + SIGTERM without exec. */
	RUNNER_DIE_WITH_PARENT = 1 << 3,
	/* SIGINT, SIGTERM and SIGHUP are caught while runner_run lasts, the caller's handlers put
	 * back when it returns: one a process sent (kill(2), si_code <= 0) is passed on to the
	 * child while it runs; one from the terminal is not (the terminal signals a foreground
	 * child itself). None stops the run; the last one caught is r->signal. */
	RUNNER_FORWARD_SIGNALS = 1 << 4,
	/* When the child has ended, waits up to orphan_wait_s for what it left running and was
	 * re-parented to this process (runner_adopt_orphans), reaping it; a signal caught under
	 * RUNNER_FORWARD_SIGNALS, before or during the wait, ends it. r->orphans counts what still
	 * runs. Meant for a process that runs no other children at the time. */
	RUNNER_WAIT_ORPHANS = 1 << 5,
};

struct runner_spec {
	const char *path;     /* executable, run with execve (RUNNER_PATH_SEARCH: as execvp) */
	char *const *argv;    /* NULL-terminated; argv[0] is what the process sees */
	size_t pad_bytes;     /* length of the RUNNER_PAD_VAR value added to the environment */
	double timeout_s;     /* > 0; 0: no timeout */
	double grace_s;       /* SIGTERM .. SIGKILL */
	unsigned flags;       /* enum runner_flag */
	double orphan_wait_s; /* RUNNER_WAIT_ORPHANS: the longest wait, in seconds */
	/* Who the child's exec failure line names: "allocab: WHO: PATH: reason"; NULL: "allocab:
	 * cannot execute PATH: reason". */
	const char *exec_who;
	int capture_stdout; /* 0: stdout is read and dropped */
	/* Set asynchronously (signal handler) to stop the run early; may be NULL. The runner blocks
	 * SIGINT, SIGTERM, SIGHUP and SIGCHLD while it runs and waits with ppoll, so a signal that
	 * sets the flag wakes it at once. */
	const volatile sig_atomic_t *stop;
	/* "NAME=VALUE" entries set in the inherited environment as setenv would: in NAME's place
	 * when it is there, else at the end, in their order; NULL-terminated, may be NULL. */
	char *const *env_set;
	/* Track every process of the run (ptrack.h): the child waits on a pipe until it is
	 * attached, then execs. 0: the child execs at once, nothing is traced. */
	int track;
	/* Contain the run (contain.h): a cgroup of its own, emptied at the end, and with track the
	 * proc connector's record of its forks and execs, as far as this process may have them. */
	int contain;
	/* The run's probe record file, whose size the tracker notes at each exec, or NULL. */
	const char *probe_file;
};

struct ptrack;
struct contain;
enum runner_end {
	RUNNER_EXITED,   /* exit_code is valid */
	RUNNER_SIGNALED, /* died of term_signal */
	RUNNER_TIMEOUT,  /* killed at timeout_s */
	RUNNER_STOPPED,  /* killed because *stop was set (or never started) */
};

struct runner_result {
	enum runner_end end;
	int exit_code;
	int term_signal;
	long pid;                /* the process started (0 if none was) */
	int64_t wall_ns;         /* CLOCK_MONOTONIC from just before fork to wait4's return */
	int64_t user_ns, sys_ns; /* wait4 rusage: the process and the children it waited for */
	long max_rss_kib;
	long minor_faults, major_faults;
	long vol_ctx_switches, invol_ctx_switches;
	char *out; /* captured stdout, NUL-terminated (NULL if not captured) */
	size_t out_len;
	int out_truncated; /* stdout exceeded RUNNER_OUT_MAX; out holds the first part */
	char tail[RUNNER_TAIL_MAX + 1]; /* last bytes of stderr, NUL-terminated */
	size_t tail_len;
	/* spec.track: what the tracker saw, or why it could not attach (owned by r); else NULL */
	struct ptrack *track;
	/* spec.contain: what containment had and saw (owned by r); else NULL */
	struct contain *contain;
	int signal; /* RUNNER_FORWARD_SIGNALS: the last signal caught, 0 if none */
	/* RUNNER_WAIT_ORPHANS: processes the child left that still ran when the wait ended, and
	 * "pid N NAME" of up to 3 of them (", ..." after them when there are more) */
	size_t orphans;
	char orphan_names[192];
};

/* Runs spec to completion: 0 with *r filled (what r owns: runner_result_free), or -1 when the
 * process could not be started (pipe, fork, no memory for the tracker). An exec failure is the
 * child's: it says so on its stderr and exits 127. What the run leaves in its process group
 * (with spec.contain, in its cgroup or the connector's tree of it) is killed when it ends. */
int runner_run(const struct runner_spec *spec, struct runner_result *r, char *err, size_t errlen);
/* Frees what r owns; accepts NULL and a zeroed result. */
void runner_result_free(struct runner_result *r);
/* Makes this process the reaper of its descendants' orphans (PR_SET_CHILD_SUBREAPER), for
 * RUNNER_WAIT_ORPHANS, for the rest of its life. */
int runner_adopt_orphans(char *err, size_t errlen);
/* The processes the tracker counted in r's run (0 when it was not tracked). */
size_t runner_tracked_processes(const struct runner_result *r);
/* The "containment" object of r's run (docs/results-format.md), or NULL without containment. */
cJSON *runner_containment_json(const struct runner_result *r);
/* "SIGSEGV" for SIGSEGV and so on; NULL for a number without a name. */
const char *runner_signal_name(int sig);

/* ---- Telemetry (telemetry.c): what else happened on the machine around a run, recorded per
 * run so that compare can flag rounds disturbed from outside (docs/methodology.md, "Noise
 * telemetry and drift"). ---- */

struct telemetry_sample {
	int have_steal, have_load, have_runnable;
	uint64_t steal_ticks; /* aggregate "cpu" line, USER_HZ ticks summed over all CPUs */
	double loadavg_1m;
	unsigned runnable; /* tasks runnable or running now, the reader included (field 4, R of R/T) */
};

/* CPU time stolen by the hypervisor (/proc/stat), the 1-minute load average and the tasks
 * runnable now (/proc/loadavg); what cannot be read is left unset (have_* = 0). */
void telemetry_sample(struct telemetry_sample *t);

/* ---- Runs at once (duet.c): for `allocab bench --duet` (Bulej et al., "Duet Benchmarking",
 * 2020) the two arms of a pair, each pinned to its own CPU, so that whatever disturbs the machine
 * disturbs both alike and cancels in their ratio; for `--one-cpu` every arm on one shared CPU.
 * Each run is supervised by a forked helper that pins itself (the run inherits the affinity),
 * waits for a common start, runs it with runner_run and reports back. ---- */

/* Whether the arms of round `round` take their CPUs swapped (1) or in order (0): one fair draw per
 * round from the shuffle seed, so no arm is favoured by the parity of the round count. */
int duet_round_swap(uint64_t shuffle_seed, unsigned round);

/* The first two CPUs this process may run on; with shared (--one-cpu), the one CPU twice when it
 * may run on one only. */
int duet_cpus(int cpu[2], int shared, char *err, size_t errlen);

struct duet_side {
	const struct runner_spec *spec;
	int cpu;
	struct runner_result r;         /* filled by duet_run; free with runner_result_free */
	struct telemetry_sample tel[2]; /* before and after the run, sampled by its helper */
	/* with spec->contain: the run's containment object as its helper's runner_containment_json
	 * made it (r.contain stays in the helper, NULL here); the caller's, NULL without */
	cJSON *containment;
	/* Called in the helper once the run has ended, with its result as runner_run left it (the
	 * tracking and containment evidence r.track and r.contain are only there): the JSON object
	 * it returns comes back in judged (the caller's; NULL when judge is NULL or returned NULL).
	 * The judgement of what only the tracer saw, such as the probe's (front/arms/probe.c, the
	 * probed kinds' hooks). */
	cJSON *(*judge)(void *ctx, const struct runner_result *r);
	void *judge_ctx;
	cJSON *judged;
	/* When duet_run refused the helper's report (not the helper's own, or not what the kernel
	 * counted: docs/programs.md, "What a program can still do"): a fixed reason; r holds what the
	 * kernel said (the helper's children's CPU time, the bench's clock, exit status 1),
	 * containment NULL, judged the run unverified for it; judge it as probed. NULL otherwise. */
	const char *refused;
};

/* The most runs duet_run starts at once. */
#define DUET_MAX_SIDES 16

/* Runs the n sides (2 to DUET_MAX_SIDES) at once, each pinned to its cpu (two sides may share
 * one); stop works as in runner_run (the helpers are told to stop). 0 with every result filled
 * (an unstarted side ends RUNNER_STOPPED), or -1 when a helper could not start or died silent. */
int duet_run(struct duet_side *side, size_t n, const volatile sig_atomic_t *stop, char *err,
             size_t errlen);

/* ---- Preload (preload.c; docs/programs.md): an allocator's shared library found the way the
 * dynamic linker would, its version, the project's own preload libraries, LD_PRELOAD composed.
 * An allocator is only ever loaded into a short-lived trial process, never into allocab. ---- */

/* What a library name or path resolves to. */
struct preload_lib {
	char path[PATH_MAX]; /* realpath of the object ld.so loads */
	char allocator[32];  /* known allocator name (common/allocknown.h) by its basename, or "" */
	char version[64];    /* the allocator's own answer (mi_version, mallctl "version",
	                        tc_version), "" if it has none */
};

/* Resolves lib (a soname searched as LD_PRELOAD searches, or a path) by a trial run of
 * `/bin/sh -c :` with LD_PRELOAD=lib:probe (probe: the path of liballocab-probe.so), whose probe
 * reports the realpath ld.so loaded and the version of an allocator serving malloc. The reason
 * is the dynamic linker's "cannot be preloaded" message when it could not load lib. */
int preload_resolve(const char *lib, const char *probe, struct preload_lib *out, char *err,
                    size_t errlen);
/* The known allocators (system first) whose Debian library resolves on this machine, as a
 * comma-separated list in buf ("system,mimalloc,jemalloc,tcmalloc"). Returns how many. */
int preload_installed(const char *probe, char *buf, size_t len);
/* Path of the project's preload library build/liballocab-NAME.so: next to the running allocab
 * executable, else in ../lib/allocab beside it (make install; common/ownlib.h). */
int preload_find_own(const char *name, char *out, size_t len, char *err, size_t errlen);
/* Joins the non-empty, non-NULL entries of v[0..n) with ':' into buf. Returns 0, or -1 when it
 * does not fit. */
int preload_join(const char *const *v, size_t n, char *buf, size_t len);

/* ---- Executable identity (exeid.c): the executable a command runs (its first word resolved as
 * the shell would), with its real path, size, modification time and an FNV-1a hash of its bytes;
 * --resume refuses a continuation whose executable changed (docs/methodology.md, "Resuming a
 * bench"). ---- */

/* {"word", "path", "size", "mtime_s", "fnv1a64"} of the executable command's first word names
 * (after NAME=VALUE assignments and `exec`), or NULL when it names none that can be read (a shell
 * builtin, a word with quotes or expansions, no such file, not a regular file). */
cJSON *exeid_json(const char *command);
/* {"path", "size", "mtime_s", "fnv1a64"} of the regular file at path (an image a run exec'd, as
 * the probe saw it), or NULL when it cannot be read or memory ran out. */
cJSON *exeid_path_json(const char *path);
/* Whether two such objects name the same executable: the same path, size and hash (a rebuild to
 * the same bytes is the same program, whatever its time); else what differs, in why ("/x/work:
 * size 16040 in the file, 16216 now"). */
int exeid_same(const cJSON *was, const cJSON *now, char *why, size_t len);

/* ---- Machine facts (facts.c): measured at a bench's start and end (docs/results-format.md,
 * "allocab-bench/1"), beside the fingerprint and not part of its id. ---- */

struct facts {
	double fault_median, fault_min, fault_max; /* CPU ns per minor fault, over the trials */
	int trials;                                /* trials that gave a cost (0: none) */
	char hypervisor[32];                       /* "KVM", "Hyper-V", ...; "" none */
	char cpu_vendor[16], cpu_model[64], kernel[128], thp[32]; /* "" when unknown */
};

/* Measures the facts now, the fault cost over `trials` mappings (at most 10; 0: no fault cost)
 * in a child process. Never fails: what cannot be read stays empty. */
void facts_measure(struct facts *f, int trials);
/* The facts as their JSON object (fault_ns, hypervisor, cpu_vendor, cpu_model, kernel, thp;
 * unknown values null). */
cJSON *facts_json(const struct facts *f);
/* Measures the facts into doc's top-level "facts" as member when ("start", "end"); keep: leaves
 * a member already there (a resumed bench's start). Out of memory, nothing is recorded. */
void facts_record(cJSON *doc, const char *when, int keep);
/* As facts_record with the facts given (NULL: measured now). */
void facts_put(cJSON *doc, const char *when, int keep, const struct facts *f);

/* ---- Leftovers (sweep.c, guard.c; docs/programs.md, "Nothing left behind"): the first contained
 * run of a bench removes what dead benches left and starts the bench's guard, which removes what
 * this one leaves if it is killed (guard.h). What a bench makes carries its pid, the owner's: its
 * runs' cgroups SWEEP_CGROUP_PREFIX<owner>.<maker>.<n> under its own (the maker: the bench or the
 * duet helper of the run), its directories in TMPDIR SWEEP_PROBE_PREFIX<owner>.XXXXXX and
 * SWEEP_PHASES_PREFIX<owner>.XXXXXX, each claimed (sweep_claim). What carries the pid of no live
 * process (in this PID namespace; a zombie is none) and no live claim is a dead bench's. ---- */
#define SWEEP_CGROUP_PREFIX "allocab-run."
#define SWEEP_PROBE_PREFIX  "allocab-probe."
#define SWEEP_PHASES_PREFIX "allocab-phases."

/* The owner named in what is made: the bench (front/proc/guard.h), else this process. */
pid_t sweep_owner(void);
/* Claims dir, just made, for this process while it lives: a shared lock (flock) on a descriptor of
 * it (O_CLOEXEC), which no later bench's sweep takes from a live owner, whatever its PID
 * namespace. Returns the descriptor (closing it lets go), or -1. */
int sweep_claim(const char *dir);
/* Where temporary directories are made: TMPDIR when it is an absolute path, else /tmp. */
const char *sweep_tmpdir(void);

/* ---- Probe records of build/liballocab-probe.so (src/preload/probe.c) for one run, in this
 * order: read (probelog.c), judged (probejudge.c: whether every process the run started ran on
 * the expected allocator, against what the tracker and containment saw), summarised
 * (probesum.c). Formats: docs/results-format.md ("Probe records"). ---- */

/* Most bytes of a record file read, more making the run unverified: 8 MiB and 16 KiB per process
 * the tracker counted (a process writes 1 to 2 KiB a record as a rule), capped at 1/32 of
 * physical memory but never below 8 MiB (docs/programs.md, "Limits"). */
#define PROBELOG_MAX_BYTES         (8u << 20)
#define PROBELOG_BYTES_PER_PROCESS (16u << 10)
size_t probelog_max_bytes(size_t processes);

/* What a run's processes must show. Extensible: zero-initialise and set what applies. */
struct probe_expect {
	const char *allocator; /* known allocator name (common/allocknown.h), or NULL */
	const char *object;    /* realpath of the object that must serve malloc, or NULL: any object
	                          of `allocator` (one of the two is set) */
	int exe_counts;        /* an executable defining the allocator itself is proof (--expect) */
	/* The bench's own shell (--cmd arms): its first image and its fork children are exempt from
	 * the allocator check, and some other image must report. 0: none. */
	pid_t launcher;
	const char *launcher_exe; /* realpath of that shell */
	/* A configured arm: every exec'ed image that does not exec again must end with an exit
	 * record holding the read-back ("configuration unchecked" otherwise). */
	int configured;
	/* The run's CPU time as wait4 gave it (user + sys of the first process and the children it
	 * waited for), for the accounting of a run without a cgroup (have_wait4 0: none). */
	int have_wait4;
	long long wait4_ns;
};

/* The accounting of a tracked run (docs/programs.md, "Accounting"): the CPU time the kernel
 * charged to the run (its cgroup's usage, else wait4's) against the sum of the CPU clocks of the
 * processes the tracker saw, each read by the tracer when it ended. It closes when the two
 * differ by at most tolerance_ns (probematch.h). */
struct probe_account {
	int checked;         /* 0: no accounting (not tracked, or no charged figure) */
	const char *charged_by; /* "cgroup" or "wait4" */
	long long charged_ns;   /* the kernel's figure */
	long long accounted_ns; /* the tracked processes' CPU clocks, summed */
	long long tolerance_ns;
	size_t processes;       /* processes summed */
	size_t unread;          /* processes whose clock was never read (counted as 0) */
};

struct probe_verdict {
	int verified;
	/* the reason is one no later run can change (docs/programs.md, "Failing loudly"): preload
	 * failed, static executable, setuid program, program links its own allocator, other
	 * allocator serves malloc */
	int deterministic;
	char reason[768];  /* one line when !verified */
	char tracking[64]; /* how the run's processes were known: ptrack_describe */
	int tracked;       /* the tracker saw every process: processes and threads are its counts */
	size_t processes; /* tracked: processes the run started; else distinct pids that reported */
	size_t threads;   /* tracked: threads the run started; else 0 */
	size_t images;    /* process images that reported (start and fork records) */
	size_t records;
	struct probe_account account;
};

/* A run's record file: an open descriptor (read with pread from offset 0, not closed), its name
 * for messages, and the most bytes read (probelog_max_bytes). */
struct probelog_src {
	int fd;
	const char *name;
	size_t max;
};

/* Reads the JSON lines of src into a cJSON array *out; lines that are not allocab-probe/1 objects
 * with distinct member names are skipped and counted in *bad (the probe writes whole lines, one
 * write each). A record's valuedouble (unused by cJSON for an object) holds its line's byte
 * offset. Fails on a file that is not regular, unreadable or over src->max bytes. */
int probelog_read_fd(const struct probelog_src *src, cJSON **out, size_t *bad, char *err,
                     size_t errlen);
/* Judges the records of run r (its first process r->pid; r->tail for the dynamic linker's "cannot
 * be preloaded" line; what the tracker, r->track, and containment, r->contain, saw, either may be
 * NULL) against e into *v. The rules and the priority of their reasons: probejudge.c. */
void probelog_judge(const cJSON *records, const struct probe_expect *e,
                    const struct runner_result *r, struct probe_verdict *v);

/* The "probe" object of a run in the results document (docs/results-format.md): the verdict, the
 * counts, the total calls with --count-calls, and at most PROBELOG_LISTED images (the busiest
 * always among them) with what their records said. e (may be NULL) marks the launcher as
 * probelog_judge does. */
#define PROBELOG_LISTED 64
cJSON *probelog_summary(const cJSON *records, const struct probe_expect *e,
                        const struct probe_verdict *v);

/* ---- Process tracking and containment as the engine asks them (ptrack.c, contain.c). ---- */

/* The tracker's mode as recorded (common/trackmode.h) into buf: "ptrace", "probe only (ptrace:
 * EPERM)", for NULL "probe only (not tracked)"; returns buf. */
const char *ptrack_describe(const struct ptrack *t, char *buf, size_t len);
/* Whether this process may trace its children: a trial attach of a child that does nothing.
 * Returns 1, or 0 with "ptrace: EPERM" (or the test hook's equivalent) in why. */
int ptrack_available(char *why, size_t len);

/* What a containment mode promises (containmode.c; docs/programs.md, "Containment"): the run's
 * processes in a cgroup of its own, emptied when it ends; every fork and exec on the machine
 * seen (the proc connector), so a process that escapes tracking is found. */
#define CONTAINMODE_CGROUP       1u
#define CONTAINMODE_SEES_ESCAPES 2u

/* Whether a recorded text is of a mode with every flag of flags (flags 0: of any mode): 0 for
 * NULL or a text no row writes. */
int containmode_has(const char *recorded, unsigned flags);
/* Whether this process can contain runs: a trial of both. Returns the mechanism's name, with what
 * is missing and why in why ("" when nothing is). */
const char *contain_available(char *why, size_t len);

#endif
