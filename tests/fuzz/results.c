/* results.c - fuzz target of the results reader: bytes as a file through the streaming reader
 * (rf_load, common/jsonstream.h), and in memory through the strict JSON loader (common/jsonload.h)
 * and rf_from_json, which must both accept (with the same rounds, runs and failures) or both
 * refuse, else abort; and an accepted document on through compare and every format of
 * front/export/export.h. Built by `make fuzz` with libFuzzer; replayed over tests/fuzz/corpus/results by
 * tests/fuzz/replay.c in `make test` (docs/results-format.md, "Fuzzing"). */
#include "common/jsonload.h"
#include "common/status.h"
#include "front/compare/compare.h"
#include "front/export/export.h"
#include "front/results/results.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void render(const struct cmp_report *r, const struct exporter *x)
{
	struct export_input in = {.r = r, .margin = 1.05};
	char *buf = NULL, err[256];
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);

	if (!mem)
		return;
	x->write(mem, &in, err, sizeof err);
	fclose(mem);
	free(buf);
}

/* The bytes as a regular file (an anonymous memory file) through rf_load: the document, or NULL
 * with *ran 0 when the file could not be made. */
static struct rf_doc *load_streamed(const uint8_t *data, size_t size, int *ran)
{
	int fd = memfd_create("allocab-fuzz", MFD_CLOEXEC);
	char path[64], err[1024];
	struct rf_doc *d = NULL;

	*ran = 0;
	if (fd < 0)
		return NULL;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		*ran = rf_load(path, &d, err, sizeof err) != ST_FAIL;
	}
	close(fd);
	return d;
}

/* Both readers accept or both refuse, and what they accept has the same shape. */
static void same_verdict(const struct rf_doc *s, const struct rf_doc *w)
{
	if (!s != !w ||
	    (s && (s->nrounds != w->nrounds || s->nwarmup != w->nwarmup || s->nfails != w->nfails ||
	           s->narms != w->narms || s->nwl != w->nwl))) {
		fprintf(stderr, "results fuzz: rf_load %s, rf_from_json %s\n",
		        s ? "accepts" : "refuses", w ? "accepts" : "refuses");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024], *text = malloc(size + 1);
	struct cmp_opts o = {.conf = 0.95, .seed = 1};
	struct cmp_report *r = NULL;
	struct rf_doc *d = NULL, *streamed;
	cJSON *root;
	int ran;

	if (!text)
		return 0;
	err[0] = '\0';
	streamed = load_streamed(data, size, &ran);
	memcpy(text, data, size);
	text[size] = '\0';
	root = jl_parse("fuzz", text, size, err, sizeof err);
	if (root)
		d = rf_from_json(root, "fuzz", err, sizeof err);
	/* a file of one header line and no rounds is a bench before its first round, which only
	 * the file's reader knows: as a document it lacks its rounds */
	if (ran && !strstr(err, "out of memory") &&
	    !(streamed && !streamed->nrounds && root && !cJSON_GetObjectItem(root, "rounds")))
		same_verdict(streamed, d);
	rf_free(streamed);
	if (d && cmp_build(d, NULL, &o, &r, err, sizeof err) == 0) {
		for (size_t i = 0; export_at(i); i++)
			render(r, export_at(i));
	}
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(root);
	free(text);
	return 0;
}
