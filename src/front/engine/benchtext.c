/* benchtext.c - the text of an allocab-bench/1 document as cJSON_Print writes it, with each round
 * printed once, when it ends, instead of the whole document after every round (benchdoc.h). */
#include "front/engine/benchdoc.h"

#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/utf8.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* Where the document's empty rounds array is printed: one tab deep, as cJSON_Print puts it. */
#define ROUNDS_AT "\n\t\"rounds\":\t["
/* The top-level status, likewise: one tab deep, before the value's quote. */
#define STATUS_AT "\n\t\"status\":\t\""
/* A session's status that says running: three tabs deep (the document, "sessions", the entry). */
#define SESSION_RUNNING_AT "\n\t\t\t\"status\":\t\"running\""

/* cJSON_Print of a round on its own, two levels deeper (the document's object and its rounds
 * array): two tabs after every line break (strings hold none: JSON escapes them), as the round
 * reads inside the document. */
static char *print_nested(const cJSON *round, size_t *len)
{
	char *flat = utf8_fix(cJSON_Print(round)), *out;
	size_t n, breaks = 0, k = 0;

	if (!flat)
		return NULL;
	n = strlen(flat);
	for (size_t i = 0; i < n; i++)
		breaks += flat[i] == '\n';
	if ((out = malloc(n + 2 * breaks + 1))) {
		for (size_t i = 0; i < n; i++) {
			out[k++] = flat[i];
			if (flat[i] == '\n') {
				out[k++] = '\t';
				out[k++] = '\t';
			}
		}
		out[k] = '\0';
		*len = k;
	}
	free(flat);
	return out;
}

int benchdoc_text_add(struct benchdoc_text *t, const cJSON *round)
{
	size_t len;
	char *s;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		char **r = realloc(t->round, cap * sizeof *r);
		size_t *l = r ? realloc(t->len, cap * sizeof *l) : NULL;
		if (r)
			t->round = r;
		if (!l)
			return -1;
		t->len = l;
		t->cap = cap;
	}
	if (!(s = print_nested(round, &len)))
		return -1;
	t->round[t->n] = s;
	t->len[t->n++] = len;
	return 0;
}

void benchdoc_text_free(struct benchdoc_text *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->round[i]);
	free(t->round);
	free(t->len);
	*t = (struct benchdoc_text){0};
}

/* The document without its rounds, printed (well-formed UTF-8, as every round): the rounds
 * array's items are taken off for the print and put back. */
static char *print_head(cJSON *doc)
{
	cJSON *rounds = cJSON_GetObjectItemCaseSensitive(doc, "rounds");
	cJSON *items = rounds ? rounds->child : NULL;
	char *text;

	if (rounds)
		rounds->child = NULL;
	text = utf8_fix(cJSON_Print(doc));
	if (rounds)
		rounds->child = items;
	return text;
}

int benchdoc_text_write(cJSON *doc, const struct benchdoc_text *t, const char *path,
                        long status_off[BENCHDOC_STATUS_OFFS], char *err, size_t errlen)
{
	char *head = print_head(doc), *at, *st;
	struct iovec *iov = NULL;
	size_t niov = 0, body = 0;
	int rc;

	for (size_t k = 0; k < BENCHDOC_STATUS_OFFS; k++)
		status_off[k] = -1;
	if (!head || !(at = strstr(head, ROUNDS_AT)) ||
	    !(iov = malloc((2 * t->n + 2) * sizeof *iov))) {
		free(head);
		return errmsg_fail(err, errlen, "out of memory");
	}
	at += strlen(ROUNDS_AT);
	iov[niov++] = (struct iovec){.iov_base = head, .iov_len = (size_t)(at - head)};
	for (size_t i = 0; i < t->n; i++) {
		if (i)
			iov[niov++] = (struct iovec){.iov_base = ", ", .iov_len = 2};
		iov[niov++] = (struct iovec){.iov_base = t->round[i], .iov_len = t->len[i]};
	}
	iov[niov++] = (struct iovec){.iov_base = at, .iov_len = strlen(at)};
	for (size_t i = 0; i < t->n; i++)
		body += t->len[i] + (i ? 2 : 0);
	if ((st = strstr(head, STATUS_AT)) && st < at)
		status_off[0] = (long)(st - head) + (long)strlen(STATUS_AT);
	for (char *p = head; (p = strstr(p, SESSION_RUNNING_AT)); p++)
		status_off[1] = (long)(p - head) + (long)strlen(SESSION_RUNNING_AT) -
		                (long)strlen("running\"") + (p >= at ? (long)body : 0);
	rc = atomic_writev(path, iov, niov, err, errlen);
	free(iov);
	free(head);
	return rc;
}
