/* ckpt_format.h - what the checkpoint_write workload saves: the parameter indices, the state
 * dict of a transformer laid out in file order (each tensor's name, shape and offset), and its
 * safetensors header. Private to workloads/checkpoint_*.c. */
#ifndef ALLOCAB_CKPT_FORMAT_H
#define ALLOCAB_CKPT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define CK_POSITIONS 1024 /* learned position embeddings, GPT-2's context length */
#define CK_NAME_LEN  96

/* Indices into checkpoint_write's parameter table. */
enum {
	P_LAYERS,
	P_HIDDEN,
	P_VOCAB,
	P_LM_HEAD,
	P_ADAM,
	P_CHECKPOINTS,
	P_STAGING,
	P_WHOLE_FILE,
	P_FSYNC
};

/* One tensor of the state dict: its name, shape, place in the file's data and, once the
 * workload copied it, its bytes. */
struct ck_tensor {
	char name[CK_NAME_LEN];
	int64_t rows, cols; /* cols == 0: a vector of rows elements */
	uint64_t offset, bytes;
	uint8_t *data;
};

/* Lays out the state dict of the parameters p (in table order) in file order into t (if not
 * NULL; data left NULL); returns the tensor count. */
size_t ck_plan(const int64_t *p, struct ck_tensor *t);

/* The optimizer group of a laid-out tensor: 0 the model, 1 exp_avg, 2 exp_avg_sq. */
int ck_group_of(const struct ck_tensor *t);

/* The safetensors header for tensors t[0..n): JSON padded with spaces to a multiple of 8 bytes.
 * Returns a malloc'd buffer of *len bytes (not NUL-terminated) the caller frees, or NULL when out
 * of memory. cJSON's own allocations go through malloc too, as in any serialiser. */
char *ck_header(const struct ck_tensor *t, size_t n, uint64_t step, size_t *len);

/* Test hooks: the tensor sizes in file order and the header for checkpoint `step`, for
 * parameters p in table order, without allocating any tensor. */
size_t wl_ckpt_tensor_bytes(const int64_t *p, uint64_t *bytes, size_t cap);
char *wl_ckpt_header(const int64_t *p, uint64_t step, size_t *len);

#endif
