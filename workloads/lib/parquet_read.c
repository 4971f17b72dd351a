/* parquet_read.c - the column chunk readers of a parquet_load decode thread (parquet_read.h). */
#include "workloads/lib/parquet_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pq_oom(struct pq_decoder *d, size_t n, const char *what)
{
	snprintf(d->err, sizeof d->err, "out of memory allocating %zu bytes for %s", n, what);
	return -1;
}

/* Reads page pg of column c from the file: a short-lived copy of its compressed bytes (what a
 * reader gets from storage), decompressed into the column's scratch buffer. */
static int pq_load_page(struct pq_decoder *d, const struct pq_source *src, int c,
                        const struct pq_page *pg)
{
	struct wl_buf *s = &d->scratch[c];
	uint8_t *copy = malloc(pg->csize);
	size_t n;

	if (!copy)
		return pq_oom(d, pg->csize, "a compressed page");
	memcpy(copy, src->file.data.data + pg->off, pg->csize);
	s->len = 0;
	if (wl_buf_reserve(s, pg->usize) != 0) {
		free(copy);
		return pq_oom(d, pg->usize, "a decompression buffer");
	}
	n = ZSTD_decompressDCtx(d->dctx, s->data, s->cap, copy, pg->csize);
	free(copy);
	if (ZSTD_isError(n))
		return pq_zstd_fail(d->err, n, "decompression");
	if (n != pg->usize) {
		snprintf(d->err, sizeof d->err, "zstd decompression gave %zu bytes, not %zu", n,
		         pg->usize);
		return -1;
	}
	s->len = n;
	return 0;
}

static int pq_next_page(struct pq_decoder *d, const struct pq_source *src, int c)
{
	struct pq_reader *rd = &d->rd[c];
	int64_t v = (int64_t)prng_below(&rd->layout, (uint64_t)src->p[P_VARIANTS]);
	const struct pq_page *pg = pq_file_page(&src->file, c, v);

	if (pq_load_page(d, src, c, pg) != 0)
		return -1;
	rd->pos = d->scratch[c].data;
	rd->page_left = pg->rows;
	if (src->file.kind[c] == K_DICT) {
		rd->width = rd->pos[0];
		rd->bit = 0;
		rd->pos++;
	}
	return 0;
}

void pq_reader_close(struct pq_reader *rd)
{
	for (uint32_t i = 0; i < rd->ndict; i++)
		free(rd->dict[i].bytes);
	free(rd->dict);
	rd->dict = NULL;
	rd->ndict = 0;
}

int pq_reader_open(struct pq_decoder *d, const struct pq_source *src, uint64_t g, int c)
{
	struct pq_reader *rd = &d->rd[c];
	const struct pq_page *pg = pq_file_page(&src->file, c, -1);
	const uint8_t *pos;

	prng_seed(&rd->layout, ck_mix(ck_mix(src->seed, g), (uint64_t)c));
	rd->page_left = 0;
	if (src->file.kind[c] != K_DICT)
		return 0;
	if (pq_load_page(d, src, c, pg) != 0)
		return -1;
	rd->dict = malloc(pg->rows * sizeof *rd->dict);
	if (!rd->dict)
		return pq_oom(d, pg->rows * sizeof *rd->dict, "a dictionary");
	pos = d->scratch[c].data;
	for (; rd->ndict < pg->rows; rd->ndict++) {
		struct pq_dict_entry *e = &rd->dict[rd->ndict];

		memcpy(&e->len, pos, 4);
		e->bytes = malloc(e->len ? e->len : 1);
		if (!e->bytes)
			return pq_oom(d, e->len, "a dictionary value");
		memcpy(e->bytes, pos + 4, e->len);
		pos += 4 + (size_t)e->len;
	}
	return 0;
}

/* Decodes m rows of the current page of column c into a. */
static int pq_decode_rows(struct pq_decoder *d, int c, struct pq_array *a, uint32_t m)
{
	struct pq_reader *rd = &d->rd[c];
	uint64_t mask = (1ULL << rd->width) - 1;

	if (a->kind != K_STRING && a->kind != K_DICT) {
		if (wl_buf_append(&a->values, rd->pos, (size_t)m * 8) != 0)
			return pq_oom(d, a->values.len + (size_t)m * 8, "a numeric column");
		rd->pos += (size_t)m * 8;
		return 0;
	}
	if (wl_buf_reserve(&a->offsets, (size_t)m * 4) != 0)
		return pq_oom(d, a->offsets.len + (size_t)m * 4, "string offsets");
	for (uint32_t i = 0; i < m; i++) {
		const uint8_t *s;
		uint32_t len;
		int32_t end;

		if (a->kind == K_STRING) {
			memcpy(&len, rd->pos, 4);
			s = rd->pos + 4;
			rd->pos += 4 + (size_t)len;
		} else {
			uint64_t word;
			const struct pq_dict_entry *e;

			memcpy(&word, rd->pos + rd->bit / 8, 8);
			e = &rd->dict[(word >> (rd->bit % 8)) & mask];
			rd->bit += rd->width;
			s = e->bytes;
			len = e->len;
		}
		if (wl_buf_append(&a->values, s, len) != 0)
			return pq_oom(d, a->values.len + len, "string values");
		end = (int32_t)a->values.len;
		memcpy(a->offsets.data + a->offsets.len, &end, 4);
		a->offsets.len += 4;
	}
	return 0;
}

int pq_read_column(struct pq_decoder *d, const struct pq_source *src, int c, struct pq_array *a,
                   uint32_t n)
{
	static const int32_t zero;

	a->kind = src->file.kind[c];
	if ((a->kind == K_STRING || a->kind == K_DICT) && wl_buf_append(&a->offsets, &zero, 4) != 0)
		return pq_oom(d, WL_ALIGN, "a string column");
	while (n > 0) {
		uint32_t m;

		if (d->rd[c].page_left == 0 && pq_next_page(d, src, c) != 0)
			return -1;
		m = n < d->rd[c].page_left ? n : d->rd[c].page_left;
		if (pq_decode_rows(d, c, a, m) != 0)
			return -1;
		d->rd[c].page_left -= m;
		a->rows += m;
		n -= m;
	}
	if (wl_buf_shrink(&a->values) != 0 || wl_buf_shrink(&a->offsets) != 0)
		return pq_oom(d, a->values.len, "shrinking a column");
	return 0;
}
