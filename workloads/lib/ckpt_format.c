/* ckpt_format.c - the state dict checkpoint_write saves and its safetensors header
 * (ckpt_format.h). */
#include "workloads/lib/ckpt_format.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One block's tensors; dims are multiples of the model width (0: none). */
/* clang-format off */
static const struct {
	const char *name;
	int rows, cols;
} ck_block[] = {
	{"ln1.weight", 1, 0},      {"ln1.bias", 1, 0},       {"attn.qkv.weight", 3, 1},
	{"attn.qkv.bias", 3, 0},   {"attn.out.weight", 1, 1}, {"attn.out.bias", 1, 0},
	{"ln2.weight", 1, 0},      {"ln2.bias", 1, 0},       {"mlp.up.weight", 4, 1},
	{"mlp.up.bias", 4, 0},     {"mlp.down.weight", 1, 4}, {"mlp.down.bias", 1, 0},
};
/* clang-format on */

static const char *const ck_group[] = {"", "optimizer.exp_avg.", "optimizer.exp_avg_sq."};

/* The state dict being laid out in file order: into t (NULL: only counted), n tensors so far,
 * those of optimizer group g now. */
struct ck_layout {
	struct ck_tensor *t;
	size_t n;
	int g;
};

/* Adds tensor name (of transformer layer `layer`, -1: none) of rows x cols floats (cols 0: a
 * vector) to the layout. */
static void ck_add(struct ck_layout *lay, int layer, const char *name, int64_t rows, int64_t cols)
{
	struct ck_tensor *t = lay->t;
	size_t n = lay->n++;

	if (!t)
		return;
	if (layer >= 0)
		snprintf(t[n].name, CK_NAME_LEN, "%smodel.layers.%d.%s", ck_group[lay->g], layer,
		         name);
	else
		snprintf(t[n].name, CK_NAME_LEN, "%s%s", ck_group[lay->g], name);
	t[n].rows = rows;
	t[n].cols = cols;
	t[n].bytes = (uint64_t)rows * (uint64_t)(cols ? cols : 1) * sizeof(float);
	t[n].offset = n ? t[n - 1].offset + t[n - 1].bytes : 0;
}

size_t ck_plan(const int64_t *p, struct ck_tensor *t)
{
	int64_t d = p[P_HIDDEN];
	int groups = p[P_ADAM] ? 3 : 1;
	struct ck_layout lay = {.t = t};

	for (lay.g = 0; lay.g < groups; lay.g++) {
		ck_add(&lay, -1, "model.embed_tokens.weight", p[P_VOCAB], d);
		ck_add(&lay, -1, "model.embed_positions.weight", CK_POSITIONS, d);
		for (int l = 0; l < p[P_LAYERS]; l++)
			for (size_t k = 0; k < sizeof ck_block / sizeof ck_block[0]; k++)
				ck_add(&lay, l, ck_block[k].name, ck_block[k].rows * d,
				       ck_block[k].cols * d);
		ck_add(&lay, -1, "model.norm.weight", d, 0);
		ck_add(&lay, -1, "model.norm.bias", d, 0);
		if (p[P_LM_HEAD])
			ck_add(&lay, -1, "lm_head.weight", p[P_VOCAB], d);
	}
	return lay.n;
}

int ck_group_of(const struct ck_tensor *t)
{
	if (strncmp(t->name, ck_group[2], strlen(ck_group[2])) == 0)
		return 2;
	return strncmp(t->name, ck_group[1], strlen(ck_group[1])) == 0;
}

/* Adds item to obj under key (to an array when key is NULL); takes ownership of item either way. */
static int jadd(cJSON *obj, const char *key, cJSON *item)
{
	if (item && (key ? cJSON_AddItemToObject(obj, key, item) : cJSON_AddItemToArray(obj, item)))
		return 1;
	cJSON_Delete(item);
	return 0;
}

static cJSON *ck_entry(const struct ck_tensor *t)
{
	cJSON *e = cJSON_CreateObject(), *shape = cJSON_CreateArray(), *off = cJSON_CreateArray();
	int ok = e && shape && off && jadd(shape, NULL, cJSON_CreateNumber((double)t->rows)) &&
	         (!t->cols || jadd(shape, NULL, cJSON_CreateNumber((double)t->cols))) &&
	         jadd(off, NULL, cJSON_CreateNumber((double)t->offset)) &&
	         jadd(off, NULL, cJSON_CreateNumber((double)(t->offset + t->bytes))) &&
	         jadd(e, "dtype", cJSON_CreateString("F32"));

	if (ok) {
		ok = jadd(e, "shape", shape);
		shape = NULL;
	}
	if (ok) {
		ok = jadd(e, "data_offsets", off);
		off = NULL;
	}
	cJSON_Delete(shape);
	cJSON_Delete(off);
	if (!ok) {
		cJSON_Delete(e);
		return NULL;
	}
	return e;
}

char *ck_header(const struct ck_tensor *t, size_t n, uint64_t step, size_t *len)
{
	cJSON *root = cJSON_CreateObject(), *meta = cJSON_CreateObject();
	char stepstr[24], *text = NULL, *out = NULL;
	int ok;

	snprintf(stepstr, sizeof stepstr, "%llu", (unsigned long long)step);
	ok = root && meta && cJSON_AddStringToObject(meta, "format", "pt") &&
	     cJSON_AddStringToObject(meta, "step", stepstr);
	if (ok) {
		ok = jadd(root, "__metadata__", meta);
		meta = NULL;
	}
	for (size_t k = 0; ok && k < n; k++)
		ok = jadd(root, t[k].name, ck_entry(&t[k]));
	if (ok && (text = cJSON_PrintUnformatted(root))) {
		size_t tl = strlen(text);

		*len = (tl + 7) & ~(size_t)7;
		if ((out = malloc(*len))) {
			memcpy(out, text, tl);
			memset(out + tl, ' ', *len - tl);
		}
	}
	cJSON_free(text);
	cJSON_Delete(meta);
	cJSON_Delete(root);
	return out;
}

size_t wl_ckpt_tensor_bytes(const int64_t *p, uint64_t *bytes, size_t cap)
{
	size_t n = ck_plan(p, NULL);
	struct ck_tensor *t = calloc(n, sizeof *t);

	if (!t)
		return 0;
	ck_plan(p, t);
	for (size_t k = 0; k < n && k < cap; k++)
		bytes[k] = t[k].bytes;
	free(t);
	return n;
}

char *wl_ckpt_header(const int64_t *p, uint64_t step, size_t *len)
{
	size_t n = ck_plan(p, NULL);
	struct ck_tensor *t = calloc(n, sizeof *t);
	char *h;

	if (!t)
		return NULL;
	ck_plan(p, t);
	h = ck_header(t, n, step, len);
	free(t);
	return h;
}
