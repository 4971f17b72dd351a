/* bundle.c - the bundler behind `allocab record` (bundle.h): the raw streams of a record directory
 * in start order, each read once to index its blocks and take its process and status blocks, then
 * merged (merge.c), given the phases it marked (marks/marks.h, rk_attribute) and ended with an end
 * block. */
#include "trace/bundle.h"

#include "common/errmsg.h"
#include "trace/trace.h"
#include "marks/marks.h"
#include "trace/merge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct stream {
	char *path;
	uint64_t start;
};

static int by_start(const void *a, const void *b)
{
	const struct stream *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The raw streams of dir sorted by their start time; *n gets how many. */
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

static void free_streams(struct stream *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].path);
	free(s);
}

int rb_remove_streams(const char *dir, struct rmtree_count *foreign)
{
	size_t n = 0;
	struct stream *s = list_streams(dir, &n);
	char marks[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < n; i++)
		unlink(s[i].path);
	free_streams(s, n);
	snprintf(marks, sizeof marks, "%s/" RB_MARKS_FILE, dir);
	if (lstat(marks, &st) == 0 && S_ISREG(st.st_mode))
		unlink(marks);
	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	return rmtree_remove(dir, foreign);
}

void rb_remove_stale(const char *tmp, FILE *msgs)
{
	DIR *d = opendir(tmp);
	struct dirent *e;
	char path[PATH_MAX], what[160];
	struct stat st;
	long pid;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct rmtree_count c = {0};

		if (sscanf(e->d_name, RB_DIR_PREFIX "%ld.", &pid) != 1 || pid <= 0 ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof path, "%s/%s", tmp, e->d_name);
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    rmtree_claimed(path))
			continue;
		if (rb_remove_streams(path, &c) == 0)
			errmsg_print(msgs, "record", "removed %s, left by allocab pid %ld, which died%s%s",
			             path, pid, c.files + c.dirs + c.links + c.others ? ": " : "",
			             c.files + c.dirs + c.links + c.others
			                 ? rmtree_describe(&c, what, sizeof what)
			                 : "");
		else
			errmsg_print(msgs, "record", "warning: cannot remove %s, left by allocab pid %ld, "
			             "which died: %s", path, pid, strerror(errno));
	}
	closedir(d);
}

/* The pid and lifetime of the image whose raw stream is at path (its process and status blocks);
 * an unreadable one holds no span. */
static void image_of(const char *path, struct rk_image *img)
{
	char err[512];
	struct trace_reader *r = trace_open(path, TRACE_STREAM, err, sizeof err);
	struct trace_block b;
	struct trace_process pr;
	uint64_t c[TRACE_END_NCOUNTERS];

	memset(img, 0, sizeof *img);
	if (!r)
		return;
	trace_compressed_only(r);
	if (trace_next(r, &b, err, sizeof err) == 1 &&
	    trace_parse_process(&b, &pr, err, sizeof err) == 0) {
		img->pid = pr.pid;
		img->start_ns = img->end_ns = pr.start_mono_ns;
		if (trace_next(r, &b, err, sizeof err) == 1 && b.kind == TRACE_K_STATUS &&
		    trace_parse_end(&b, c, err, sizeof err) == 0 &&
		    c[TRACE_END_DURATION_NS] <= UINT64_MAX - img->start_ns)
			img->end_ns = img->start_ns + c[TRACE_END_DURATION_NS];
	}
	trace_close(r);
}

static int phase_in(const struct trace_marks *m, const char *name)
{
	for (size_t i = 0; i < m->nphases; i++)
		if (strcmp(m->phase[i].name, name) == 0)
			return 1;
	return 0;
}

/* The marks of every stream (out[0..n), trace_marks_free them): marks given to their images. */
static int attribute(const struct stream *st, size_t n, const struct phasemark_set *marks,
                     struct trace_marks *out, struct rb_result *res)
{
	struct rk_image *img = calloc(n, sizeof *img);
	struct rk_left left;
	int rc;

	if (!img)
		return -1;
	for (size_t i = 0; i < n; i++)
		image_of(st[i].path, &img[i]);
	rc = rk_attribute(marks, img, n, out, &left);
	free(img);
	res->left_spans = left.no_image + left.without_pid + left.overlapping;
	res->left_overlapping = left.overlapping;
	res->left_pid = left.pid;
	res->left_without_pid = left.without_pid;
	for (size_t p = 0; rc == 0 && p < marks->nphases; p++) {
		size_t i = 0;
		while (i < n && !phase_in(&out[i], marks->phase[p].name))
			i++;
		res->marked_phases += i < n;
	}
	return rc;
}

