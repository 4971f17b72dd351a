/* checkpoint_write.c - saving a training checkpoint: a fresh CPU copy of a transformer's state
 * dict (bimodal tensor sizes, x3 with Adam's exp_avg and exp_avg_sq), serialised safetensors-style
 * (8-byte little-endian header length, cJSON header, contiguous tensor bytes) through a 64-aligned
 * staging buffer, or assembled whole in one buffer, into a file in a private mkdtemp directory.
 * File and directory are unlinked as soon as the file is open, so not even a killed run leaves
 * them behind. */
#include "common/atomicio.h"
#include "common/prng.h"
#include "driver/workload.h"
#include "workloads/lib/ckpt_format.h"
#include "workloads/lib/wlutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

enum { PH_COPY, PH_SERIALIZE, PH_WRITE, PH_FREE };

/* clang-format off */
static const struct wl_param ck_params[] = {
	[P_LAYERS] = {"layers", "blocks", "transformer blocks, 12 tensors each (4 weights, 8 biases/norms)",
		      {2, 8, 24}, 1, 999},
	[P_HIDDEN] = {"hidden", "elements", "model width d; weights are d x d to 4d x d float32",
		      {128, 512, 512}, 16, 16384},
	[P_VOCAB] = {"vocab", "tokens",
		     "embedding rows; 50257 = GPT-2's BPE vocabulary (103 MB at d=512)",
		     {8192, 50257, 50257}, 16, 1 << 20},
	[P_LM_HEAD] = {"lm_head", "bool",
		       "1: untied output projection, a second vocab x d tensor (Llama-style); 0: tied "
		       "(GPT-2-style)",
		       {0, 0, 1}, 0, 1},
	[P_ADAM] = {"adam", "bool", "1: save Adam's exp_avg and exp_avg_sq too (x3 tensors)",
		    {1, 1, 1}, 0, 1},
	[P_CHECKPOINTS] = {"checkpoints", "count",
			   "checkpoints per run, each a fresh state-dict copy, written then freed",
			   {2, 1, 2}, 1, 1000},
	[P_STAGING] = {"staging", "bytes", "64-aligned write buffer the tensor bytes pass through",
		       {1 << 20, 1 << 20, 1 << 20}, 4096, 1 << 30},
	[P_WHOLE_FILE] = {"whole_file", "bool",
			  "1: assemble the whole file in one buffer, then write it (as "
			  "safetensors.serialize() does)",
			  {0, 0, 0}, 0, 1},
	[P_FSYNC] = {"fsync", "bool", "1: fsync the file before closing (off: CPU side only)",
		     {0, 0, 0}, 0, 1},
};
/* clang-format on */

static const char *const ck_phases[] = {"copy", "serialize", "write", "free", NULL};

/* Streaming ck_bytes: equals ck_bytes(h, every byte fed) however the bytes are split. */
struct ck_stream {
	uint64_t h;
	uint8_t tail[8];
	size_t ntail;
};

struct ck_state {
	struct ck_tensor *t;
	size_t n;
	uint64_t data_bytes;
	char *header; /* padded JSON, hlen bytes */
	size_t hlen;
	uint8_t *image; /* whole_file mode */
	uint8_t *stage;
	int fd;
	const char *tmp; /* $TMPDIR or /tmp */
	char path[PATH_MAX + 64];
};

static uint64_t ck_footprint(const int64_t *p)
{
	uint64_t d = (uint64_t)p[P_HIDDEN], v = (uint64_t)p[P_VOCAB];
	uint64_t groups = p[P_ADAM] ? 3 : 1, n = ck_plan(p, NULL);
	uint64_t elems = v * d * (p[P_LM_HEAD] ? 2 : 1) + CK_POSITIONS * d + 2 * d +
	                 (uint64_t)p[P_LAYERS] * (12 * d * d + 13 * d);
	uint64_t data = groups * elems * sizeof(float) + n * WL_ALIGN;
	/* the plan, the cJSON tree and the header text */
	uint64_t bookkeeping = n * (sizeof(struct ck_tensor) + 2048) + 65536;

	return data + bookkeeping + (p[P_WHOLE_FILE] ? data + 8 : (uint64_t)p[P_STAGING]);
}

