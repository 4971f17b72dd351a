/* record.c - `allocab record [-o FILE] [--] COMMAND [ARGS...]`: runs COMMAND with the recorder
 * library preloaded (docs/trace-format.md), then bundles the per-process streams it wrote into one
 * trace file, written under a temporary name and renamed into place. */
#include "front/cmd/commands.h"

#include "common/errmsg.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "common/trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RECORD_LIB_NAME "liballocab-record.so"

/* The recorder library: $ALLOCAB_RECORD_LIB, or beside the executable, or ../lib/allocab/. */
static int find_lib(char *out, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("ALLOCAB_RECORD_LIB");
	char exe[PATH_MAX], *dir;
	ssize_t n;

	if (env && *env) {
		if (access(env, R_OK) != 0)
			return errmsg_fail(err, errlen, "ALLOCAB_RECORD_LIB=%s: %s", env,
			                   strerror(errno));
		if (!realpath(env, out))
			return errmsg_fail(err, errlen, "%s: %s", env, strerror(errno));
		return 0;
	}
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		return errmsg_fail(err, errlen, "cannot find the allocab executable");
	exe[n] = '\0';
	dir = dirname(exe);
	snprintf(out, len, "%s/%s", dir, RECORD_LIB_NAME);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, len, "%s/../lib/allocab/%s", dir, RECORD_LIB_NAME);
	if (access(out, R_OK) == 0)
		return 0;
	return errmsg_fail(err, errlen, "%s not found beside %s (run make)", RECORD_LIB_NAME, dir);
}