void rb_result_free(struct rb_result *res)
{
	free(res->lost);
	res->lost = NULL;
	res->nlost = 0;
}

/* What the first pass over one raw stream found. */
struct scan {
	uint8_t *process; /* the process block as stored */
	size_t process_len;
	struct trace_process info;
	int has_status;
	uint64_t end[TRACE_END_NCOUNTERS];
	struct rm_input in;
	size_t cap;
	uint64_t torn; /* bytes after the last good block */
};

static int add_block(struct scan *s, const struct trace_block *b, uint64_t off)
{
	if (s->in.n == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 64;
		struct rm_block *t = realloc(s->in.b, ncap * sizeof *t);
		if (!t)
			return -1;
		s->in.b = t;
		s->cap = ncap;
	}
	s->in.b[s->in.n] = (struct rm_block){.off = off,
	                                     .nbytes = (uint32_t)b->nbytes,
	                                     .thread = b->thread,
	                                     .raw_len = (uint32_t)b->len,
	                                     .seq = s->in.n};
	s->in.n++;
	return 0;
}

/* Reads every block of the stream at path once: keeps its process block, its status counters and
 * the place of its events blocks; a torn or unreadable tail is measured. Returns 0, 1 when the
 * stream has no readable process block, or -1 when out of memory. */
static int scan_stream(const char *path, struct scan *s)
{
	char err[512];
	struct trace_reader *r = trace_open(path, TRACE_STREAM, err, sizeof err);
	struct trace_block b;
	struct stat st;
	uint64_t off = TRACE_FILE_HDR;
	int rc;

	if (!r)
		return 1;
	trace_compressed_only(r);
	while ((rc = trace_next(r, &b, err, sizeof err)) == 1) {
		if (b.kind == TRACE_K_PROCESS) {
			if (!(s->process = malloc(b.nbytes)) ||
			    trace_parse_process(&b, &s->info, err, sizeof err) != 0)
				break;
			memcpy(s->process, b.bytes, b.nbytes);
			s->process_len = b.nbytes;
		} else if (b.kind == TRACE_K_STATUS) {
			s->has_status = trace_parse_end(&b, s->end, err, sizeof err) == 0;
		} else if (add_block(s, &b, off) != 0) {
			trace_close(r);
			return -1;
		}
		off = trace_offset(r);
	}
	trace_close(r);
	if (stat(path, &st) == 0 && (uint64_t)st.st_size > off)
		s->torn = (uint64_t)st.st_size - off;
	return s->process_len ? 0 : 1;
}

/* How the stream ended, from its status: running means killed once its pid is gone. */
static uint64_t how_ended(const struct scan *s)
{
	uint64_t how = s->has_status ? s->end[TRACE_END_HOW] : TRACE_HOW_RUNNING;

	if (how == TRACE_HOW_RUNNING && kill((pid_t)s->info.pid, 0) != 0 && errno == ESRCH)
		how = TRACE_HOW_KILLED;
	return how;
}

static int write_end(FILE *out, const uint64_t *c)
{
	uint8_t b[TRACE_BLOCK_HDR + 4 + 8 * TRACE_END_NCOUNTERS], *p = b + TRACE_BLOCK_HDR;

	trace_put32(p, TRACE_END_NCOUNTERS);
	for (int k = 0; k < TRACE_END_NCOUNTERS; k++)
		trace_put64(p + 4 + 8 * k, c[k]);
	trace_block_header(b, TRACE_K_END, 0, 0, sizeof b - TRACE_BLOCK_HDR,
	                   sizeof b - TRACE_BLOCK_HDR, 0,
	                   trace_fnv32(p, sizeof b - TRACE_BLOCK_HDR));
	return fwrite(b, 1, sizeof b, out) == sizeof b ? 0 : -1;
}

static int note_loss(struct rb_result *res, const struct scan *s, const uint64_t *end)
{
	char why[256], exe[sizeof s->info.exe];
	struct rb_loss *t;

	res->images_exec += end[TRACE_END_HOW] == TRACE_HOW_EXEC;
	if (!trace_loss(1, end, why, sizeof why))
		return 0;
	if (!(t = realloc(res->lost, (res->nlost + 1) * sizeof *t)))
		return -1;
	res->lost = t;
	t += res->nlost++;
	memset(t, 0, sizeof *t);
	t->pid = s->info.pid;
	t->index = (size_t)res->procs;
	snprintf(exe, sizeof exe, "%s", s->info.exe);
	snprintf(t->name, sizeof t->name, "%s", *exe ? basename(exe) : "?");
	memcpy(t->end, end, sizeof t->end);
	return 0;
}