/* Every checkpoint's state copied, serialised and written (twice through memory for whole_file). */
static double ck_work(const int64_t *p)
{
	double d = (double)p[P_HIDDEN], v = (double)p[P_VOCAB];
	double elems = v * d * (p[P_LM_HEAD] ? 2 : 1) + CK_POSITIONS * d + 2 * d +
	               (double)p[P_LAYERS] * (12 * d * d + 13 * d);
	double bytes = (p[P_ADAM] ? 3 : 1) * elems * sizeof(float);

	return (double)p[P_CHECKPOINTS] * bytes * (p[P_WHOLE_FILE] ? 3 : 2);
}

static void cks_feed(struct ck_stream *s, const uint8_t *b, size_t n)
{
	uint64_t w;

	while (s->ntail && n) {
		s->tail[s->ntail++] = *b++;
		n--;
		if (s->ntail == 8) {
			memcpy(&w, s->tail, 8);
			s->h = ck_mix(s->h, w);
			s->ntail = 0;
		}
	}
	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		s->h = ck_mix(s->h, w);
	}
	memcpy(s->tail, b, n);
	s->ntail = n;
}

static uint64_t cks_done(const struct ck_stream *s)
{
	uint64_t w = 0;

	memcpy(&w, s->tail, s->ntail);
	return ck_mix(s->h, w ^ ((uint64_t)s->ntail << 56));
}

/* Fills a tensor as the device-to-host copy would: every page written. The contents are a 4 KiB
 * random pattern, repeated; optimizer state is small, exp_avg_sq non-negative. */
static void ck_fill(struct ck_tensor *t, int group, struct prng *rng)
{
	static const float scale[] = {0x1p-36f, 0x1p-41f, 0x1p-51f};
	size_t pat = t->bytes < 4096 ? (size_t)t->bytes : 4096;
	float *f = (float *)t->data;

	for (size_t k = 0; k < pat / sizeof(float); k += 2) {
		uint64_t v = prng_next(rng);
		int32_t a = (int32_t)(uint32_t)v, b = (int32_t)(uint32_t)(v >> 32);

		f[k] = (float)(group == 2 ? a & INT32_MAX : a) * scale[group];
		if (k + 1 < pat / sizeof(float))
			f[k + 1] = (float)(group == 2 ? b & INT32_MAX : b) * scale[group];
	}
	for (size_t done = pat; done < t->bytes; done *= 2)
		memcpy(t->data + done, t->data, t->bytes - done < done ? t->bytes - done : done);
}

/* Copies n bytes through the staging buffer, writing and hashing it whenever it fills. */
static int ck_stage(struct ck_state *st, size_t cap, size_t *used, const uint8_t *src, size_t n,
                    struct ck_stream *ck)
{
	while (n) {
		size_t take = cap - *used < n ? cap - *used : n;

		memcpy(st->stage + *used, src, take);
		*used += take;
		src += take;
		n -= take;
		if (*used == cap) {
			cks_feed(ck, st->stage, cap);
			if (write_full(st->fd, st->stage, cap) != 0)
				return -1;
			*used = 0;
		}
	}
	return 0;
}

static int ck_write_staged(struct ck_state *st, size_t cap, const uint8_t *prefix,
                           struct ck_stream *ck)
{
	size_t used = 0;

	if (ck_stage(st, cap, &used, prefix, 8, ck) ||
	    ck_stage(st, cap, &used, (const uint8_t *)st->header, st->hlen, ck))
		return -1;
	for (size_t k = 0; k < st->n; k++)
		if (ck_stage(st, cap, &used, st->t[k].data, st->t[k].bytes, ck))
			return -1;
	cks_feed(ck, st->stage, used);
	return write_full(st->fd, st->stage, used);
}

