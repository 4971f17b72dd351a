/* grid.c - tables and prose of the text formats (exportint.h): a grid as aligned columns that
 * fit a terminal (split into parts that repeat the key columns when it is too wide, as git and
 * cargo do), as a markdown table, and a line of prose wrapped at a width. */
#include "front/export/exportint.h"

#include <stdlib.h>
#include <string.h>

#define GAP 2 /* spaces between two columns */

size_t export_text_width(const char *s)
{
	size_t n = export_text_len(s);

	for (; *s; s++)
		n -= ((unsigned char)*s & 0xC0) == 0x80;
	return n;
}

/* Whether line i says nothing in the columns cols[keys..n) but that it is shown elsewhere: each
 * cell "-" or "(... see there)", one at least the latter, whose text goes to *where. */
static int elsewhere_only(const struct export_grid *g, size_t i, const size_t *cols, size_t n,
                          const char **where)
{
	const char *seen = NULL;

	for (size_t k = g->keys; k < n; k++) {
		const char *cell = g->c[i * g->cols + cols[k]];
		size_t len = strlen(cell);
		if (cell[0] == '(' && len > 10 && strcmp(cell + len - 10, "see there)") == 0)
			seen = cell;
		else if (strcmp(cell, "-") != 0)
			return 0;
	}
	*where = seen;
	return seen != NULL;
}

/* How print_part prints its columns. */
enum part_flags {
	PART_TAIL = 1 << 0,  /* the last column under its row */
	PART_SPLIT = 1 << 1, /* a part of a split grid */
};

/* The columns cols[0..n) of g as aligned columns, header first; with PART_TAIL, the column
 * cols[n - 1] goes under its row instead, as "    HEADER: CELL" (skipped for "-"), so that a
 * group too wide for the width keeps its cells with their row. A line of a part of a split grid
 * (PART_SPLIT) that has nothing here but "(... see there)" is left out, and the count said
 * once. */
static void print_part(FILE *out, const struct export_grid *g, const size_t *w, const size_t *cols,
                       size_t n, unsigned flags)
{
	int tail = flags & PART_TAIL, part = flags & PART_SPLIT;
	size_t m = tail ? n - 1 : n, t = cols[n - 1], left = 0;
	const char *where = NULL;

	for (size_t i = 0; i < g->rows; i++) {
		const char *last = g->c[i * g->cols + t];
		if (part && i > 0 && elsewhere_only(g, i, cols, n, &where)) {
			left++;
			continue;
		}
		for (size_t k = 0; k < m; k++) {
			size_t j = cols[k];
			const char *cell = g->c[i * g->cols + j];
			size_t pad = w[j] - export_text_width(cell);
			int right = g->right >> j & 1;
			fprintf(out, "%*s%*s", k ? GAP : 0, "", right ? (int)pad : 0, "");
			export_text(out, cell, 0);
			fprintf(out, "%*s", right || k + 1 == m ? 0 : (int)pad, "");
		}
		fputs("\n", out);
		if (tail && i > 0 && strcmp(last, "-") != 0) {
			fputs("    ", out);
			export_text(out, g->c[t], 0);
			fputs(": ", out);
			export_text(out, last, 0);
			fputs("\n", out);
		}
	}
	if (left) {
		fprintf(out, "%zu more line%s here: ", left, left == 1 ? "" : "s");
		export_text(out, where, 0);
		fputs("\n", out);
	}
}

/* The end of the group that starts at column j: the next start, or the last column. */
static size_t group_end(const struct export_grid *g, size_t j)
{
	size_t k = j + 1;

	while (k < g->cols && !(g->groups >> k & 1))
		k++;
	return k;
}

void export_print_grid(FILE *out, const struct export_grid *g, size_t width)
{
	size_t w[EXPORT_GRID_MAXCOL] = {0}, cols[EXPORT_GRID_MAXCOL];
	size_t keys = g->keys < g->cols ? g->keys : 0, keyw = 0, total = 0, next = keys;

	for (size_t i = 0; i < g->rows; i++)
		for (size_t j = 0; j < g->cols; j++)
			if (export_text_width(g->c[i * g->cols + j]) > w[j])
				w[j] = export_text_width(g->c[i * g->cols + j]);
	for (size_t j = 0; j < g->cols; j++) {
		total += (j ? GAP : 0) + w[j];
		cols[j] = j;
	}
	if (!width || total <= width) {
		print_part(out, g, w, cols, g->cols, 0);
		return;
	}
	for (size_t j = 0; j < keys; j++)
		keyw += (j ? GAP : 0) + w[j];
	for (int part = 0; next < g->cols; part++) {
		size_t n = keys, used = keyw;
		int tail = 0;
		while (next < g->cols) {
			size_t end = group_end(g, next), gw = 0, lw = 0;
			for (size_t j = next; j < end; j++)
				gw += (n + j - next ? GAP : 0) + w[j];
			if (used + gw > width && n > keys)
				break;
			/* a group too wide on its own: its last column under the row, the rest whole */
			lw = end - next > 1 ? GAP + w[end - 1] : 0;
			if (used + gw > width && lw && used + gw - lw <= width) {
				for (; next < end; next++)
					cols[n++] = next;
				tail = 1;
				break;
			}
			/* a column wider than the width beside the keys: under its row */
			if (n == keys && used + GAP + w[next] > width) {
				cols[n++] = next++;
				tail = 1;
				break;
			}
			for (; next < end && used + GAP + w[next] <= width; next++) {
				used += (n ? GAP : 0) + w[next];
				cols[n++] = next;
			}
			if (next < end)
				break;
		}
		if (part)
			fputs("\n", out);
		print_part(out, g, w, cols, n, (tail ? PART_TAIL : 0) | PART_SPLIT);
	}
}

void export_print_md(FILE *out, const struct export_grid *g)
{
	for (size_t i = 0; i < g->rows; i++) {
		for (size_t j = 0; j < g->cols; j++) {
			fprintf(out, "| ");
			export_text(out, g->c[i * g->cols + j], EXPORT_TEXT_MD | EXPORT_TEXT_CELL);
			fprintf(out, " ");
		}
		fprintf(out, "|\n");
		for (size_t j = 0; i == 0 && j < g->cols; j++)
			fprintf(out, "|%s%s", (g->right >> j & 1) ? "---:" : "---",
			        j + 1 == g->cols ? "|\n" : "");
	}
}

/* The bytes of the word at s (up to a space or the end). */
static size_t word_len(const char *s)
{
	return strcspn(s, " ");
}

void export_wrap(FILE *out, const char *first, const char *cont, const char *text, size_t width)
{
	size_t col = export_text_width(first), indent = export_text_width(cont);
	int fresh = 1;
	char word[4096];

	fputs(first, out);
	while (*text) {
		size_t n = word_len(text), ww;
		if (n >= sizeof word)
			n = sizeof word - 1;
		memcpy(word, text, n);
		word[n] = '\0';
		ww = export_text_width(word);
		if (!fresh && width && col + 1 + ww > width) {
			fprintf(out, "\n%s", cont);
			col = indent;
			fresh = 1;
		}
		if (!fresh) {
			fputc(' ', out);
			col++;
		}
		export_text(out, word, 0);
		col += ww;
		fresh = 0;
		text += n;
		while (*text == ' ')
			text++;
	}
	fputs("\n", out);
}

void export_prose(FILE *out, const char *text, int md, size_t width)
{
	if (md) {
		export_text(out, text, EXPORT_TEXT_MD);
		fputs("\n", out);
	} else {
		export_wrap(out, "", "  ", text, width);
	}
}