static int run_command(char **cmd, const char *lib, const char *dir, int *status)
{
	const char *old = getenv("LD_PRELOAD");
	char *preload = NULL;
	pid_t pid;
	int ws;

	if (asprintf(&preload, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "") < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		free(preload);
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		setenv("LD_PRELOAD", preload, 1);
		setenv("ALLOCAB_RECORD_DIR", dir, 1);
		execvp(cmd[0], cmd);
		fprintf(stderr, "allocab: record: %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	free(preload);
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}

struct stream {
	char *path;
	uint64_t start;
};

static int by_start(const void *a, const void *b)
{
	const struct stream *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

struct bundle_stats {
	uint64_t blocks, procs, events, torn, unended, bad;
};

/* Copies the valid blocks of one stream to out; a torn or corrupt tail is dropped and counted. */
static int copy_stream(const char *path, FILE *out, struct bundle_stats *st)
{
	char err[512];
	struct trace_reader *r = trace_open(path, TRACE_STREAM, err, sizeof err);
	struct trace_block b;
	int rc, ended = 0;

	if (!r) {
		st->bad++;
		return 0;
	}
	while ((rc = trace_next(r, &b, err, sizeof err)) == 1) {
		if (fwrite(b.bytes, 1, b.nbytes, out) != b.nbytes) {
			trace_close(r);
			return -1;
		}
		st->blocks++;
		st->procs += b.kind == TRACE_K_PROCESS;
		st->events += b.kind == TRACE_K_EVENTS ? b.count : 0;
		ended |= b.kind == TRACE_K_END;
	}
	if (rc < 0 || trace_torn(r))
		st->torn++;
	if (!ended)
		st->unended++;
	trace_close(r);
	return 0;
}

/* The streams of dir sorted by their start time; *n gets how many. */
static struct stream *list_streams(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stream *s = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		unsigned long long pid, start;
		char tail[8];
		if (sscanf(e->d_name, "s.%llu.%llu.%3s", &pid, &start, tail) != 3 ||
		    strcmp(tail, "ats") != 0)
			continue;
		if (*n == cap) {
			struct stream *t = realloc(s, (cap = cap ? 2 * cap : 16) * sizeof *s);
			if (!t)
				break;
			s = t;
		}
		if (asprintf(&s[*n].path, "%s/%s", dir, e->d_name) < 0)
			break;
		s[(*n)++].start = start;
	}
	closedir(d);
	if (*n)
		qsort(s, *n, sizeof *s, by_start);
	return s;
}

static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

static void remove_streams(const char *dir)
{
	size_t n = 0;
	struct stream *s = list_streams(dir, &n);

	for (size_t i = 0; i < n; i++) {
		unlink(s[i].path);
		free(s[i].path);
	}
	free(s);
	rmdir(dir);
}

static int bundle(const char *dir, const char *out, struct bundle_stats *st, char *err,
                  size_t errlen)
{
	size_t n = 0;
	struct stream *s = list_streams(dir, &n);
	char tmp[PATH_MAX + 16], copy[PATH_MAX];
	uint8_t hdr[TRACE_FILE_HDR];
	FILE *f = NULL;
	int fd, rc = -1;

	snprintf(copy, sizeof copy, "%s", out);
	snprintf(tmp, sizeof tmp, "%s/.allocab-trace.XXXXXX", dirname(copy));
	if (n == 0) {
		errmsg_fail(err, errlen,
		            "the recorder wrote nothing: it was not loaded (a static or setuid "
		            "program?) or could not write to %s",
		            dir);
		goto out;
	}
	if ((fd = mkstemp(tmp)) >= 0 &&
	    (fchmod(fd, 0666 & ~current_umask()) != 0 || !(f = fdopen(fd, "wb")))) {
		close(fd);
		unlink(tmp);
		fd = -1;
	}
	if (fd < 0) {
		errmsg_fail(err, errlen, "%s: %s", out, strerror(errno));
		goto out;
	}
	trace_file_header(hdr);
	if (fwrite(hdr, 1, sizeof hdr, f) != sizeof hdr)
		goto io;
	for (size_t i = 0; i < n; i++)
		if (copy_stream(s[i].path, f, st) != 0)
			goto io;
	if (trace_write_trailer(f, st->blocks, st->procs) != 0 || fflush(f) != 0 ||
	    fsync(fileno(f)) != 0)
		goto io;
	if (fclose(f) != 0 || rename(tmp, out) != 0) {
		f = NULL;
		goto io;
	}
	f = NULL;
	rc = 0;
	goto out;
io:
	errmsg_fail(err, errlen, "%s: %s", out, strerror(errno));
	unlink(tmp);
out:
	if (f)
		fclose(f);
	for (size_t i = 0; i < n; i++) {
		unlink(s[i].path);
		free(s[i].path);
	}
	free(s);
	return rc;
}

enum { R_OUTPUT, R_HELP, R_COUNT };

static const struct opt record_opts[R_COUNT] = {
    [R_OUTPUT] = {"--output", 'o', OPT_VALUE | OPT_REPEAT | OPT_FILE, "FILE",
                  .help = "the trace file (default allocab.trace), written atomically: to a "
                          "temporary name, then renamed"},
    [R_HELP] = {"--help", 'h', OPT_REPEAT | OPT_HIDDEN, NULL, .help = NULL},
};

const struct opt_doc record_doc = {
    .prog = "allocab record",
    .synopsis = (const char *const[]){"[-o FILE] [--] COMMAND [ARGS...]", NULL},
    .about = "Runs COMMAND (found on PATH) with the allocab recorder preloaded and writes every "
             "malloc, calloc, realloc, reallocarray, free, posix_memalign, aligned_alloc, "
             "memalign, valloc and pvalloc call of every process it starts (fork, exec) to one "
             "trace file (docs/trace-format.md), for `allocab trace info` and the replay "
             "workload.\n",
    .opts = record_opts,
    .nopts = R_COUNT,
    .notes = "The recorder library is " RECORD_LIB_NAME " beside the allocab executable, or in "
             "../lib/allocab/ from it; ALLOCAB_RECORD_LIB names another. Static and setuid "
             "programs cannot be recorded (LD_PRELOAD does not reach them).\n"
             "Exit status: COMMAND's exit status (128 + signal if it was killed) once the trace "
             "is written; 127 if COMMAND cannot be run; 1 if no trace could be written; 2 bad "
             "arguments.\n",
};

/* Options up to "--" or the first positional argument, where the COMMAND starts (*first). */
static int parse_args(int argc, char **argv, const char **out, int *first, int *help)
{
	struct opt_parser p;
	const char *v;
	char err[256];
	int k;

	opt_init(&p, argc, argv, 1, record_opts, R_COUNT);
	p.help = "allocab record";
	p.dashdash = 1;
	while ((k = opt_next(&p, &v, err, sizeof err)) != OPT_DONE && k != OPT_ARG) {
		if (k == OPT_ERROR) {
			fprintf(stderr, "allocab: record: %s\n", err);
			return -1;
		}
		if (k == R_HELP) {
			*help = 1;
			return 0;
		}
		if (!*v) {
			fprintf(stderr, "allocab: record: %s: empty file name\n", opt_name(&p, k));
			return -1;
		}
		*out = v;
	}
	*first = k == OPT_ARG ? p.at : p.i;
	return 0;
}

int record_main(int argc, char **argv)
{
	const char *out = "allocab.trace", *tmpdir = getenv("TMPDIR");
	char lib[PATH_MAX], dir[PATH_MAX], err[PATH_MAX + 256];
	struct bundle_stats st = {0};
	int first = argc, status = 0, help = 0;

	if (parse_args(argc, argv, &out, &first, &help) != 0)
		return ST_USAGE;
	if (help) {
		optdoc_usage(stdout, &record_doc, NULL);
		return ST_OK;
	}
	if (first >= argc) {
		fprintf(stderr, "allocab: record: give the COMMAND to record (record --help)\n");
		return ST_USAGE;
	}
	if (find_lib(lib, sizeof lib, err, sizeof err) != 0) {
		fprintf(stderr, "allocab: record: %s\n", err);
		return ST_FAIL;
	}
	snprintf(dir, sizeof dir, "%s/allocab-record.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "allocab: record: %s: %s\n", dir, strerror(errno));
		return ST_FAIL;
	}
	signal(SIGINT, SIG_IGN);
	if (run_command(argv + first, lib, dir, &status) != 0) {
		fprintf(stderr, "allocab: record: cannot run %s: %s\n", argv[first],
		        strerror(errno));
		remove_streams(dir);
		return ST_FAIL;
	}
	if (bundle(dir, out, &st, err, sizeof err) != 0) {
		if (status == 127 && st.procs == 0) /* the command did not start; it said why */
			return rmdir(dir), 127;
		fprintf(stderr, "allocab: record: %s\n", err);
		rmdir(dir);
		return ST_FAIL;
	}
	rmdir(dir);
	fprintf(stderr,
	        "allocab: record: %llu processes, %llu events -> %s (`allocab trace info %s`)\n",
	        (unsigned long long)st.procs, (unsigned long long)st.events, out, out);
	if (st.torn || st.bad || st.unended)
		fprintf(stderr,
		        "allocab: record: warning: %llu process(es) ended without an end record "
		        "(killed, _exit or exec); %llu stream(s) had a torn or unreadable tail "
		        "(dropped)\n",
		        (unsigned long long)st.unended, (unsigned long long)(st.torn + st.bad));
	return status;
}