/* The whole file image: length prefix, header, every tensor. */
static void ck_assemble(struct ck_state *st, const uint8_t *prefix)
{
	uint8_t *o = st->image;

	memcpy(o, prefix, 8);
	memcpy(o + 8, st->header, st->hlen);
	o += 8 + st->hlen;
	for (size_t k = 0; k < st->n; k++)
		memcpy(o + st->t[k].offset, st->t[k].data, st->t[k].bytes);
}

/* Frees the state-dict copy and every buffer of the current checkpoint. */
static void ck_free_buffers(struct ck_state *st)
{
	for (size_t k = 0; st->t && k < st->n; k++) {
		free(st->t[k].data);
		st->t[k].data = NULL;
	}
	free(st->header);
	free(st->image);
	free(st->stage);
	st->header = NULL;
	st->image = NULL;
	st->stage = NULL;
}

static void ck_close(struct ck_state *st)
{
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
}

/* Creates the checkpoint file in a fresh mkdtemp directory, then removes both names at once:
 * the file's data lives until close, and a run killed mid-write leaves nothing behind. */
static int ck_create(struct wl_ctx *ctx, struct ck_state *st, uint64_t step)
{
	char dir[PATH_MAX];
	int e;

	snprintf(dir, sizeof dir, "%s/allocab-ckpt-XXXXXX", st->tmp);
	if (!mkdtemp(dir))
		return wl_fail(ctx, "cannot create a temporary directory in %s: %s", st->tmp,
		               strerror(errno));
	snprintf(st->path, sizeof st->path, "%s/checkpoint-%llu.safetensors", dir,
	         (unsigned long long)step);
	st->fd = open(st->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	e = errno;
	if (st->fd >= 0)
		unlink(st->path);
	rmdir(dir);
	if (st->fd < 0)
		return wl_fail(ctx, "cannot create %s: %s", st->path, strerror(e));
	return 0;
}

static int ck_io_fail(struct wl_ctx *ctx, struct ck_state *st, const char *what)
{
	return wl_fail(ctx, "cannot %s %s: %s", what, st->path, strerror(errno ? errno : EIO));
}

/* Writes prefix, header and tensors into the open file, hashing what it writes. */
static int ck_write_file(struct wl_ctx *ctx, struct ck_state *st, const uint8_t *prefix,
                         struct ck_stream *ck)
{
	size_t cap = (size_t)ctx->p[P_STAGING];
	uint64_t file = 8 + st->hlen + st->data_bytes;
	struct stat sb;

	errno = 0;
	if (st->image) {
		cks_feed(ck, st->image, file);
		if (write_full(st->fd, st->image, file) != 0)
			return ck_io_fail(ctx, st, "write");
	} else {
		if (!(st->stage = wl_aligned_alloc(cap)))
			return wl_fail(
			    ctx, "out of memory allocating %zu bytes for the staging buffer", cap);
		if (ck_write_staged(st, cap, prefix, ck) != 0)
			return ck_io_fail(ctx, st, "write");
	}
	if (ctx->p[P_FSYNC] && fsync(st->fd) != 0)
		return ck_io_fail(ctx, st, "fsync");
	if (fstat(st->fd, &sb) != 0)
		return ck_io_fail(ctx, st, "stat");
	if ((uint64_t)sb.st_size != file)
		return wl_fail(ctx, "%s has %lld bytes, expected %llu", st->path,
		               (long long)sb.st_size, (unsigned long long)file);
	return 0;
}

/* One checkpoint: copy the state dict, serialise, write, free. */
static int ck_checkpoint(struct wl_ctx *ctx, struct ck_state *st, uint64_t step, struct prng *rng,
                         uint64_t *h)
{
	struct ck_stream ck = {*h, {0}, 0};
	uint64_t file;
	uint8_t prefix[8];
	int rc;

	wl_phase_begin(ctx, PH_COPY);
	for (size_t k = 0; k < st->n; k++) {
		struct ck_tensor *t = &st->t[k];

		if (!(t->data = wl_aligned_alloc(t->bytes))) {
			wl_phase_end(ctx, PH_COPY);
			return wl_fail(ctx, "out of memory allocating %llu bytes for tensor %s",
			               (unsigned long long)t->bytes, t->name);
		}
		ck_fill(t, ck_group_of(t), rng);
	}
	wl_phase_end(ctx, PH_COPY);

	wl_phase_begin(ctx, PH_SERIALIZE);
	st->header = ck_header(st->t, st->n, step, &st->hlen);
	file = 8 + st->hlen + st->data_bytes;
	for (int k = 0; k < 8; k++)
		prefix[k] = (uint8_t)((uint64_t)st->hlen >> (8 * k));
	if (st->header && ctx->p[P_WHOLE_FILE] && (st->image = wl_aligned_alloc(file)))
		ck_assemble(st, prefix);
	wl_phase_end(ctx, PH_SERIALIZE);
	if (!st->header)
		return wl_fail(ctx, "out of memory building the header of %zu tensors", st->n);
	if (ctx->p[P_WHOLE_FILE] && !st->image)
		return wl_fail(ctx, "out of memory allocating %llu bytes for the file image",
		               (unsigned long long)file);

	wl_phase_begin(ctx, PH_WRITE);
	rc = ck_create(ctx, st, step);
	if (rc == 0)
		rc = ck_write_file(ctx, st, prefix, &ck);
	wl_phase_end(ctx, PH_WRITE);
	if (rc != 0)
		return -1;
	*h = cks_done(&ck);
	ck_close(st); /* drops the page cache of the removed file: kernel work, not timed */

	wl_phase_begin(ctx, PH_FREE);
	ck_free_buffers(st);
	wl_phase_end(ctx, PH_FREE);
	return 0;
}

/* Picks $TMPDIR (or /tmp) and checks that a checkpoint of `need` bytes fits there. */
static int ck_tmpdir(struct wl_ctx *ctx, struct ck_state *st, uint64_t need)
{
	struct statvfs vfs;

	st->tmp = getenv("TMPDIR");
	if (!st->tmp || !*st->tmp)
		st->tmp = "/tmp";
	if (strlen(st->tmp) > PATH_MAX - 64)
		return wl_fail(ctx, "temporary directory path too long: %s", st->tmp);
	if (statvfs(st->tmp, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < need)
		return wl_fail(ctx, "%s has %llu bytes free, a checkpoint needs %llu", st->tmp,
		               (unsigned long long)vfs.f_bavail * vfs.f_frsize,
		               (unsigned long long)need);
	return 0;
}

static int ck_run(struct wl_ctx *ctx, uint64_t *checksum)
{
	struct ck_state st = {.fd = -1};
	struct prng rng;
	uint64_t h = 0;
	int rc = 0;

	prng_seed(&rng, ctx->seed);
	st.n = ck_plan(ctx->p, NULL);
	if (!(st.t = calloc(st.n, sizeof *st.t)))
		return wl_fail(ctx, "out of memory allocating %zu bytes for the tensor list",
		               st.n * sizeof *st.t);
	ck_plan(ctx->p, st.t);
	st.data_bytes = st.t[st.n - 1].offset + st.t[st.n - 1].bytes;
	rc = ck_tmpdir(ctx, &st, st.data_bytes + (uint64_t)st.n * 256);
	for (int64_t c = 0; rc == 0 && c < ctx->p[P_CHECKPOINTS]; c++)
		rc = ck_checkpoint(ctx, &st, (uint64_t)c + 1, &rng, &h);
	ck_free_buffers(&st);
	ck_close(&st);
	free(st.t);
	if (rc == 0)
		*checksum = h;
	return rc;
}

const struct workload wl_checkpoint_write = {
    .name = "checkpoint_write",
    .description = "safetensors checkpoint of a transformer + Adam state via staging buffers",
    .params = ck_params,
    .nparams = sizeof ck_params / sizeof ck_params[0],
    .phases = ck_phases,
    .flags = WL_SINGLE_THREADED,
    .footprint = ck_footprint,
    .work = ck_work,
    .check = NULL,
    .run = ck_run,
};