/* Writes the marks block of m, when it holds a phase. */
static int write_marks(const struct trace_marks *m, FILE *out, struct rb_result *res, char *err,
                       size_t errlen)
{
	static uint8_t block[TRACE_BLOCK_HDR + TRACE_MAX_MARKS];
	size_t n;

	if (!m || !m->nphases)
		return 0;
	if (!(n = trace_marks_block(m, block, sizeof block)))
		return errmsg_fail(err, errlen, "the marks of a process do not fit a block");
	errno = 0;
	if (fwrite(block, 1, n, out) != n)
		return errmsg_fail(err, errlen, "%s", strerror(errno ? errno : EIO));
	res->blocks++;
	res->marked_procs++;
	res->marked_spans += m->nspans;
	return 0;
}

/* Writes one process: its process block, its merged events, its marks, its end block. */
static int write_process(struct scan *s, const struct trace_marks *marks, FILE *out,
                         struct rb_result *res, char *err, size_t errlen)
{
	struct rm_output o = {.out = out};
	uint64_t end[TRACE_END_NCOUNTERS];

	errno = 0;
	if (fwrite(s->process, 1, s->process_len, out) != s->process_len)
		return errmsg_fail(err, errlen, "%s", strerror(errno ? errno : EIO));
	if (rm_merge(&s->in, &o, err, errlen) != 0 || write_marks(marks, out, res, err, errlen) != 0)
		return -1;
	memcpy(end, s->end, sizeof end);
	end[TRACE_END_HOW] = how_ended(s);
	end[TRACE_END_FOREIGN_FREES] = o.foreign;
	end[TRACE_END_MISORDERED] = o.misordered;
	end[TRACE_END_TORN_BYTES] = s->torn + o.damaged_bytes;
	errno = 0;
	if (write_end(out, end) != 0)
		return errmsg_fail(err, errlen, "%s", strerror(errno ? errno : EIO));
	res->procs++;
	res->blocks += 2 + o.blocks;
	res->events += o.events;
	res->foreign += o.foreign;
	res->misordered += o.misordered;
	if (note_loss(res, s, end) != 0)
		return errmsg_fail(err, errlen, "out of memory");
	return 0;
}

static int bundle_stream(const char *path, const struct trace_marks *marks, FILE *out,
                         struct rb_result *res, char *err, size_t errlen)
{
	struct scan s = {.in.fd = -1};
	int rc = scan_stream(path, &s);

	if (rc < 0) {
		errmsg_fail(err, errlen, "out of memory reading %s", path);
	} else if (rc > 0) {
		res->unreadable++;
		rc = 0;
	} else if ((s.in.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		res->unreadable++;
	} else {
		rc = write_process(&s, marks, out, res, err, errlen);
	}
	if (s.in.fd >= 0)
		close(s.in.fd);
	free(s.process);
	free(s.in.b);
	return rc;
}

int rb_bundle(const char *dir, const struct phasemark_set *marks, FILE *out,
              struct rb_result *res, char *err, size_t errlen)
{
	size_t n = 0;
	struct stream *s = list_streams(dir, &n);
	struct trace_marks *m = NULL;
	uint8_t hdr[TRACE_FILE_HDR];
	int rc = 0;

	memset(res, 0, sizeof *res);
	if (n == 0) {
		free(s);
		errmsg_fail(
		    err, errlen,
		    "the recorder wrote nothing: it was not loaded (a static or setuid program?) "
		    "or could not write to %s",
		    dir);
		return -2;
	}
	if (marks && marks->nspans &&
	    (!(m = calloc(n, sizeof *m)) || attribute(s, n, marks, m, res) != 0))
		rc = errmsg_fail(err, errlen, "out of memory attributing the phase marks");
	trace_file_header(hdr, TRACE_FILE_MAGIC);
	errno = 0;
	if (rc == 0 && fwrite(hdr, 1, sizeof hdr, out) != sizeof hdr)
		rc = errmsg_fail(err, errlen, "%s", strerror(errno ? errno : EIO));
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = bundle_stream(s[i].path, m ? &m[i] : NULL, out, res, err, errlen);
	errno = 0;
	if (rc == 0 && trace_write_trailer(out, res->blocks, res->procs) != 0)
		rc = errmsg_fail(err, errlen, "%s", strerror(errno ? errno : EIO));
	for (size_t i = 0; m && i < n; i++)
		trace_marks_free(&m[i]);
	free(m);
	free_streams(s, n);
	if (rc != 0)
		rb_result_free(res);
	return rc;
}
