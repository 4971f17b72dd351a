/* calibration.c - fuzz target of the calibration reader: bytes through the strict JSON loader
 * (common/jsonload.h) and calib_from_json, then a lookup in what was accepted. Built by `make
 * fuzz`; replayed over tests/fuzz/corpus/calibration in `make test`. */
#include "common/jsonload.h"
#include "front/calib/calib.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024], *text = malloc(size + 1);
	struct calib_file *c = NULL;
	cJSON *root;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	root = jl_parse("fuzz", text, size, err, sizeof err);
	if (root)
		calib_from_json(root, "fuzz", &c, err, sizeof err);
	if (c && c->n)
		calib_find(c, c->e[c->n - 1].workload, c->e[c->n - 1].phase);
	calib_file_free(c);
	cJSON_Delete(root);
	free(text);
	return 0;
}
