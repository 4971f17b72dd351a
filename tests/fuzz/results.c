/* results.c - fuzz target of the results reader: bytes as a file through the streaming reader
 * (rf_load, common/jsonstream.h), and in memory through the strict JSON loader (common/jsonload.h)
 * and rf_from_json, and an accepted document on through compare and its table and JSON reports. Built by `make fuzz` with libFuzzer; replayed over tests/fuzz/corpus/results
 * by tests/fuzz/replay.c in `make test` (docs/results-format.md, "Fuzzing"). */
#include "common/jsonload.h"
#include "front/analysis/compare.h"
#include "front/analysis/report.h"
#include "front/analysis/resfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void render(const struct cmp_report *r, enum report_format f)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);

	if (!mem)
		return;
	report_write(mem, r, f);
	fclose(mem);
	free(buf);
}

/* The bytes as a regular file (an anonymous memory file) through rf_load. */
static void load_streamed(const uint8_t *data, size_t size)
{
	int fd = memfd_create("allocab-fuzz", MFD_CLOEXEC);
	char path[64], err[1024];
	struct rf_doc *d = NULL;

	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		rf_load(path, &d, err, sizeof err);
		rf_free(d);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024], *text = malloc(size + 1);
	struct cmp_opts o = {.conf = 0.95, .seed = 1};
	struct cmp_report *r = NULL;
	struct rf_doc *d = NULL;
	cJSON *root;

	if (!text)
		return 0;
	load_streamed(data, size);
	memcpy(text, data, size);
	text[size] = '\0';
	root = jl_parse("fuzz", text, size, err, sizeof err);
	if (root)
		d = rf_from_json(root, "fuzz", err, sizeof err);
	if (d && cmp_build(d, NULL, &o, &r, err, sizeof err) == 0) {
		render(r, REPORT_TABLE);
		render(r, REPORT_JSON);
	}
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(root);
	free(text);
	return 0;
}
